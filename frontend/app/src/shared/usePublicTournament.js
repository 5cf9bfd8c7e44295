// The public tournament (events, places left, fees, registration state) and how its fees read.
import { ref } from "vue";
import { useI18n } from "vue-i18n";
import { call } from "./api.js";
import { errorText } from "./errors.js";
import { money, setZone } from "./format.js";
import { posterUrl, setShareCard } from "./shareCard.js";

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
      setShareCard({ title: d.name, image: posterUrl(tid),        // a chat's link card (an event's page sets its own)
                     description: [d.starts_on, d.venue, d.events.slice(0, 4).map((e) => e.name).join("、")].filter(Boolean).join(" · ") });
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
