"""rules.md §9 (v1.3), rule by rule: golden cases in cases/rules_s9.json (worked out by hand in the case itself)
and a brute force that an entry found certain of a place really cannot be caught."""
from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chalicelib.engine.formats.early_finish import certain_places, decide_places

S9 = json.loads((Path(__file__).parent / "cases" / "rules_s9.json").read_text())
EF = S9["early_finish"]["places"]


# --------------------------------------------------------------------------- early finish: the certainty test (000 §26.7)

@pytest.mark.parametrize("case", EF, ids=[c["name"] for c in EF])
def test_early_finish_places(case):
    got = decide_places(case["scores"], case["rounds_left"], case["max"], case["min"], case.get("decided", ()))
    assert [c.entry for c in got] == case["expected"]
    if "reason" in case:
        reason = got[-1].reason()
        assert {k: reason[k] for k in case["reason"]} == case["reason"]


def test_the_average_never_enters_the_test():
    # the old signature took the averages; a leader on 4 with one round left and a chaser on 2 is a tie (4 v 2 + 2)
    assert certain_places({"A": 4, "B": 2}, 1, 2.0) == []
    assert certain_places({"A": 4.5, "B": 2}, 1, 2.0) == ["A"]


# --------------------------------------------------------------------------- the brute force
#
# The model. Later rounds' pairings are not known when the test is made, so every way of playing the remaining
# rounds is allowed: in each round the open entries (those not already finished early) are split into any
# matches of two (rematches allowed, which only adds outcomes) with one bye when their number is odd, and each
# match ends in a win (2 : 0), a draw (1 : 1) or a loss; a bye scores 1.5 (Guandan 场分, seed 000). This is a
# superset of what a Swiss draw can produce, so "never caught here" implies "never caught in the event". The
# entries already certain of the places above are out of the field (not drawn); the one tested plays on, so
# that its worst case is a real loss. And the other way round: when the engine says "not certain", the brute
# force must find a way of playing on in which somebody ties or passes it (the test is exact, not only safe).

WIN, DRAW, BYE = 2.0, 1.0, 1.5


def _matchings(people: tuple[int, ...]):
    """Every split of `people` into pairs (and one bye when odd): (pairs, bye or None)."""
    if not people:
        yield (), None
        return
    if len(people) % 2:
        for i, b in enumerate(people):
            for pairs, _ in _matchings(people[:i] + people[i + 1:]):
                yield pairs, b
        return
    first, rest = people[0], people[1:]
    for i, other in enumerate(rest):
        for pairs, bye in _matchings(rest[:i] + rest[i + 1:]):
            yield ((first, other), *pairs), bye


@cache
def _round_gains(n: int) -> tuple[tuple[float, ...], ...]:
    """Every vector of one round's points for n open entries."""
    out = set()
    for pairs, bye in _matchings(tuple(range(n))):
        vecs = [[0.0] * n]
        for a, b in pairs:
            nxt = []
            for v in vecs:
                for pa, pb in ((WIN, 0.0), (DRAW, DRAW), (0.0, WIN)):
                    w = list(v)
                    w[a], w[b] = pa, pb
                    nxt.append(w)
            vecs = nxt
        for v in vecs:
            if bye is not None:
                v[bye] = BYE
            out.add(tuple(v))
    return tuple(out)


def _finals(start: tuple[float, ...], rounds: int) -> set[tuple[float, ...]]:
    states = {start}
    for _ in range(rounds):
        states = {tuple(s + g for s, g in zip(state, gain)) for state in states for gain in _round_gains(len(start))}
    return states


scores = st.lists(st.sampled_from([x / 2 for x in range(0, 21)]), min_size=2, max_size=5)


@settings(max_examples=60, deadline=None)
@given(scores, st.integers(1, 2), st.integers(0, 2))
def test_an_entry_found_certain_cannot_be_caught(values, rounds_left, already_out):
    ids = [f"e{i}" for i in range(len(values))]
    pts = dict(zip(ids, values))
    ranked = sorted(ids, key=lambda e: -pts[e])
    decided = ranked[:min(already_out, len(ids) - 2)]    # the best ones finished early in an earlier round
    certain = certain_places(pts, rounds_left, WIN, 0.0, decided)
    out = list(decided)
    for e in certain:           # each certain entry, with the places above it out of the field, is never caught
        field = [x for x in ids if x not in out]
        finals = _finals(tuple(pts[x] for x in field), rounds_left)
        me = field.index(e)
        assert all(f[me] > max(v for i, v in enumerate(f) if i != me) for f in finals), (e, pts, rounds_left)
        out.append(e)
    field = [x for x in ids if x not in out]
    if len(field) >= 2:         # the next open leader was not certain: some way of playing on ties or passes it
        leader = max(field, key=lambda x: (pts[x], x))
        me = field.index(leader)
        finals = _finals(tuple(pts[x] for x in field), rounds_left)
        assert any(f[me] <= max(v for i, v in enumerate(f) if i != me) for f in finals), (leader, pts, rounds_left)


