// Every page starts the same way: its root component, the catalogs, the language remembered on the device.
import { createApp } from "vue";
import { setupI18n } from "./i18n.js";
import "./base.css";

export function mountPage(root, { languages = ["zh", "en", "vi"], wide = false } = {}) {
  if (wide) document.body.classList.add("wide");
  const { i18n, available } = setupI18n(languages);
  const app = createApp(root);
  app.use(i18n);
  app.provide("languages", available);
  app.mount("#app");
  return app;
}
