"""Phone numbers as keys: one person is one number however it was typed (issue 36).

A mainland mobile is kept as its 11 digits (13812345678) — the form most stored data already has — whether it came
as 138-1234-5678, +86 138 1234 5678, 0086…, or 86… ; any other number as E.164 (+84912345678). Parsing is
libphonenumber's (phonenumberslite: its metadata without the geocoder and carrier data), which also folds a
foreign number's trunk 0 typed after the country code (+84 0912 345 678 → +84912345678) and knows each country's
lengths. Pure: no I/O.
"""
from __future__ import annotations

import re

MAINLAND_MOBILE = re.compile(r"1[3-9]\d{9}", re.ASCII)
# What a phone field may hold besides digits: spaces, dashes, dots, brackets and a leading plus (full-width too).
# No letters: libphonenumber would read 1-800-FLOWERS as digits, and "ext. 12" as an extension.
_ALLOWED = re.compile(r"[\d\s\-.()（）+＋‐–—]+")


def normalise(raw: str | None) -> str | None:
    """The number's key form, or None for an empty field; ValueError when it is not a phone number."""
    if raw is None or not raw.strip():
        return None
    text = raw.strip()
    if not _ALLOWED.fullmatch(text) or len(text) > 40:
        raise ValueError("not a phone number")
    import phonenumbers   # lazily: its metadata costs ~40 ms of a cold start, paid only by routes with phones
    digits = re.sub(r"\D", "", text, flags=re.ASCII)
    if MAINLAND_MOBILE.fullmatch(digits) and not re.search("[+＋]", text):   # the common case, without the parser
        return digits
    try:
        number = phonenumbers.parse(text, "CN")   # no country given: a mainland number
    except phonenumbers.NumberParseException:
        raise ValueError("not a phone number") from None
    national = str(number.national_number)
    if number.country_code == 86:
        if MAINLAND_MOBILE.fullmatch(national):
            return national
        raise ValueError("not a mainland mobile number")   # the site sends SMS: a landline cannot be a contact
    if not phonenumbers.is_possible_number(number):
        raise ValueError("not a phone number")
    return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)


def key_form(stored: str | None) -> str | None:
    """A number as stored by an older version (+8613812345678, with spaces…) in today's key form; what cannot be
    read is kept as it is (it still equals itself)."""
    if not stored:
        return stored
    try:
        return normalise(stored)
    except ValueError:
        return stored


def same(a: str | None, b: str | None) -> bool:
    return bool(a) and bool(b) and key_form(a) == key_form(b)


def legacy_forms(key: str) -> list[str]:
    """The other forms an earlier version stored for the same number (it folded only spaces and dashes): a lookup
    by a stored key tries these after today's, so data written before is found without rewriting it."""
    if MAINLAND_MOBILE.fullmatch(key):
        return ["+86" + key, "86" + key, "0086" + key, "+0086" + key]
    if key.startswith("+"):
        return ["00" + key[1:], "+00" + key[1:]]
    return []