# --------------------------------------------------------------------------- every entry has a final place (003)

def test_final_ranking_knockout_then_group_outs_then_the_disqualified():
    from chalicelib.engine.formats.final_ranking import final_ranking, outs_in_order
    from chalicelib.engine.standings import Row
    # the knockout's eight, in its own order (champion … quarter-final losers)
    last = [Row(rank=k, entry_id=f"K{k}", points={"group_points": 0.0}) for k in range(1, 9)]
    # out in the groups: G1 3rd of group A on 1 point, G2 3rd of group B on 0, G3 4th of group A on 2 (a 4th is
    # below every 3rd, whatever its points); D was disqualified in the groups
    groups = [["K1", "K2", "G1", "G3"], ["K3", "K4", "G2"]]
    outs = [Row(rank=4, entry_id="G3", points={"group_points": 2.0}), Row(rank=3, entry_id="G2", points={"group_points": 0.0}),
            Row(rank=3, entry_id="G1", points={"group_points": 1.0})]
    ordered = outs_in_order(outs, groups, ["group_points", "games_won", "lots"])
    assert [r.entry_id for r in ordered] == ["G1", "G2", "G3"]
    placed = final_ranking(last, [(0, ordered)], {"D"}, [Row(rank=0, entry_id="D", points={})])
    assert [(p.row.entry_id, p.rank, p.out_in_stage, p.disqualified) for p in placed] == [
        *[(f"K{k}", k, None, False) for k in range(1, 9)],
        ("G1", 9, 0, False), ("G2", 10, 0, False), ("G3", 11, 0, False), ("D", None, None, True)]


def test_final_ranking_three_stages_the_later_out_ranks_higher():
    from chalicelib.engine.formats.final_ranking import final_ranking
    from chalicelib.engine.standings import Row
    row = lambda e, r=1: Row(rank=r, entry_id=e, points={})   # noqa: E731
    placed = final_ranking([row("A"), row("B", 2)], [(1, [row("C"), row("D", 2)]), (0, [row("E")])], set())
    assert [(p.row.entry_id, p.rank, p.out_in_stage) for p in placed] == [
        ("A", 1, None), ("B", 2, None), ("C", 3, 1), ("D", 4, 1), ("E", 5, 0)]


# --------------------------------------------------------------------------- team match 级差分: one scale (000)

def _team(result, **options):
    from chalicelib.engine.games import game
    from chalicelib.engine.types import Side
    from chalicelib.models import MatchPointsScoring
    return game("guandan").score(result, [Side("H", ("N", "S")), Side("V", ("E", "W"))],
                                 MatchPointsScoring(team_rooms=True, **options))


def _rooms(open_, closed, **extra):
    return {"rooms": {"open": {"final": {"levels": open_}, **extra}, "closed": {"final": {"levels": closed}}}}


def test_team_match_level_diff_is_one_scale_over_both_rooms():
    # open H 9 : 5, closed H 4 : 6 — gained H 7 + 2 = 9, V 3 + 4 = 7: d = 2 → 15 : 11 (the sum would be 17 + 11 : 9 + 15)
    s = _team(_rooms({"H": 9, "V": 5}, {"H": 4, "V": 6}))
    assert s.points == {"H": {"match_points": 2, "level_diff_points": 15}, "V": {"match_points": 0, "level_diff_points": 11}}
    assert _team(_rooms({"H": 9, "V": 5}, {"H": 4, "V": 6}), team_level_diff="sum").points["H"]["level_diff_points"] == 28


def test_a_drawn_team_match_is_13_13_and_a_bye_is_worth_a_little_more():
    # the walk: open H 10 : 6, closed H 6 : 10 — level: 13 : 13 (the old sum gave 26 each, more than a bye's 17)
    s = _team(_rooms({"H": 10, "V": 6}, {"H": 6, "V": 10}))
    assert s.points == {"H": {"match_points": 1, "level_diff_points": 13}, "V": {"match_points": 1, "level_diff_points": 13}}
    from chalicelib.engine.games import game
    from chalicelib.models import MatchPointsScoring
    assert game("guandan").bye("H", MatchPointsScoring(team_rooms=True)) == {"match_points": 1.5, "level_diff_points": 17}
    assert game("guandan").bye("H", MatchPointsScoring(team_rooms=True, team_level_diff="sum"))["level_diff_points"] == 34


