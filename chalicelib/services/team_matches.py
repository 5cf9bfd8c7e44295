"""Guandan team matches (集体赛, rules.md §8): the two rooms of a table, lineups with their deadlines, and each
room's result entered by one team's phone and confirmed by the other's. The engine (engine/games/guandan_team.py)
scores the match from both rooms once both are confirmed; this module keeps the rooms until then."""
from __future__ import annotations

from datetime import datetime

from .. import errors
from ..bootstrap import Deps
from ..engine.games import game as game_rules
from ..engine.games.guandan_team import ROOM_SEATS, ROOMS, lineup_deadline, lineup_pairs, room_sides
from ..engine.types import Side
from ..models import Event, LineupIn, ResultOut
from .results import Actor, _audit, _scored_result, _snapshot, submit_result, table_view
from .rounds import load_table

TIE_BREAK = "tie_break"   # the extra deal of a tied knockout team match, entered and confirmed as a room is


def is_team_event(event: Event) -> bool:
    return event.config.game == "guandan" and event.config.entry.kind == "team"


def table_rooms(home: str, away: str) -> list[dict]:
    """The home team N–S in the open room and E–W in the closed room (rules.md §8 default)."""
    return [{"room": room, "seats": {home: list(ROOM_SEATS[room][0]), away: list(ROOM_SEATS[room][1])}} for room in ROOMS]


def lineup_deadlines(starts_at: datetime | None, ids: list[str], seat_choice: str | None) -> dict[str, str] | None:
    """Each team's deadline: 15 minutes before the start without seat choice, 5 with it (seed 000)."""
    if starts_at is None:
        return None
    return {e: lineup_deadline(starts_at, seat_choice == e).isoformat() for e in ids}


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
    _, doc, table = load_table(deps, eid, n, t)
    ids = [s["entry_id"] for s in table["sides"]]
    entry_id = ids[actor.side] if actor.kind == "side" else body.entry_id
    if entry_id not in ids:
        raise errors.InvalidRequest("entry_id: name a team at this table")
    if table["status"] != "pending" or table.get("room_results"):
        raise errors.Conflict("成绩已开始录入，名单不能再改 · A result is in: the lineup can no longer change.")
    entry = deps.repos.entries.get(eid, entry_id)
    pairs = lineup_pairs({"open": body.open, "closed": body.closed}, len(entry.members) if entry else 0)
    if getattr(event.config, "mixed_team", False):
        _check_mixed_lineup(pairs, ids.index(entry_id), entry)
    lineups = dict(table.get("lineups") or {})
    starts = datetime.fromisoformat(doc["starts_at"]) if doc.get("starts_at") else None
    deadline = lineup_deadline(starts, table.get("seat_choice") == entry_id) if starts else None
    late = deadline is not None and deps.clock() > deadline
    # "变更": a change of what was announced. The director naming a lineup the team never announced is not one.
    change = entry_id in lineups
    if actor.kind == "side" and (late or change):
        raise errors.LineupClosed(
            ("进场名单已过截止时间" if late else "进场名单已宣布") + "，变更需经裁判长同意 · "
            + (f"The lineup deadline was {deadline.isoformat()}" if late else "The lineup was announced")
            + ": the chief referee records a change.", {"deadline": deadline.isoformat() if deadline else None})
    after = {**table, "lineups": {**lineups, entry_id: pairs}, "version": table["version"] + 1}
    if (change or late) and actor.kind != "side":
        after["seat_choice"] = next(e for e in ids if e != entry_id)   # "此时对方具有座位选择权"
        after["lineup_deadlines"] = lineup_deadlines(starts, ids, after["seat_choice"])
    record = _audit(deps, actor, "lineup_changed" if change else "lineup_announced", n, t,
                    before={"lineups": lineups, "seat_choice": table.get("seat_choice")},
                    after={"lineups": after["lineups"], "seat_choice": after.get("seat_choice"), "late": late})
    deps.repos.rounds.save_table(eid, doc["stage"], n, after, table["version"], record)
    from .live_tables import on_table_changed   # the phones' live JSON (issue 43)
    on_table_changed(deps, event.tournament_id, eid, doc["stage"], n, t)
    return {"table": table_view(after), "late": late, "deadline": deadline}


