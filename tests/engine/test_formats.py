"""Draw, seeding and pairing: tests that would catch a wrong draw."""
from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace
from itertools import combinations

import networkx as nx
import pytest

from chalicelib.engine.formats import draw_round
from chalicelib.engine.formats.common import Contestant
from chalicelib.engine.formats.knockout import (
    bracket_order,
    double_elimination_round,
    first_round,
    next_round,
    region_sums,
)
from chalicelib.engine.formats.round_robin import number_for_related_first, schedule, snake_groups
from chalicelib.engine.formats.seating import group_round
from chalicelib.engine.formats.stages import advancing, carry_over
from chalicelib.engine.formats.swiss import pair_cost, pair_round, pair_special_round
from tests.engine.swiss_sim import field_of, play, play_three


@pytest.mark.parametrize("n, rounds", [(8, 5), (9, 5), (16, 7), (21, 7), (40, 9), (101, 9)])
def test_whole_swiss_events_have_no_rematch_and_one_bye_each(n, rounds):
    for seed in range(12):
        rng = random.Random(seed)
        f = field_of(n)
        for rnd in range(1, rounds + 1):
            d = pair_round(f, rnd)
            assert not any(p.rematch for p in d.tables), (n, seed, rnd, d.notes)
            ids = [e for p in d.tables for e in p.sides] + [b for b, _ in d.byes]
            assert sorted(ids) == sorted(c.id for c in f)  # everyone placed exactly once
            assert len(d.byes) == n % 2
            f = play(f, d, rng)
        assert max(c.byes for c in f) <= 1


def _reference_cost(field, byes, rnd):
    cs = [c for c in field if c.id not in byes]
    g = nx.Graph()
    for a, b in combinations(cs, 2):
        g.add_edge(a.id, b.id, weight=10 ** 9 - pair_cost(a, b, rnd, False))
    by = {c.id: c for c in cs}
    return sum(pair_cost(by[a], by[b], rnd, False) for a, b in nx.max_weight_matching(g, maxcardinality=True))


@pytest.mark.parametrize("n, check_rounds", [(10, range(1, 8)), (31, range(1, 8)), (80, (3, 5, 7)), (150, (4, 7)), (300, (7,))])
def test_swiss_cost_equals_general_maximum_weight_matching(n, check_rounds):
    for seed in range(3 if n <= 150 else 1):
        rng = random.Random(100 + seed)
        f = field_of(n)
        for rnd in range(1, max(check_rounds) + 1):
            d = pair_round(f, rnd)
            if rnd in check_rounds:
                ours = sum(pair_cost(*(next(c for c in f if c.id == e) for e in p.sides), rnd, False) for p in d.tables)
                assert ours == pytest.approx(d.cost)
                assert d.cost == pytest.approx(_reference_cost(f, {b for b, _ in d.byes}, rnd)), (n, seed, rnd)
            f = play(f, d, rng)


def test_rematch_only_when_unavoidable_and_said():
    # Four entries, three rounds played as a round robin: round 4 must repeat a pairing.
    f = field_of(4)
    f = [replace(c, opponents=frozenset(x.id for x in f if x.id != c.id)) for c in f]
    d = pair_round(f, 4)
    assert all(p.rematch for p in d.tables) and d.notes and "rematch" in d.tables[0].reason


def test_reasons_and_home_alternation():
    f = [Contestant(id="a", number=1, score=4), Contestant(id="b", number=2, score=4),
         Contestant(id="c", number=3, score=2, opponents=frozenset({"d"})), Contestant(id="d", number=4, score=2, opponents=frozenset({"c"})),
         Contestant(id="e", number=5, score=0), Contestant(id="f", number=6, score=0)]
    d = pair_round(f, 3)
    reasons = {frozenset(p.sides): p.reason for p in d.tables}
    assert reasons[frozenset({"a", "b"})] == "same score 4"
    assert any("avoids rematch with" in r for r in reasons.values())
    assert any(r.startswith("floated from 2") for r in reasons.values())
    assert [p.table for p in d.tables] == [1, 2, 3] and set(d.tables[0].sides) == {"a", "b"}
    # home: the smaller number in odd rounds, the larger in even rounds, when histories are equal
    assert d.tables[0].sides[0] == "a"
    assert pair_round(f, 2).tables[0].sides[0] == "b"
    # the number rule comes before balance (issue 11): x is home in round 3 though it was home more often
    g = [Contestant(id="x", number=1, home=2, away=1), Contestant(id="y", number=2, home=1, away=2)]
    assert pair_round(g, 3).tables[0].sides[0] == "x"


