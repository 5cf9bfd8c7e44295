"""Dou Dizhu 斗地主 / 二打一 (rules.md §2): three individuals (W, S, E), one deck, landlord v two farmers."""
from __future__ import annotations

from typing import Any
from collections.abc import Sequence

from ..numbers import share
from ..types import MatchScore, Side
from .base import apply_adjustments, require

SEATS = ("W", "S", "E")
MAX_BOMBS = 13          # one deck: thirteen four-of-a-kind bombs
MAX_ROCKETS = 1         # one deck: one pair of jokers


def max_deal_points(doubling: bool, max_doublings: int) -> int:
    """The most a landlord can win or lose in one deal: bid 3, every doubling (bombs, rocket, spring), and
    each farmer's doubling and redoubling when on."""
    return 2 * 3 * 2 ** max_doublings * (4 if doubling else 1)


def deal_small_points(deal: dict, n: int, doubling: bool = False, max_doublings: int = 14) -> dict[str, int]:
    """小分 of one deal by seat; zero-sum. Raises InvalidResult naming what is wrong: its details carry the deal,
    the `rule` broken (a stable code the phone words in its language) and the deal's `field` it shows it beside."""
    def rule(ok: bool, code: str, field: str, message: str, **more) -> None:
        require(ok, f"deal {n}: {message}", deal=n, rule=code, field=field, **more)

    rule(isinstance(deal, dict), "deal_object", "deal", "a deal must be an object")
    landlord = deal.get("landlord")
    rule(landlord in SEATS, "landlord_seat", "landlord", "landlord must be one of W/S/E", got=landlord)
    bid = deal.get("bid")
    rule(bid in (1, 2, 3) and not isinstance(bid, bool), "bid_range", "bid", "the bid must be 1, 2 or 3", got=bid)
    winner = deal.get("winner")
    rule(winner in ("landlord", "farmers"), "winner_side", "winner", "winner must be 'landlord' or 'farmers'")
    bombs = _seat_counts(deal.get("bombs"), n, "bombs")
    rockets = _seat_counts(deal.get("rockets"), n, "rockets")
    rule(sum(bombs.values()) <= MAX_BOMBS, "bombs_over_deck", "bombs",
         f"more bombs than one deck allows ({MAX_BOMBS})", max=MAX_BOMBS, got=sum(bombs.values()))
    rule(sum(rockets.values()) <= MAX_ROCKETS, "rockets_over_deck", "rockets", "one deck has only one rocket")
    spring, reverse = bool(deal.get("spring")), bool(deal.get("reverse_spring"))
    rule(not (spring and reverse), "spring_and_reverse", "reverse_spring", "spring and reverse spring cannot both happen")
    rule(not spring or winner == "landlord", "spring_needs_landlord_win", "spring", "a spring needs the landlord to win")
    rule(not reverse or winner == "farmers", "reverse_needs_farmers_win", "reverse_spring",
         "a reverse spring needs the farmers to win")
    played = {s: bombs.get(s, 0) + rockets.get(s, 0) for s in SEATS}
    if spring:   # 春天: neither farmer played a card (rules.md §2), so neither played a bomb or the rocket
        farmer = next((s for s in SEATS if s != landlord and played[s]), None)
        rule(farmer is None, "spring_farmer_played", "spring",
             f"a spring means the farmers played no card, but {farmer} played a bomb", seat=farmer)
    if reverse:  # 反春: the landlord played only the first hand (one bomb at most), and a farmer went out first
        rule(played[landlord] <= 1, "reverse_spring_landlord_played", "reverse_spring",
             "a reverse spring means the landlord played only the first hand: one bomb at most", seat=landlord)
        first = deal.get("first_out")
        rule(first in SEATS and first != landlord, "reverse_spring_first_out", "first_out",
             "a reverse spring needs 'first_out': the farmer who went out first", got=first)
    doublings = sum(bombs.values()) + sum(rockets.values()) + (1 if spring or reverse else 0)
    rule(doublings <= max_doublings, "doublings_over_limit", "bombs", f"{doublings} doublings (bombs, rocket, spring) "
         f"is more than this event allows in one deal ({max_doublings})", max=max_doublings, got=doublings)
    multiplier = 2 ** doublings
    unit = bid * multiplier
    sign = 1 if winner == "landlord" else -1
    doubles = _seat_counts(deal.get("doubles"), n, "doubles") if doubling else {}
    points = {s: 0 for s in SEATS}
    for farmer in SEATS:
        if farmer == landlord:
            continue
        rule(doubles.get(farmer, 0) <= 2, "doubles_over_two", "doubles", "a farmer doubles at most twice", seat=farmer)
        exchange = unit * 2 ** doubles.get(farmer, 0)
        points[landlord] += sign * exchange
        points[farmer] -= sign * exchange
    return points