def _check_mixed_lineup(pairs: dict[str, list[int]], side: int, entry) -> None:
    """rules.md §9 (seed 000 "上场阵容必须由一对男运动员和一对女运动员组成。男运动员坐东、西的方位，女运动员坐南、北的
    方位"): in the room where this team sits E–W its men's pair plays, where it sits N–S its women's pair."""
    from ..engine.formats.mixed_pairs import lineup_problem
    genders = [m.gender for m in entry.members] if entry else []
    problem = lineup_problem(pairs, {room: ROOM_SEATS[room][side] for room in pairs}, genders)
    if problem:
        seats = "东西" if problem["needs"] == "men" else "南北"
        raise errors.MixedLineup(
            f"{'开室' if problem['room'] == 'open' else '闭室'}本队坐{seats}，须由两名{'男' if problem['needs'] == 'men' else '女'}"
            f"选手上场 · In the {problem['room']} room this team sits {'-'.join(problem['seats'])}: its "
            f"{problem['needs']}'s pair plays there.", problem)


# --------------------------------------------------------------------------- who played

def check_played(deps: Deps, eid: str, table: dict, room: str, players, actor: Actor, reason: str,
                 other_rooms: dict[str, dict] | None = None) -> dict[str, list[int]]:
    """Who sat in `room`, checked against the lineups: a team names its two players (or its lineup stands);
    what differs from the announced lineup is the chief referee's (the director with a reason), and nobody plays
    in both rooms. Returns entry → the two member numbers who played, for every team known."""
    ids = [s["entry_id"] for s in table["sides"]]
    lineups = table.get("lineups") or {}
    if players is not None and not (isinstance(players, dict) and set(players) <= set(ids)):
        raise errors.InvalidRequest("players: {entry_id: [member, member]} for the teams at this table")
    played: dict[str, list[int]] = {}
    for e in ids:
        given = (players or {}).get(e)
        announced = (lineups.get(e) or {}).get(room)
        if given is None:
            if announced is None:
                if actor.kind == "side":
                    raise errors.LineupMissing(
                        "这个队没有进场名单：请写明本室上场的两名队员 · This team announced no lineup: name the two "
                        "members who played in this room (players).", {"entry_id": e, "room": room})
                continue
            played[e] = list(announced)
            continue
        entry = deps.repos.entries.get(eid, e)
        pair = _pair(given, len(entry.members) if entry else 0, e)
        from .registration import event_config   # cached: a mixed team stays one once drawn
        if getattr(event_config(deps, eid).config, "mixed_team", False):   # men E–W, women N–S (rules.md §9)
            _check_mixed_lineup({room: pair}, ids.index(e), entry)
        if announced is not None and sorted(pair) != sorted(announced):
            if actor.kind == "side" or not reason:
                raise errors.LineupMismatch(
                    "上场队员与进场名单不符，需裁判长说明理由 · The players named are not this team's lineup for the "
                    "room: the chief referee records it with a reason.",
                    {"entry_id": e, "room": room, "lineup": list(announced), "played": pair})
        played[e] = pair
    for e, pair in played.items():
        for other, record in (other_rooms or {}).items():
            theirs = (record.get("players") or {}).get(e) or ((lineups.get(e) or {}).get(other))
            if other != room and theirs and set(theirs) & set(pair):
                raise errors.LineupMismatch("同一名队员不能在两个室上场 · A member plays in one room only.",
                                            {"entry_id": e, "room": room, "played": pair, "other_room": other})
    return played


def played_in_rooms(deps: Deps, eid: str, table: dict, result: dict, actor: Actor, reason: str) -> dict:
    """Both rooms in one body: each room may name its `players` (taken out of the pairs result), checked as
    a room at a time is."""
    played: dict[str, dict] = {}
    for room in ROOMS:
        body = result["rooms"].get(room)
        if not isinstance(body, dict):
            continue   # the engine names what is missing
        players = body.get("players")
        result["rooms"][room] = {k: v for k, v in body.items() if k != "players"}
        played[room] = check_played(deps, eid, table, room, players, actor, reason,
                                    {r: {"players": p} for r, p in played.items()})
    return played


def _pair(given, roster_size: int, entry_id: str) -> list[int]:
    ok = (isinstance(given, list) and len(given) == 2 and given[0] != given[1]
          and all(isinstance(i, int) and not isinstance(i, bool) and 0 <= i < roster_size for i in given))
    if not ok:
        raise errors.InvalidRequest(f"players.{entry_id}: two different member numbers 0..{roster_size - 1}")
    return list(given)


# --------------------------------------------------------------------------- one room at a time