def test_related_entries_kept_apart_in_round_one():
    f = [Contestant(id=f"e{i}", number=i + 1, club=f"club{i // 2}") for i in range(8)]
    d = pair_round(f, 1, separate_related=True)
    clubs = {c.id: c.club for c in f}
    assert all(clubs[p.sides[0]] != clubs[p.sides[1]] for p in d.tables)
    plain = pair_round(f, 1)
    assert any(clubs[p.sides[0]] == clubs[p.sides[1]] for p in plain.tables)


def test_draws_are_reproducible():
    rng = random.Random(5)
    f = field_of(57)
    for rnd in range(1, 5):
        a, b = pair_round(f, rnd), pair_round(list(reversed(f)), rnd)
        assert [(p.sides, p.reason) for p in a.tables] == [(p.sides, p.reason) for p in b.tables]
        f = play(f, a, rng)


def test_special_swiss_zones():
    rng = random.Random(3)
    f = field_of(16)
    d = pair_special_round(f, 1)
    f = play(f, d, rng)
    d2 = pair_special_round(f, 2)
    losses = {c.id: c.losses for c in f}
    for p in d2.tables:
        zone = p.reason.split(":")[0]
        if zone == "winners' zone":
            assert all(losses[e] == 0 for e in p.sides) or "joins" in " ".join(d2.notes)


@pytest.mark.parametrize("size", [2, 4, 8, 16, 32, 64])
def test_knockout_regions_sum_equally(size):
    order = bracket_order(size)
    assert sorted(order) == list(range(1, size + 1))
    region = 2
    while region <= size:
        assert len(set(region_sums(size, region))) == 1, (size, region)
        region *= 2
    assert order[:2] == [1, size]


@pytest.mark.parametrize("n", range(2, 65))
def test_knockout_byes_go_to_top_seeds(n):
    seeded = [f"s{i}" for i in range(1, n + 1)]
    matches = first_round(seeded)
    byes = [a for a, b in matches if b is None]
    size = 1 << (n - 1).bit_length()
    assert sorted(byes, key=lambda s: int(s[1:])) == seeded[:size - n]
    placed = [e for m in matches for e in m if e]
    assert sorted(placed) == sorted(seeded)
    # one path to the final: rounds halve until one entry remains
    alive = [a if b is None else a for a, b in matches]
    while len(alive) > 1:
        alive = [a for a, _ in next_round(alive)]
    assert alive == ["s1"]


def test_double_elimination_needs_two_losses():
    upper, lower, out = list("abcdefgh"), [], []
    losses = Counter()
    for _ in range(20):
        up, low, final = double_elimination_round(upper, lower, out)
        if final:
            break
        winners_up = [a for a, b in up] or upper
        dropped = [b for a, b in up if b]
        winners_low = [a for a, b in low]
        for _, b in low:
            if b:
                losses[b] += 2
        for b in dropped:
            losses[b] += 1
        upper, lower, out = winners_up, winners_low, dropped
    assert final is not None and final[0] == "a"
    assert all(v >= 1 for k, v in losses.items() if k not in final)
    assert len([k for k in "abcdefgh" if k not in final]) == 6


@pytest.mark.parametrize("n, double", [(2, False), (5, False), (8, False), (9, True), (12, True)])
def test_berger_every_pair_meets_exactly_once(n, double):
    entries = [f"e{i}" for i in range(n)]
    rounds = schedule(entries, double)
    meetings = Counter(frozenset(m) for rnd in rounds for m in rnd if None not in m)
    want = Counter({frozenset(p): (2 if double else 1) for p in combinations(entries, 2)})
    assert meetings == want
    for rnd in rounds:
        playing = [e for m in rnd for e in m if e]
        assert len(playing) == len(set(playing))
    if double:
        homes = Counter((a, b) for rnd in rounds for a, b in rnd if a and b)
        assert all(homes[(a, b)] == 1 for a, b in homes)  # each ordered pairing once: home and away


