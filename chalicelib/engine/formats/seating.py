"""Three-seat tables (Dou Dizhu individuals) and seat assignment for every game.

Tables of three are formed by current standing with as few repeated table-mates as possible over the
event: small fields are searched exhaustively (bounded), large ones greedily within a window and then
repaired by swaps between neighbouring tables. Byes (count not a multiple of three) go to the
lowest-ranked players without one. Seats rotate who bids first (W, then S, then E).
"""
from __future__ import annotations

from itertools import combinations
from typing import Sequence

from .common import Contestant, Draw, Pairing, fmt

SEARCH_LIMIT = 36          # fields up to this size are searched for a repeat-free grouping
NODE_BUDGET = 200_000
WINDOW = 8


def _order(contestants: Sequence[Contestant]) -> list[Contestant]:
    return sorted(contestants, key=lambda c: (-c.score, c.number))


def _repeats(group: Sequence[Contestant]) -> int:
    return sum(1 for a, b in combinations(group, 2) if b.id in a.opponents)


def group_round(contestants: Sequence[Contestant], round_no: int, *, rounds_left: int = 0) -> Draw:
    """Tables of three for one round. `rounds_left` (after this one) lets small fields look ahead, so an
    early grouping does not make a repeat-free later round impossible."""
    ordered = _order(contestants)
    draw = Draw(tables=[])
    for _ in range(len(ordered) % 3):
        pick = next((c for c in reversed(ordered) if c.byes == 0), ordered[-1])
        draw.byes.append((pick.id, "bye: lowest without bye" if pick.byes == 0 else "bye: lowest (all had one)"))
        ordered.remove(pick)
    groups = _search(ordered, rounds_left) if len(ordered) <= SEARCH_LIMIT else _greedy(ordered)
    for number, group in enumerate(groups, start=1):
        group = sorted(group, key=lambda c: (-c.score, c.number))
        rep = _repeats(group)
        spread = f"scores {'/'.join(fmt(c.score) for c in group)}"
        reason = spread + (f"; {rep} repeated table-mate pair(s): unavoidable" if rep else "; no repeated table-mates")
        if rep:
            draw.notes.append(f"table {number}: {rep} repeated pair(s)")
        draw.tables.append(Pairing(sides=[c.id for c in rotate_seats(group)], reason=reason, rematch=bool(rep),
                                   table=number))
        draw.cost += rep
    return draw


def _groupings(players: list[str], met: dict[str, set], budget: list[int]):
    """Repeat-free partitions into triples, nearest-first (players in standing order)."""
    if not players:
        yield []
        return
    top, others = players[0], players[1:]
    for i, j in sorted(combinations(range(len(others)), 2), key=lambda p: (p[0] + p[1], p[1])):
        budget[0] -= 1
        if budget[0] < 0:
            return
        a, b = others[i], others[j]
        if a in met[top] or b in met[top] or b in met[a]:
            continue
        rest = [p for k, p in enumerate(others) if k not in (i, j)]
        for tail in _groupings(rest, met, budget):
            yield [(top, a, b)] + tail


def _feasible(players: list[str], met: dict[str, set], rounds: int, budget: list[int]) -> bool:
    """Whether `rounds` more repeat-free rounds exist (any order of players)."""
    if rounds <= 0:
        return True
    for grouping in _groupings(players, met, budget):
        after = {p: set(m) for p, m in met.items()}
        for t in grouping:
            for x in t:
                after[x].update(y for y in t if y != x)
        if _feasible(players, after, rounds - 1, budget):
            return True
        if budget[0] < 0:
            return False
    return False


def _search(ordered: list[Contestant], rounds_left: int = 0) -> list[list[Contestant]]:
    """The first repeat-free grouping, nearest by standing, from which the remaining rounds can also be
    drawn repeat-free (checked within a budget); else the fewest repeats."""
    by_id = {c.id: c for c in ordered}
    ids = [c.id for c in ordered]
    met = {c.id: set(c.opponents) & set(ids) for c in ordered}
    budget = [NODE_BUDGET]
    fallback = None
    for grouping in _groupings(ids, met, budget):
        fallback = fallback or grouping
        after = {p: set(m) for p, m in met.items()}
        for t in grouping:
            for x in t:
                after[x].update(y for y in t if y != x)
        look = [NODE_BUDGET]
        if _feasible(ids, after, rounds_left, look) or look[0] < 0:
            return [[by_id[x] for x in t] for t in grouping]
        if budget[0] < 0:
            break
    if fallback:
        return [[by_id[x] for x in t] for t in fallback]
    return _fewest_repeats(ordered)


def _fewest_repeats(ordered: list[Contestant]) -> list[list[Contestant]]:
    best: list = [None, float("inf")]
    nodes = [0]

    def rec(rest: list[Contestant], acc: list[list[Contestant]], reps: int) -> None:
        nodes[0] += 1
        if reps >= best[1] or nodes[0] > NODE_BUDGET:
            return
        if not rest:
            best[0], best[1] = [g[:] for g in acc], reps
            return
        top, others = rest[0], rest[1:]
        for i, j in sorted(combinations(range(len(others)), 2), key=lambda p: (p[0] + p[1], p[1])):
            group = [top, others[i], others[j]]
            acc.append(group)
            rec([c for k, c in enumerate(others) if k not in (i, j)], acc, reps + _repeats(group))
            acc.pop()

    rec(ordered, [], 0)
    return best[0] if best[0] is not None else _greedy(ordered)


def _greedy(ordered: list[Contestant]) -> list[list[Contestant]]:
    rest = list(ordered)
    groups = []
    while rest:
        top, window = rest[0], rest[1:1 + WINDOW]
        i, j = min(combinations(range(len(window)), 2),
                   key=lambda p: (_repeats([top, window[p[0]], window[p[1]]]), p[0] + p[1]))
        group = [top, window[i], window[j]]
        groups.append(group)
        rest = [c for c in rest if c is not top and c is not window[i] and c is not window[j]]
    _repair(groups)
    return groups


def _repair(groups: list[list[Contestant]], reach: int = 3) -> None:
    """Swap players between nearby tables while that lowers the repeats (the greedy's tail is the weak part)."""
    improved = True
    while improved:
        improved = False
        for a in range(len(groups)):
            if not _repeats(groups[a]):
                continue
            for b in range(max(0, a - reach), min(len(groups), a + reach + 1)):
                if a == b:
                    continue
                before = _repeats(groups[a]) + _repeats(groups[b])
                for x in range(3):
                    for y in range(3):
                        ga, gb = groups[a][:], groups[b][:]
                        ga[x], gb[y] = gb[y], ga[x]
                        if _repeats(ga) + _repeats(gb) < before:
                            groups[a], groups[b] = ga, gb
                            improved = True
                            break
                    if improved:
                        break
                if improved:
                    break


def rotate_seats(group: Sequence[Contestant], seats: Sequence[str] = ("W", "S", "E")) -> list[Contestant]:
    """Who bids first rotates: of the seatings of the table, the one that keeps everyone's seat counts most
    even (the first seat weighing most), ties by pairing number."""
    from itertools import permutations

    counts = {c.id: dict(c.seat_counts) for c in group}

    def unevenness(order):
        return tuple(sum((counts[c.id].get(seat, 0) + 1) ** 2 for c, s2 in zip(order, seats) if s2 == seat)
                     for seat in seats) + tuple(c.number for c in order)

    return list(min(permutations(group), key=unevenness))
