"""Who sat in a team match's rooms, checked against the lineups (rules.md §8, §9): shared by the result of a
whole table (services/results.py) and one room at a time (services/team_matches.py), so neither imports the
other to check it."""
from __future__ import annotations

from typing import TYPE_CHECKING

from .. import errors
if TYPE_CHECKING:   # the type only: the composition root (bootstrap) imports the services, not the reverse
    from ..bootstrap import Deps
from ..domain.actor import Actor
from ..engine.formats.mixed_pairs import lineup_problem
from ..engine.games.guandan_team import ROOM_SEATS, ROOMS
from .registration import event_config


def check_mixed_lineup(pairs: dict[str, list[int]], side: int, entry) -> None:
    """rules.md §9 (seed 000 "上场阵容必须由一对男运动员和一对女运动员组成。男运动员坐东、西的方位，女运动员坐南、北的
    方位"): in the room where this team sits E–W its men's pair plays, where it sits N–S its women's pair."""
    genders = [m.gender for m in entry.members] if entry else []
    problem = lineup_problem(pairs, {room: ROOM_SEATS[room][side] for room in pairs}, genders)
    if problem:
        seats = "东西" if problem["needs"] == "men" else "南北"
        raise errors.MixedLineup(
            f"{'开室' if problem['room'] == 'open' else '闭室'}本队坐{seats}，须由两名{'男' if problem['needs'] == 'men' else '女'}"
            f"选手上场 · In the {problem['room']} room this team sits {'-'.join(problem['seats'])}: its "
            f"{problem['needs']}'s pair plays there.", problem)


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
        # the config is cached: a mixed team stays one once drawn
        if getattr(event_config(deps, eid).config, "mixed_team", False):   # men E–W, women N–S (rules.md §9)
            check_mixed_lineup({room: pair}, ids.index(e), entry)
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
