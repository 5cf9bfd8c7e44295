"""Organiser accounts and their API tokens.

A token is stored as a pointer keyed by its hash (what authenticates) and a listed record under the
organiser (id, label, the token that issued it, when). Revoking a token revokes every token issued from it,
and theirs in turn, so a stolen token cannot leave heirs behind."""
from __future__ import annotations

from typing import TYPE_CHECKING

from .. import errors
if TYPE_CHECKING:   # the type only: the composition root (bootstrap) imports the services, not the reverse
    from ..bootstrap import Deps
from ..ids import hash_secret, new_id, new_token
from ..installation import lookup_hash
from ..models import Organiser


SESSION_HOURS = 12                 # a console sign-in lasts a tournament day
FREE_SIGN_INS_PER_ACCOUNT = 5      # an hour; then each try waits 1, 2, 4 … s (at most 15 minutes): no lockout
# Failures in 15 minutes from one client address before that address is slowed (never refused: a hall's staff
# share one address behind its router, so a refusal there would lock every one of them out).
FAILED_SIGN_INS_PER_SOURCE = 20
FREE_SIGN_INS_WHEN_SLOWED = 1      # from a slowed address an account's pacing starts after its first try
SIGN_IN_WINDOW_S = 15 * 60


def _token(deps: Deps, label: str, parent: str | None, kind: str = "api", hours: int | None = None) -> tuple[dict, str]:
    secret = new_token("org")
    now = deps.clock()
    record = {"id": new_id(), "hash": hash_secret(secret), "label": label[:100], "parent": parent or "",
              "created_at": now.isoformat(), "token_kind": kind}
    if hours:
        record["expires_at"] = int(now.timestamp()) + hours * 3600
    return record, secret


def create_organiser(deps: Deps, name: str) -> tuple[Organiser, str]:
    """Returns the organiser and its first token; the token is shown once and stored only hashed."""
    organiser = Organiser(id=new_id(), name=name, created_at=deps.clock())
    record, secret = _token(deps, "first token", None)
    deps.repos.organisers.create(organiser, record)
    return organiser, secret


def authenticate(deps: Deps, authorization: str | None) -> Organiser:
    """The organiser of a live token or session (staff tokens are principals' business)."""
    from .principals import authenticate as principal_of
    principal = principal_of(deps, authorization)
    if principal.kind != "organiser":
        raise errors.Unauthorized()
    return principal.organiser


def issue_token(deps: Deps, organiser_id: str, parent_token_id: str | None, label: str = "") -> tuple[dict, str]:
    record, secret = _token(deps, label or "API token", parent_token_id)
    deps.repos.organisers.add_token(organiser_id, record)
    return record, secret


def list_tokens(deps: Deps, organiser_id: str, current: str | None = None) -> list[dict]:
    """API tokens and signed-in devices (sessions), live ones only."""
    now = deps.clock().timestamp()
    return [{**t, "kind": t.get("token_kind", "api"), "current": t["id"] == current}
            for t in sorted(deps.repos.organisers.tokens(organiser_id), key=lambda t: t["created_at"])
            if not t.get("expires_at") or t["expires_at"] >= now]


# --------------------------------------------------------------------------- accounts and sign-in

def normalise_login(value: str) -> str:
    """A phone number (its key form, chalicelib/phones.py: +86, 0086, spaces and dashes folded) or an e-mail (lower
    case); anything else is refused."""
    import re

    from ..phones import normalise
    value = (value or "").strip()
    digits = re.sub(r"[\s\-]", "", value)
    if re.fullmatch(r"\+?\d{7,15}", digits) or re.fullmatch(r"[\d\s\-.()+]{7,30}", value):
        try:
            return normalise(value)
        except ValueError:
            if re.fullmatch(r"\+?\d{7,15}", digits):
                return digits   # what an earlier version took (a landline, a short number): its accounts still sign in
    if re.fullmatch(r"[^@\s]{1,64}@[^@\s]{1,190}\.[^@\s]{2,24}", value):
        return value.lower()
    raise errors.InvalidRequest("请填写手机号或邮箱 · Give a phone number or an e-mail address.")


