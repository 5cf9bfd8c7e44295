// The public tournament (events, places left, fees, registration state) and how its fees read.
import { ref } from "vue";
import { useI18n } from "vue-i18n";
import { call } from "./api.js";
import { errorText } from "./errors.js";
import { money, setZone } from "./format.js";
import { tournamentCard } from "./shareCard.js";
import { langOf } from "./i18n.js";

// The published pages are in 中文 (/t/), English (/en/t/) and Tiếng Việt (/vi/t/).
export function resultsUrl(tid, locale) {
  const lang = langOf(locale);
  return `${location.origin}${lang === "zh" ? "" : "/" + lang}/t/${encodeURIComponent(tid)}/index.html`;
}

export function usePublicTournament(tid) {
  const { t, te, locale } = useI18n();
  const data = ref(null);
  const error = ref("");
  async function load() {
    if (!tid) { error.value = t("tournament.no_tournament"); return null; }
    try {
      data.value = await call("publicTournament", { params: { tid } });
      const d = data.value;
      setZone(d.timezone);   // every time on the page in the tournament's zone
      tournamentCard(d, { t, resultsUrl: resultsUrl(tid, locale.value) });   // a chat's link card (an event's page sets its own)
    } catch (e) { error.value = errorText(t, te, e); }
    return data.value;
  }
  const size = (e) => (e.entry && e.entry.size) || 1;
  const feeOf = (e) => (e.fee.per === "person" ? e.fee.amount * size(e) : e.fee.amount);
  function feeText(e) {
    if (!e.fee.amount) return t("common.free");
    return `${money(e.fee.amount, data.value.currency, locale.value)} ${t(e.fee.per === "person" ? "common.per_person" : "common.per_entry")}`;
  }
  function kindText(e) {
    const k = (e.entry && e.entry.kind) || "individual";
    return k === "team" ? t("kind.team", { n: size(e) }) : t(`kind.${k}`);
  }
  return { data, error, load, size, feeOf, feeText, kindText, money: (m) => money(m, data.value.currency, locale.value) };
}
