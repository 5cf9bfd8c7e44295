// Money and times as people read them, in the page's language.
import { LANGS, langOf } from "./i18n.js";

const DIGITS = { JPY: 0, KRW: 0, VND: 0 };

// One money format for players and the public (issue 39): Intl's currency style with the currency's own symbol,
// the rule chalicelib/publish/money_text.py writes on the published pages ("¥5,000.00", "CN¥5,000.00" in en).
export function money(minor, currency, locale) {
  return moneyUnits(minor / 10 ** (DIGITS[currency] ?? 2), currency, locale);
}

// The same for an amount already in the currency's unit: prize tables and bomb bonuses are set in yuan (5000 = ¥5,000.00).
export function moneyUnits(amount, currency, locale) {
  const exp = DIGITS[currency] ?? 2;
  const lang = LANGS[langOf(locale)].html;
  try {
    return new Intl.NumberFormat(lang, { style: "currency", currency, minimumFractionDigits: exp, maximumFractionDigits: exp })
      .format(amount);
  } catch (e) {   // an old browser without Intl currency data
    return `${Number(amount).toFixed(exp)} ${currency}`;
  }
}

// The tournament's time zone, once the page knows it (issue 39): every time is shown there, not in the phone's
// own zone (a Vietnam-time phone showed 13:00 for a 14:00 round in Nanning).
let zone = null;
export function setZone(tz) { zone = tz || null; }

function offsetOf(tz, at) {
  try {
    return new Intl.DateTimeFormat("en", { timeZone: tz || undefined, timeZoneName: "longOffset" })
      .formatToParts(at).find((p) => p.type === "timeZoneName").value;
  } catch (e) { return ""; }
}

// The zone in the page's words: "中国标准时间" in Chinese (no Latin "GMT+8" on a Chinese page), "GMT+8" otherwise
function zoneName(tz, at, lang) {
  return new Intl.DateTimeFormat(lang, { timeZone: tz, timeZoneName: lang.startsWith("zh") ? "long" : "short" })
    .formatToParts(at).find((p) => p.type === "timeZoneName").value;
}

/** "12/8 14:00" in the tournament's zone; the zone named ("12/8 14:00 (中国标准时间)", "(GMT+8)" in en/vi) when the phone's own differs then. */
export function dateTime(iso, locale, tz = zone) {
  if (!iso) return "";
  const at = new Date(iso);
  const lang = LANGS[langOf(locale)].html;
  const opts = { month: "numeric", day: "numeric", hour: "2-digit", minute: "2-digit", hourCycle: "h23" };
  try {
    if (!tz) return new Intl.DateTimeFormat(lang, opts).format(at);
    const text = new Intl.DateTimeFormat(lang, { ...opts, timeZone: tz }).format(at);
    if (offsetOf(tz, at) === offsetOf(null, at)) return text;
    return `${text} (${zoneName(tz, at, lang)})`;
  } catch (e) {   // an unknown zone name: the phone's own
    return at.toLocaleString(lang, { month: "numeric", day: "numeric", hour: "2-digit", minute: "2-digit" });
  }
}

export const FAR_MS = 24 * 3600 * 1000;   // a count beyond a day reads as a date ("720:13:27" meant nothing)

/** A round's "14:00–15:30" in the tournament's zone: its date before it when not today there, the zone named
 *  when the phone's own differs ("14:00–15:30 (GMT+8)" on a Vietnam-time phone, not "13:00–14:30"). */
export function timeSpan(fromIso, toIso, locale, tz = zone) {
  if (!fromIso) return "";
  const lang = LANGS[langOf(locale)].html, from = new Date(fromIso);
  const at = (opts, d) => new Intl.DateTimeFormat(lang, { ...opts, ...(tz ? { timeZone: tz } : {}) }).format(d);
  try {
    const hm = { hour: "2-digit", minute: "2-digit", hourCycle: "h23" }, md = { month: "numeric", day: "numeric" };
    const today = at(md, new Date()) === at(md, from);
    let text = `${today ? "" : at(md, from) + " "}${at(hm, from)}${toIso ? "–" + at(hm, new Date(toIso)) : ""}`;
    if (tz && offsetOf(tz, from) !== offsetOf(null, from)) {
      text += ` (${zoneName(tz, from, lang)})`;
    }
    return text;
  } catch (e) {
    return from.toTimeString().slice(0, 5);
  }
}
