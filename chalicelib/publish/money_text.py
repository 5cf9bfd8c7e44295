"""One money format for everything a player or the public reads (issue 39): what the browser's
Intl.NumberFormat(lang, {style: "currency", currency}) writes, so a published page and the app's pages
(frontend/app/src/shared/money.js) show the same "¥5,000.00". CLDR's symbols for the currencies the platform takes
(models.CURRENCY_EXPONENT), written out here instead of a 30 MB locale library in the Lambda package;
tests/e2e/test_public_phone.py compares every currency and language with Chromium's Intl."""
from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from ..models import CURRENCY_EXPONENT

_NBSP = "\u00a0"
# CLDR's symbol per page language where it differs from the ISO code
_SYMBOLS = {
    "zh": {"CNY": "¥", "HKD": "HK$", "TWD": "NT$", "USD": "US$", "EUR": "€", "GBP": "£", "AUD": "AU$", "CAD": "CA$",
           "NZD": "NZ$", "JPY": "JP¥", "KRW": "₩", "VND": "₫"},
    "en": {"CNY": "CN¥", "HKD": "HK$", "TWD": "NT$", "USD": "$", "EUR": "€", "GBP": "£", "AUD": "A$", "CAD": "CA$",
           "NZD": "NZ$", "JPY": "¥", "KRW": "₩", "VND": "₫"},
    "vi": {"CNY": "CN¥", "HKD": "HK$", "TWD": "NT$", "USD": "US$", "EUR": "€", "GBP": "£", "AUD": "AU$", "CAD": "CA$",
           "NZD": "NZ$", "JPY": "¥", "KRW": "₩", "VND": "₫"},
}


def money_text(amount, currency: str, lang: str) -> str:
    """`amount` in the currency's unit (5000 = five thousand yuan) → "¥5,000.00" (zh), "CN¥5,000.00" (en),
    "5.000,00 CN¥" (vi)."""
    currency = currency.upper()
    lang = lang if lang in _SYMBOLS else "en"
    digits = CURRENCY_EXPONENT.get(currency, 0 if currency == "VND" else 2)
    # Intl rounds half away from zero; Python's format rounds half to even
    exact = Decimal(str(abs(amount))).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP)
    number = f"{exact:,.{digits}f}"
    sign = "-" if amount < 0 else ""
    sym = _SYMBOLS[lang].get(currency)
    if lang == "vi":
        number = number.replace(",", "\0").replace(".", ",").replace("\0", ".")
        return f"{sign}{number}{_NBSP}{sym or currency}"
    return f"{sign}{sym}{number}" if sym else f"{sign}{currency}{_NBSP}{number}"


def money_minor_text(minor: int, currency: str, lang: str) -> str:
    """The same from minor units (what the store keeps: 500000 fen)."""
    from ..money import money
    return money_text(money(minor, currency), currency, lang)