def login_key(normalised: str) -> str:
    return lookup_hash("login", normalised)


def _account(deps: Deps, key: str) -> dict | None:
    """The login item of a normalised login; one an earlier version keyed under another form of the same phone
    number (+8613812345678, 008613812345678, in clear or hashed) is found and moved under today's key."""
    from ..phones import legacy_forms
    older = [key] + [f(old) for old in ([] if "@" in key else legacy_forms(key)) for f in (login_key, str)]
    return deps.repos.organisers.login(login_key(key), *older)


def find_account(deps: Deps, login: str) -> dict | None:
    """The login item (organiser_id, password hash) of a phone number or e-mail, or None; bad input is a 400."""
    return _account(deps, normalise_login(login))


def _hasher():
    from argon2 import PasswordHasher   # argon2id with the library's recommended parameters
    return PasswordHasher()


def check_password_strength(password: str) -> None:
    if len(password) < 8 or len(password) > 200:
        raise errors.InvalidRequest("密码至少 8 位 · The password needs at least 8 characters.")


def create_account(deps: Deps, name: str, login: str, password: str) -> tuple[Organiser, str]:
    """An organiser who signs in with a phone number or e-mail and a password (and its first API token)."""
    check_password_strength(password)
    key = normalise_login(login)
    if _account(deps, key):
        raise errors.DuplicateEntry("这个手机号或邮箱已有账号 · An account with this phone number or e-mail exists.")
    organiser, token = create_organiser(deps, name)
    deps.repos.organisers.set_login(organiser.id, login_key(key), _hasher().hash(password), create=True)
    if "@" not in key:   # a phone login is the phone a forgotten password is reset by (organiser_recovery.py)
        deps.repos.organisers.set_phone(organiser.id, key)
    return organiser, token


def reset_password(deps: Deps, login: str, password: str) -> None:
    """The platform operator's reset (make reset-password); SMS/e-mail reset is described in docs/auth.md."""
    check_password_strength(password)
    key = normalise_login(login)
    item = _account(deps, key)
    if not item:
        raise errors.NotFound("没有这个账号 · No such account.")
    deps.repos.organisers.set_login(item["organiser_id"], login_key(key), _hasher().hash(password), create=False)
    end_sessions(deps, item["organiser_id"])   # whoever knew the old password is signed out, staff links they made too


_DUMMY_HASH = None


