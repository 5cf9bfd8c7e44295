"""Guandan team matches (集体赛, rules.md §8): the two rooms of a table, lineups with their deadlines, and each
room's result entered by one team's phone and confirmed by the other's. The engine (engine/games/guandan_team.py)
scores the match from both rooms once both are confirmed; this module keeps the rooms until then."""
from __future__ import annotations

from typing import TYPE_CHECKING

from datetime import datetime

from .. import errors
if TYPE_CHECKING:   # the type only: the composition root (bootstrap) imports the services, not the reverse
    from ..bootstrap import Deps
from ..domain.actor import Actor
from ..domain.table import TIE_BREAK, TableStatus
from ..engine.games import game as game_rules
from ..engine.games.guandan_team import ROOMS, lineup_pairs, room_sides
from ..engine.types import Side
from ..models import Event, LineupIn, ResultOut
from .lineups import check_mixed_lineup, check_played
from .results import submit_result
from .tables import audit_row, load, place_of, save, table_view


def is_team_event(event: Event) -> bool:
    return event.config.game == "guandan" and event.config.entry.kind == "team"


def _event(deps: Deps, eid: str) -> Event:
    event = deps.repos.events.get(eid)
    if event is None:
        raise errors.NotFound("event not found")
    if not is_team_event(event):
        raise errors.InvalidRequest("只有掼蛋集体赛有开室与闭室 · Rooms and lineups belong to a Guandan team event.")
    return event


def post_lineup(deps: Deps, eid: str, n: int, t: int, body: LineupIn, actor: Actor) -> dict:
    """Seed 000: "比赛开始前15分钟，无座位选择权的队宣布进场名单；以后直至比赛开始前5分钟，有座位选择权的队宣布进场名单";
    "一方需要变更进场名单，必须经裁判长同意，并且此时对方具有座位选择权". A team's phone names its lineup once, before
    its deadline; later, or a change, is the director's — and then the other team has seat choice."""
    event = _event(deps, eid)
    _, doc, table = load(deps, eid, n, t)
    ids = table.ids
    entry_id = ids[actor.side] if actor.is_side else body.entry_id
    if entry_id not in ids:
        raise errors.InvalidRequest("entry_id: name a team at this table")
    table.check_lineup_open()
    entry = deps.repos.entries.get(eid, entry_id)
    pairs = lineup_pairs({"open": body.open, "closed": body.closed}, len(entry.members) if entry else 0)
    if getattr(event.config, "mixed_team", False):
        check_mixed_lineup(pairs, ids.index(entry_id), entry)
    starts = datetime.fromisoformat(doc["starts_at"]) if doc.get("starts_at") else None
    after, events, when = table.announce_lineup(actor, entry_id, pairs, now=deps.clock(), starts_at=starts,
                                                place=place_of(event, doc))
    record = audit_row(deps, actor, events[0].action, n, t,
                       before={"lineups": dict(table.lineups or {}), "seat_choice": table.seat_choice},
                       after={"lineups": after.lineups, "seat_choice": after.seat_choice, "late": when["late"]})
    save(deps, eid, doc, table, after, record)
    deps.dispatch(events)
    return {"table": table_view(after), **when}


# --------------------------------------------------------------------------- one room at a time

