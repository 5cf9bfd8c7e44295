"""The referee's day (rules.md §5, §7): the schedule, lateness, appeals and the windows that count from the
round's scheduled times, with `now` taken from the clock passed in.

A round's times come from its stage's schedule; unscheduled rounds fall back to when they were drawn (for
lateness) and when they were closed (for the correction and appeal windows)."""
from __future__ import annotations

import math
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from .. import errors
from ..bootstrap import Deps
from ..ids import new_id
from ..models import Appeal, ArrivalOut, Event, Money, Stage, Tournament


def aware(value: datetime, tz: str) -> datetime:
    """A time without offset is read in the tournament's time zone; stored and compared in UTC."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=ZoneInfo(tz))
    return value.astimezone(timezone.utc)


def round_times(stage: Stage, stage_round: int, tz: str) -> tuple[datetime | None, datetime | None]:
    sched = stage.schedule
    if sched is None:
        return None, None
    if sched.rounds is not None:
        if stage_round > len(sched.rounds):
            return None, None
        r = sched.rounds[stage_round - 1]
        return aware(r.starts_at, tz), aware(r.ends_at, tz)
    start = aware(sched.first_round_at, tz) + timedelta(
        minutes=(stage_round - 1) * (sched.round_minutes + sched.break_minutes))
    return start, start + timedelta(minutes=sched.round_minutes)


def _parse(value) -> datetime | None:
    if not value:
        return None
    out = datetime.fromisoformat(str(value))
    return out if out.tzinfo else out.replace(tzinfo=timezone.utc)


def window_base(doc: dict) -> datetime | None:
    """What the correction and appeal windows count from: the scheduled end, else the round's close."""
    return _parse(doc.get("ends_at")) or _parse(doc.get("closed_at"))


def correction_deadline(event: Event, doc: dict) -> datetime | None:
    base = window_base(doc)
    return base + timedelta(minutes=event.config.correction_minutes) if base else None


def correction_open(event: Event, doc: dict, now: datetime) -> bool:
    deadline = correction_deadline(event, doc)
    return deadline is None or now <= deadline


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
    start = _parse(doc.get("starts_at")) or _parse(doc.get("drawn_at"))
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


def record_arrival(deps: Deps, eid: str, n: int, t: int, entry_id: str, arrived_at: datetime | None, actor) -> ArrivalOut:
    from .results import _audit, _snapshot, record_forfeit, table_view
    from .rounds import load_table
    event, tournament = _event_and_tournament(deps, eid)
    _, doc, table = load_table(deps, eid, n, t)
    if entry_id not in [s["entry_id"] for s in table["sides"]]:
        raise errors.InvalidRequest("该参赛单位不在这一桌 · This entry is not at this table.")
    if table["status"] in ("confirmed", "forfeit"):
        raise errors.AlreadyConfirmed("本桌成绩已确认，不能再登记迟到 · This table's result is settled.")
    now = deps.clock()
    when = aware(arrived_at, tournament.timezone) if arrived_at else now
    if when > now + timedelta(minutes=1):   # a minute for a phone's clock; later is a slip of the finger
        raise errors.ArrivalInFuture(f"到场时间 {when.isoformat()} 晚于现在 · The arrival time is after now "
                                     f"({now.isoformat()}).", {"arrived_at": when.isoformat(), "now": now.isoformat()})
    effect = lateness_effect(event, doc, table, entry_id, when)
    if effect["effect"] == "forfeit":
        out = record_forfeit(deps, eid, n, t, entry_id, f"迟到 {effect['late_minutes']} 分钟 · "
                             f"{effect['late_minutes']} minutes late", actor, excused=False)
        return ArrivalOut(**effect, table=out.table)
    arrivals = {**(table.get("arrivals") or {}), entry_id: {"at": when.isoformat(), "late_minutes": effect["late_minutes"]}}
    # An arrival that changes the scoring moves the version (phones reload); one that does not, does not.
    after = {**table, "arrivals": arrivals, "version": table["version"] + (1 if effect["start_levels"] else 0)}
    if effect["start_levels"]:
        after["start_levels"] = {**(table.get("start_levels") or {}), **effect["start_levels"]}
    record = _audit(deps, actor, "arrival_recorded", n, t, before=_snapshot(table),
                    after={"entry_id": entry_id, **effect}, reason="")
    deps.repos.rounds.save_table(eid, doc["stage"], n, after, table["version"], record)
    from .live_tables import on_table_of   # start levels or a forfeit reach the phones (issue 43's live JSON)
    on_table_of(deps, eid, n, t)
    names = {e.id: e.name for e in deps.repos.entries.list(eid)}
    return ArrivalOut(**effect, table=table_view(after, names))


def _event_and_tournament(deps: Deps, eid: str) -> tuple[Event, Tournament]:
    event = deps.repos.events.get(eid)
    if event is None:
        raise errors.NotFound("event not found")
    return event, deps.repos.tournaments.get(event.tournament_id)


# --------------------------------------------------------------------------- appeals

