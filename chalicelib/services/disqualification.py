"""Disqualification (rules.md §8, seeds 000 and 003): "蓄意弃权者取消本次比赛资格", "取消作弊方的比赛资格，判对方获胜".

The entry leaves the event: its open tables are awarded to the opponents (a forfeit), it is not drawn again,
not ranked and takes no prize; in a round robin the "played fewer than half" rule of §5 decides whether its
results stand (services/standings.py)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from .. import errors
from ..domain import entry as entry_status
if TYPE_CHECKING:   # the type only: the composition root (bootstrap) imports the services, not the reverse
    from ..bootstrap import Deps
from ..ids import new_id
from ..models import DisqualifyIn, Entry, Organiser
from .principals import who_of
from .tournaments import own_event

OPEN = ("pending", "entered", "disputed")


def disqualify(deps: Deps, organiser: Organiser, eid: str, entry_id: str, body: DisqualifyIn) -> Entry:
    from .results import Actor, record_forfeit
    event = own_event(deps, organiser, eid)
    entry = deps.repos.entries.get(eid, entry_id)
    if entry is None:
        raise errors.NotFound("entry not found")
    now = deps.clock()
    reason = f"取消比赛资格 · Disqualified ({body.kind}): {body.reason}"
    after, _ = entry_status.disqualify(entry, now, reason=reason)   # refused unless confirmed
    if after is entry:
        return entry   # idempotent: a retried request changes nothing
    # its open tables read first: the record names them and goes in the transition's own transaction (a crash
    # between the two left a disqualified entry the event's chain did not hold); each forfeit then records itself
    state = deps.repos.rounds.state_head(eid)
    n = state.get("open_round") or 0
    awarded = []
    if n:
        ref = next(r for r in state["rounds"] if r["n"] == n)
        _, tables = deps.repos.rounds.get_round(eid, ref["stage"], n)
        awarded = [t["number"] for t in tables or []
                   if t["status"] in OPEN and any(s["entry_id"] == entry_id for s in t["sides"])]
    audit = {"id": new_id(), "at": now.isoformat(), "who": who_of(organiser), "action": "entry_disqualified",
             "reason": reason, "after": {"entry_id": entry_id, "kind": body.kind, "tables_awarded": awarded}}
    deps.repos.rounds.audited_write(eid, audit, lambda ops: deps.repos.entries.transition(
        entry, after, take_place=False, extra=ops))
    actor = Actor("organiser", who_of(organiser))
    for number in awarded:
        record_forfeit(deps, eid, n, number, entry_id, reason, actor)   # "判对方获胜"
    from .publish_requests import request_publish
    request_publish(deps, event.tournament_id)
    return after
