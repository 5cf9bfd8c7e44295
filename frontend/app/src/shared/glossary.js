// Terms of the games (points, statuses, formats...) come from GET /glossary in the chosen language, one copy
// shared by the API, the published pages and every screen.
import { ref } from "vue";
import { useI18n } from "vue-i18n";
import { call } from "./api.js";
import { langOf } from "./i18n.js";

const terms = ref(null);
let loading = null;

export function useGlossary() {
  const { locale } = useI18n();
  if (!loading) {
    loading = call("glossary").then((g) => { terms.value = g; }).catch(() => { loading = null; });
  }
  function term(kind, code) {
    const t = terms.value && terms.value[kind] && terms.value[kind][code];
    if (!t) return "";           // not loaded yet: an empty label, never the code itself
    return t[langOf(locale.value)] || t.zh;
  }
  return { term, ready: () => loading };
}