def appeal_deadline(event: Event, doc: dict, now: datetime) -> datetime:
    base = window_base(doc) or now   # an open, unscheduled round: the window runs from now
    return base + timedelta(minutes=event.config.appeals.window_minutes)


def lodge_appeal(deps: Deps, eid: str, n: int, t: int, entry_id: str, text: str, actor,
                 captain_consent: bool = False, players_agreed: list[int] | None = None) -> Appeal:
    from .rounds import load_table
    event, tournament = _event_and_tournament(deps, eid)
    _, doc, table = load_table(deps, eid, n, t)
    ids = [s["entry_id"] for s in table["sides"]]
    if entry_id not in ids:
        raise errors.InvalidRequest("该参赛单位不在这一桌 · This entry is not at this table.")
    if actor.kind == "side" and ids[actor.side] != entry_id:
        raise errors.Forbidden("只能以本方名义申诉 · A side appeals in its own name.")
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
    deadline = appeal_deadline(event, doc, now)
    if now > deadline:
        raise errors.AppealWindowClosed(f"申诉时限已过（{event.config.appeals.window_minutes} 分钟）· The appeal window "
                                        f"({event.config.appeals.window_minutes} minutes) closed at {deadline.isoformat()}.")
    fee = event.config.appeals.fee
    appeal = {"id": new_id(), "event_id": eid, "round": n, "table": t, "entry_id": entry_id, "text": text,
              "status": "lodged", "lodged_at": now.isoformat(), "deadline": deadline.isoformat(),
              "fee": {"amount": fee, "currency": tournament.currency}, "fee_status": "due" if fee else "none",
              "lodged_by": actor.ident, "version": 1, **({"captain_consent": True} if captain_consent else {}),
              **({"players_agreed": agreed} if agreed else {}),
              **({"consent_recorded_by": "phone" if actor.kind == "side" else "director"}
                 if agreed or captain_consent else {})}
    deps.repos.rounds.create_appeal(appeal, _appeal_audit(deps, actor, "appeal_lodged", appeal))
    from .live_tables import on_table_changed   # the table's phones see the appeal (issue 43's live JSON)
    on_table_changed(deps, event.tournament_id, eid, doc["stage"], n, t)
    return _appeal_out(deps, appeal)


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
    from .tournaments import own_event
    appeal = deps.repos.rounds.appeal(appeal_id)
    if appeal is None:
        raise errors.NotFound("没有这项申诉 · No such appeal.")
    own_event(deps, organiser, appeal["event_id"])
    return appeal


def record_appeal_fee(deps: Deps, organiser, appeal_id: str, method: str, actor) -> Appeal:
    appeal = own_appeal(deps, organiser, appeal_id)
    if appeal["fee_status"] != "due":
        raise errors.Conflict(f"申诉费状态为 {appeal['fee_status']} · The fee is {appeal['fee_status']}, not due.")
    after = {**appeal, "fee_status": "paid", "fee_method": method, "version": appeal["version"] + 1}
    deps.repos.rounds.save_appeal(after, appeal["version"], _appeal_audit(deps, actor, "appeal_fee_paid", after))
    return _appeal_out(deps, after)


def decide_appeal(deps: Deps, organiser, appeal_id: str, outcome: str, ruling: str, result: dict | None, actor) -> Appeal:
    """The arbitration's decision. Upheld: the fee is refunded (when the event says so) and a given result
    replaces the table's as a correction whose reason is the appeal — past the correction window too."""
    appeal = own_appeal(deps, organiser, appeal_id)
    if appeal["status"] == "decided":
        raise errors.Conflict("这项申诉已裁决 · This appeal is decided already.")
    if appeal["fee_status"] == "due":   # seed 001: an appeal is lodged with its fee
        raise errors.Conflict("申诉费尚未缴纳，请先在报到台登记 · The appeal fee is not paid yet: record it at the desk first.")
    event = deps.repos.events.get(appeal["event_id"])
    fee_status = appeal["fee_status"]
    if fee_status == "paid":
        fee_status = "refunded" if outcome == "upheld" and event.config.appeals.refund_if_upheld else "kept"
    after = {**appeal, "status": "decided", "outcome": outcome, "ruling": ruling, "fee_status": fee_status,
             "decided_at": deps.clock().isoformat(), "decided_by": actor.ident, "version": appeal["version"] + 1}
    if outcome == "upheld" and result:
        from .results import submit_result
        from .rounds import load_round
        _, _, tables = load_round(deps, appeal["event_id"], appeal["round"])
        table = next(x for x in tables if x["number"] == appeal["table"])
        body = {**result, "version": table["version"], "override": True,
                "reason": f"申诉成立 · Appeal upheld: {ruling}"[:300]}
        submit_result(deps, appeal["event_id"], appeal["round"], appeal["table"], body, actor, appeal_id=appeal["id"])
    deps.repos.rounds.save_appeal(after, appeal["version"], _appeal_audit(deps, actor, "appeal_decided", after, ruling))
    from .live_tables import on_table_of   # the ruling reaches the table's phones (issue 43's live JSON)
    on_table_of(deps, appeal["event_id"], appeal["round"], appeal["table"])
    return _appeal_out(deps, after)
