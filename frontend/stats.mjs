// What is in a page's bundle: each chunk's size (minified, gzipped) and the modules in it by rendered size, grouped
// by package. Usage: node frontend/stats.mjs [score.html] — builds that page into a scratch folder (frontend/dist is
// left as it is). For finding what the first screen carries that it does not draw (see shared/later.js).
import { gzipSync } from "node:zlib";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "vite";
import { pageConfig } from "./vite.config.mjs";

const page = process.argv[2] || "score.html";
const cfg = pageConfig(page, { first: false, logLevel: "warn" });
cfg.build.outDir = mkdtempSync(join(tmpdir(), "bundle-stats-"));
cfg.build.emptyOutDir = true;
cfg.plugins.push({
  name: "bundle-stats",
  generateBundle(_, bundle) {
    for (const [file, c] of Object.entries(bundle)) {
      if (c.type !== "chunk") continue;
      console.log(`${file}  ${(c.code.length / 1024).toFixed(1)} KB, ${(gzipSync(c.code, { level: 9 }).length / 1024).toFixed(1)} KB gzipped`);
      const by = {};
      for (const [id, m] of Object.entries(c.modules)) {
        const group = id.includes("node_modules")
          ? id.replace(/.*node_modules\//, "").replace(/^(@[^/]+\/[^/]+|[^/]+)\/(es\/)?([^/]+).*/, "$1/$3")
          : id.replace(/.*\/src\//, "src/").replace(/\?.*/, "");
        by[group] = (by[group] || 0) + m.renderedLength;
      }
      for (const [g, n] of Object.entries(by).sort((a, b) => b[1] - a[1]).filter(([, n]) => n > 0)) {
        console.log(`  ${String(n).padStart(8)}  ${g}`);
      }
    }
  },
});
await build(cfg);