def submit_room(deps: Deps, eid: str, n: int, t: int, room: str, body: dict, actor: Actor) -> ResultOut:
    """One room's pairs result (or the extra deal's winner, room `tie_break`), entered by a team's phone or the
    director. It waits on the table for the other team's confirmation; the match is scored when every room is
    confirmed. A confirmed table is corrected by the director as any result."""
    event = _event(deps, eid)
    if room not in (*ROOMS, TIE_BREAK):
        raise errors.InvalidRequest("room: open, closed or tie_break")
    _, doc, table = load_table(deps, eid, n, t)
    if body.get("version") != table["version"]:
        raise errors.VersionConflict(f"The result is at version {table['version']}, not {body.get('version')}: reload and try again.")
    ids = [s["entry_id"] for s in table["sides"]]
    reason = body.get("reason", "") or ""
    room_result = {k: v for k, v in body.items() if k not in ("version", "reason", "override", "players")}
    if table["status"] in ("confirmed", "forfeit", "entered", "disputed"):
        if actor.kind == "side":
            if table["status"] == "disputed":
                raise errors.Disputed("成绩有异议，由裁判处理 · This result is disputed: the referee settles it.")
            raise errors.AlreadyConfirmed("这一场的成绩已录入 · This table's result is in already.")
        done = dict((table.get("result") or {}).get("rooms") or {})
        named = {**room_result, **({"players": body["players"]} if "players" in body else {})}
        full = {"version": table["version"], "rooms": {**done, room: named} if room != TIE_BREAK else done,
                **({"tie_break": room_result} if room == TIE_BREAK else
                   {"tie_break": table["result"]["tie_break"]} if (table.get("result") or {}).get("tie_break") else {}),
                **{k: body[k] for k in ("reason", "override") if k in body}}
        return submit_result(deps, eid, n, t, full, actor)
    status = dict(table.get("room_status") or {})
    if actor.kind == "side":
        now = (status.get(room) or {}).get("status")
        if now == "confirmed":
            raise errors.AlreadyConfirmed("这个室的成绩已确认，只有裁判能改 · This room is confirmed: only the referee changes it.")
        if now == "disputed":
            raise errors.Disputed("这个室有异议，由裁判处理 · This room is disputed: the referee enters it.")
        if room in ROOMS and event.config.result_entry == "north_south" and "N" not in ROOM_SEATS[room][actor.side]:
            # rules.md §8 (seed 000): N–S enter, E–W confirm — in a team match each team sits N–S in one room
            raise errors.NorthSouthEnters("本室由南北方录入、东西方核对 · In this room N–S enter the result and E–W "
                                          "confirm it (rules.md §8).")
    scoring = event.config.stages[doc["stage"]].scoring
    record_extra: dict = {}
    if room == TIE_BREAK:
        if not table.get("tie_break_needed"):
            raise errors.Conflict("这一场不需要加赛 · This team match needs no extra deal.")
        if room_result.get("winner") not in ids:
            raise errors.InvalidResult("tie_break.winner: the team that won the extra deal", {"got": room_result.get("winner")})
        room_result = {"winner": room_result["winner"]}
    else:
        # the room alone must be a valid pairs result (a clear error now, not when the other room comes in)
        game_rules("guandan").score(_scored_result(room_result, table), room_sides(ids, room),
                                    scoring.model_copy(update={"team_rooms": False}))
        others = {r: s for r, s in status.items() if r in ROOMS}
        record_extra["players"] = check_played(deps, eid, table, room, body.get("players"), actor, reason, others)
    status[room] = {"status": "entered", "entered_by": actor.ident, "entered_side": actor.side,
                    "at": deps.clock().isoformat(), **record_extra}
    if reason:
        status[room]["reason"] = reason
    rooms = {**(table.get("room_results") or {}), room: room_result}
    after = {**table, "room_results": rooms, "room_status": status, "version": table["version"] + 1}
    record = _audit(deps, actor, "room_result_entered", n, t, before=_snapshot(table),
                    after={**_snapshot(after), "room": room, "room_result": room_result, **record_extra}, reason=reason)
    deps.repos.rounds.save_table(eid, doc["stage"], n, after, table["version"], record)
    from .live_tables import on_table_changed   # the phones' live JSON (issue 43)
    on_table_changed(deps, event.tournament_id, eid, doc["stage"], n, t)
    return ResultOut(table=table_view(after), status=after["status"], version=after["version"], points={})


