// vue-i18n set up once for every page: the language is remembered on the device (localStorage "lang", shared
// with the pages not yet ported), can be forced by ?lang=, and Vant's own words (picker buttons, keyboard) follow.
import { createI18n } from "vue-i18n";
import { Locale } from "vant";
import vantEn from "vant/es/locale/lang/en-US";
import vantVi from "vant/es/locale/lang/vi-VN";
import vantZh from "vant/es/locale/lang/zh-CN";
import zh from "../locales/zh-CN.json";
import en from "../locales/en.json";
import vi from "../locales/vi.json";

export const LANGS = {
  zh: { locale: "zh-CN", html: "zh-CN", vant: vantZh, name: "中文" },
  en: { locale: "en", html: "en", vant: vantEn, name: "English" },
  vi: { locale: "vi", html: "vi", vant: vantVi, name: "Tiếng Việt" },
};

function initial(available) {
  const asked = new URLSearchParams(location.search).get("lang");
  const kept = localStorage.getItem("lang");
  for (const l of [asked, kept]) if (l && available.includes(l)) return l;
  return available[0];
}

export function setupI18n(available = ["zh", "en", "vi"]) {
  const lang = initial(available);
  const i18n = createI18n({
    legacy: false,
    locale: LANGS[lang].locale,
    fallbackLocale: "zh-CN",
    messages: { "zh-CN": zh, en, vi },
    missingWarn: false,
    fallbackWarn: false,
  });
  apply(i18n, lang);
  return { i18n, available };
}

export function apply(i18n, lang) {
  i18n.global.locale.value = LANGS[lang].locale;
  Locale.use(LANGS[lang].locale, LANGS[lang].vant);
  document.documentElement.lang = LANGS[lang].html;
  localStorage.setItem("lang", lang);
}

export function langOf(locale) {
  return Object.keys(LANGS).find((k) => LANGS[k].locale === locale) || "zh";
}
