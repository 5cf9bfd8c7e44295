"""Guandan team events 集体赛 (rules.md §8, seed 000): a team match on two tables, the open room (开室) and the
closed room (闭室). The home team sits N–S in the open room and E–W in the closed room; each room is scored as
a pairs match (levels, 级差分) and the team match is decided by the two rooms together — the team whose pairs
gained more levels in total wins; 场分 2 / 1 / 0. 级差分 (rules.md §9): the 26-point scale applied once to the
combined level difference of the two rooms (as bridge turns a team match's total into one victory-point score),
so a drawn team match is 13 : 13 and a bye's 17 stays worth a little more; or, as the event may choose
(`team_level_diff: "sum"`), the sum of the two rooms' 级差分. Penalties and adjustments of a room stay with the team.
The seed's own table for this is lost in the garbled copy.

Lineups (进场名单): "一方有座位选择权时，比赛开始前15分钟，无座位选择权的队宣布进场名单；以后直至比赛开始前5分钟，
有座位选择权的队宣布进场名单"; a change after that needs the chief referee, and then the other side gets seat choice."""
from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any
from collections.abc import Sequence

from ...errors import TieBreakRequired
from ..types import MatchScore, Side
from .base import require

ROOMS = ("open", "closed")
# side index 0 is the home team
ROOM_SEATS = {"open": (("N", "S"), ("E", "W")), "closed": (("E", "W"), ("N", "S"))}
WITHOUT_CHOICE_MINUTES = 15   # the team without seat choice names its lineup by 15 minutes before the start
WITH_CHOICE_MINUTES = 5       # the team with seat choice, after that and by 5 minutes before


def room_sides(ids: Sequence[str], room: str) -> list[Side]:
    return [Side(ids[i], ROOM_SEATS[room][i]) for i in range(2)]


def score_team_match(pairs_game, result: dict, ids: Sequence[str], options: Any, *, knockout: bool = False) -> MatchScore:
    """`pairs_game`: the Guandan pairs scorer (each room is a pairs match). `result`: {"rooms": {"open": <pairs
    result>, "closed": <pairs result>}}, each room's result as a pairs match takes it (deals or final, penalties)."""
    rooms = result.get("rooms")
    require(isinstance(rooms, dict) and set(rooms) == set(ROOMS),
            "a team match gives both rooms' results: 'rooms': {'open': …, 'closed': …}")
    room_options = options.model_copy(update={"team_rooms": False}) if hasattr(options, "model_copy") else options
    gained = [0, 0]
    ldp = [0.0, 0.0]
    adjusted = [0.0, 0.0]    # a room's 级差分 beyond its plain scale value: penalties, adjustments
    per_room = {}
    for room in ROOMS:
        require(isinstance(rooms[room], dict), f"the {room} room's result must be an object")
        require("rooms" not in rooms[room] and "withdrawn" not in rooms[room],
                f"the {room} room's result is a pairs result (deals or final)")
        sides = room_sides(ids, room)
        score = pairs_game.score(rooms[room], sides, room_options, knockout=False)
        start = _start(rooms[room], ids)
        levels = score.details["levels"]
        passed = score.details.get("passed_a")
        values = [15 if passed == e else levels[e] for e in ids]
        plain = _scale(values[0] - values[1], options)
        for i, e in enumerate(ids):
            gained[i] += values[i] - start[i]
            ldp[i] += score.points[e]["level_diff_points"]
            adjusted[i] += score.points[e]["level_diff_points"] - plain[i]
        per_room[room] = {"levels": levels, "passed_a": passed, "points": score.points, "deals": score.details.get("deals", [])}
    tie_break = None
    if gained[0] == gained[1] and knockout:
        tie_break = _knockout_tie_winner(result.get("tie_break"), ids, gained,
                                         getattr(options, "team_knockout_tie", "extra_deal"))
    if gained[0] == gained[1] and tie_break is None:
        mp = [float(options.draw)] * 2
        outcome = {ids[0]: 0.5, ids[1]: 0.5}
        winner = None
    else:
        w = ids.index(tie_break) if tie_break else 0 if gained[0] > gained[1] else 1
        mp = [float(options.win), float(options.loss)] if w == 0 else [float(options.loss), float(options.win)]
        outcome = {ids[w]: 1.0, ids[1 - w]: 0.0}
        winner = ids[w]
    if getattr(options, "team_level_diff", "combined") == "combined":
        scaled = _scale(gained[0] - gained[1], options)
        ldp = [scaled[i] + adjusted[i] for i in range(2)]
    points = {ids[i]: {"match_points": mp[i], "level_diff_points": ldp[i]} for i in range(2)}
    details = {"rooms": per_room, "levels_gained": dict(zip(ids, gained))}
    if tie_break:
        details["tie_break"] = {"winner": tie_break, "by": getattr(options, "team_knockout_tie", "extra_deal")}
    return MatchScore(points=points, outcome=outcome, opponents={ids[0]: [ids[1]], ids[1]: [ids[0]]},
                      details=details, winner=winner)


def _scale(difference: int, options) -> list[float]:
    """The 26-point 级差分 of a level difference (home minus away): the winner's from the event's table, capped to
    0..26, the loser 26 minus it; level is 13 : 13."""
    if difference == 0:
        return [13.0, 13.0]
    table = options.level_diff_table
    win = float(max(0, min(26, table[min(abs(difference), len(table) - 1)])))
    return [win, 26.0 - win] if difference > 0 else [26.0 - win, win]


def _knockout_tie_winner(given, ids: Sequence[str], gained: list[int], rule: str) -> str:
    """A knockout team match must have a winner (rules.md §1). The seeds give no rule for a team match whose two
    rooms gained the same levels: by default one extra deal decides (entered as `tie_break: {winner}`), or the
    home team (the better placed entry of the previous stage) goes through."""
    if rule == "home":
        return ids[0]
    if not (isinstance(given, dict) and given.get("winner") in ids):
        raise TieBreakRequired("两队升级数相同：加赛一副，录入胜队 · Both teams gained the same levels: play one "
                               "extra deal and enter its winner as tie_break.winner.",
                               {"levels_gained": dict(zip(ids, gained)), "tie_break": "extra_deal"})
    return given["winner"]


def _start(room_result: dict, ids: Sequence[str]) -> list[int]:
    given = room_result.get("start_levels") or {}
    return [given.get(e, 2) if isinstance(given, dict) else 2 for e in ids]


def lineup_deadline(starts_at: datetime, has_seat_choice: bool) -> datetime:
    """By when a team names its lineup: 15 minutes before the start without seat choice, 5 with it."""
    return starts_at - timedelta(minutes=WITH_CHOICE_MINUTES if has_seat_choice else WITHOUT_CHOICE_MINUTES)


def lineup_pairs(lineup: dict, roster_size: int) -> dict[str, list[int]]:
    """{"open": [i, j], "closed": [k, l]}: two different members (indices into the roster) in each room, nobody
    in both. The other members substitute between rounds."""
    require(isinstance(lineup, dict), "a lineup names the members of each room")
    out = {}
    for room in ROOMS:
        pair = lineup.get(room)
        require(isinstance(pair, list) and len(pair) == 2 and all(isinstance(i, int) and not isinstance(i, bool)
                                                                  and 0 <= i < roster_size for i in pair),
                f"lineup.{room}: two member numbers 0..{roster_size - 1}", got=pair)
        require(pair[0] != pair[1], f"lineup.{room}: two different members")
        out[room] = list(pair)
    require(not set(out["open"]) & set(out["closed"]), "a member plays in one room only")
    return out
