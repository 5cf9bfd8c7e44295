"""One-time codes by SMS, shared by a player's sign-in (services/players.py) and an organiser's password reset and
phone check (services/organiser_recovery.py): 6 digits, valid 10 minutes, used once, compared in constant time; a
wrong code counts against it (5 and it is gone). Limited against SMS bombing by services/limits.py's token buckets:
per phone 1 a minute and 10 a day, per client address 20 an hour (api.md v1.3) — the same buckets whichever flow
asks, so a phone gets no more codes through two of them. A code is stored only as a keyed hash under its
*subject* (a player's phone hash, an organiser's reset key: opaque to the store) and never logged."""
from __future__ import annotations

import hmac
import secrets
from datetime import timedelta
from typing import TYPE_CHECKING

from .. import errors
from ..installation import lookup_hash
from ..messages import outbox
from ..phones import normalise
from .limits import bucket

if TYPE_CHECKING:   # the type only: the composition root (bootstrap) imports the services, not the reverse
    from ..bootstrap import Deps

CODE_MINUTES = 10
MAX_WRONG = 5
PHONE_MINUTE = (1, 60.0)              # burst, seconds per token: one code a minute
PHONE_DAY = (10, 86_400 / 10)         # ten a day
CLIENT_HOUR = (20, 3_600 / 20)        # twenty an hour from one address
WRONG = "验证码错误或已过期 · The code is wrong or has expired."


def limit_client(deps: Deps, client: str | None) -> None:
    bucket(deps, "code-client", lookup_hash("source", client or "unknown"), *CLIENT_HOUR, "address")


def phone_given(raw: str) -> str:
    """The phone a code is asked for or given with, normalised; 400 when it is not a phone number."""
    try:
        phone = normalise(raw)
    except ValueError:
        phone = None
    if not phone:
        raise errors.InvalidRequest("手机号码无效 · Not a phone number.", {"field": "phone"})
    return phone


def limit_phone(deps: Deps, key: str) -> None:
    """`key`: a keyed hash of what is asked for (a phone, or a login whose account may not exist)."""
    bucket(deps, "code-phone-minute", key, *PHONE_MINUTE, "phone")
    bucket(deps, "code-phone-day", key, *PHONE_DAY, "phone_day")


def _code_hash(subject: str, code: str) -> str:
    """Keyed by the installation's secret and the subject: a copy of the table does not give the code away."""
    return lookup_hash("sign-in-code", f"{subject}:{code}")


def issue(deps: Deps, subject: str, phone: str, lang: str | None, kind: str = "sign_in_code") -> None:
    """A new code for `subject` (replacing any earlier one), sent to `phone` at once through the outbox (the
    worker retries it if the provider is down). The caller has applied the limits."""
    now = deps.clock()
    code = f"{secrets.randbelow(10 ** 6):06d}"
    deps.repos.players.put_code(subject, _code_hash(subject, code),
                                int((now + timedelta(minutes=CODE_MINUTES)).timestamp()), int(now.timestamp()))
    outbox.send_code(deps, phone, code, lang, kind=kind)


def use(deps: Deps, subject: str, code: str) -> None:
    """The code given for `subject`, used up; Unauthorized when wrong, expired or already used."""
    now = deps.clock()
    stored = deps.repos.players.code(subject)
    given = _code_hash(subject, (code or "").strip())
    fresh = stored is not None and int(stored["expires_at"]) > now.timestamp()
    if not fresh or not hmac.compare_digest(stored["code_hash"], given):
        if fresh:
            deps.repos.players.wrong_code(subject, stored["code_hash"], MAX_WRONG)
        raise errors.Unauthorized(WRONG)
    if not deps.repos.players.use_code(subject, given, int(now.timestamp())):
        raise errors.Unauthorized(WRONG)      # used meanwhile by a concurrent request: once only
