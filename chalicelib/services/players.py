"""Sign-in by phone and SMS code (api.md v1.3 "Players"): a 6-digit code, valid 10 minutes, used once, compared in
constant time; limited per phone (1 a minute, 10 a day) and per client address (20 an hour) against SMS bombing,
by services/limits.py's token buckets; a wrong code counts against it (5 and it is gone). The code goes out at
once through the outbox (the worker retries it if the provider is down); it is never logged."""
from __future__ import annotations

from datetime import timedelta

from .. import errors
from ..bootstrap import Deps
from ..ids import hash_secret, new_id, new_token
from ..installation import lookup_hash
from ..messages.record import masked
from ..phones import normalise
from . import sms_codes

SESSION_DAYS = 30
# the code's rules and limits are services/sms_codes.py's (shared with the organiser's password reset)
CODE_MINUTES, MAX_WRONG, WRONG = sms_codes.CODE_MINUTES, sms_codes.MAX_WRONG, sms_codes.WRONG


def _phone(raw: str) -> str:
    try:
        phone = normalise(raw)
    except ValueError:
        phone = None
    if not phone:
        raise errors.InvalidRequest("手机号码无效 · Not a phone number.")
    return phone


def send_code(deps: Deps, raw_phone: str, client: str | None, lang: str | None = None) -> dict:
    phone = _phone(raw_phone)
    phone_hash = lookup_hash("phone", phone)
    sms_codes.limit_client(deps, client)
    sms_codes.limit_phone(deps, phone_hash)
    sms_codes.issue(deps, phone_hash, phone, lang)
    return {"retry_after": int(sms_codes.PHONE_MINUTE[1])}


def sign_in(deps: Deps, raw_phone: str, code: str) -> dict:
    phone = _phone(raw_phone)
    phone_hash = lookup_hash("phone", phone)
    sms_codes.use(deps, phone_hash, code)
    now = deps.clock()
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


