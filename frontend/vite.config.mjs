// Builds the Vue pages (frontend/app/*.html) into frontend/dist/, beside the pages not yet ported (copied as they are).
import { copyFileSync, mkdirSync, readdirSync, existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import vue from "@vitejs/plugin-vue";
import { defineConfig } from "vite";

const here = dirname(fileURLToPath(import.meta.url));
const app = join(here, "app");
const out = join(here, "dist");
const pages = readdirSync(app).filter((f) => f.endsWith(".html"));

// The old hand-built pages keep working until their Vue replacement passes the same browser tests;
// a Vue page of the same name wins.
function legacyPages() {
  return {
    name: "legacy-pages",
    closeBundle() {
      mkdirSync(out, { recursive: true });
      for (const f of readdirSync(here)) {
        if (!/\.(html|js|css)$/.test(f) || f === "vite.config.mjs" || pages.includes(f)) continue;
        if (!existsSync(join(out, f)) || f === "config.js") copyFileSync(join(here, f), join(out, f));
      }
    },
  };
}

export default defineConfig({
  root: app,
  base: "./",
  publicDir: false,
  plugins: [vue(), legacyPages()],
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
    rollupOptions: { input: Object.fromEntries(pages.map((f) => [f.replace(/\.html$/, ""), resolve(app, f)])) },
  },
});
