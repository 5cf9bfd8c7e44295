// Money and times as people read them, in the page's language.
import { LANGS, langOf } from "./i18n.js";

const DIGITS = { JPY: 0, KRW: 0, VND: 0 };

export function money(minor, currency, locale) {
  const exp = DIGITS[currency] ?? 2;
  const lang = LANGS[langOf(locale)].html;
  try {
    return new Intl.NumberFormat(lang, { style: "currency", currency, currencyDisplay: "narrowSymbol",
                                   minimumFractionDigits: exp, maximumFractionDigits: exp })
      .format(minor / 10 ** exp);
  } catch (e) {   // an old browser without Intl currency data
    return `${(minor / 10 ** exp).toFixed(exp)} ${currency}`;
  }
}

export function dateTime(iso, locale) {
  if (!iso) return "";
  const lang = LANGS[langOf(locale)].html;
  return new Date(iso).toLocaleString(lang, { month: "numeric", day: "numeric", hour: "2-digit", minute: "2-digit" });
}
