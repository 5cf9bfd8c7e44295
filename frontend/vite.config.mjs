// Builds the Vue pages (frontend/app/*.html, one per person) into frontend/dist/ for the site server and S3/CloudFront.
import { copyFileSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import vue from "@vitejs/plugin-vue";
import { defineConfig } from "vite";

const here = dirname(fileURLToPath(import.meta.url));
const app = join(here, "app");
const out = join(here, "dist");
const pages = readdirSync(app).filter((f) => f.endsWith(".html"));

// Two plain scripts beside the pages: config.js says where the API is (the site server answers it itself, a
// deployment writes its own), early-score.js starts the table page's reads before its app has downloaded.
function plainScripts() {
  return {
    name: "plain-scripts",
    closeBundle() {
      mkdirSync(out, { recursive: true });
      for (const f of ["config.js", "early-score.js"]) copyFileSync(join(here, f), join(out, f));
    },
  };
}

// Vant's icon font comes inlined in its CSS (45 KB of base64, most of the CSS a page blocks on) with a fallback on
// a CDN the hall may not reach. Here it becomes its own file, fetched only when an icon is drawn.
function vantIconFont() {
  const cache = join(here, "node_modules-cache");
  return {
    name: "vant-icon-font",
    enforce: "pre",
    transform(code, id) {
      if (!/vant[\\/]es[\\/]icon[\\/]index\.css$/.test(id)) return null;
      const m = /url\(data:font\/woff2;charset=utf-8;base64,([A-Za-z0-9+/=]+)\) format\("woff2"\)/.exec(code);
      if (!m) return null;
      mkdirSync(cache, { recursive: true });
      writeFileSync(join(cache, "vant-icon.woff2"), Buffer.from(m[1], "base64"));
      const rel = relative(dirname(id), join(cache, "vant-icon.woff2")).split("\\").join("/");
      // the whole src list (the data URL holds a ';', so match up to the @font-face block's closing brace)
      return code.replace(/src:url\(data:font\/woff2[^}]*/, `src:url("${rel}") format("woff2")`);
    },
  };
}

// The route list ships with the method and path of each route only; the fields it names are for the contract test.
function routesForTheBrowser() {
  return {
    name: "routes-for-the-browser",
    enforce: "pre",
    transform(code, id) {
      if (!id.endsWith(join("shared", "routes.json"))) return null;
      const slim = Object.fromEntries(Object.entries(JSON.parse(code)).map(([k, r]) => [k, { method: r.method, path: r.path, idempotent: r.idempotent }]));
      return { code: JSON.stringify(slim), map: null };
    },
  };
}

// Files served gzipped as CloudFront does: the local site server sends page.js.gz for page.js when asked.
function precompress() {
  return {
    name: "precompress",
    closeBundle() {
      const walk = (dir) => readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? walk(join(dir, f)) : [join(dir, f)]));
      for (const f of walk(out).filter((x) => /\.(html|js|css|svg)$/.test(x))) writeFileSync(`${f}.gz`, gzipSync(readFileSync(f), { level: 9 }));
    },
  };
}

export default defineConfig({
  root: app,
  base: "./",
  publicDir: false,
  plugins: [vantIconFont(), routesForTheBrowser(), vue(), plainScripts(), precompress()],
  define: {
    __VUE_OPTIONS_API__: "false",
    __VUE_PROD_DEVTOOLS__: "false",
    __VUE_PROD_HYDRATION_MISMATCH_DETAILS__: "false",
    __INTLIFY_PROD_DEVTOOLS__: "false",
    __INTLIFY_JIT_COMPILATION__: "true",   // messages interpreted, never eval'd: no 'unsafe-eval' under CSP
  },
  build: {
    outDir: out,
    emptyOutDir: true,
    target: "es2017",      // WeChat's in-app browser (X5 / recent WebView) and older Android phones
    rolldownOptions: {
      input: Object.fromEntries(pages.map((f) => [f.replace(/\.html$/, ""), resolve(app, f)])),
      // Few requests on a slow hall network: Vue, Vant, vue-i18n and the shared code in one cached chunk,
      // then one chunk per page (each round trip costs ~0.5 s on "Fast 3G").
      output: { codeSplitting: { groups: [{ name: "vendor", test: /[\\/](node_modules|shared)[\\/]/, minShareCount: 2 }] } },
    },
  },
});
