"""Three-seat tables (Dou Dizhu individuals) and seat assignment for every game.

Tables of three are formed by current standing with as few repeated table-mates as possible over the
event. The fast path searches small fields (bounded, with look-ahead so an early grouping does not make
a repeat-free later round impossible) and groups large ones greedily within a window, repaired by swaps.
A fast answer with no repeated pair is the least possible; otherwise an exact integer programme (HiGHS)
over every possible table finds no second bye while anyone has none (rules.md §2: byes go to the lowest-ranked
players who have not had one), then the fewest repeats, then the lowest byes, then the closest scores — for
the whole field up to EXACT_LIMIT players. Larger fields regroup each table with repeats exactly with its
neighbours (regions widening to EXACT_LIMIT players), and if repeats remain, solve the fewest repeats over
the whole field among tables of players standing within a window of places (widening, time-limited), then
close the scores again region by region; a result without repeats is then the proven fewest.
Byes (count not a multiple of three) go to the lowest-ranked players without one. Seats rotate who
bids first (W, then S, then E).
"""
from __future__ import annotations

from dataclasses import replace
from itertools import combinations
from collections.abc import Sequence

from ...errors import NoValidPairing
from .common import Contestant, Draw, Pairing, fmt

SEARCH_LIMIT = 36          # fields up to this size are searched for a repeat-free grouping
NODE_BUDGET = 200_000      # groupings tried for this round
LOOKAHEAD_BUDGET = 300_000 # nodes of look-ahead into later rounds, shared by the whole search
WINDOW = 8
EXACT_LIMIT = 45           # the integer programme takes the whole field up to this size (14,190 tables)
WINDOW_EXACT_LIMIT = 1_200  # larger fields keep the local regroupings only
WINDOW_SECONDS = 2.0        # per window programme; the best grouping found by then is kept
SCALE = 100


def _order(contestants: Sequence[Contestant]) -> list[Contestant]:
    return sorted(contestants, key=lambda c: (-c.score, c.number))


def _repeats(group: Sequence[Contestant]) -> int:
    return sum(1 for a, b in combinations(group, 2) if b.id in a.opponents)


def group_round(contestants: Sequence[Contestant], round_no: int, *, rounds_left: int = 0,
                forbid_rematches: bool = False, separate_related: bool = False) -> Draw:
    """Tables of three for one round. `rounds_left` (after this one) lets small fields look ahead.
    `separate_related`: in round 1 (nobody has met yet) players of one club count as having met, so the same
    search that avoids repeated table-mates puts two of a club at one table only when that cannot be avoided."""
    if len(contestants) < 3:
        raise NoValidPairing("斗地主每桌三人，报到的选手不足三人 · A table needs three players: fewer than three are here.")
    by_club = separate_related and round_no == 1 and not any(c.opponents for c in contestants)
    if by_club:
        clubs: dict[str, set[str]] = {}
        for c in contestants:
            if c.club:
                clubs.setdefault(c.club, set()).add(c.id)
        contestants = [replace(c, opponents=frozenset(clubs.get(c.club, set()) - {c.id})) if c.club else c
                       for c in contestants]
    ordered = _order(contestants)
    draw = Draw(tables=[], method="search")
    byes: list[Contestant] = []
    rest = list(ordered)
    for _ in range(len(ordered) % 3):
        pick = next((c for c in reversed(rest) if c.byes == 0), rest[-1])
        byes.append(pick)
        rest.remove(pick)
    if len(rest) <= SEARCH_LIMIT:
        groups = _search(rest, rounds_left)
    else:
        groups, draw.method = _greedy(rest), "greedy"
    if groups is None or sum(_repeats(g) for g in groups):
        if len(ordered) <= EXACT_LIMIT:
            groups, byes = _exact(ordered, len(ordered) % 3)
            draw.method = "exact (integer programme)"
        else:
            groups = _exact_repair(groups)
            draw.method, draw.exact = "greedy + exact repair", False
    if forbid_rematches and not by_club and sum(_repeats(g) for g in groups):
        raise NoValidPairing("本轮无法避免同桌重复，而本项目不允许重复 · Every possible seating of this round puts "
                             "players together again and this event forbids it.")
    for pick in byes:
        why = {"kind": "bye", "rule": "lowest_without_bye" if pick.byes == 0 else "second_bye"}
        draw.byes.append((pick.id, "bye: lowest without bye" if pick.byes == 0 else "bye: lowest (all had one)"))
        draw.bye_why[pick.id] = why
    place = {c.id: k for k, c in enumerate(ordered)}
    for number, group in enumerate(sorted(groups, key=lambda g: min(place[c.id] for c in g)), start=1):
        group = sorted(group, key=lambda c: (-c.score, c.number))
        rep = _repeats(group)
        spread = f"scores {'/'.join(fmt(c.score) for c in group)}"
        if by_club:   # round 1: a "repeat" is two players of one club
            reason = spread + (f"; {rep} pair(s) of one club: unavoidable" if rep else "; clubs kept apart")
            why = {"kind": "table_of_three", "scores": [c.score for c in group], "repeats": 0, "same_club": rep}
        else:
            reason = spread + (f"; {rep} repeated table-mate pair(s): unavoidable" if rep else "; no repeated table-mates")
            why = {"kind": "table_of_three", "scores": [c.score for c in group], "repeats": rep}
        if rep:
            draw.notes.append(f"table {number}: {rep} {'same-club' if by_club else 'repeated'} pair(s)")
        draw.tables.append(Pairing(sides=[c.id for c in rotate_seats(group)], reason=reason, rematch=bool(rep),
                                   table=number, why=why))
        draw.cost += rep
    return draw


