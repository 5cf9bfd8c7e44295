"""Secrets of this installation (design.md v1.2): the table-code secret and the lookup key.

Nothing is built in. AWS reads them from Secrets Manager (once per cold start); a venue laptop generates them
on its first `make run` into `.data/secrets.json` (scripts/installation.py) and hands them to the API in its
environment. Without one, table codes cannot be made: 500 `misconfigured`, never a guessable default."""
from __future__ import annotations

import hashlib
import hmac

from . import errors


def table_secret() -> bytes:
    from .config import get_settings, secret_string
    settings = get_settings()
    if settings.table_code_secret:
        return settings.table_code_secret.encode()
    if settings.table_code_secret_arn:
        return secret_string(settings.table_code_secret_arn).encode()
    raise errors.Misconfigured("TABLE_CODE_SECRET is not set: table codes cannot be made (make run generates "
                               "one into .data/secrets.json; AWS reads it from Secrets Manager).")


def _lookup_secret() -> bytes:
    from .config import get_settings
    given = get_settings().lookup_secret
    if given:
        return given.encode()
    # One secret to keep in AWS: the lookup key is derived from the table-code secret under its own label.
    return hmac.new(table_secret(), b"cardgames lookup key v1", hashlib.sha256).digest()


def lookup_hash(purpose: str, value: str) -> str:
    """A keyed hash for keys that would otherwise hold personal data in clear (a login phone or e-mail, what
    was typed in a sign-in box): the same value finds the same item, and a copy of the table reveals nothing."""
    return hmac.new(_lookup_secret(), f"{purpose}:{value}".encode(), hashlib.sha256).hexdigest()[:40]


def phone_hash(phone: str) -> str:
    """The keyed hash a phone is known by everywhere — a player's key, the "我的" index, the SMS codes' and the
    links' limits, the outbox's look-up of a player: its key form (phones.key_form), so +86 138…, 138-… are one.
    The one place it is made: items written with one formula and looked up with another would not be found."""
    from .phones import key_form
    return lookup_hash("phone", key_form(phone) or phone)


def live_secret() -> bytes:
    """The key naming each table's live JSON (chalicelib/publish/live.py): derived from the table-code secret under
    its own label, so one secret is kept and a live name says nothing about a table's codes."""
    return hmac.new(table_secret(), b"cardgames live table names v1", hashlib.sha256).digest()
