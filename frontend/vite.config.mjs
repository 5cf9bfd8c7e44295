// Builds the Vue pages (frontend/app/*.html, one per person) into frontend/dist/ for the site server and S3/CloudFront.
import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { baseCompile } from "@intlify/message-compiler";
import vue from "@vitejs/plugin-vue";
import { defineConfig } from "vite";
import { generateSW } from "workbox-build";

const here = dirname(fileURLToPath(import.meta.url));
const app = join(here, "app");
const out = join(here, "dist");

// Scripts written into a page where it says <!-- inline: name.js -->: early-lang.js (every page) starts the download
// of the page's words in its language, early-score.js the table page's reads, while the app is still downloading (a
// file of their own would cost one more round trip first). The site's CSP allows each by its hash
// (chalicelib/security_headers.py hashes the built pages' inline scripts). <!-- catalogs --> becomes the page's
// catalog chunks, one <meta name="catalog"> per language, the default first, for early-lang.js and shared/i18n.js.
function inlineScripts(page) {
  return {
    name: "inline-scripts",
    transformIndexHtml: {
      order: "post",
      // written after the page's own module script (its download, the first screen's critical path, starts as the
      // parser meets it; the module runs after these anyway) and before its stylesheet (a script after a stylesheet
      // still loading would wait for it)
      handler: (html, ctx) => {
        const early = [];
        const rest = html.replace(/[ \t]*<!-- (catalogs|inline: ([\w-]+\.js)) -->\n?/g, (_, what, f) => {
          early.push(what === "catalogs" ? catalogMetas(page, ctx.bundle) :
            `<script>${readFileSync(join(here, f), "utf8").replace(/^\/\/.*\n/gm, "")}</script>`);
          return "";
        });
        const at = rest.search(/[ \t]*<link rel="stylesheet"/);
        const block = `  ${early.join("\n  ")}\n`;
        return at < 0 ? rest.replace("</head>", `${block}</head>`) : rest.slice(0, at) + block + rest.slice(at);
      },
    },
  };
}

