// vue-i18n set up once for every page: the language is remembered on the device (localStorage "lang", shared
// with the pages not yet ported), can be forced by ?lang=, and Vant's own words (picker buttons, keyboard) follow.
// Each language's words are a chunk of their own (catalog-*.js), loaded when it is chosen: a phone on a slow hall
// network downloads one language, not three. The page's inline early-lang.js has already started that download
// (a modulepreload) while the app was still on its way; the import below takes it over.
import { createI18n } from "vue-i18n";
import { Locale } from "vant";

export const LANGS = {
  zh: { locale: "zh-CN", html: "zh-CN", name: "中文", load: () => import("./catalog-zh.js") },
  en: { locale: "en", html: "en", name: "English", load: () => import("./catalog-en.js") },
  vi: { locale: "vi", html: "vi", name: "Tiếng Việt", load: () => import("./catalog-vi.js") },
};

// The page's languages, as its build wrote them (one <meta name="catalog"> each, the default first); the same rule
// as early-lang.js, so the catalog it preloads is the one asked for here.
export function pageLanguages(fallback = ["zh", "en", "vi"]) {
  const listed = [...document.querySelectorAll('meta[name="catalog"]')].map((m) => m.dataset.lang).filter((l) => LANGS[l]);
  return listed.length ? listed : fallback;
}

function initial(available) {
  const asked = new URLSearchParams(location.search).get("lang");
  const kept = localStorage.getItem("lang");
  for (const l of [asked, kept]) if (l && available.includes(l)) return l;
  // a first visit follows the phone's own languages (issue 39: an en or vi phone got Chinese until the switch)
  for (const l of navigator.languages || [navigator.language]) {
    const d = String(l || "").slice(0, 2).toLowerCase();
    if (available.includes(d)) return d;
  }
  return available[0];
}

export async function setupI18n(available = pageLanguages()) {
  const lang = initial(available);
  // every language's words are complete (tests/unit/test_frontend_contract.py): nothing to fall back to
  const i18n = createI18n({ legacy: false, locale: LANGS[lang].locale, messages: {}, missingWarn: false, fallbackWarn: false });
  // remembered only when chosen (?lang= or the switch): the browser's language keeps applying until then
  await apply(i18n, lang, new URLSearchParams(location.search).get("lang") === lang);
  return { i18n, available };
}

export async function apply(i18n, lang, remember = true) {
  const { locale } = LANGS[lang];
  const { messages, vant } = (await LANGS[lang].load()).default;
  if (!i18n.global.availableLocales.includes(locale)) i18n.global.setLocaleMessage(locale, messages);
  i18n.global.locale.value = locale;
  Locale.use(locale, vant);
  document.documentElement.lang = LANGS[lang].html;
  if (remember) localStorage.setItem("lang", lang);
}

export function langOf(locale) {
  return Object.keys(LANGS).find((k) => LANGS[k].locale === locale) || "zh";
}
