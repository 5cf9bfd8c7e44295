"""The referee's day (rules.md §5, §7): the schedule, lateness, appeals and the windows that count from the
round's scheduled times, with `now` taken from the clock passed in.

A round's times come from its stage's schedule; unscheduled rounds fall back to when they were drawn (for
lateness) and when they were closed (for the correction and appeal windows)."""
from __future__ import annotations

from typing import TYPE_CHECKING

import math
from datetime import datetime, timedelta

from .. import errors
if TYPE_CHECKING:   # the type only: the composition root (bootstrap) imports the services, not the reverse
    from ..bootstrap import Deps
from ..domain.actor import Actor
from ..domain.appeal import Appeal as AppealRecord
from ..domain.schedule import (appeal_deadline, aware, correction_deadline, correction_open,  # noqa: F401 — named
                               parse_time, round_times, window_base)                          # here by callers
from ..ids import new_id
from ..models import Appeal, ArrivalOut, Event, Money, Tournament
from .results import record_forfeit, submit_result
from .rounds import load_round
from .tables import audit_row, load, place_of, save, table_view
from .tournaments import own_event


# --------------------------------------------------------------------------- lateness

AT_LIMIT_GAMES = ("tractor", "doudizhu")   # rules.md §9: "迟到15分钟者视为弃权", "开始后五分钟…没有到场的": at 15:00 / 5:00


def forfeit_at_limit(game: str, rule) -> bool:
    """Whether an arrival exactly at the forfeit limit is a forfeit (≥) or not yet (>): the event's setting,
    else the game's reading of its seed."""
    at = getattr(rule, "forfeit_at_limit", None)
    return game in AT_LIMIT_GAMES if at is None else bool(at)


def _past_limit(late_s: float, limit_s: float, inclusive: bool) -> bool:
    return late_s >= limit_s if inclusive else late_s > limit_s


def lateness_effect(event: Event, doc: dict, table: dict, entry_id: str, arrived_at: datetime) -> dict:
    """Pure: what an arrival at `arrived_at` does under the event's lateness rule."""
    start = parse_time(doc.get("starts_at")) or parse_time(doc.get("drawn_at"))
    late_s = (arrived_at - start).total_seconds() if start else 0.0
    late_minutes = max(0, math.ceil(late_s / 60))
    rule = event.config.lateness
    ids = [s["entry_id"] for s in table["sides"]]
    if late_s <= 0 or doc.get("stage_round", 1) < rule.from_round:
        return {"late_minutes": late_minutes, "effect": "none", "start_levels": {}}
    if rule.forfeit_after_minutes is not None and _past_limit(late_s, rule.forfeit_after_minutes * 60,
                                                              forfeit_at_limit(event.config.game, rule)):
        return {"late_minutes": late_minutes, "effect": "forfeit", "start_levels": {}}
    steps = [s for s in sorted(rule.start_level, key=lambda s: s.after_minutes) if late_s > s.after_minutes * 60]
    if steps and len(ids) == 2:
        other = next(e for e in ids if e != entry_id)
        return {"late_minutes": late_minutes, "effect": "start_level", "start_levels": {other: steps[-1].level}}
    return {"late_minutes": late_minutes, "effect": "none", "start_levels": {}}


def record_arrival(deps: Deps, eid: str, n: int, t: int, entry_id: str, arrived_at: datetime | None,
                   actor: Actor) -> ArrivalOut:
    event, tournament = _event_and_tournament(deps, eid)
    _, doc, table = load(deps, eid, n, t)
    if entry_id not in table.ids:
        raise errors.InvalidRequest("该参赛单位不在这一桌 · This entry is not at this table.")
    if table.is_settled:
        raise errors.AlreadyConfirmed("本桌成绩已确认，不能再登记迟到 · This table's result is settled.")
    now = deps.clock()
    when = aware(arrived_at, tournament.timezone) if arrived_at else now
    if when > now + timedelta(minutes=1):   # a minute for a phone's clock; later is a slip of the finger
        raise errors.ArrivalInFuture(f"到场时间 {when.isoformat()} 晚于现在 · The arrival time is after now "
                                     f"({now.isoformat()}).", {"arrived_at": when.isoformat(), "now": now.isoformat()})
    effect = lateness_effect(event, doc, table.to_item(), entry_id, when)
    if effect["effect"] == "forfeit":
        out = record_forfeit(deps, eid, n, t, entry_id, f"迟到 {effect['late_minutes']} 分钟 · "
                             f"{effect['late_minutes']} minutes late", actor, excused=False)
        return ArrivalOut(**effect, table=out.table)
    after, events = table.record_arrival(entry_id, when, effect["late_minutes"], effect["start_levels"],
                                         place=place_of(event, doc))
    save(deps, eid, doc, table, after, audit_row(deps, actor, events[0].action, n, t, before=table.snapshot(),
                                                 after={"entry_id": entry_id, **effect}, reason=""))
    deps.dispatch(events)
    names = {e.id: e.name for e in deps.repos.entries.list(eid)}
    return ArrivalOut(**effect, table=table_view(after, names))


def _event_and_tournament(deps: Deps, eid: str) -> tuple[Event, Tournament]:
    event = deps.repos.events.get(eid)
    if event is None:
        raise errors.NotFound("event not found")
    return event, deps.repos.tournaments.get(event.tournament_id)


# --------------------------------------------------------------------------- appeals