def sign_in(deps: Deps, login: str, password: str, source: str, device: str) -> tuple[dict, str, Organiser]:
    """A session (12 hours) for a right password. Each try is counted per account before the password is
    checked, in one conditional write (concurrent tries cannot slip under it): 5 free tries an hour, then a
    progressive delay (the owner is slowed with an attacker, never locked out); a right password clears it.

    Per client address only failures are counted, and an address past FAILED_SIGN_INS_PER_SOURCE in 15 minutes
    is slowed, not refused: the accounts tried from it get one free try instead of five before their delay
    starts. So the right password of an account that has not itself failed is always checked and accepted, from
    any address; a guesser spraying one address across many accounts spends one try per account before each
    of them is paced (docs/auth.md). An unknown account and a wrong password get the same answer and take the
    same time (no account enumeration). Keys hold keyed hashes only: neither a login nor whatever was typed is
    stored in clear."""
    global _DUMMY_HASH
    wrong = errors.Unauthorized("手机号/邮箱或密码不正确 · The phone number/e-mail or the password is not right.")
    try:
        key = normalise_login(login)
    except errors.InvalidRequest:
        key = None
    account = lookup_hash("signin", key if key else "invalid:" + (login or "")[:200])
    source_key = lookup_hash("source", source)
    now = deps.clock()
    epoch = int(now.timestamp())
    source_window, account_window = epoch // SIGN_IN_WINDOW_S, epoch // 3600
    rates = deps.repos.rates
    slowed = rates.hits("signin-failed-source", source_key, source_window) >= FAILED_SIGN_INS_PER_SOURCE
    free = FREE_SIGN_INS_WHEN_SLOWED if slowed else FREE_SIGN_INS_PER_ACCOUNT
    wait = rates.pace("signin-account", account, account_window, epoch, free, epoch + 7200)
    if wait:
        raise _limited(wait)
    item = _account(deps, key) if key else None
    hasher = _hasher()
    from argon2.exceptions import InvalidHashError, VerificationError
    try:
        if item is None:
            _DUMMY_HASH = _DUMMY_HASH or hasher.hash("not-a-password")
            hasher.verify(_DUMMY_HASH, (password or "") + "x")   # same time as a real check
        hasher.verify(item["password_hash"], password or "")
    except (VerificationError, InvalidHashError):   # a mismatch, or no account at all (the dummy never matches)
        rates.count("signin-failed-source", source_key, source_window, epoch + 2 * SIGN_IN_WINDOW_S)
        raise wrong from None
    organiser = deps.repos.organisers.get(item["organiser_id"])
    if organiser is None or organiser.revoked:
        rates.count("signin-failed-source", source_key, source_window, epoch + 2 * SIGN_IN_WINDOW_S)
        raise wrong
    rates.clear("signin-account", account, account_window)          # the owner is back: no delay left
    record, secret = _token(deps, device or "console", None, kind="session", hours=SESSION_HOURS)
    deps.repos.organisers.add_token(organiser.id, record)
    return record, secret, organiser


def _limited(seconds: int) -> errors.RateLimited:
    minutes = -(-seconds // 60)
    wait = f"{seconds} 秒 · {seconds} s" if seconds < 120 else f"{minutes} 分钟 · {minutes} min"
    exc = errors.RateLimited(f"登录尝试过于频繁，请稍后再试（{wait.split(' · ')[0]}） · Too many sign-in attempts: "
                             f"try again in {wait.split(' · ')[1]}.", {"retry_after": seconds})
    exc.retry_after = seconds
    return exc


def revoke_token(deps: Deps, organiser_id: str, token_id: str) -> tuple[list[str], list[str]]:
    """Revokes the token and every token issued from it (transitively), and every staff link any of them
    created; returns (token ids revoked, staff ids removed)."""
    tokens = deps.repos.organisers.tokens(organiser_id)
    if not any(t["id"] == token_id for t in tokens):
        raise errors.NotFound("没有这个令牌 · No such token.")
    return _revoke_with_heirs(deps, organiser_id, tokens, [token_id])


def end_sessions(deps: Deps, organiser_id: str) -> tuple[list[str], list[str]]:
    """Signs out every device (sessions), with whatever was issued from them: a password reset, or 'sign out
    everywhere'. API tokens made for scripts outside a session stay."""
    tokens = deps.repos.organisers.tokens(organiser_id)
    return _revoke_with_heirs(deps, organiser_id, tokens,
                              [t["id"] for t in tokens if t.get("token_kind") == "session"])


def _revoke_with_heirs(deps: Deps, organiser_id: str, tokens: list[dict], roots: list[str]) -> tuple[list[str], list[str]]:
    children: dict[str, list[str]] = {}
    for t in tokens:
        children.setdefault(t.get("parent", ""), []).append(t["id"])
    doomed, stack = [], list(roots)
    while stack:
        tid = stack.pop()
        doomed.append(tid)
        stack.extend(children.get(tid, []))
    deps.repos.organisers.revoke_tokens(organiser_id, doomed)
    removed = []
    if doomed:
        gone = set(doomed)
        for tournament in deps.repos.tournaments.list_for_organiser(organiser_id):
            for member in deps.repos.staff.list(tournament.id):
                if member.get("created_by") in gone:
                    deps.repos.staff.delete(tournament.id, member["id"])
                    removed.append(member["id"])
    return doomed, removed