def test_a_rooms_deduction_stays_with_the_team_under_one_scale():
    # "从总分扣除违规方1个级差分" in the open room: H 15 − 1 = 14 : 11
    s = _team(_rooms({"H": 9, "V": 5}, {"H": 4, "V": 6},
                     penalties=[{"kind": "level_diff_point", "entry_id": "H"}]))
    assert s.points["H"]["level_diff_points"] == 14 and s.points["V"]["level_diff_points"] == 11


def test_the_combined_difference_is_capped_to_the_26_point_scale():
    # open H passes A (15) : 2, closed H 14 : 2 — d = 13 + 12 = 25 → 26 : 0
    s = _team({"rooms": {"open": {"final": {"levels": {"H": 14, "V": 2}, "passed_a": "H"}},
                         "closed": {"final": {"levels": {"H": 14, "V": 2}}}}})
    assert (s.points["H"]["level_diff_points"], s.points["V"]["level_diff_points"]) == (26, 0)


# --------------------------------------------------------------------------- tribute (004)

SEAT_SIDE = {"N": 0, "S": 0, "E": 1, "W": 1}


@pytest.mark.parametrize("previous, tribute, ok", [
    (["N", "S", "E", "W"], "double", True),     # 双下: N–S first and second
    (["N", "S", "E", "W"], "single", False),
    (["N", "E", "S", "W"], "single", True),     # partner third: no 双下
    (["N", "E", "W", "S"], "double", False),    # partner last
    (["E", "W", "S", "N"], "refused", True),    # 抗贡 is always allowed
    (["E", "S", "N", "W"], "refused", True),
])
def test_tribute_follows_the_previous_deals_order(previous, tribute, ok):
    from chalicelib.engine.games.guandan import check_tributes
    from chalicelib.errors import InvalidTribute
    deals = [{"order": previous}, {"order": ["N", "E", "S", "W"], "tribute": tribute}]
    if ok:
        assert check_tributes(deals, [d["order"] for d in deals], SEAT_SIDE) == [None, tribute]
    else:
        with pytest.raises(InvalidTribute):
            check_tributes(deals, [d["order"] for d in deals], SEAT_SIDE)


def test_a_scored_deal_log_carries_its_tribute():
    from chalicelib.engine.games import game
    from chalicelib.engine.types import Side
    from chalicelib.models import LevelPointsScoring
    score = game("guandan").score({"deals": [{"order": ["N", "S", "E", "W"]}, {"order": ["E", "N", "W", "S"], "tribute": "double"}]},
                                  [Side("A", ("N", "S")), Side("B", ("E", "W"))], LevelPointsScoring())
    assert [d.get("tribute") for d in score.details["deals"]] == [None, "double"]
    assert score.points == {"A": {"level_points": 5.0}, "B": {"level_points": 4.0}}   # it changes no score: +3, then +2


def test_final_ranking_eleven_tractor_pairs_ranked_1_to_10_and_the_disqualified_pair():
    # 003's day: 11 pairs in four groups (3, 3, 3, 2), the top two of each into the knockout (8), one pair
    # disqualified in a group of three — so two pairs are out in the groups, each 3rd of its group
    from chalicelib.engine.formats.final_ranking import final_ranking, outs_in_order
    from chalicelib.engine.standings import Row
    knockout = ["冠", "亚", "季", "殿", "八1", "八2", "八3", "八4"]
    last = [Row(rank=k, entry_id=e, points={}) for k, e in enumerate(knockout, start=1)]
    groups = [["冠", "八1", "三A"], ["亚", "八2", "三B"], ["季", "八3"], ["殿", "八4"]]   # 取消 was in group C
    outs = outs_in_order([Row(rank=3, entry_id="三B", points={"group_points": 0.0}),
                          Row(rank=3, entry_id="三A", points={"group_points": 1.0})],
                         groups, ["group_points", "games_won", "head_to_head", "lots"])
    placed = final_ranking(last, [(0, outs)], {"取消"}, [Row(rank=0, entry_id="取消", points={})])
    assert [(p.row.entry_id, p.rank) for p in placed] == [
        *[(e, k) for k, e in enumerate(knockout, start=1)], ("三A", 9), ("三B", 10), ("取消", None)]
    assert placed[-1].disqualified and [p.out_in_stage for p in placed[8:10]] == [0, 0]
