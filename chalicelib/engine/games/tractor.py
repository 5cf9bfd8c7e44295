"""Tractor 拖拉机 / 升级 (rules.md §4): two pairs, four decks (400 points), levels 3..A, best of three games."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from ..types import MatchScore, Side
from .base import require

A = 14
MAX_POINTS = 400


def deal_change(points: int, declared_cards: int = 1) -> tuple[str, int]:
    """(who wins the deal, levels they rise) from the attackers' points, by the four-deck table."""
    require(isinstance(points, int) and not isinstance(points, bool), "attacker_points must be a whole number")
    require(points % 5 == 0, "attacker_points must be a multiple of 5", got=points)
    require(-MAX_POINTS <= points <= MAX_POINTS, f"attacker_points must be within ±{MAX_POINTS}", got=points)
    require(isinstance(declared_cards, int) and 1 <= declared_cards <= 8, "declared_cards must be 1..8")
    bonus = declared_cards if declared_cards >= 2 else 0
    if points < 0:
        return "banker", 5 + (-points) // 40 + bonus
    if points == 0:
        return "banker", 5 + bonus
    if points <= 40:
        return "banker", 4 + bonus
    if points <= 80:
        return "banker", 3 + bonus
    if points <= 120:
        return "banker", 2 + bonus
    if points < 160:
        return "banker", 1 + bonus
    return "attackers", (points - 160) // 40 + bonus


@dataclass
class TractorMatch:
    games_won: list[int] = field(default_factory=lambda: [0, 0])
    games: list[dict] = field(default_factory=list)


def play_match(deals: Sequence[dict], ids: Sequence[str], start_level: int, best_of: int) -> TractorMatch:
    match = TractorMatch()
    need = best_of // 2 + 1
    levels = [start_level, start_level]
    banker: int | None = None
    log: list[dict] = []
    for n, deal in enumerate(deals, start=1):
        require(max(match.games_won) < need, f"deal {n} comes after the match was decided", deal=n)
        require(isinstance(deal, dict), f"deal {n} must be an object", deal=n)
        if deal.get("penalty"):
            pen = deal["penalty"]
            require(isinstance(pen, dict) and pen.get("against") in ids,
                    f"deal {n}: a penalty names the offending entry ('against')", deal=n)
            other = 1 - ids.index(pen["against"])
            levels[other] = min(A, levels[other] + 3)  # the other pair rises 3
            banker = other if banker is None else banker
            log.append({"deal": n, "penalty": pen["against"], "levels": dict(zip(ids, levels))})
            continue
        named = deal.get("banker")
        require(named in ids, f"deal {n}: banker must be one of the two entries", deal=n, got=named)
        b = ids.index(named)
        if banker is not None:
            require(b == banker, f"deal {n}: the banker should be {ids[banker]} after the previous deal", deal=n)
        side, rise = deal_change(deal.get("attacker_points"), deal.get("declared_cards", 1))
        at_a = levels[b] == A
        if side == "banker":
            if at_a:  # the banker holds at A: passes A and wins the game
                match.games_won[b] += 1
                match.games.append({"winner": ids[b], "deals": log + [{"deal": n, "passed_a": ids[b]}]})
                levels, banker, log = [start_level, start_level], None, []
                continue
            levels[b] = min(A, levels[b] + rise)
            banker = b
        else:
            a = 1 - b
            levels[a] = min(A, levels[a] + rise)
            banker = a
        log.append({"deal": n, "banker": ids[banker], "levels": dict(zip(ids, levels))})
    if log:
        match.games.append({"winner": None, "deals": log, "levels": dict(zip(ids, levels))})
    return match


class Tractor:
    name = "tractor"
    seats = ("N", "E", "S", "W")
    sides_per_table = 2
    point_names = {"level_table": ("group_points", "games_won")}

    def side_seats(self, sides: int = 2) -> list[tuple[str, ...]]:
        return [("N", "S"), ("E", "W")]

    def score(self, result: dict, sides: Sequence[Side], options: Any, *, knockout: bool = False) -> MatchScore:
        require(isinstance(result, dict), "the result must be an object")
        ids = [s.entry_id for s in sides]
        need = options.best_of // 2 + 1
        if result.get("withdrawn") is not None:
            require(result["withdrawn"] in ids, "withdrawn names an entry that is not at this table")
            return self.forfeit(ids[1 - ids.index(result["withdrawn"])], result["withdrawn"], options)
        if "final" in result:
            final = result["final"]
            require(isinstance(final, dict) and isinstance(final.get("games_won"), dict), "final needs 'games_won'")
            won = []
            for eid in ids:
                g = final["games_won"].get(eid, 0)
                require(isinstance(g, int) and 0 <= g <= need, f"games won must be 0..{need}", entry_id=eid)
                won.append(g)
            games: list = []
        else:
            deals = result.get("deals")
            require(isinstance(deals, list) and deals, "give 'deals' or a 'final' summary")
            m = play_match(deals, ids, options.start_level, options.best_of)
            won, games = m.games_won, m.games
        require(not (won[0] == need and won[1] == need), "both pairs cannot win the match")
        time_up_leader = result.get("time_up_leader")  # when time is up, the pair ahead wins
        if won[0] != won[1]:
            w = 0 if won[0] > won[1] else 1
        elif time_up_leader in ids:
            w = ids.index(time_up_leader)
        else:
            require(False, "the match has no winner yet: play on, or give 'time_up_leader'", games_won=won)
        points = {ids[i]: {"group_points": 1.0 if i == w else 0.0, "games_won": float(won[i])} for i in range(2)}
        return MatchScore(points=points, outcome={ids[w]: 1.0, ids[1 - w]: 0.0},
                          opponents={ids[0]: [ids[1]], ids[1]: [ids[0]]}, details={"games": games}, winner=ids[w])

    def max_round_points(self, options: Any) -> float:
        return 1.0

    def bye(self, entry_id: str, options: Any) -> dict[str, float]:
        return {"group_points": 1.0, "games_won": float(options.best_of // 2 + 1)}

    def forfeit(self, winner: str | None, loser: str, options: Any) -> MatchScore:
        points = {loser: {"group_points": 0.0, "games_won": 0.0}}
        outcome = {loser: 0.0}
        if winner:
            points[winner] = {"group_points": 1.0, "games_won": float(options.best_of // 2 + 1)}
            outcome[winner] = 1.0
        return MatchScore(points=points, outcome=outcome,
                          opponents={winner: [loser], loser: [winner]} if winner else {loser: []},
                          details={"forfeit": loser}, winner=winner)
