"""Gouji 够级 (rules.md §3): six players, two teams of three sitting alternately, four decks."""
from __future__ import annotations

from typing import Any
from collections.abc import Sequence

from ..types import MatchScore, Side
from .base import apply_adjustments, require

SEATS = ("1", "2", "3", "4", "5", "6")
TEAM_SEATS = (("1", "3", "5"), ("2", "4", "6"))


def game_points(order: Sequence, values: Sequence[int], n: int, burned: Sequence = ()) -> dict[str, int]:
    """Points by seat for one game: 头科..六科 = 7,5,4,3,2,1. A player who failed a 烧牌 is last."""
    require(isinstance(order, (list, tuple)), f"game {n}: 'order' must list the six seats", game=n)
    seats = [str(s) for s in order]
    require(len(seats) == 6 and sorted(seats) == sorted(SEATS),
            f"game {n}: the finishing order must list seats 1..6 once each", game=n, order=list(order))
    burned = [str(s) for s in burned or ()]
    require(all(b in SEATS for b in burned), f"game {n}: 'burned' names an unknown seat", game=n)
    seats = [s for s in seats if s not in burned] + [s for s in seats if s in burned]
    return {seat: values[i] for i, seat in enumerate(seats)}


def team_totals(game: dict, values: Sequence[int], n: int) -> tuple[int, int]:
    require(isinstance(game, dict), f"game {n} must be an object", game=n)
    pts = game_points(game.get("order"), values, n, game.get("burned", ()))
    return sum(pts[s] for s in TEAM_SEATS[0]), sum(pts[s] for s in TEAM_SEATS[1])


def cheating_games(result: dict, ids: Sequence[str], games: int) -> dict[int, int]:
    """Seed 002 "如有作弊行为…一经核实，本局判负" (rules.md §8): game number → the offending side. Penalties are
    {"kind": "cheating", "entry_id": offender, "game": n, "referee"?}."""
    pens = result.get("penalties") or []
    require(isinstance(pens, list) and len(pens) <= 50, "'penalties' must be a list")
    out = {}
    for p in pens:
        require(isinstance(p, dict) and p.get("kind") == "cheating", "a Gouji penalty is 'cheating' (本局判负)",
                got=p.get("kind") if isinstance(p, dict) else p)
        require(p.get("entry_id") in ids, "a penalty names the offending team at this table ('entry_id')")
        g = p.get("game")
        require(isinstance(g, int) and not isinstance(g, bool) and 1 <= g <= games,
                "a cheating penalty names its 'game' (1.. the games given)", got=g)
        out[g] = ids.index(p["entry_id"])
    return out


def lost_game(values: Sequence[int], offender: int) -> tuple[int, int]:
    """本局判负: the other team's three players take 头科–三科, the offenders 四科–六科 (16 : 6 by default)."""
    ranked = sorted(values, reverse=True)
    top, bottom = sum(ranked[:3]), sum(ranked[3:])
    return (bottom, top) if offender == 0 else (top, bottom)


class Gouji:
    name = "gouji"
    seats = SEATS
    sides_per_table = 2
    point_names = {"position_points": ("position_points", "match_points")}

    def side_seats(self, sides: int = 2) -> list[tuple[str, ...]]:
        return [TEAM_SEATS[0], TEAM_SEATS[1]]

    def score(self, result: dict, sides: Sequence[Side], options: Any, *, knockout: bool = False) -> MatchScore:
        require(isinstance(result, dict), "the result must be an object")
        ids = [s.entry_id for s in sides]
        if result.get("withdrawn") is not None:
            withdrawn = result["withdrawn"]
            require(withdrawn in ids, "withdrawn names an entry that is not at this table")
            return self.forfeit(ids[1 - ids.index(withdrawn)], withdrawn, options)
        values = options.position_values
        games = result.get("games")
        require(isinstance(games, list) and games, "give the match's 'games' (finishing orders)")
        require(len(games) <= options.games_per_match,
                f"this match has {options.games_per_match} game(s); extra games go in 'extra_games'", got=len(games))
        totals = [0, 0]
        per_game = []
        cheated = cheating_games(result, ids, len(games))
        for n, g in enumerate(games, start=1):
            a, b = lost_game(values, cheated[n]) if n in cheated else team_totals(g, values, n)
            totals[0] += a
            totals[1] += b
            per_game.append([a, b])
        extra = result.get("extra_games") or []
        require(isinstance(extra, list), "'extra_games' must be a list")
        winner_idx: int | None = None
        if totals[0] != totals[1]:
            require(not extra, "extra games are only played after a tied match")
            winner_idx = 0 if totals[0] > totals[1] else 1
        elif knockout:
            # Tied knockout: extra games one at a time until one is not tied; after the limit, lots.
            limit = options.extra_games_before_lots
            extra_log = []
            for n, g in enumerate(extra, start=1):
                require(winner_idx is None, f"extra game {n} comes after the tie was already broken")
                require(n <= limit, f"after {limit} tied extra games the team leaders draw lots")
                a, b = team_totals(g, values, n)
                extra_log.append([a, b])
                if a != b:
                    winner_idx = 0 if a > b else 1
            if winner_idx is None:
                lots = result.get("lots_winner")
                require(len(extra) >= limit, "a tied knockout match needs extra games",
                        extra_games=len(extra), needed=limit)
                require(lots in ids, "after the tied extra games, give 'lots_winner' (drawn by the team leaders)")
                winner_idx = ids.index(lots)
            per_game.append({"extra": extra_log})
        else:
            require(not extra, "extra games are only for knockout matches")
        points = {}
        outcome = {}
        for i, eid in enumerate(ids):
            if winner_idx is None:
                mp, oc = options.draw, 0.5
            elif winner_idx == i:
                mp, oc = options.win, 1.0
            else:
                mp, oc = options.loss, 0.0
            points[eid] = {"position_points": float(totals[i]), "match_points": float(mp)}
            outcome[eid] = oc
        apply_adjustments(points, result.get("adjustments"), "position_points", ids)
        return MatchScore(points=points, outcome=outcome, opponents={ids[0]: [ids[1]], ids[1]: [ids[0]]},
                          details={"games": per_game, **({"cheating": {str(k): ids[v] for k, v in cheated.items()}}
                                                          if cheated else {})}, winner=ids[winner_idx] if winner_idx is not None else None)

    def min_round_points(self, options: Any) -> float:
        return float(min(0.0, options.loss))

    def max_round_points(self, options: Any) -> float:
        best_game = sum(sorted(options.position_values, reverse=True)[:3])   # 头科, 二科 and 三科 on one team
        return float(max(best_game * options.games_per_match, options.withdrawal_points))

    def bye(self, entry_id: str, options: Any) -> dict[str, float]:
        return {"position_points": float(11 * options.games_per_match), "match_points": float(options.win)}

    def forfeit(self, winner: str | None, loser: str, options: Any) -> MatchScore:
        """A team that withdraws: every team drawn against it scores `withdrawal_points` (32) and wins."""
        points = {loser: {"position_points": 0.0, "match_points": float(options.loss)}}
        outcome = {loser: 0.0}
        if winner:
            points[winner] = {"position_points": float(options.withdrawal_points), "match_points": float(options.win)}
            outcome[winner] = 1.0
        return MatchScore(points=points, outcome=outcome,
                          opponents={winner: [loser], loser: [winner]} if winner else {loser: []},
                          details={"forfeit": loser}, winner=winner)
