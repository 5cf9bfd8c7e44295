"""Early finish through the routes beyond first place (seed 000: "同时有参赛队必然获得阶段第二名时也不安排…以此类推"):
four Guandan pairs, seven Swiss rounds (rematches as few as can be) of match points. 队0 wins every match 10 : 6; 队1 wins every other match
but draws its first one against a pair other than 队0; every other match is drawn 8 : 8. The certainty test of
rules.md §9 (losing every remaining match, the nearest other winning every one, a tie not certain) is worked out
here before each round from the totals the test itself counts; the ones found certain sit out and score their
average of the matches they played (a bye is not one) for each round they sit out."""
from __future__ import annotations

from collections import defaultdict
from decimal import ROUND_HALF_UP, Decimal

from tests.api.play import close, draw, enter_and_confirm, people, setup_event


def half_up(x) -> float:
    return float(Decimal(str(x)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def by_hand_certain(total: dict, out: set, left: int) -> set:
    """rules.md §9, place by place: the open leader is certain when its points now beat the best other's points
    plus 2 a round (the most a round gives) for every round left, strictly; then the next place, and so on."""
    open_ = {e: t[0] for e, t in total.items() if e not in out}
    certain = set()
    while len(open_) >= 2:
        leader = max(open_, key=lambda e: open_[e])
        if not open_[leader] > max(v for e, v in open_.items() if e != leader) + 2 * left:
            break
        certain.add(leader)
        del open_[leader]
    return certain


def test_second_place_finishes_early_once_first_is_out(api):
    rounds = 7
    cfg = {"name": "掼蛋积分赛", "game": "guandan", "entry": "pair", "capacity": 40, "fee": {"amount": 0},
           "stages": [{"format": "swiss", "rounds": rounds, "early_finish": True, "scoring": {"method": "match_points"}}]}
    tid, eid, ids = setup_event(api, cfg, people(4, 2, "队"))
    top, second = ids[0], ids[1]
    played = defaultdict(list)                      # entry → [(match points, 级差分)] of matches played
    total = {e: [0.0, 0.0] for e in ids}
    out_by_round, expected, out = {}, {}, set()
    second_drew = False
    for n in range(1, rounds + 1):
        out |= by_hand_certain(total, out, rounds - n + 1)
        expected[n] = {ids.index(e) for e in out}
        rnd = draw(api, eid, seed=n)
        drawn = {s["entry_id"] for t in rnd["tables"] for s in t["sides"]}
        out_by_round[n] = {ids.index(e) for e in set(ids) - drawn - set(rnd["byes"])}
        for e in set(ids) - drawn - set(rnd["byes"]):   # its average of the matches played, half-up to two decimals
            avg = [half_up(sum(p[k] for p in played[e]) / len(played[e])) for k in (0, 1)]
            total[e][0] += avg[0]
            total[e][1] += avg[1]
        for b in rnd["byes"]:                            # a bye: 1.5 and 17 (seed 000)
            total[b][0] += 1.5
            total[b][1] += 17
        for table in rnd["tables"]:
            a, b = (s["entry_id"] for s in table["sides"])
            if top in (a, b) or (second in (a, b) and second_drew):
                w = top if top in (a, b) else second
                lo = b if w == a else a
                levels, pts = {w: 10, lo: 6}, {w: (2.0, 17.0), lo: (0.0, 9.0)}    # d = 4: 13 + 4 and 13 − 4
            else:
                second_drew = second_drew or second in (a, b)
                levels, pts = {a: 8, b: 8}, {a: (1.0, 13.0), b: (1.0, 13.0)}
            enter_and_confirm(api, eid, rnd, table, {"final": {"levels": levels}})
            for e, p in pts.items():
                played[e].append(p)
                total[e][0] += p[0]
                total[e][1] += p[1]
        close(api, eid, n)
    assert out_by_round == expected
    assert {0, 1} <= out_by_round[rounds]         # the case was played through: 1st and 2nd both decided
    assert any("certain of place 2" in note for note in rnd["notes"])
    st = {r["entry_id"]: r for r in api.get(f"/events/{eid}/standings").data["standings"]}
    assert [st[e]["rank"] for e in ids[:2]] == [1, 2]
    for e in ids:
        assert st[e]["points"] == {"match_points": half_up(total[e][0]), "level_diff_points": half_up(total[e][1])}, e
