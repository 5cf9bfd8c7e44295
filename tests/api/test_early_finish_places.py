"""Early finish through the routes beyond first place (seed 000: "同时有参赛队必然获得阶段第二名时也不安排…以此类推"):
six Guandan pairs, five Swiss rounds of match points, the stronger pair always winning 10 : 6. By round 3 the
first pair is certain of 1st; by round 5 the second pair is certain of 2nd too, and both score their average
of the matches they played (a bye is not one, rules.md §8) for each round they sit out."""
from __future__ import annotations

from collections import defaultdict
from decimal import ROUND_HALF_UP, Decimal

from tests.api.play import close, draw, enter_and_confirm, people, setup_event


def half_up(x) -> float:
    return float(Decimal(str(x)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def test_second_place_finishes_early_once_first_is_out(api):
    cfg = {"name": "掼蛋积分赛", "game": "guandan", "entry": "pair", "capacity": 40, "fee": {"amount": 0},
           "stages": [{"format": "swiss", "rounds": 5, "early_finish": True, "scoring": {"method": "match_points"}}]}
    tid, eid, ids = setup_event(api, cfg, people(6, 2, "队"))
    strength = {e: i for i, e in enumerate(ids)}    # 队0 beats everyone, 队1 everyone but 队0, …
    played = defaultdict(list)                      # entry → [(match points, 级差分)] of matches played
    total = defaultdict(lambda: [0.0, 0.0])
    out_by_round = {}
    for n in range(1, 6):
        rnd = draw(api, eid, seed=n)
        drawn = {s["entry_id"] for t in rnd["tables"] for s in t["sides"]}
        out = set(ids) - drawn - set(rnd["byes"])
        out_by_round[n] = {strength[e] for e in out}
        for e in out:   # its average of the matches played, each point half-up to two decimals
            avg = [half_up(sum(p[k] for p in played[e]) / len(played[e])) for k in (0, 1)]
            total[e][0] += avg[0]
            total[e][1] += avg[1]
        for b in rnd["byes"]:
            total[b][0] += 1.5
            total[b][1] += 17
        for table in rnd["tables"]:
            a, b = (s["entry_id"] for s in table["sides"])
            top, other = (a, b) if strength[a] < strength[b] else (b, a)
            enter_and_confirm(api, eid, rnd, table, {"final": {"levels": {top: 10, other: 6}}})
            for e, pts in ((top, (2.0, 17.0)), (other, (0.0, 9.0))):   # d = 4: 13 + 4 and 13 − 4
                played[e].append(pts)
                total[e][0] += pts[0]
                total[e][1] += pts[1]
        if n == 4:
            # by hand before round 5 (one round left, at most 2 match points in it): 队0 is out already; 队1 has
            # won every match but the one against 队0, so its total plus its average is above what the best of
            # the rest can reach with a win — certain of 2nd, and 1st is decided: it sits out too.
            second = ids[1]
            rest = max(total[e][0] for e in ids[2:])
            avg1 = half_up(sum(p[0] for p in played[second]) / len(played[second]))
            assert total[second][0] + avg1 > rest + 2
        close(api, eid, n)
    assert out_by_round == {1: set(), 2: set(), 3: {0}, 4: {0}, 5: {0, 1}}
    assert any("certain of place 2" in note for note in rnd["notes"])
    st = {r["entry_id"]: r for r in api.get(f"/events/{eid}/standings").data["standings"]}
    assert [st[e]["rank"] for e in ids[:2]] == [1, 2]
    for e in ids:
        assert st[e]["points"] == {"match_points": half_up(total[e][0]), "level_diff_points": half_up(total[e][1])}, e