def lodge_appeal(deps: Deps, eid: str, n: int, t: int, entry_id: str, text: str, actor,
                 captain_consent: bool = False, players_agreed: list[int] | None = None) -> Appeal:
    event, tournament = _event_and_tournament(deps, eid)
    _, doc, table = load(deps, eid, n, t)
    AppealRecord.check_appellant(actor, entry_id, table.ids)
    if event.config.game == "guandan" and event.config.entry.kind == "team" and not captain_consent:
        raise errors.CaptainConsentRequired("集体赛申诉须经领队同意 · In a team event an appeal needs the captain's "
                                            "consent: send \"captain_consent\": true.")
    agreed: list[dict] = []
    if event.config.game == "guandan" and event.config.entry.kind == "pair":
        # seed 000 "双人赛必须两名运动员均同意" (Guandan's seed; 003's Tractor rules ask nothing of it): both players,
        # by member number; the phone asks the partner to confirm
        entry = deps.repos.entries.get(eid, entry_id)
        members = entry.members if entry else []
        given = sorted(set(players_agreed or []))
        if given != list(range(len(members))) or len(members) != 2:
            raise errors.PlayersConsentRequired(details={"players_agreed": given, "members": [m.name for m in members]})
        agreed = [{"member": i, "name": members[i].name} for i in given]
    now = deps.clock()
    appeal, events = AppealRecord.lodge(
        new_id(), eid, n, t, entry_id, text, actor=actor, table_ids=table.ids, now=now,
        deadline=appeal_deadline(event, doc, now), window_minutes=event.config.appeals.window_minutes,
        fee=event.config.appeals.fee, currency=tournament.currency, tournament_id=event.tournament_id,
        captain_consent=captain_consent, players_agreed=agreed)
    deps.repos.rounds.create_appeal(appeal.to_item(), _appeal_audit(deps, actor, "appeal_lodged", appeal.to_item()))
    deps.dispatch(events)
    return _appeal_out(deps, appeal.to_item())


def _appeal_audit(deps: Deps, actor, action: str, appeal: dict, reason: str = "") -> dict:
    return {"id": new_id(), "at": deps.clock().isoformat(), "who": actor.ident, "action": action,
            "round": appeal["round"], "table": appeal["table"], "before": None,
            "after": {"appeal": appeal["id"], "status": appeal["status"], "outcome": appeal.get("outcome"),
                      "fee_status": appeal["fee_status"]}, "reason": reason}


def _appeal_out(deps: Deps, appeal: dict, names: dict | None = None) -> Appeal:
    if names is None:
        entry = deps.repos.entries.get(appeal["event_id"], appeal["entry_id"])
        name = entry.name if entry else ""
    else:
        name = names.get(appeal["entry_id"], "")
    return Appeal(**{**appeal, "fee": Money(**appeal["fee"])}, name=name)


def list_appeals(deps: Deps, eid: str) -> list[Appeal]:
    names = {e.id: e.name for e in deps.repos.entries.list(eid)}
    return [_appeal_out(deps, a, names) for a in sorted(deps.repos.rounds.appeals(eid), key=lambda a: a["lodged_at"])]


def own_appeal(deps: Deps, organiser, appeal_id: str) -> dict:
    appeal = deps.repos.rounds.appeal(appeal_id)
    if appeal is None:
        raise errors.NotFound("没有这项申诉 · No such appeal.")
    own_event(deps, organiser, appeal["event_id"])
    return appeal


def record_appeal_fee(deps: Deps, organiser, appeal_id: str, method: str, actor: Actor) -> Appeal:
    appeal = AppealRecord.load(own_appeal(deps, organiser, appeal_id))
    tid = deps.repos.events.get(appeal.event_id).tournament_id
    after, events = appeal.pay_fee(method, tournament_id=tid)
    deps.repos.rounds.save_appeal(after.to_item(), appeal.version,
                                  _appeal_audit(deps, actor, "appeal_fee_paid", after.to_item()))
    deps.dispatch(events)
    return _appeal_out(deps, after.to_item())


def decide_appeal(deps: Deps, organiser, appeal_id: str, outcome: str, ruling: str, result: dict | None,
                  actor: Actor) -> Appeal:
    """The arbitration's decision. Upheld: the fee is refunded (when the event says so) and a given result
    replaces the table's as a correction whose reason is the appeal — past the correction window too."""
    appeal = AppealRecord.load(own_appeal(deps, organiser, appeal_id))
    event = deps.repos.events.get(appeal.event_id)
    after, events = appeal.decide(actor, outcome, ruling, refund_if_upheld=event.config.appeals.refund_if_upheld,
                                  now=deps.clock(), tournament_id=event.tournament_id)
    if outcome == "upheld" and result:
        # the decision itself corrects the table (one request, the director's): a command, not a reaction
        _, _, tables = load_round(deps, appeal.event_id, appeal.round)
        table = next(x for x in tables if x["number"] == appeal.table)
        body = {**result, "version": table["version"], "override": True,
                "reason": f"申诉成立 · Appeal upheld: {ruling}"[:300]}
        submit_result(deps, appeal.event_id, appeal.round, appeal.table, body, actor, appeal_id=appeal.id)
    deps.repos.rounds.save_appeal(after.to_item(), appeal.version,
                                  _appeal_audit(deps, actor, "appeal_decided", after.to_item(), ruling))
    deps.dispatch(events)
    return _appeal_out(deps, after.to_item())
