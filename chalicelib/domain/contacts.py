"""Contact data and its erasure (api.md v1.3 "Players": a player's erasure; the organiser's retention sweep).

Contact data is what reaches a person: a phone, an e-mail, a WeChat openid. Names, clubs and results are not
contact data: they stay on the published pages. Pure: records in, records out; the clock is passed in."""
from __future__ import annotations

from datetime import date, datetime
from typing import Any

CONTACT_FIELDS = frozenset({"phone", "email", "openid"})


def erase_contacts(record: dict, *, of: frozenset[str] | set[str] | None = None) -> dict:
    """A copy of an entry's or a registration's record (as JSON-like data) with its contact fields blanked, at any
    depth (members, the day's contact, a substitution's roster history). With `of` (phones in their key form,
    chalicelib/phones.py), only the people with one of those phones lose their contact data (a player's erasure
    leaves a partner's phone where it is); without it, everyone's (the retention sweep)."""
    from ..phones import key_form

    def mine(d: dict) -> bool:
        return of is None or (bool(d.get("phone")) and key_form(d["phone"]) in of)

    def walk(value: Any) -> Any:
        if isinstance(value, list):
            return [walk(v) for v in value]
        if not isinstance(value, dict):
            return value
        blank = mine(value)
        return {k: (None if blank and k in CONTACT_FIELDS else walk(v)) for k, v in value.items()}

    return walk(record)


def has_contacts(record: dict) -> bool:
    """Whether any contact field of the record still holds something."""
    if isinstance(record, list):
        return any(has_contacts(v) for v in record)
    if not isinstance(record, dict):
        return False
    return any((k in CONTACT_FIELDS and v) or has_contacts(v) for k, v in record.items())


def tournament_ended(ends_on: date, timezone: str, now: datetime) -> bool:
    """A tournament has ended once its last day is over where it is played."""
    from zoneinfo import ZoneInfo
    return now.astimezone(ZoneInfo(timezone)).date() > ends_on
