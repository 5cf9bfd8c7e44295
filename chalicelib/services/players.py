"""Sign-in by phone and SMS code (api.md v1.3 "Players"): a 6-digit code, valid 10 minutes, used once, compared in
constant time; limited per phone (1 a minute, 10 a day) and per client address (20 an hour) against SMS bombing,
by services/limits.py's token buckets; a wrong code counts against it (5 and it is gone). The code goes out at
once through the outbox (the worker retries it if the provider is down); it is never logged."""
from __future__ import annotations

import hmac
import secrets
from datetime import timedelta

from .. import errors
from ..bootstrap import Deps
from ..ids import hash_secret, new_id, new_token
from ..installation import lookup_hash
from ..messages import outbox
from ..messages.record import masked
from ..phones import normalise
from .limits import bucket

CODE_MINUTES = 10
SESSION_DAYS = 30
MAX_WRONG = 5
PHONE_MINUTE = (1, 60.0)              # burst, seconds per token: one code a minute
PHONE_DAY = (10, 86_400 / 10)         # ten a day
CLIENT_HOUR = (20, 3_600 / 20)        # twenty an hour from one address
WRONG = "验证码错误或已过期 · The code is wrong or has expired."


def _phone(raw: str) -> str:
    try:
        phone = normalise(raw)
    except ValueError:
        phone = None
    if not phone:
        raise errors.InvalidRequest("手机号码无效 · Not a phone number.")
    return phone


def _code_hash(phone_hash: str, code: str) -> str:
    """Keyed by the installation's secret and the phone: a copy of the table does not give the code away."""
    return lookup_hash("sign-in-code", f"{phone_hash}:{code}")


def send_code(deps: Deps, raw_phone: str, client: str | None, lang: str | None = None) -> dict:
    phone = _phone(raw_phone)
    phone_hash = lookup_hash("phone", phone)
    bucket(deps, "code-client", lookup_hash("source", client or "unknown"), *CLIENT_HOUR, "address")
    bucket(deps, "code-phone-minute", phone_hash, *PHONE_MINUTE, "phone")
    bucket(deps, "code-phone-day", phone_hash, *PHONE_DAY, "phone_day")
    now = deps.clock()
    code = f"{secrets.randbelow(10 ** 6):06d}"
    deps.repos.players.put_code(phone_hash, _code_hash(phone_hash, code),
                                int((now + timedelta(minutes=CODE_MINUTES)).timestamp()), int(now.timestamp()))
    outbox.send_code(deps, phone, code, lang)
    return {"retry_after": int(PHONE_MINUTE[1])}


def sign_in(deps: Deps, raw_phone: str, code: str) -> dict:
    phone = _phone(raw_phone)
    phone_hash = lookup_hash("phone", phone)
    now = deps.clock()
    stored = deps.repos.players.code(phone_hash)
    given = _code_hash(phone_hash, code.strip())
    fresh = stored is not None and int(stored["expires_at"]) > now.timestamp()
    if not fresh or not hmac.compare_digest(stored["code_hash"], given):
        if fresh:
            deps.repos.players.wrong_code(phone_hash, stored["code_hash"], MAX_WRONG)
        raise errors.Unauthorized(WRONG)
    if not deps.repos.players.use_code(phone_hash, given, int(now.timestamp())):
        raise errors.Unauthorized(WRONG)      # used meanwhile by a concurrent request: once only
    player = deps.repos.players.get_or_create(phone_hash, new_id(), phone, now.isoformat())
    token = new_token("pt")
    expires = now + timedelta(days=SESSION_DAYS)
    deps.repos.players.add_session(hash_secret(token), player["id"], phone_hash, int(expires.timestamp()))
    return {"token": token, "expires_at": expires, "player": {"id": player["id"], "phone_masked": masked(phone)}}


def me(deps: Deps, token: str | None) -> dict:
    """The signed-in player (X-Player-Token). "我的" — its registrations and history — comes with issue 41's
    next part."""
    session = deps.repos.players.session(hash_secret(token)) if token else None
    if session is None or int(session.get("expires_at", 0)) <= deps.clock().timestamp():
        raise errors.Unauthorized("请先登录 · Sign in first.")
    player = deps.repos.players.by_phone_hash(session["phone_hash"])
    if player is None:
        raise errors.Unauthorized("请先登录 · Sign in first.")
    return {"id": player["id"], "phone_masked": masked(player["phone"])}


