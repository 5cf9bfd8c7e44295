"""The desk sends a participant's manage link again (issue 41 item 1: "the desk can resend one"): the player lost
the first message or the page. A manage token is stored only as a hash, so the earlier link cannot be sent again:
a new one replaces it (on every entry of a day's registration, whose one link manages them all) and goes by SMS to
each phone of the entry, through the outbox in the same transaction (store/manage_links.py); the worker sends it.
Once a minute per entry (a desk's double tap), and per phone once a minute and PHONE_DAY a day whichever entry
asks (a phone on a day's many entries, or a desk's script, cannot bomb it): the buckets of services/limits.py, as
the SMS codes' are (services/sms_codes.py), under their own scopes — a code asked for does not hold a link back."""
from __future__ import annotations

from typing import TYPE_CHECKING

from .. import errors
from ..ids import hash_secret, new_id, new_token
from ..installation import lookup_hash, phone_hash
from ..messages import record
from ..messages.outbox import address_tag
from ..messages.record import masked
from .limits import bucket
from .links import site_url

if TYPE_CHECKING:   # the type only: the composition root (bootstrap) imports the services, not the reverse
    from ..bootstrap import Deps

RESEND_EVERY_S = 60.0
PHONE_MINUTE = (1, 60.0)              # burst, seconds per token: one link a minute to a phone
PHONE_DAY = (5, 86_400 / 5)           # five a day


def resend(deps: Deps, eid: str, entry_id: str, lang: str | None = None) -> dict:
    entry = deps.repos.entries.get(eid, entry_id)
    if entry is None:
        raise errors.NotFound("没有这个报名 · No such entry.")
    phones = list(dict.fromkeys(m.phone for m in entry.members if m.phone))
    if not phones:
        raise errors.NoContact()
    _once_a_minute(deps, entry.id)
    for phone in phones:
        _per_phone(deps, phone)
    tournament = deps.repos.tournaments.get(entry.tournament_id)
    event = deps.repos.events.get(eid)
    now = deps.clock()
    reg_id = entry.registration_id
    if reg_id:
        token = new_token("rt")
        reg = deps.repos.entries.registration(reg_id) or {"items": []}
        ids = {i["entry_id"]: i["event_id"] for i in reg["items"]} or {entry.id: eid}
        entries = [e for e in (deps.repos.entries.get(ev, x) for x, ev in ids.items()) if e is not None]
        link = f"{site_url()}/entry.html?reg={reg_id}#token={token}"
        name = tournament.name if tournament else event.config.name
    else:
        token = new_token("mt")
        entries = [entry]
        link = f"{site_url()}/entry.html?id={entry.id}#token={token}"
        name = event.config.name if event else ""
    changes = [(e, e.model_copy(update={"manage_token_hash": hash_secret(token), "version": e.version + 1,
                                        "updated_at": now})) for e in entries]
    minute = int(now.timestamp()) // 60
    messages = [record.new(id=new_id(), cause=f"resend:{entry.id}:{minute}:{address_tag(p)}",
                           kind="registration_received", channel="sms", to=p, now=now, lang=lang or "zh-CN",
                           params={"event": name, "link": link}, secret_params=("link",),
                           tournament_id=entry.tournament_id) for p in phones]
    deps.repos.manage_links.rotate(changes, reg_id, hash_secret(token), messages)
    return {"sent_to": [masked(p) for p in phones], "message_ids": [m.id for m in messages]}


def _once_a_minute(deps: Deps, entry_id: str) -> None:
    now_ms = int(deps.clock().timestamp() * 1000)
    wait_ms = deps.repos.rates.bucket("manage-link-resend", lookup_hash("entry", entry_id), now_ms, 1,
                                      int(RESEND_EVERY_S * 1000))
    if wait_ms:
        wait = max(1, -(-wait_ms // 1000))
        exc = errors.RateLimited(f"刚刚已发送，请 {wait} 秒后再试 · Just sent: try again in {wait} s.",
                                 {"retry_after": wait})
        exc.retry_after = wait
        raise exc


def _per_phone(deps: Deps, phone: str) -> None:
    """429 manage_link_phone_limited when this phone was sent a link within the minute or PHONE_DAY today."""
    key = phone_hash(phone)
    try:
        bucket(deps, "manage-link-phone-minute", key, *PHONE_MINUTE, "phone")
        bucket(deps, "manage-link-phone-day", key, *PHONE_DAY, "phone_day")
    except errors.RateLimited as limited:
        exc = errors.ManageLinkPhoneLimited(details=limited.details)
        exc.retry_after = limited.retry_after
        raise exc from None
