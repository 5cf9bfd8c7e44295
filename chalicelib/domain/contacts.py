"""What "contact data" is, and its erasure (issue 41 item 4, api.md v1.3 "Players"): a phone, an e-mail, a WeChat
openid, and a message's address. Names, clubs and results are not contact data: they stay, so the published pages
of a finished tournament keep saying who played and where they came. Pure: no store, no clock."""
from __future__ import annotations

from datetime import date, timedelta
from typing import Any

# The fields that reach a person, wherever they sit in a record (an entry's members, a registration's contact, a
# payment's payer): blanked to None.
CONTACT_FIELDS = frozenset({"phone", "email", "openid", "wechat_openid", "payer_openid"})
ERASED_ADDRESS = ""   # a message keeps its record (state, tries) for the console; its `to` is a required string

RETENTION_DEFAULT_DAYS = 180
RETENTION_MIN_DAYS, RETENTION_MAX_DAYS = 30, 1095


def erase_contacts(record: dict) -> dict:
    """A copy of `record` with every contact field blanked, at any depth; a message record (it has a `channel`)
    also loses its address. Erasing twice gives the same record: a caller compares to know whether to write."""
    out = _erased(record)
    if "channel" in out and isinstance(out.get("to"), str):
        out["to"] = ERASED_ADDRESS
    return out


def _erased(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: (None if k in CONTACT_FIELDS and v is not None else _erased(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [_erased(v) for v in value]
    return value


def has_contacts(record: dict) -> bool:
    return erase_contacts(record) != record


def erase_on(ends_on: date, retention_days: int) -> date:
    """The first day on which a tournament that ended on `ends_on` has ended more than `retention_days` ago."""
    return ends_on + timedelta(days=retention_days + 1)
