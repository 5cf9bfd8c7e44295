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


def tell_final_places(deps: Deps, event_id: str) -> int:
    """The event is over and its places final (every stage played, no appeal open): each entry told its place,
    and its prize when it won one — once per entry (the outbox's key), however many closes and decisions ask.
    Run by the outbox's worker (a "final_places" job), never in the close's own request."""
    from .prizes import event_prizes
    from .rounds import event_finished
    from .standings import event_standings
    event = deps.repos.events.get(event_id)
    if event is None or not event_finished(deps, event, deps.repos.rounds.state(event_id)):
        return 0
    entries = deps.repos.entries.list(event_id)
    standings = event_standings(deps, event, len(event.config.stages) - 1, entries=entries)
    prizes = event_prizes(deps, event, entries=entries, standings=standings)
    if not standings.final or prizes.provisional:   # an appeal still open: its decision asks again
        return 0
    tournament = deps.repos.tournaments.get(event.tournament_id)
    tz = tournament.timezone if tournament else "Asia/Shanghai"
    won = {p.entry_id: p for p in prizes.prizes}
    by_id = {e.id: e for e in entries}
    written = 0
    for row in standings.standings:
        entry = by_id.get(row.entry_id)
        if entry is None or row.rank is None:
            continue
        prize = won.get(row.entry_id)
        written += outbox.queue_prize(deps, entry, event, row.rank, prize.label if prize else "",
                                      prize.amount if prize else 0, prizes.currency, tz)
    return written
