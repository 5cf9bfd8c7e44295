"""Tractor 拖拉机 / 升级 (rules.md §4): two pairs, four decks (400 points), levels 3..A, best of three games."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from collections.abc import Sequence

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
    levels: list[int] = field(default_factory=list)     # levels of the game still being played when it stopped
    banker: str | None = None                           # who holds the bank for the next deal (None: a new game)


PENALTY_KINDS = ("wrong_play", "late_discovery", "card_count")


def deal_penalties(deal: dict, n: int, ids: Sequence[str]) -> list[dict]:
    """A deal's penalties (rules.md §8, seed 003), each {"kind", "entry_id" (the offender), "cards"?, "referee"?}.
    The older form {"penalty": {"against": id}} is a card-count penalty (the other pair rises 3)."""
    pens = list(deal.get("penalties") or [])
    if deal.get("penalty"):
        old = deal["penalty"]
        require(isinstance(old, dict) and old.get("against") in ids,
                f"deal {n}: a penalty names the offending entry ('against')", deal=n)
        pens.append({"kind": "late_discovery_legacy", "entry_id": old["against"]})
    for p in pens:
        require(isinstance(p, dict) and p.get("entry_id") in ids,
                f"deal {n}: a penalty names the offending entry ('entry_id')", deal=n)
        require(p.get("kind") in (*PENALTY_KINDS, "late_discovery_legacy"),
                f"deal {n}: a Tractor penalty is one of {', '.join(PENALTY_KINDS)}", deal=n, got=p.get("kind"))
        if p["kind"] == "wrong_play":
            cards = p.get("cards")
            require(isinstance(cards, int) and not isinstance(cards, bool) and 1 <= cards <= 60,
                    f"deal {n}: a wrong play names the 'cards' taken back", deal=n, got=cards)
    return pens


def play_match(deals: Sequence[dict], ids: Sequence[str], start_level: int, best_of: int,
               per_card: int = 10, penalty_levels: int = 3) -> TractorMatch:
    match = TractorMatch()
    need = best_of // 2 + 1
    levels = [start_level, start_level]
    banker: int | None = None
    log: list[dict] = []
    for n, deal in enumerate(deals, start=1):
        require(max(match.games_won) < need, f"deal {n} comes after the match was decided", deal=n)
        require(isinstance(deal, dict), f"deal {n} must be an object", deal=n)
        pens = deal_penalties(deal, n, ids)
        if any(p["kind"] == "late_discovery_legacy" for p in pens) and "banker" not in deal:
            # the older record: only the other pair's three levels, no deal played
            other = 1 - ids.index(next(p for p in pens if p["kind"] == "late_discovery_legacy")["entry_id"])
            levels[other] = min(A, levels[other] + penalty_levels)
            banker = other if banker is None else banker
            log.append({"deal": n, "penalty": ids[1 - other], "levels": dict(zip(ids, levels))})
            continue
        named = deal.get("banker")
        require(named in ids, f"deal {n}: banker must be one of the two entries", deal=n, got=named)
        b = ids.index(named)
        if banker is not None:
            require(b == banker, f"deal {n}: the banker should be {ids[banker]} after the previous deal", deal=n)
        late = [p for p in pens if p["kind"] == "late_discovery"]
        if late:
            # "过后发现的直接判出错方输掉当级牌，对抗方连升3级": the offender loses the deal, the other pair rises 3
            # (and holds the bank: it won the deal). No points are needed.
            other = 1 - ids.index(late[0]["entry_id"])
            levels[other] = min(A, levels[other] + penalty_levels)
            banker = other
            log.append({"deal": n, "banker": ids[banker], "penalty": late[0]["entry_id"], "kind": "late_discovery",
                        "levels": dict(zip(ids, levels))})
            continue
        points = deal.get("attacker_points")
        for p in pens:
            if p["kind"] == "wrong_play":
                # "按所拿回张数乘以10分…对出错方进行罚分": the attackers lose, or the banker gives away, cards × 10
                require(isinstance(points, int) and not isinstance(points, bool),
                        f"deal {n}: attacker_points must be a whole number", deal=n)
                points += -per_card * p["cards"] if ids.index(p["entry_id"]) != b else per_card * p["cards"]
        side, rise = deal_change(points, deal.get("declared_cards", 1))
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
        for p in pens:
            if p["kind"] in ("card_count", "late_discovery_legacy"):
                # "最后一手出牌时若发现多牌或少牌，首先判给非出错方连升3级，同时统计得分情况加级": the deal counts too
                other = 1 - ids.index(p["entry_id"])
                levels[other] = min(A, levels[other] + penalty_levels)
        entry = {"deal": n, "banker": ids[banker], "levels": dict(zip(ids, levels))}
        if pens:
            entry["penalties"] = [{"kind": p["kind"], "entry_id": p["entry_id"]} for p in pens]
        log.append(entry)
    if log:
        match.games.append({"winner": None, "deals": log, "levels": dict(zip(ids, levels))})
    match.levels = list(levels)
    match.banker = ids[banker] if banker is not None else None
    return match


def time_up_winner(won: Sequence[int], levels: Sequence[int] | None, named: str | None, ids: Sequence[str]) -> int:
    """Seed 003: "1.5小时结束时领先队获胜…打平的则继续进行，直到一方领先". The leader is the pair ahead in games,
    then in levels of the game being played; a named leader must be that pair; level → play on (PlayOn)."""
    from ...errors import PlayOn
    if won[0] != won[1]:
        leader = 0 if won[0] > won[1] else 1
    elif levels is not None and levels[0] != levels[1]:
        leader = 0 if levels[0] > levels[1] else 1
    else:
        raise PlayOn("双方打平，继续比赛直到一方领先 · The two pairs are level: play on until one leads.",
                     {"games_won": dict(zip(ids, won)), **({"levels": dict(zip(ids, levels))} if levels else {})})
    require(named is None or named == ids[leader], f"time is up with {ids[leader]} ahead, not {named}",
            leader=ids[leader], named=named)
    return leader


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
        current = None
        if "final" in result:
            final = result["final"]
            require(isinstance(final, dict) and isinstance(final.get("games_won"), dict), "final needs 'games_won'")
            won = []
            for eid in ids:
                g = final["games_won"].get(eid, 0)
                require(isinstance(g, int) and 0 <= g <= need, f"games won must be 0..{need}", entry_id=eid)
                won.append(g)
            if isinstance(final.get("levels"), dict):   # the game still being played when time was up
                current = []
                for eid in ids:
                    lvl = final["levels"].get(eid)
                    require(isinstance(lvl, int) and not isinstance(lvl, bool) and 2 <= lvl <= A,
                            "a level must be 2..14", entry_id=eid, got=lvl)
                    current.append(lvl)
            games: list = []
        else:
            deals = result.get("deals")
            require(isinstance(deals, list) and deals, "give 'deals' or a 'final' summary")
            m = play_match(deals, ids, options.start_level, options.best_of,
                           getattr(options, "wrong_play_points_per_card", 10), getattr(options, "penalty_levels", 3))
            won, games, current = m.games_won, m.games, m.levels
        require(not (won[0] == need and won[1] == need), "both pairs cannot win the match")
        time_up_leader = result.get("time_up_leader")  # when time is up, the pair ahead wins
        if need in won:
            w = won.index(need)
            require(time_up_leader in (None, ids[w]), f"{ids[w]} won the match; time_up_leader names the other pair")
        elif time_up_leader is not None:
            require(time_up_leader in ids, "time_up_leader names an entry that is not at this table")
            w = time_up_winner(won, current, time_up_leader, ids)
        elif won[0] != won[1]:
            w = 0 if won[0] > won[1] else 1   # a summary of a match stopped by time with one pair a game ahead
        else:
            require(False, "the match has no winner yet: play on, or give 'time_up_leader'", games_won=won)
        points = {ids[i]: {"group_points": 1.0 if i == w else 0.0, "games_won": float(won[i])} for i in range(2)}
        return MatchScore(points=points, outcome={ids[w]: 1.0, ids[1 - w]: 0.0},
                          opponents={ids[0]: [ids[1]], ids[1]: [ids[0]]}, details={"games": games}, winner=ids[w])

    def running(self, result: dict, sides: Sequence[Side], options: Any) -> dict:
        """The match as it stands after the deals so far (games won, the current game's levels, who leads), for
        the table phone: it stays on screen while the match is undecided and names the time-up leader."""
        ids = [s.entry_id for s in sides]
        deals = result.get("deals") or []
        m = play_match(deals, ids, options.start_level, options.best_of,
                       getattr(options, "wrong_play_points_per_card", 10), getattr(options, "penalty_levels", 3))
        levels = m.levels or [options.start_level, options.start_level]
        need = options.best_of // 2 + 1
        leader = None
        if m.games_won[0] != m.games_won[1]:
            leader = ids[0 if m.games_won[0] > m.games_won[1] else 1]
        elif levels[0] != levels[1]:
            leader = ids[0 if levels[0] > levels[1] else 1]
        return {"games_won": dict(zip(ids, m.games_won)), "levels": dict(zip(ids, levels)), "leader": leader,
                "decided": need in m.games_won, "games_to_win": need, "banker": m.banker}

    def min_round_points(self, options: Any) -> float:
        return 0.0

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
