"""An organiser's password reset by SMS code to the account's phone (issue 41 item 4), and the check of that phone.

The account's phone is its login when it signs in with a phone number, or the phone it confirmed in the console
(an e-mail account has none until then). Asking for a reset answers the same whether or not the account exists or
has a phone (no account enumeration): the same limits, counted per login as per phone, then a code is sent only
where there is somewhere to send it. The code's rules and limits are services/sms_codes.py's (a player's sign-in
shares them); a reset ends every session of the account and whatever they issued (organisers.reset_password)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from .. import errors
from ..installation import lookup_hash, phone_hash
from ..messages import outbox
from ..messages.record import masked
from . import organisers, sms_codes

if TYPE_CHECKING:   # the type only: the composition root (bootstrap) imports the services, not the reverse
    from ..bootstrap import Deps
    from ..models import Organiser

KIND = "organiser_code"
JOB = "organiser_reset"     # the outbox job that sends a reset's code (registered in services/reactions.py)


def _reset_subject(login_key: str) -> str:
    return lookup_hash("organiser-reset", login_key)


def account_phone(deps: Deps, organiser_id: str, login: str | None = None) -> str | None:
    """Where the account's codes go: the phone it confirmed, else its login when that is a phone number."""
    return deps.repos.organisers.phone(organiser_id) or (login if login and "@" not in login else None)


def request_reset(deps: Deps, login: str, client: str | None, lang: str | None = None) -> dict:
    """The same work and the same answer whether or not `login` names an account with a phone: the limits, then one
    job in the outbox. Looking the account up and sending its code is the worker's (send_reset_code): done here,
    the provider's call made a known account's answer slower than an unknown one's, which told them apart."""
    sms_codes.limit_client(deps, client)
    key = organisers.normalise_login(login)
    sms_codes.limit_phone(deps, _reset_subject(key))   # per login, whether or not there is an account
    outbox.queue_job(deps, JOB, {"login": key, "lang": lang or ""}, secret=("login",))
    return {"retry_after": int(sms_codes.PHONE_MINUTE[1])}


def send_reset_code(deps: Deps, params: dict) -> None:
    """The outbox worker's half of a reset asked for (JOB): a code to the account's phone, when there is an
    account and it has one, within the phone's own limits across flows; otherwise nothing, and nobody is told."""
    key = params.get("login") or ""
    account = organisers.find_account(deps, key)
    phone = account_phone(deps, account["organiser_id"], key) if account else None
    if not phone:
        return
    try:
        sms_codes.limit_phone(deps, phone_hash(phone))
    except errors.RateLimited:
        return
    sms_codes.issue(deps, _reset_subject(key), phone, params.get("lang") or None, kind=KIND)


def confirm_reset(deps: Deps, login: str, code: str, password: str) -> dict:
    organisers.check_password_strength(password)
    key = organisers.normalise_login(login)
    sms_codes.use(deps, _reset_subject(key), code)
    if organisers.find_account(deps, key) is None:
        raise errors.Unauthorized(sms_codes.WRONG)
    organisers.reset_password(deps, key, password)   # and every session ended
    return {"reset": True}



def _phone_subject(organiser_id: str, phone: str) -> str:
    return lookup_hash("organiser-phone", f"{organiser_id}:{phone}")


def request_phone_code(deps: Deps, organiser: Organiser, raw_phone: str, client: str | None,
                       lang: str | None = None) -> dict:
    phone = sms_codes.phone_given(raw_phone)
    sms_codes.limit_client(deps, client)
    sms_codes.limit_phone(deps, phone_hash(phone))
    sms_codes.issue(deps, _phone_subject(organiser.id, phone), phone, lang, kind=KIND)
    return {"retry_after": int(sms_codes.PHONE_MINUTE[1])}


def confirm_phone(deps: Deps, organiser: Organiser, raw_phone: str, code: str) -> dict:
    phone = sms_codes.phone_given(raw_phone)
    sms_codes.use(deps, _phone_subject(organiser.id, phone), code)
    deps.repos.organisers.set_phone(organiser.id, phone)
    return {"phone_masked": masked(phone)}