def _seat_counts(value, n: int, what: str) -> dict[str, int]:
    if value in (None, {}):
        return {}
    require(isinstance(value, dict), f"deal {n}: {what} must map seats to counts", deal=n, rule="seat_counts", field=what)
    out = {}
    for seat, count in value.items():
        require(seat in SEATS, f"deal {n}: {what} names an unknown seat {seat!r}", deal=n, rule="seat_counts", field=what)
        require(isinstance(count, int) and not isinstance(count, bool) and count >= 0,
                f"deal {n}: {what} must be whole numbers", deal=n, rule="seat_counts", field=what)
        if count:
            out[seat] = count
    return out


def table_points(totals: Sequence[float], places: Sequence[float] = (5, 3, 1)) -> list[float]:
    """Rank three players by round 小分: 5/3/1, ties share the average of the tied places (4,4,1 · 5,2,2 · 3,3,3)."""
    order = sorted(range(len(totals)), key=lambda i: -totals[i])
    out = [0.0] * len(totals)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and totals[order[j + 1]] == totals[order[i]]:
            j += 1
        shared = share(places[i:j + 1], j - i + 1)   # the average of the tied places, half-up (rules.md §8)
        for k in range(i, j + 1):
            out[order[k]] = shared
        i = j + 1
    return out


def bomb_bonus(deal: dict, bonus) -> dict | None:
    """The cash bomb bonus of one deal, or None when it has fewer than three bombs.

    A rocket counts as a bomb and a spring or reverse spring as one bomb. 'Made them all': every
    bomb was played by one player (a spring is the landlord's, a reverse spring the farmer's who went
    out first)."""
    if not bonus.enabled:
        return None
    makers: dict[str, int] = {}
    for seat, count in {**(deal.get("bombs") or {})}.items():
        makers[seat] = makers.get(seat, 0) + count
    for seat, count in (deal.get("rockets") or {}).items():
        makers[seat] = makers.get(seat, 0) + count
    if deal.get("spring"):
        makers[deal["landlord"]] = makers.get(deal["landlord"], 0) + 1
    if deal.get("reverse_spring"):
        first = deal.get("first_out")
        require(first in SEATS and first != deal["landlord"],
                "a reverse spring needs 'first_out': the farmer who went out first")
        makers[first] = makers.get(first, 0) + 1
    makers = {s: c for s, c in makers.items() if c}
    count = sum(makers.values())
    thresholds = sorted(int(k) for k in bonus.each)
    if not thresholds or count < thresholds[0]:
        return None
    each = bonus.each[max(k for k in thresholds if k <= count)]
    extra_to = next(iter(makers)) if len(makers) == 1 else None
    return {"bombs": count, "each": each, "extra_seat": extra_to, "extra": bonus.extra if extra_to else 0}


