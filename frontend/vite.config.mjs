// Builds the Vue pages (frontend/app/*.html, one per person) into frontend/dist/ for the site server and S3/CloudFront.
import { copyFileSync, mkdirSync, readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import vue from "@vitejs/plugin-vue";
import { defineConfig } from "vite";

const here = dirname(fileURLToPath(import.meta.url));
const app = join(here, "app");
const out = join(here, "dist");
const pages = readdirSync(app).filter((f) => f.endsWith(".html"));

// config.js says where the API is: the site server answers it itself, a deployment writes its own (infra/),
// and this default sits beside the pages for a plain static server.
function configScript() {
  return {
    name: "config-script",
    closeBundle() {
      mkdirSync(out, { recursive: true });
      copyFileSync(join(here, "config.js"), join(out, "config.js"));
    },
  };
}

export default defineConfig({
  root: app,
  base: "./",
  publicDir: false,
  plugins: [vue(), configScript()],
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
