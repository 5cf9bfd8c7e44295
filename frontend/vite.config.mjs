// Builds the Vue pages (frontend/app/*.html, one per person) into frontend/dist/ for the site server and S3/CloudFront.
import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import vue from "@vitejs/plugin-vue";
import { defineConfig } from "vite";

const here = dirname(fileURLToPath(import.meta.url));
const app = join(here, "app");
const out = join(here, "dist");

// Scripts written into a page where it says <!-- inline: name.js -->: early-score.js starts the table page's reads
// while its app is still downloading (a file of its own would cost one more round trip first). The site's CSP
// allows each by its hash (chalicelib/security_headers.py hashes the built pages' inline scripts).
function inlineScripts() {
  return {
    name: "inline-scripts",
    transformIndexHtml: {
      order: "post",
      handler: (html) => html.replace(/<!-- inline: ([\w-]+\.js) -->/g, (_, f) =>
        `<script>${readFileSync(join(here, f), "utf8").replace(/^\/\/.*\n/gm, "")}</script>`),
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

// Each page carries only the words it can show: the console's (a third of every catalog, and growing) only in the
// console, and the console (zh-CN and en) no Vietnamese.
function catalogsFor(page) {
  const consolePage = page === "organiser.html";
  return {
    name: "catalogs-for-the-page",
    enforce: "pre",
    transform(code, id) {
      const m = /[\\/]locales[\\/]([\w-]+)\.json$/.exec(id);
      if (!m) return null;
      const words = JSON.parse(code);
      if (consolePage && m[1] === "vi") return { code: "{}", map: null };
      if (!consolePage) delete words.console;
      return { code: JSON.stringify(words), map: null };
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

// One bundle per page: each page serves a different person (a player at a table, a participant registering, the
// organiser), who opens it cold on a phone. A page's own JavaScript and CSS in one file each means the fewest round
// trips (each ~0.56 s on "Fast 3G") and no bytes of other pages' components; nothing is lost in caching, since one
// person rarely opens two of these pages. frontend/build.mjs builds them one after the other.
export function pageConfig(page, { first, logLevel }) {
  return defineConfig({
    configFile: false,
    root: app,
    base: "./",
    publicDir: false,
    logLevel,
    plugins: [vantIconFont(), routesForTheBrowser(), catalogsFor(page), vue(), inlineScripts()],
    define: {
      __VUE_OPTIONS_API__: "false",
      __VUE_PROD_DEVTOOLS__: "false",
      __VUE_PROD_HYDRATION_MISMATCH_DETAILS__: "false",
      __INTLIFY_PROD_DEVTOOLS__: "false",
      __INTLIFY_JIT_COMPILATION__: "true",   // messages interpreted, never eval'd: no 'unsafe-eval' under CSP
    },
    build: {
      outDir: out,
      emptyOutDir: first,
      target: "es2017",      // WeChat's in-app browser (X5 / recent WebView) and older Android phones
      // every browser the pages support preloads modules itself: the polyfill would be one more request
      modulePreload: { polyfill: false },
      rolldownOptions: { input: { [page.replace(/\.html$/, "")]: resolve(app, page) } },
    },
  });
}

// After the last page: the gzipped copies.
export function finish() {
  precompress().closeBundle();
}

// The table page last: scripts/site_build.py takes its age as the build's.
export const pages = readdirSync(app).filter((f) => f.endsWith(".html")).sort((a, b) => (a === "score.html") - (b === "score.html"));
