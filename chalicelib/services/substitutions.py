"""Substitutes (rules.md §8; seed 000 "未经裁判长特别允许，一轮比赛中不得更换运动员", seed 003 "如有特殊情况需提前向组委会
申请，经同意后方可更换"): between rounds only, with the chief referee's approval and a reason. The roster keeps its
history, so who played which round stays known. A pair takes no third player unless the event allows it."""
from __future__ import annotations

from typing import TYPE_CHECKING

from .. import errors
from ..domain import entry as entry_status
if TYPE_CHECKING:   # the type only: the composition root (bootstrap) imports the services, not the reverse
    from ..bootstrap import Deps
from ..ids import new_id
from ..models import Entry, Member, Organiser, SubstitutionIn
from .principals import who_of
from .tournaments import own_event


def next_round(state: dict) -> int:
    """The first round a change can reach: never the one being played (between rounds only)."""
    return len(state.get("rounds", [])) + 1


def substitute(deps: Deps, organiser: Organiser, eid: str, entry_id: str, body: SubstitutionIn) -> Entry:
    event = own_event(deps, organiser, eid)
    entry = deps.repos.entries.get(eid, entry_id)
    if entry is None:
        raise errors.NotFound("entry not found")
    entry_status.check_substitutable(entry)
    kind = event.config.entry.kind
    if kind == "individual":
        raise errors.SubstitutionNotAllowed("个人赛不能换人，请退赛后另行报名 · An individual event has no substitutes.")
    if kind == "pair" and not event.config.substitutes.pairs:
        raise errors.SubstitutionNotAllowed("本项目双人赛不允许替补 · This event does not allow a pair to change a player "
                                            "(event \"substitutes\": {\"pairs\": true} allows it).")
    if body.out >= len(entry.members):
        raise errors.InvalidRequest(f"队员序号 {body.out} 不存在 · There is no member {body.out}.",
                                    [{"field": "out", "type": "less_than_equal", "message": "no such member"}])
    state = deps.repos.rounds.state(eid)
    earliest = next_round(state)
    from_round = body.from_round or earliest
    if from_round < earliest:
        raise errors.Conflict(f"只能在轮次之间换人：最早第 {earliest} 轮 · Between rounds only: the earliest round this "
                              f"change can reach is {earliest}.", {"earliest_round": earliest})
    incoming = body.in_.model_dump(exclude_none=True)
    from ..phones import same   # a member stored before phones were normalised: +86… is the same number
    if incoming.get("phone") and any(same(m.phone, incoming["phone"]) for m in entry.members):
        raise errors.Conflict("这名选手已在队中 · This player is already on the roster.")
    now = deps.clock()
    leaving = entry.members[body.out]
    members = list(entry.members)
    members[body.out] = Member(**incoming)
    from .registration import check_mixed   # rules.md §9: a mixed pair / team still fits after the change
    check_mixed(event, [m.gender for m in members])
    record = {"id": new_id(), "from_round": from_round, "out": {"index": body.out, "name": leaving.name},
              "in": {"name": incoming["name"], **({"gender": incoming["gender"]} if incoming.get("gender") else {})},
              "reason": body.reason, "by": who_of(organiser), "at": now.isoformat(),
              "roster_before": [m.name for m in entry.members]}
    after = entry.model_copy(update={"members": members, "version": entry.version + 1, "updated_at": now,
                                     "roster_history": [*entry.roster_history, record]})
    audit = {"id": new_id(), "at": now.isoformat(), "who": who_of(organiser), "action": "substitution",
             "reason": body.reason, "round": from_round,
             "after": {"entry_id": entry_id, "out": leaving.name, "in": incoming["name"]}}
    deps.repos.rounds.audited_write(eid, audit, lambda ops: deps.repos.entries.transition(entry, after, extra=ops))
    from .publish_requests import request_publish
    request_publish(deps, event.tournament_id)
    return after


def roster_for_round(entry: Entry, n: int) -> list[str]:
    """Who was on the roster in round n, from the history (each change names the roster before it)."""
    for change in entry.roster_history:
        if n < change["from_round"]:
            return list(change["roster_before"])
    return [m.name for m in entry.members]