def _exact(ordered: list[Contestant], n_byes: int) -> tuple[list[list[Contestant]], list[Contestant]]:
    """The least grouping by (second byes, repeats, bye places, score spread), over every table of three and
    every bye, by an integer programme. A second bye outweighs every repeat a grouping can have (n pairs at
    most): rules.md §2 gives byes to players who have not had one. Returns (tables, byes)."""
    n = len(ordered)
    scores = [round(c.score * SCALE) for c in ordered]
    span = (max(scores) - min(scores)) if scores else 0
    u_spread = 1
    u_bye = u_spread * ((n // 3) * span + 1)
    u_repeat = u_bye * (n_byes * n + 1)
    u_second_bye = u_repeat * (n + 1)
    columns: list[tuple[tuple[int, ...], float]] = []
    for t in combinations(range(n), 3):
        group = [ordered[k] for k in t]
        cost = _repeats(group) * u_repeat + (scores[t[0]] - scores[t[2]]) * u_spread
        columns.append((t, cost))
    if n_byes:
        for k, c in enumerate(ordered):
            columns.append(((k,), (u_second_bye if c.byes else 0) + (n - 1 - k) * u_bye))
    chosen = solve_set_partition(n, columns, extra_rows=[([j for j, (t, _) in enumerate(columns) if len(t) == 1], n_byes)]
                                 if n_byes else [])
    groups = [[ordered[k] for k in t] for t in chosen if len(t) == 3]
    byes = [ordered[t[0]] for t in chosen if len(t) == 1]
    return groups, byes


def solve_set_partition(n: int, columns: list[tuple[tuple[int, ...], float]],
                        extra_rows: list[tuple[list[int], int]] = (),
                        time_limit: float | None = None) -> list[tuple[int, ...]] | None:
    """Chooses columns (subsets of 0..n-1 with a cost) covering every element exactly once at least total
    cost, by HiGHS's branch and bound run to a zero gap. `extra_rows`: (column indexes, exact count).
    With `time_limit` (seconds), the best partition found by then (None if none was)."""
    import highspy   # imported here: only a draw that needs it pays for it
    import numpy as np

    m = len(columns)
    starts, index = [0], []
    for t, _ in columns:
        index.extend(t)
        starts.append(len(index))
    rows = n + len(extra_rows)
    extra_of: dict[int, list[int]] = {}
    for r, (cols, _) in enumerate(extra_rows):
        for j in cols:
            extra_of.setdefault(j, []).append(n + r)
    if extra_of:   # rebuild column-wise with the extra rows
        starts, index = [0], []
        for j, (t, _) in enumerate(columns):
            index.extend(t)
            index.extend(extra_of.get(j, []))
            starts.append(len(index))
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = m, rows
    lp.col_cost_ = np.array([c for _, c in columns], dtype=float)
    lp.col_lower_, lp.col_upper_ = np.zeros(m), np.ones(m)
    bounds = np.array([1.0] * n + [float(k) for _, k in extra_rows])
    lp.row_lower_, lp.row_upper_ = bounds, bounds
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = np.array(starts, dtype=np.int32)
    lp.a_matrix_.index_ = np.array(index, dtype=np.int32)
    lp.a_matrix_.value_ = np.ones(len(index))
    lp.integrality_ = [highspy.HighsVarType.kInteger] * m
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("mip_rel_gap", 0.0)
    h.setOptionValue("mip_abs_gap", 0.5)   # costs are integers: a gap below 1 is optimal
    if time_limit is not None:
        h.setOptionValue("time_limit", float(time_limit))
    h.passModel(lp)
    h.run()
    status = h.getModelStatus()
    if status != highspy.HighsModelStatus.kOptimal:
        if time_limit is not None and status == highspy.HighsModelStatus.kTimeLimit:
            if h.getInfo().primal_solution_status != 2:   # no feasible partition found in time
                return None
        else:
            raise RuntimeError(f"set partition not solved: {status}")
    values = h.getSolution().col_value
    return [columns[j][0] for j in range(m) if values[j] > 0.5]


def _window_exact(ordered: list[Contestant], width: int) -> list[list[Contestant]] | None:
    """The fewest repeats among tables whose players stand within `width` places of each other, by an
    integer programme over the whole field (far fewer columns than every table; repeats only, which HiGHS
    closes fast). A grouping without repeats proves the fewest. Time-limited: the best found, or None."""
    n = len(ordered)
    columns = []
    for i in range(n):
        for j in range(i + 1, min(n, i + width + 1)):
            for k in range(j + 1, min(n, i + width + 1)):
                columns.append(((i, j, k), _repeats((ordered[i], ordered[j], ordered[k]))))
    chosen = solve_set_partition(n, columns, time_limit=WINDOW_SECONDS)
    return [[ordered[k] for k in t] for t in chosen] if chosen is not None else None


def _polish(groups: list[list[Contestant]], span: int = 5) -> list[list[Contestant]]:
    """Closer scores without more repeats: each run of `span` neighbouring tables regrouped exactly
    (repeats, then spread), sliding down the field."""
    place = {c.id: n for n, c in enumerate(_order([c for g in groups for c in g]))}
    groups = sorted((list(g) for g in groups), key=lambda g: min(place[c.id] for c in g))
    for lo in range(0, max(1, len(groups) - span + 1), max(1, span // 2)):
        players = _order([c for g in groups[lo:lo + span] for c in g])
        better, _ = _exact(players, 0)
        place = {c.id: n for n, c in enumerate(players)}
        groups[lo:lo + span] = sorted(better, key=lambda g: min(place[c.id] for c in g))
    return groups


def _exact_repair(groups: list[list[Contestant]]) -> list[list[Contestant]]:
    """Large fields: regroup exactly each table with repeats together with its neighbours (by standing),
    starting with the two tables either side and widening only while repeats remain, up to EXACT_LIMIT
    players at a time (a small region solves in milliseconds; the widest in about a second)."""
    groups = [list(g) for g in groups]
    for k in range(len(groups)):
        for half in (2, 4, 7):
            if not _repeats(groups[k]):
                break
            size = min(2 * half + 1, EXACT_LIMIT // 3, len(groups))   # tables in the region
            lo = min(max(0, k - half), len(groups) - size)             # shifted inwards at either end
            hi = lo + size
            players = _order([c for g in groups[lo:hi] for c in g])
            better, _ = _exact(players, 0)
            if sum(map(_repeats, better)) < sum(map(_repeats, groups[lo:hi])):
                place = {c.id: n for n, c in enumerate(players)}
                groups[lo:hi] = sorted(better, key=lambda g: min(place[c.id] for c in g))
            if hi - lo == len(groups):
                break
    # Repeats left after the local regroupings: the whole field at once, tables within widening windows of
    # places, until none is left (then the fewest are proven) or the widest window has been tried.
    if any(map(_repeats, groups)) and len(groups) * 3 <= WINDOW_EXACT_LIMIT:
        players = _order([c for g in groups for c in g])
        for width in (8, 14, 24, 40):
            better = _window_exact(players, width)
            if better is not None and sum(map(_repeats, better)) < sum(map(_repeats, groups)):
                groups = _polish(better)
            if not any(map(_repeats, groups)):
                break
    return groups


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


def _search(ordered: list[Contestant], rounds_left: int = 0) -> list[list[Contestant]] | None:
    """The first repeat-free grouping, nearest by standing, from which the remaining rounds can also be
    drawn repeat-free, as far as one shared look-ahead budget reaches; None when the enumeration finds no
    repeat-free grouping within its budget (the exact programme then decides)."""
    by_id = {c.id: c for c in ordered}
    ids = [c.id for c in ordered]
    met = {c.id: set(c.opponents) & set(ids) for c in ordered}
    budget, look = [NODE_BUDGET], [LOOKAHEAD_BUDGET]
    first = None
    for grouping in _groupings(ids, met, budget):
        first = first or grouping
        if look[0] < 0:
            break
        after = {p: set(m) for p, m in met.items()}
        for t in grouping:
            for x in t:
                after[x].update(y for y in t if y != x)
        if _feasible(ids, after, rounds_left, look):
            first = grouping
            break
        if budget[0] < 0:
            break
    return [[by_id[x] for x in t] for t in first] if first else None


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
