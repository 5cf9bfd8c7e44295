"""Ids and secrets: ULIDs for records, long random tokens stored only as SHA-256 hashes."""
from __future__ import annotations

import hashlib
import hmac
import secrets


def new_id() -> str:
    from ulid import ULID
    return str(ULID())


def new_token(prefix: str, nbytes: int = 32) -> str:
    return f"{prefix}_{secrets.token_urlsafe(nbytes)}"


def hash_secret(secret: str) -> str:
    # Tokens are long and random, so a fast hash is enough (no password stretching needed).
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def same_secret(secret: str, stored_hash: str) -> bool:
    return hmac.compare_digest(hash_secret(secret), stored_hash)
