// Every page starts the same way: its root component, the chosen language's words, the language remembered on
// the device. The page's languages are the build's (frontend/vite.config.mjs, pageLanguages): the console has no vi.
import { createApp } from "vue";
import { setupI18n } from "./i18n.js";
import { prefetchLater } from "./later.js";
import "./base.css";

// `first`: the page's first data, waited for (with the words) before the first render, where the page has it.
export async function mountPage(root, { wide = false, first = null } = {}) {
  if (wide) document.body.classList.add("wide");
  const [{ i18n, available }] = await Promise.all([setupI18n(), first && first()]);
  const app = createApp(root);
  app.use(i18n);
  app.provide("languages", available);
  app.mount("#app");
  prefetchLater();        // what the first screen did not need, fetched now that it is drawn
  return app;
}