def submit_room(deps: Deps, eid: str, n: int, t: int, room: str, body: dict, actor: Actor) -> ResultOut:
    """One room's pairs result (or the extra deal's winner, room `tie_break`), entered by a team's phone or the
    director. It waits on the table for the other team's confirmation; the match is scored when every room is
    confirmed. A confirmed table is corrected by the director as any result."""
    event = _event(deps, eid)
    if room not in (*ROOMS, TIE_BREAK):
        raise errors.InvalidRequest("room: open, closed or tie_break")
    _, doc, table = load(deps, eid, n, t)
    if body.get("version") != table.version:
        raise errors.VersionConflict(f"The result is at version {table.version}, not {body.get('version')}: reload and try again.")
    ids = table.ids
    reason = body.get("reason", "") or ""
    room_result = {k: v for k, v in body.items() if k not in ("version", "reason", "override", "players")}
    if table.room_entry_is_a_correction(actor):   # the director's: an entry of the whole table, as any result
        done = dict((table.result or {}).get("rooms") or {})
        named = {**room_result, **({"players": body["players"]} if "players" in body else {})}
        full = {"version": table.version, "rooms": {**done, room: named} if room != TIE_BREAK else done,
                **({"tie_break": room_result} if room == TIE_BREAK else
                   {"tie_break": table.result["tie_break"]} if (table.result or {}).get("tie_break") else {}),
                **{k: body[k] for k in ("reason", "override") if k in body}}
        return submit_result(deps, eid, n, t, full, actor)
    table.check_room_entry(actor, room, event.config.result_entry)
    scoring = event.config.stages[doc["stage"]].scoring
    players = None
    if room == TIE_BREAK:
        room_result = table.tie_break_result(room_result)
    else:
        # the room alone must be a valid pairs result (a clear error now, not when the other room comes in)
        game_rules("guandan").score(table.scored_result(room_result), room_sides(ids, room),
                                    scoring.model_copy(update={"team_rooms": False}))
        others = {r: s for r, s in (table.to_item().get("room_status") or {}).items() if r in ROOMS}
        players = check_played(deps, eid, table.to_item(), room, body.get("players"), actor, reason, others)
    after, events = table.room_enter(actor, room, room_result, now=deps.clock(), players=players, reason=reason,
                                     place=place_of(event, doc))
    record = audit_row(deps, actor, events[0].action, n, t, before=table.snapshot(),
                       after={**after.snapshot(), "room": room, "room_result": room_result,
                              **({"players": players} if players is not None else {})}, reason=reason)
    save(deps, eid, doc, table, after, record)
    deps.dispatch(events)
    return ResultOut(table=table_view(after), status=after.status, version=after.version, points={})


def confirm_room(deps: Deps, eid: str, n: int, t: int, room: str, actor: Actor) -> ResultOut:
    """The other team's phone (or the director) confirms one room. With every room confirmed the engine scores the
    team match and the table is confirmed; a knockout match tied on levels first asks for its extra deal."""
    event = _event(deps, eid)
    if room not in (*ROOMS, TIE_BREAK):
        raise errors.InvalidRequest("room: open, closed or tie_break")
    _, doc, table = load(deps, eid, n, t)
    stage = event.config.stages[doc["stage"]]
    sides = [Side(s.entry_id, tuple(s.seats)) for s in table.sides]

    def scorer(result: dict):
        return game_rules("guandan").score(result, sides, stage.scoring, knockout=stage.format == "knockout")

    after, events = table.room_confirm(actor, room, place=place_of(event, doc), scorer=scorer)
    record = audit_row(deps, actor, events[0].action, n, t, before=table.snapshot(),
                       after={**after.snapshot(), "room": room})
    save(deps, eid, doc, table, after, record)
    deps.dispatch(events)
    return ResultOut(table=table_view(after), status=after.status, version=after.version,
                     points=after.points if after.status == TableStatus.CONFIRMED else {})


def dispute_room(deps: Deps, eid: str, n: int, t: int, room: str, reason: str, actor: Actor) -> ResultOut:
    """The confirming team does not agree with a room: the room is held as disputed, for the referee, who enters
    it again (then a team, or the referee, confirms it)."""
    event = _event(deps, eid)
    if room not in (*ROOMS, TIE_BREAK):
        raise errors.InvalidRequest("room: open, closed or tie_break")
    _, doc, table = load(deps, eid, n, t)
    after, events = table.room_dispute(actor, room, reason, now=deps.clock(), place=place_of(event, doc))
    record = audit_row(deps, actor, events[0].action, n, t, before=table.snapshot(),
                       after={**after.snapshot(), "room": room}, reason=reason)
    save(deps, eid, doc, table, after, record)
    deps.dispatch(events)
    return ResultOut(table=table_view(after), status=after.status, version=after.version, points={})