function catalogMetas(page, bundle) {
  return languagesOf(page).map((l) => {
    const chunk = Object.values(bundle || {}).find((c) => c.type === "chunk" && c.facadeModuleId
      && c.facadeModuleId.endsWith(join("shared", `catalog-${l}.js`)));
    if (!chunk) throw new Error(`${page}: no catalog chunk for ${l}`);
    return `<meta name="catalog" data-lang="${l}" content="./${chunk.fileName}">`;
  }).join("\n  ");
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

// `import { Button, showToast } from "vant"` becomes one import per component ("vant/es/button/index.mjs", ...): the
// same code, but the module graph then says which components a page's first screen really uses (firstScreen below
// follows imports; through Vant's index every component would look used).
function vantByComponent() {
  const es = join(here, "..", "node_modules", "vant", "es");
  const where = {};
  for (const [, dir] of readFileSync(join(es, "index.mjs"), "utf8").matchAll(/export \* from "\.\/([\w-]+)\/index\.mjs"/g)) {
    for (const [, names] of readFileSync(join(es, dir, "index.mjs"), "utf8").matchAll(/export \{([^}]*)\}/g)) {
      for (const n of names.split(",")) {
        const name = n.trim().split(/\s+as\s+/).pop();
        if (name && name !== "default") where[name] = dir;
      }
    }
  }
  return {
    name: "vant-by-component",
    enforce: "pre",
    transform(code, id) {
      if (!/[\\/]frontend[\\/]app[\\/]src[\\/].*\.(vue|js)$/.test(id) || !code.includes('from "vant"')) return null;
      return {
        code: code.replace(/(import|export) \{([^}]*)\} from "vant";/g, (_, verb, names) => {
          const by = {};
          for (const n of names.split(",").map((x) => x.trim()).filter(Boolean)) {
            const dir = where[n.split(/\s+as\s+/)[0]];
            if (!dir) throw new Error(`${id}: ${n} is not one of Vant's exports`);
            (by[dir] = by[dir] || []).push(n);
          }
          return Object.entries(by).map(([dir, ns]) => `${verb} { ${ns.join(", ")} } from "vant/es/${dir}/index.mjs";`).join("\n");
        }),
        map: null,
      };
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

// The languages of each page, the default first: the console is in zh-CN and en; the others also in vi.
export function languagesOf(page) {
  return page === "organiser.html" ? ["zh", "en"] : ["zh", "en", "vi"];
}

// A catalog's messages compiled here, at build time, into vue-i18n's message ASTs (what its unplugin does), so no
// page ships the message compiler (a fifth of vue-i18n); a message without {}, @ or | stays a plain string (the
// runtime shows it as it is). A message the compiler refuses fails the build.
function compiled(words, where = "") {
  if (typeof words !== "string") {
    return Object.fromEntries(Object.entries(words).map(([k, v]) => [k, compiled(v, where ? `${where}.${k}` : k)]));
  }
  if (!/[{}@|]/.test(words)) return words;
  const { ast } = baseCompile(words, { jit: true, minify: true, location: false,
                                       onError: (e) => { throw new Error(`${where}: ${e.message}`); } });
  return ast;
}

// Each page carries only the words it can show: the console's (a third of every catalog, and growing) only in the
// console, and no catalog of a language the page is not offered in (the console's vi).
function catalogsFor(page) {
  const consolePage = page === "organiser.html";
  return {
    name: "catalogs-for-the-page",
    enforce: "pre",
    transform(code, id) {
      const own = /[\\/]shared[\\/]catalog-(\w+)\.js$/.exec(id);
      if (own && !languagesOf(page).includes(own[1])) return { code: "export default null;", map: null };
      const m = /[\\/]locales[\\/]([\w-]+)\.json$/.exec(id);
      if (!m) return null;
      const words = JSON.parse(code);
      if (!consolePage) delete words.console;
      return { code: JSON.stringify(compiled(words)), map: null };
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

// The pages a phone must be able to reload without the hall's Wi-Fi: the table page and the desk's console. Each
// has a service worker of its own (sw-score.js, sw-organiser.js), its scope the page itself (shared/offline.js), its
// precache exactly the files that page's build emitted (its hashed assets, its catalogs, the icon font): a table
// phone never downloads the console, and no other page (a player registering from home) installs anything.
export const OFFLINE_PAGES = ["score.html", "organiser.html"];
const offlineFiles = new Map();
function collectOfflineFiles(page) {
  return {
    name: "collect-offline-files",
    writeBundle(_, bundle) {
      if (OFFLINE_PAGES.includes(page)) offlineFiles.set(page, Object.keys(bundle).filter((f) => !f.startsWith(".")).sort());
    },
  };
}
export const workerOf = (page) => `sw-${page.replace(/\.html$/, "")}.js`;

// A page's worker is Workbox's generated one (its runtime inlined: one file, allowed by the CSP's script-src 'self').
// It serves the precached page and files cache-first, the page's query (?e=…&c=…) ignored; everything else (the API,
// the published /t/ pages, feed.json) it leaves to the network, untouched. A new build's worker takes over at once
// (skipWaiting, clientsClaim): the open page already has every chunk it needs (shared/later.js prefetches them).
async function offlineWorker(page) {
  const globPatterns = offlineFiles.get(page);
  if (!globPatterns || !globPatterns.includes(page)) throw new Error(`${page}: not built, no offline worker`);
  const { count, size, warnings } = await generateSW({
    swDest: join(out, workerOf(page)), globDirectory: out, globPatterns,
    dontCacheBustURLsMatching: /^assets\//,        // their names carry their hash
    ignoreURLParametersMatching: [/./],
    directoryIndex: null, cleanupOutdatedCaches: true, clientsClaim: true, skipWaiting: true,
    inlineWorkboxRuntime: true, sourcemap: false, mode: "production",
    maximumFileSizeToCacheInBytes: 4 * 1024 * 1024,
  });
  if (warnings.length) throw new Error(warnings.join("\n"));
  return { count, size };
}

// What a page's first screen runs (everything its entry imports statically) in one chunk, beside the chunks of what
// shared/later.js loads after it: left to itself, Rolldown splits the modules the entry shares with a later chunk
// into several common chunks (rolldown#10731), each one more request before the first screen.
function firstScreen(entry, name) {
  let reached = null;
  return (id, ctx) => {
    if (!reached) {
      reached = new Set();
      const todo = [entry];
      while (todo.length) {
        const m = ctx.getModuleInfo(todo.pop());
        if (!m || reached.has(m.id)) continue;
        reached.add(m.id);
        todo.push(...m.importedIds);
      }
    }
    return reached.has(id) ? name : null;
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
    plugins: [vantIconFont(), vantByComponent(), routesForTheBrowser(), catalogsFor(page), vue(), inlineScripts(page),
              collectOfflineFiles(page)],
    define: {
      __VUE_OPTIONS_API__: "false",
      __VUE_PROD_DEVTOOLS__: "false",
      __VUE_PROD_HYDRATION_MISMATCH_DETAILS__: "false",
      __INTLIFY_PROD_DEVTOOLS__: "false",
      __INTLIFY_JIT_COMPILATION__: "true",   // messages interpreted, never eval'd: no 'unsafe-eval' under CSP
      __INTLIFY_DROP_MESSAGE_COMPILER__: "true",   // the catalogs come compiled (catalogsFor)
      __VUE_I18N_LEGACY_API__: "false",     // the Composition API only (createI18n({ legacy: false }))
      __VUE_I18N_FULL_INSTALL__: "false",   // no <i18n-t>, <i18n-n>, <i18n-d> or v-t: the pages use t() and $t()
    },
    build: {
      outDir: out,
      emptyOutDir: first,
      target: "es2017",      // WeChat's in-app browser (X5 / recent WebView) and older Android phones
      // every browser the pages support preloads modules itself: the polyfill would be one more request
      modulePreload: { polyfill: false },
      rolldownOptions: { input: { [page.replace(/\.html$/, "")]: resolve(app, page) },
        output: { codeSplitting: { groups: [{ name: firstScreen(resolve(app, page), page.replace(/\.html$/, "-app")), debugName: "first-screen" }] } } },
    },
  });
}

// After the last page: the offline pages' service workers, then the gzipped copies (the workers' too).
export async function finish() {
  const workers = {};
  for (const page of OFFLINE_PAGES) workers[workerOf(page)] = await offlineWorker(page);
  precompress().closeBundle();
  return workers;
}

// The table page last: scripts/site_build.py takes its age as the build's.
export const pages = readdirSync(app).filter((f) => f.endsWith(".html")).sort((a, b) => (a === "score.html") - (b === "score.html"));
