"""What "contact data" is, and its erasure (issue 41, api.md v1.3 "Players"): a phone, an e-mail, a WeChat openid,
and a message's address. Names, clubs and results are not contact data: they stay, so the published pages of a
finished tournament keep saying who played and where they came. Two callers: a player's own erasure (only the
people with that player's phones) and the organiser's retention sweep (everyone). Pure: no store; `now` passed in."""
from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

# The fields that reach a person, wherever they sit in a record (an entry's members, a registration's contact, a
# payment's payer): blanked to None.
CONTACT_FIELDS = frozenset({"phone", "email", "openid", "wechat_openid", "payer_openid"})
ERASED_ADDRESS = ""   # a message keeps its record (state, tries) for the console; its `to` is a required string

RETENTION_DEFAULT_DAYS = 180
RETENTION_MIN_DAYS, RETENTION_MAX_DAYS = 30, 1095


def erase_contacts(record: dict, *, of: frozenset[str] | set[str] | None = None) -> dict:
    """A copy of `record` with its contact fields blanked, at any depth (members, the day's contact, a
    substitution's roster history); a message record (it has a `channel`) also loses its address. With `of`
    (phones in their key form, chalicelib/phones.py), only the people with one of those phones lose their contact
    data (a player's erasure leaves a partner's phone where it is); without it, everyone's (the retention sweep).
    Erasing twice gives the same record: a caller compares to know whether to write."""
    from ..phones import key_form

    def mine(d: dict) -> bool:
        return of is None or (bool(d.get("phone")) and key_form(d["phone"]) in of)

    def walk(value: Any) -> Any:
        if isinstance(value, list):
            return [walk(v) for v in value]
        if not isinstance(value, dict):
            return value
        blank = mine(value)
        return {k: (None if blank and k in CONTACT_FIELDS and v is not None else walk(v)) for k, v in value.items()}

    out = walk(record)
    if of is None and "channel" in out and isinstance(out.get("to"), str):
        out["to"] = ERASED_ADDRESS
    return out


def has_contacts(record: dict) -> bool:
    """Whether any contact field of the record still holds something."""
    if isinstance(record, list):
        return any(has_contacts(v) for v in record)
    if not isinstance(record, dict):
        return False
    if "channel" in record and record.get("to"):
        return True
    return any((k in CONTACT_FIELDS and v) or has_contacts(v) for k, v in record.items())


def erase_on(ends_on: date, retention_days: int) -> date:
    """The first day on which a tournament that ended on `ends_on` has ended more than `retention_days` ago."""
    return ends_on + timedelta(days=retention_days + 1)


def tournament_ended(ends_on: date, timezone: str, now: datetime) -> bool:
    """A tournament has ended once its last day is over where it is played."""
    from zoneinfo import ZoneInfo
    return now.astimezone(ZoneInfo(timezone)).date() > ends_on
