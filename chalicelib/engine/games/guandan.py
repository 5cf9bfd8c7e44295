"""Guandan 掼蛋 (rules.md §1): two partnerships (N–S v E–W), levels 2..A, deals decided by finishing order."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from collections.abc import Sequence

from ..types import MatchScore, Side
from .base import apply_adjustments, require

A = 14
PASSED_A = 15  # passing A counts one level above A
SEATS = ("N", "E", "S", "W")
RISE_BY_PARTNER_PLACE = {1: 3, 2: 2, 3: 1}  # partner second → +3, third → +2, last → +1


@dataclass
class GuandanPlay:
    levels: list[int]
    passed: int | None = None                     # side index that passed A
    log: list[dict] = field(default_factory=list)
    failures: list[int] = field(default_factory=lambda: [0, 0])


def play_deals(orders: Sequence[Sequence[str]], seat_side: dict[str, int], start: Sequence[int] = (2, 2),
               a_failure_limit: int | None = None, extra_rises: dict[int, list[tuple[int, int]]] | None = None) -> GuandanPlay:
    """Level progression over a match's deals. Raises InvalidResult on an impossible sequence.
    `extra_rises`: deal number → [(side, levels)] risen after that deal by a penalty (slow play), capped at A."""
    play = GuandanPlay(levels=list(start))
    played_by: int | None = None  # side whose level the next deal is played at (the previous winner)
    for n, order in enumerate(orders, start=1):
        require(play.passed is None, f"deal {n} comes after a side passed A: the match was over", deal=n)
        require(isinstance(order, (list, tuple)) and sorted(map(str, order)) == sorted(seat_side),
                f"deal {n}: the finishing order must list each seat {'/'.join(SEATS)} exactly once", deal=n, order=order)
        winner = seat_side[order[0]]
        partner_place = next(i for i, s in enumerate(order) if i > 0 and seat_side[s] == winner)
        rise = RISE_BY_PARTNER_PLACE[partner_place]
        at_own_a = played_by == winner and play.levels[winner] == A
        # An attempt at A: a deal played at a side's own A (counted for the optional A-failure rule).
        attempt = played_by if played_by is not None and play.levels[played_by] == A else None
        entry = {"deal": n, "winner": winner, "rise": rise, "played_at": played_by,
                 "level_played": play.levels[played_by] if played_by is not None else play.levels[0]}
        if at_own_a and rise >= 2:
            play.passed = winner
        elif at_own_a:
            pass  # a +1 win at A does not pass: play goes on at A
        else:
            play.levels[winner] = min(A, play.levels[winner] + rise)
        # An attempt at A fails when a deal is played at a side's own A and it does not pass.
        if a_failure_limit and attempt is not None and play.passed is None and (winner != attempt or rise == 1):
            play.failures[attempt] += 1
            if play.failures[attempt] >= a_failure_limit:
                play.levels[attempt] = 2
                play.failures[attempt] = 0
                entry["dropped_to_2"] = attempt
        for side, k in (extra_rises or {}).get(n, []):
            if play.passed is None:
                play.levels[side] = min(A, play.levels[side] + k)
                entry.setdefault("penalty_rises", []).append([side, k])
        entry["levels"] = list(play.levels)
        play.log.append(entry)
        played_by = winner
    return play


PENALTY_KINDS = ("double_down", "slow_play", "level_diff_point")
DEAL_PENALTIES = ("double_down", "slow_play")


def penalties_of(result: dict, ids: Sequence[str]) -> list[dict]:
    """The referee's penalties (rules.md §8, seeds 000 and 003), each {"kind", "entry_id" (the offender),
    "deal"?, "referee"?}: double_down "判负，按双下记分" (that deal is lost as a double-down: the other pair
    rises 3), slow_play "每副牌非义务方升1级" (the other side rises per deal; two under match points),
    level_diff_point "从总分扣除违规方1个级差分"."""
    pens = result.get("penalties") or []
    require(isinstance(pens, list) and len(pens) <= 100, "'penalties' must be a list")
    for p in pens:
        require(isinstance(p, dict) and p.get("kind") in PENALTY_KINDS,
                f"a Guandan penalty is one of {', '.join(PENALTY_KINDS)}", got=p.get("kind") if isinstance(p, dict) else p)
        require(p.get("entry_id") in ids, "a penalty names the offending entry at this table ('entry_id')")
        if p["kind"] in DEAL_PENALTIES:
            require(isinstance(p.get("deal"), int) and not isinstance(p.get("deal"), bool) and p["deal"] >= 1,
                    f"a {p['kind']} penalty names its 'deal'", got=p.get("deal"))
    return pens


def _final_values(result: dict, sides: Sequence[Side], options) -> tuple[list[int], int | None, list[dict]]:
    ids = [s.entry_id for s in sides]
    seat_side = {seat: i for i, s in enumerate(sides) for seat in s.seats}
    pens = penalties_of(result, ids)
    if "final" in result:
        require(not any(p["kind"] in DEAL_PENALTIES for p in pens),
                "double_down and slow_play penalties are scored from the deals: give 'deals', not a 'final' summary")
        final = result["final"]
        require(isinstance(final, dict) and isinstance(final.get("levels"), dict), "final needs 'levels' per entry")
        levels = []
        for eid in ids:
            lvl = final["levels"].get(eid)
            require(isinstance(lvl, int) and not isinstance(lvl, bool) and 2 <= lvl <= A,
                    "a final level must be 2..14 (J=11, Q=12, K=13, A=14)", entry_id=eid, got=lvl)
            levels.append(lvl)
        start = start_levels(result, ids)
        for i, eid in enumerate(ids):
            require(levels[i] >= start[i], f"this side started at level {start[i]} (lateness): its final level cannot "
                    "be lower", entry_id=eid, got=levels[i])
        passed_a = final.get("passed_a")
        passed = None
        if passed_a is not None:
            require(passed_a in ids, "passed_a names an entry that is not at this table", got=passed_a)
            passed = ids.index(passed_a)
            require(levels[passed] == A, "a side that passed A must be at A", entry_id=passed_a)
        return levels, passed, []
    deals = result.get("deals")
    require(isinstance(deals, list) and deals, "give 'deals' (finishing orders) or a 'final' summary")
    lost = {p["deal"]: ids.index(p["entry_id"]) for p in pens if p["kind"] == "double_down"}
    extra: dict[int, list[tuple[int, int]]] = {}
    for p in pens:
        require(p.get("deal", 1) <= len(deals), "a penalty names a deal that is not in 'deals'", deal=p.get("deal"))
        if p["kind"] == "slow_play":
            extra.setdefault(p["deal"], []).append((1 - ids.index(p["entry_id"]), options.slow_play_levels))
    orders = []
    for i, d in enumerate(deals, start=1):
        if i in lost:   # the offenders' two players finish last: the other pair's double-down win (+3)
            offender = lost[i]
            orders.append([s for s in sides[1 - offender].seats] + [s for s in sides[offender].seats])
            continue
        require(isinstance(d, dict) and "order" in d, f"deal {i} needs an 'order'", deal=i)
        orders.append(d["order"])
    tributes = check_tributes(deals, orders, seat_side)
    start = start_levels(result, ids)
    play = play_deals(orders, seat_side, start, getattr(options, "a_failure_limit", None), extra)
    for entry, tribute in zip(play.log, tributes):
        if tribute:
            entry["tribute"] = tribute   # the table's history and the score sheet show it
    return play.levels, play.passed, play.log


TRIBUTES = ("single", "double", "refused")


def check_tributes(deals: Sequence, orders: Sequence[Sequence[str]], seat_side: dict[str, int]) -> list[str | None]:
    """Each deal's optional `tribute` (seed 004 "Cống bài", 000 附件; rules.md §9): from the second deal on, a 双下
    in the previous deal (its winners finished first and second) makes a double tribute (双贡), any other order a
    single one (单贡); refused (抗贡, the paying side holds both big jokers) is always allowed. It changes no
    score; a wrong one is refused with the reason, so a dispute at the table is settled from the record."""
    from ...errors import InvalidTribute
    out: list[str | None] = []
    for i, d in enumerate(deals, start=1):
        tribute = d.get("tribute") if isinstance(d, dict) else None
        out.append(tribute)
        if tribute is None:
            continue
        if tribute not in TRIBUTES:
            raise InvalidTribute(f"第 {i} 副：贡牌为 single（单贡）、double（双贡）或 refused（抗贡） · Deal {i}: a tribute is "
                                 f"one of {', '.join(TRIBUTES)}.", {"deal": i, "given": tribute, "reason": "unknown"})
        if i == 1:
            raise InvalidTribute("第 1 副不进贡 · Deal 1 has no tribute (there is no previous deal).",
                                 {"deal": 1, "given": tribute, "expected": None, "reason": "first_deal"})
        prev = orders[i - 2]
        double_down = seat_side[prev[0]] == seat_side[prev[1]]
        expected = "double" if double_down else "single"
        if tribute not in (expected, "refused"):
            raise InvalidTribute(
                (f"第 {i} 副：上一副双下，应双贡（或抗贡） · Deal {i}: the previous deal was a double-down, so the tribute "
                 f"is double (or refused)." if double_down else
                 f"第 {i} 副：上一副不是双下，应单贡（或抗贡） · Deal {i}: the previous deal was not a double-down, so the "
                 f"tribute is single (or refused)."),
                {"deal": i, "given": tribute, "expected": expected,
                 "reason": "after_double_down" if double_down else "after_single"})
    return out


def start_levels(result: dict, ids: Sequence[str]) -> list[int]:
    """Lateness (seed 000): 0–5 minutes late → the other side starts at 3; 5–10 minutes → at 4. Either the
    levels themselves (`start_levels`, what the referee's arrival record gives) or the minutes (`late`)."""
    late = result.get("late")
    start = [2, 2]
    given = result.get("start_levels")
    if given:
        require(isinstance(given, dict) and set(given) <= set(ids), "start_levels must name entries at this table")
        for eid, lvl in given.items():
            require(isinstance(lvl, int) and not isinstance(lvl, bool) and 2 <= lvl <= A,
                    "a start level must be 2..14", entry_id=eid, got=lvl)
            start[ids.index(eid)] = lvl
        return start
    if late:
        require(isinstance(late, dict) and late.get("entry_id") in ids, "late must name an entry at this table")
        minutes = late.get("minutes")
        require(isinstance(minutes, (int, float)) and 0 < minutes <= 10,
                "late minutes must be over 0 and at most 10 (later is a forfeit)", got=minutes)
        other = 1 - ids.index(late["entry_id"])
        start[other] = 3 if minutes <= 5 else 4
    return start


class Guandan:
    name = "guandan"
    seats = SEATS
    sides_per_table = 2
    point_names = {"level_points": ("level_points",), "match_points": ("match_points", "level_diff_points")}

    def side_seats(self, sides: int = 2) -> list[tuple[str, ...]]:
        return [("N", "S"), ("E", "W")]

    def score(self, result: dict, sides: Sequence[Side], options: Any, *, knockout: bool = False) -> MatchScore:
        require(isinstance(result, dict), "the result must be an object")
        ids = [s.entry_id for s in sides]
        withdrawn = result.get("withdrawn")
        if getattr(options, "team_rooms", False) and withdrawn is None:
            from .guandan_team import score_team_match
            return score_team_match(self, result, ids, options, knockout=knockout)
        if withdrawn is not None:
            require(withdrawn in ids, "withdrawn names an entry that is not at this table")
            stayed = ids[1 - ids.index(withdrawn)]
            score = self.forfeit(stayed, withdrawn, options, during=True)
            apply_adjustments(score.points, result.get("adjustments"), self._adjustable(options), ids)
            return score
        levels, passed, log = _final_values(result, sides, options)
        values = [PASSED_A if passed == i else levels[i] for i in range(2)]
        if options.method == "level_points":
            pts = [float(options.pass_a_points) if passed == i else float(levels[i]) for i in range(2)]
            points = {ids[i]: {"level_points": pts[i]} for i in range(2)}
            compare = pts
        else:
            compare = values
            points = self._match_points(values, ids, options, knockout)
        outcome = _outcome(compare, ids)
        apply_adjustments(points, result.get("adjustments"), self._adjustable(options), ids)
        deductions = [p for p in penalties_of(result, ids) if p["kind"] == "level_diff_point"]
        apply_adjustments(points, [{"entry_id": p["entry_id"], "points": -float(options.deduction_points)}
                                   for p in deductions], self._adjustable(options), ids)
        winner = next((eid for eid in ids if outcome[eid] == 1), None)
        if knockout:
            require(winner is not None, "a knockout match needs a winner: the levels are equal")
        return MatchScore(points=points, outcome=outcome, opponents={ids[0]: [ids[1]], ids[1]: [ids[0]]},
                          details={"levels": {ids[i]: levels[i] for i in range(2)},
                                   "passed_a": ids[passed] if passed is not None else None, "deals": log,
                                   **({"penalties": result["penalties"]} if result.get("penalties") else {})},
                          winner=winner)

    @staticmethod
    def _adjustable(options) -> str:
        return "level_diff_points" if options.method == "match_points" else "level_points"

    @staticmethod
    def _match_points(values: list[int], ids: list[str], options, knockout: bool) -> dict:
        if values[0] == values[1]:
            require(not knockout, "a knockout match needs a winner: the levels are equal")
            return {eid: {"match_points": float(options.draw), "level_diff_points": 13.0} for eid in ids}
        w = 0 if values[0] > values[1] else 1
        d = abs(values[0] - values[1])
        table = options.level_diff_table
        win_ldp = max(0, min(26, table[min(d, len(table) - 1)]))
        return {ids[w]: {"match_points": float(options.win), "level_diff_points": float(win_ldp)},
                ids[1 - w]: {"match_points": float(options.loss), "level_diff_points": float(26 - win_ldp)}}

    def max_round_points(self, options: Any) -> float:
        if options.method == "match_points":
            return float(max(options.win, options.withdrawal_match_points, options.bye_match_points))
        return float(max(options.pass_a_points, 14, options.bye_level_points))

    def min_round_points(self, options: Any) -> float:
        # a forfeit scores 0 whatever the method; a loss under match points scores `loss`
        return float(min(options.loss, 0.0)) if options.method == "match_points" else 0.0

    def bye(self, entry_id: str, options: Any) -> dict[str, float]:
        if options.method == "match_points":
            rooms = team_rooms_counted(options)   # a team match: the 级差分 of one scale, or of both rooms summed
            return {"match_points": float(options.bye_match_points),
                    "level_diff_points": float(options.bye_level_diff_points) * rooms}
        # Level points: rules.md is silent, so the event config carries it (default 10, a typical won round).
        return {"level_points": float(options.bye_level_points)}

    def forfeit(self, winner: str | None, loser: str, options: Any, during: bool = False) -> MatchScore:
        if options.method == "match_points":
            rooms = team_rooms_counted(options)
            win = {"match_points": float(options.withdrawal_match_points),
                   "level_diff_points": float(options.withdrawal_level_diff_points) * rooms}
            lose = {"match_points": 0.0, "level_diff_points": 0.0}
        else:
            win = {"level_points": float(options.pass_a_points)}
            lose = {"level_points": 0.0}
        points = {loser: lose}
        outcome = {loser: 0.0}
        if winner:
            points[winner] = win
            outcome[winner] = 1.0
        opponents = {winner: [loser], loser: [winner]} if winner else {loser: []}
        return MatchScore(points=points, outcome=outcome, opponents=opponents,
                          details={"forfeit": loser, "during_match": during}, winner=winner)


def team_rooms_counted(options) -> int:
    """How many rooms' worth of 级差分 a team event's bye or forfeit scores: one when the team match's 级差分 is one
    26-point scale over both rooms (rules.md §9, the default), two when it is the sum of the rooms'."""
    if not getattr(options, "team_rooms", False):
        return 1
    return 2 if getattr(options, "team_level_diff", "combined") == "sum" else 1


def _outcome(values: Sequence[float], ids: Sequence[str]) -> dict[str, float]:
    if values[0] == values[1]:
        return {ids[0]: 0.5, ids[1]: 0.5}
    w = 0 if values[0] > values[1] else 1
    return {ids[w]: 1.0, ids[1 - w]: 0.0}