def confirm_room(deps: Deps, eid: str, n: int, t: int, room: str, actor: Actor) -> ResultOut:
    """The other team's phone (or the director) confirms one room. With every room confirmed the engine scores the
    team match and the table is confirmed; a knockout match tied on levels first asks for its extra deal."""
    event = _event(deps, eid)
    if room not in (*ROOMS, TIE_BREAK):
        raise errors.InvalidRequest("room: open, closed or tie_break")
    _, doc, table = load_table(deps, eid, n, t)
    if table["status"] in ("confirmed", "forfeit"):
        raise errors.AlreadyConfirmed()
    status = dict(table.get("room_status") or {})
    mine = status.get(room)
    if table["status"] != "pending" or mine is None:
        raise errors.Conflict("这个室还没有成绩 · This room has no result to confirm yet.")
    if mine["status"] == "confirmed":
        raise errors.AlreadyConfirmed("这个室已确认 · This room is confirmed already.")
    if mine["status"] == "disputed" and actor.kind == "side":
        raise errors.Disputed("这个室有异议，由裁判处理 · This room is disputed: the referee enters it.")
    if actor.kind == "side" and actor.side == mine.get("entered_side"):
        raise errors.Forbidden("由对方确认 · The other team confirms the room it did not enter.")
    status[room] = {**mine, "status": "confirmed", "confirmed_by": actor.ident}
    after = {**table, "room_status": status, "version": table["version"] + 1}
    rooms = table.get("room_results") or {}
    stage = event.config.stages[doc["stage"]]
    score = None
    if all((status.get(r) or {}).get("status") == "confirmed" for r in ROOMS):
        result = _scored_result({"rooms": {r: rooms[r] for r in ROOMS}}, table)
        if (status.get(TIE_BREAK) or {}).get("status") == "confirmed":
            result["tie_break"] = rooms[TIE_BREAK]
        sides = [Side(s["entry_id"], tuple(s["seats"])) for s in table["sides"]]
        try:
            score = game_rules("guandan").score(result, sides, stage.scoring, knockout=stage.format == "knockout")
        except errors.TieBreakRequired:
            after["tie_break_needed"] = True   # both phones now show the extra deal
        else:
            after.update(result=result, points=score.points, outcome=score.outcome, winner=score.winner,
                         details=score.details, status="confirmed", entered_by=mine.get("entered_by"),
                         confirmed_by=actor.ident, tie_break_needed=False,
                         played={r: status[r].get("players") or {} for r in ROOMS})
    record = _audit(deps, actor, "result_confirmed" if score else "room_result_confirmed", n, t,
                    before=_snapshot(table), after={**_snapshot(after), "room": room})
    deps.repos.rounds.save_table(eid, doc["stage"], n, after, table["version"], record)
    if score:
        from .publish_requests import request_publish
        request_publish(deps, event.tournament_id)
    else:   # one room confirmed: the phones' live JSON only (issue 43)
        from .live_tables import on_table_changed
        on_table_changed(deps, event.tournament_id, eid, doc["stage"], n, t)
    return ResultOut(table=table_view(after), status=after["status"], version=after["version"],
                     points=score.points if score else {})


def dispute_room(deps: Deps, eid: str, n: int, t: int, room: str, reason: str, actor: Actor) -> ResultOut:
    """The confirming team does not agree with a room: the room is held as disputed, for the referee, who enters
    it again (then a team, or the referee, confirms it)."""
    event = _event(deps, eid)
    if room not in (*ROOMS, TIE_BREAK):
        raise errors.InvalidRequest("room: open, closed or tie_break")
    _, doc, table = load_table(deps, eid, n, t)
    status = dict(table.get("room_status") or {})
    mine = status.get(room)
    if table["status"] != "pending" or mine is None or mine["status"] == "confirmed":
        raise errors.Conflict("只能对已录入、未确认的室提出异议 · Only an entered, unconfirmed room can be disputed.")
    if mine["status"] == "disputed":
        raise errors.Disputed("已提出异议，等待裁判处理 · Already disputed: waiting for the referee.")
    if actor.kind == "side" and actor.side == mine.get("entered_side"):
        raise errors.Forbidden("The team that entered the room cannot dispute it.")
    status[room] = {**mine, "status": "disputed",
                    "dispute": {"reason": reason or "", "by": actor.ident, "side": actor.side, "at": deps.clock().isoformat()}}
    after = {**table, "room_status": status, "version": table["version"] + 1}
    record = _audit(deps, actor, "room_result_disputed", n, t, before=_snapshot(table),
                    after={**_snapshot(after), "room": room}, reason=reason)
    deps.repos.rounds.save_table(eid, doc["stage"], n, after, table["version"], record)
    from .live_tables import on_table_changed   # the phones' live JSON (issue 43)
    on_table_changed(deps, event.tournament_id, eid, doc["stage"], n, t)
    return ResultOut(table=table_view(after), status=after["status"], version=after["version"], points={})