def test_snake_seeding_and_related_spread():
    seeded = [Contestant(id=f"s{i}", number=i) for i in range(1, 9)]
    groups = snake_groups(seeded, 4)
    assert [[c.number for c in g] for g in groups] == [[1, 8], [2, 7], [3, 6], [4, 5]]
    related = [Contestant(id=f"s{i}", number=i, club="A" if i in (1, 8) else f"c{i}") for i in range(1, 9)]
    groups = snake_groups(related, 4)
    assert all(sum(c.club == "A" for c in g) <= 1 for g in groups)
    numbered = number_for_related_first([Contestant(id=f"x{i}", number=i, club="A" if i in (2, 5) else "") for i in range(1, 7)])
    first = schedule([c.id for c in numbered])[0]
    assert frozenset({"x2", "x5"}) in [frozenset(m) for m in first]


def test_three_seat_tables_fifteen_players_five_rounds_no_repeats():
    for seed in range(20):
        rng = random.Random(seed)
        f = field_of(15)
        seat_first = Counter()
        for rnd in range(1, 6):
            d = group_round(f, rnd, rounds_left=5 - rnd)
            assert d.cost == 0 and not d.notes, (seed, rnd)
            by = {c.id: c for c in f}
            for p in d.tables:
                seat_first[p.sides[0]] += 1
                pts = rng.sample([5, 3, 1], 3)
                for k, e in enumerate(p.sides):
                    c = by[e]
                    seats = dict(c.seat_counts)
                    seats["WSE"[k]] = seats.get("WSE"[k], 0) + 1
                    by[e] = replace(c, score=c.score + pts[k], opponents=c.opponents | (set(p.sides) - {e}),
                                    seat_counts=tuple(sorted(seats.items())))
            f = [by[c.id] for c in f]
        assert max(seat_first.values()) <= 3 and len(seat_first) >= 12  # who bids first rotates


def test_three_seat_byes_when_not_a_multiple_of_three():
    f = field_of(16)
    d = group_round(f, 1)
    assert len(d.byes) == 1 and d.byes[0][0] == "E00015" and len(d.tables) == 5
    f = [replace(c, byes=1) if c.id == "E00015" else c for c in f]
    assert group_round(f, 2).byes[0][0] == "E00014"
    assert draw_round("swiss", f, 2, seats_per_table=3).byes[0][0] == "E00014"


def test_stages_advancing_and_carry_over():
    assert advancing([["a1", "a2", "a3"], ["b1", "b2", "b3"]], per_group=2) == ["a1", "b1", "a2", "b2"]
    assert advancing([["a", "b", "c", "d"]], total=2) == ["a", "b"]
    assert carry_over({"x": 7, "y": 1.25, "z": 2.345}, "half") == {"x": 3.5, "y": 0.63, "z": 1.17}
    assert carry_over({"x": 7}, "full") == {"x": 7} and carry_over({"x": 7}, "none") == {"x": 0}


def test_three_seat_grouping_of_a_large_field_uses_the_greedy_path_without_repeats():
    rng = random.Random(4)
    f = field_of(90)  # above the exhaustive-search size
    seen = set()
    for rnd in range(1, 6):
        d = group_round(f, rnd)
        placed = [e for p in d.tables for e in p.sides]
        assert sorted(placed) == sorted(c.id for c in f) and len(d.tables) == 30
        for p in d.tables:
            for pair in combinations(sorted(p.sides), 2):
                assert pair not in seen, (rnd, pair)
                seen.add(pair)
        f = play_three(f, d, rng)


def test_a_contestant_made_without_its_init_is_the_same_contestant():
    """contestant_of (the draw's 100,000 contestants without the frozen dataclass's __init__) makes what
    Contestant(*values) makes: equal, the same hash and fields, still frozen; all fields or none."""
    from dataclasses import FrozenInstanceError, astuple

    from chalicelib.engine.formats.common import contestant_of
    values = ("E1", 7, 3.5, frozenset({"E2", "E3"}), 1, 2, 0, True, "商会", (("N", 1), ("S", 2)), 1)
    made, ref = contestant_of(*values), Contestant(*values)
    assert type(made) is Contestant and made == ref and hash(made) == hash(ref) and astuple(made) == values
    assert vars(made) == vars(ref) and list(vars(made)) == list(vars(ref))
    assert replace(made, score=4.0) == replace(ref, score=4.0) != ref
    with pytest.raises(FrozenInstanceError):
        made.score = 1.0
    with pytest.raises(TypeError):
        contestant_of(*values[:-1])
