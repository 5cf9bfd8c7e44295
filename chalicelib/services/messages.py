"""The tournament's messages for the console, and the director's notice (api.md v1.3 "Messages")."""
from __future__ import annotations

from ..domain.entry import EntryStatus
from ..bootstrap import Deps
from ..messages import outbox
from ..messages.record import masked
from ..models import Organiser
from ..models.messages import MessageView
from .tournaments import own_tournament

LIVE = (EntryStatus.CONFIRMED, EntryStatus.PENDING_PAYMENT, EntryStatus.WAITLISTED, EntryStatus.PARTNER_WANTED)


def list_messages(deps: Deps, organiser: Organiser, tid: str) -> list[MessageView]:
    own_tournament(deps, organiser, tid)
    found = sorted((m for m in deps.repos.messages.for_tournament(tid) if m.channel != "job"),   # fan-outs: no message
                   key=lambda m: (m.created_at, m.id), reverse=True)
    return [MessageView(id=m.id, channel=m.channel, to=masked(m.to), template=m.kind, lang=m.lang, state=m.state,
                        tries=m.tries, at=m.created_at, next_at=m.next_at if m.state == "queued" else None,
                        sent_at=m.sent_at, error=m.error, tournament_id=m.tournament_id) for m in found]


def notice(deps: Deps, organiser: Organiser, tid: str, text: str, to: str, idem_key: str | None) -> dict:
    """The director's notice to every live entry, one event's, the unpaid or those not checked in: one message
    per phone (and e-mail). Sent again with the same Idempotency-Key, it queues nothing new."""
    tournament = own_tournament(deps, organiser, tid)
    events = deps.repos.events.list_for_tournament(tid)
    if to.startswith("event:"):
        events = [e for e in events if e.id == to.split(":", 1)[1]]
    entries = [e for ev in events for e in deps.repos.entries.list(ev.id) if e.status in LIVE]
    if to == "unpaid":
        entries = [e for e in entries if e.status == EntryStatus.PENDING_PAYMENT]
    elif to == "not_checked_in":
        entries = [e for e in entries if e.status == "confirmed" and not e.checked_in]
    queued = outbox.queue_notice(deps, tournament, entries, text, idem_key)
    return {"queued": queued, "entries": len(entries)}
