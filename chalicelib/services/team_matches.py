"""Guandan team matches (集体赛, rules.md §8): the two rooms of a table, lineups with their deadlines and a
room's result at a time. The engine (engine/games/guandan_team.py) scores the match from both rooms; this
module keeps what the tables send until both rooms are in."""
from __future__ import annotations

from datetime import datetime

from .. import errors
from ..bootstrap import Deps
from ..engine.games import game as game_rules
from ..engine.games.guandan_team import ROOM_SEATS, ROOMS, lineup_deadline, lineup_pairs, room_sides
from ..models import Event, LineupIn, ResultOut
from .results import Actor, _audit, _snapshot, submit_result, table_view
from .rounds import load_table


def is_team_event(event: Event) -> bool:
    return event.config.game == "guandan" and event.config.entry.kind == "team"


def table_rooms(home: str, away: str) -> list[dict]:
    """The home team N–S in the open room and E–W in the closed room (rules.md §8 default)."""
    return [{"room": room, "seats": {home: list(ROOM_SEATS[room][0]), away: list(ROOM_SEATS[room][1])}} for room in ROOMS]


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
    its deadline; later, or a change, is the director's — and a change gives the other team seat choice."""
    event = _event(deps, eid)
    _, doc, table = load_table(deps, eid, n, t)
    ids = [s["entry_id"] for s in table["sides"]]
    entry_id = ids[actor.side] if actor.kind == "side" else body.entry_id
    if entry_id not in ids:
        raise errors.InvalidRequest("entry_id: name a team at this table")
    if table["status"] != "pending" or table.get("room_results"):
        raise errors.Conflict("成绩已开始录入，名单不能再改 · A result is in: the lineup can no longer change.")
    entry = deps.repos.entries.get(eid, entry_id)
    pairs = lineup_pairs({"open": body.open, "closed": body.closed}, len(entry.members) if entry else 0)
    lineups = dict(table.get("lineups") or {})
    change = entry_id in lineups
    starts = datetime.fromisoformat(doc["starts_at"]) if doc.get("starts_at") else None
    deadline = lineup_deadline(starts, table.get("seat_choice") == entry_id) if starts else None
    late = deadline is not None and deps.clock() > deadline
    if actor.kind == "side" and (late or change):
        raise errors.LineupClosed(
            ("进场名单已过截止时间" if late else "进场名单已宣布") + "，变更需经裁判长同意 · "
            + (f"The lineup deadline was {deadline.isoformat()}" if late else "The lineup was announced")
            + ": the chief referee records a change.", {"deadline": deadline.isoformat() if deadline else None})
    after = {**table, "lineups": {**lineups, entry_id: pairs}, "version": table["version"] + 1}
    if change and actor.kind != "side":
        after["seat_choice"] = next(e for e in ids if e != entry_id)   # "此时对方具有座位选择权"
    record = _audit(deps, actor, "lineup_changed" if change else "lineup_announced", n, t,
                    before={"lineups": lineups, "seat_choice": table.get("seat_choice")},
                    after={"lineups": after["lineups"], "seat_choice": after.get("seat_choice")})
    deps.repos.rounds.save_table(eid, doc["stage"], n, after, table["version"], record)
    return {"table": table_view(after), "late": late, "deadline": deadline}


def submit_room(deps: Deps, eid: str, n: int, t: int, room: str, body: dict, actor: Actor) -> ResultOut:
    """One room's pairs result. While the other room's is missing it is kept on the table; with both in, the
    team match is scored and entered as one result (confirmed by the other team as any result)."""
    event = _event(deps, eid)
    if room not in ROOMS:
        raise errors.InvalidRequest("room: open or closed")
    _, doc, table = load_table(deps, eid, n, t)
    if body.get("version") != table["version"]:
        raise errors.VersionConflict(f"The result is at version {table['version']}, not {body.get('version')}: reload and try again.")
    room_result = {k: v for k, v in body.items() if k not in ("version", "reason", "override")}
    ids = [s["entry_id"] for s in table["sides"]]
    scoring = event.config.stages[doc["stage"]].scoring
    # the room alone must be a valid pairs result (a clear error now, not when the other room comes in)
    game_rules("guandan").score(room_result, room_sides(ids, room),
                                scoring.model_copy(update={"team_rooms": False}))
    done = (table.get("result") or {}).get("rooms") if table["status"] in ("entered", "confirmed", "disputed") else None
    rooms = {**(done or table.get("room_results") or {}), room: room_result}
    if set(rooms) == set(ROOMS):
        full = {"version": table["version"], "rooms": rooms,
                **{k: body[k] for k in ("reason", "override") if k in body}}
        return submit_result(deps, eid, n, t, full, actor)
    if table["status"] != "pending":
        raise errors.AlreadyConfirmed("This table's result is in already.")
    after = {**table, "room_results": rooms, "version": table["version"] + 1}
    record = _audit(deps, actor, "room_result_entered", n, t, before=_snapshot(table),
                    after={**_snapshot(after), "room": room})
    deps.repos.rounds.save_table(eid, doc["stage"], n, after, table["version"], record)
    return ResultOut(table=table_view(after), status=after["status"], version=after["version"], points={})
