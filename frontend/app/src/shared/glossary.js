// Terms of the games (points, statuses, formats...) come from GET /glossary in the chosen language, one copy
// shared by the API, the published pages and every screen.
import { ref } from "vue";
import { useI18n } from "vue-i18n";
import { call } from "./api.js";
import { langOf } from "./i18n.js";

const terms = ref(null);
let loading = null;
// The last answer, kept on the device (9 KB) for a page opened without network (the table page's worker serves no
// API answer): its points and statuses keep their names offline.
const KEPT = "glossary";
function keep(g) {
  try { localStorage.setItem(KEPT, JSON.stringify(g)); } catch (e) { /* storage full: online only */ }
}
function kept() {
  try { return JSON.parse(localStorage.getItem(KEPT) || "null"); } catch (e) { return null; }
}

export function useGlossary() {
  const { locale } = useI18n();
  if (!loading) {
    loading = call("glossary").then((g) => { terms.value = g; keep(g); }).catch(() => {
      loading = null;
      if (!terms.value) terms.value = kept();
    });
  }
  function term(kind, code) {
    const t = terms.value && terms.value[kind] && terms.value[kind][code];
    if (!t) return "";           // not loaded yet: an empty label, never the code itself
    return t[langOf(locale.value)] || t.zh;
  }
  return { term, ready: () => loading };
}