class DouDizhu:
    name = "doudizhu"
    seats = SEATS
    sides_per_table = 3
    point_names = {"table_points": ("table_points", "small_points", "landlord_deals")}

    def side_seats(self, sides: int = 3) -> list[tuple[str, ...]]:
        return [("W",), ("S",), ("E",)]

    def score(self, result: dict, sides: Sequence[Side], options: Any, *, knockout: bool = False) -> MatchScore:
        require(isinstance(result, dict), "the result must be an object")
        require(len(sides) == 3, "a Dou Dizhu table seats three players")
        ids = [s.entry_id for s in sides]
        seat_of = {s.seats[0]: s.entry_id for s in sides}
        require(sorted(seat_of) == sorted(SEATS), "the three players must sit W, S and E")
        bonuses: list[dict] = []
        if "final" in result:
            final = result["final"]
            require(isinstance(final, dict) and isinstance(final.get("small_points"), dict),
                    "final needs 'small_points' per player")
            small = {}
            # plausibility: no player can win or lose more than the round's deals allow
            bound = options.deals_per_round * max_deal_points(options.doubling, options.max_doublings_per_deal)
            for eid in ids:
                v = final["small_points"].get(eid)
                require(isinstance(v, int) and not isinstance(v, bool), "small points must be whole numbers",
                        entry_id=eid, got=v)
                require(abs(v) <= bound, f"小分 {v} 超出本轮可能的范围 (±{bound}) · small points {v} are more than "
                        f"{options.deals_per_round} deals can give (±{bound})", entry_id=eid, got=v)
                small[eid] = v
            require(sum(small.values()) == 0, "Dou Dizhu small points must sum to zero",
                    total=sum(small.values()))
            ld = final.get("landlord_deals") or {}
            landlord = {eid: ld.get(eid, 0) for eid in ids}
            require(all(isinstance(v, int) and 0 <= v <= options.deals_per_round for v in landlord.values()),
                    f"landlord deals must be 0..{options.deals_per_round}")
            require(sum(landlord.values()) <= options.deals_per_round,
                    f"at most {options.deals_per_round} deals in a round")
            deals_log: list[dict] = []
        else:
            deals = result.get("deals")
            require(isinstance(deals, list) and deals, "give 'deals' or a 'final' summary")
            require(len(deals) <= options.deals_per_round,
                    f"a round has at most {options.deals_per_round} deals", got=len(deals))
            small = {eid: 0 for eid in ids}
            landlord = {eid: 0 for eid in ids}
            deals_log = []
            for n, deal in enumerate(deals, start=1):
                by_seat = deal_small_points(deal, n, options.doubling, options.max_doublings_per_deal)
                for seat, v in by_seat.items():
                    small[seat_of[seat]] += v
                landlord[seat_of[deal["landlord"]]] += 1
                bonus = bomb_bonus(deal, options.bomb_bonus)
                if bonus:
                    bonuses.append({"deal": n, "bombs": bonus["bombs"], "each": bonus["each"],
                                    "extra": ({"entry_id": seat_of[bonus["extra_seat"]], "amount": bonus["extra"]}
                                              if bonus["extra_seat"] else None)})
                deals_log.append({"deal": n, "small_points": {seat_of[s]: v for s, v in by_seat.items()}})
        tp = table_points([small[e] for e in ids], options.places)
        points = {eid: {"table_points": tp[i], "small_points": float(small[eid]),
                        "landlord_deals": float(landlord[eid])} for i, eid in enumerate(ids)}
        apply_adjustments(points, result.get("adjustments"), "table_points", ids)
        # Head-to-head is not used for three-player tables; outcome records the table points share.
        outcome = {eid: points[eid]["table_points"] for eid in ids}
        return MatchScore(points=points, outcome=outcome,
                          opponents={eid: [o for o in ids if o != eid] for eid in ids},
                          details={"bomb_bonuses": bonuses, "deals": deals_log})

    def min_round_points(self, options: Any) -> float:
        return float(min(0.0, *options.places))   # a forfeit scores 0

    def max_round_points(self, options: Any) -> float:
        return float(max(*options.places, options.bye_table_points))

    def bye(self, entry_id: str, options: Any) -> dict[str, float]:
        return {"table_points": float(options.bye_table_points), "small_points": 0.0, "landlord_deals": 0.0}

    def forfeit(self, winner: str | None, loser: str, options: Any) -> MatchScore:
        """A player absent five minutes after the start forfeits the round: 0 table points."""
        return MatchScore(points={loser: {"table_points": 0.0, "small_points": 0.0, "landlord_deals": 0.0}},
                          outcome={loser: 0.0}, opponents={loser: []}, details={"forfeit": loser})
