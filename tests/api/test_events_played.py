"""Whole events played through the routes on DynamoDB Local, ending in the standings rules.md predicts.
Expected totals are recomputed here from the submitted deals with the rules' own arithmetic."""
from __future__ import annotations

import random
from collections import defaultdict
from itertools import combinations

from tests.api.play import close, draw, enter_and_confirm, people, setup_event


def ddz_small(deal):
    """rules.md §2: base = bid, multiplier 2^(bombs+rockets+spring); landlord ±2·b·m, farmers ∓b·m."""
    m = 2 ** (sum(deal.get("bombs", {}).values()) + sum(deal.get("rockets", {}).values())
              + (1 if deal.get("spring") or deal.get("reverse_spring") else 0))
    unit = deal["bid"] * m
    sign = 1 if deal["winner"] == "landlord" else -1
    return {s: (2 * sign * unit if s == deal["landlord"] else -sign * unit) for s in "WSE"}


def table_pts(totals):
    order = sorted(totals, key=lambda k: -totals[k])
    places = [5, 3, 1]
    out, i = {}, 0
    while i < 3:
        j = i
        while j + 1 < 3 and totals[order[j + 1]] == totals[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = sum(places[i:j + 1]) / (j - i + 1)
        i = j + 1
    return out


def random_deal(rng):
    landlord = rng.choice("WSE")
    winner = rng.choice(["landlord", "farmers"])
    deal = {"landlord": landlord, "bid": rng.randint(1, 3), "winner": winner, "first_out": rng.choice([s for s in "WSE" if s != landlord])}
    if rng.random() < 0.3:
        deal["bombs"] = {rng.choice("WSE"): rng.randint(1, 3)}
    if rng.random() < 0.1:
        deal["rockets"] = {rng.choice("WSE"): 1}
    if rng.random() < 0.1:
        deal["spring" if winner == "landlord" else "reverse_spring"] = True
        # a spring: the farmers played no card; a reverse spring: the landlord only its first hand (rules.md §2)
        keep = (lambda s: s == landlord) if winner == "landlord" else (lambda s: s != landlord)
        for kind in ("bombs", "rockets"):
            if kind in deal:
                deal[kind] = {s: c for s, c in deal[kind].items() if keep(s)}
    return deal


def test_doudizhu_fifteen_players_five_rounds(local_api):
    api = local_api
    cfg = {"name": "北京杯二打一", "game": "doudizhu", "entry": "individual", "capacity": 15, "fee": {"amount": 0},
           "stages": [{"format": "swiss", "rounds": 5}],
           "prizes": [{"place_from": 1, "amount": 5000}, {"place_from": 2, "amount": 3000}, {"place_from": 3, "amount": 2000},
                      {"place_from": 4, "place_to": 8, "amount": 1000}]}
    tid, eid, ids = setup_event(api, cfg, people(15))
    rng = random.Random(2026)
    expect = defaultdict(lambda: [0.0, 0, 0])  # table points, small points, landlord deals
    met = set()
    bonus_total = defaultdict(int)
    for n in range(1, 6):
        rnd = draw(api, eid, seed=n)
        assert len(rnd["tables"]) == 5 and not rnd["byes"]
        for table in rnd["tables"]:
            seat_of = {s["seats"][0]: s["entry_id"] for s in table["sides"]}
            assert sorted(seat_of) == ["E", "S", "W"]
            for a, b in combinations(seat_of.values(), 2):
                assert frozenset((a, b)) not in met  # no two players share a table twice
                met.add(frozenset((a, b)))
            deals = [random_deal(rng) for _ in range(6)]
            small = defaultdict(int)
            for d in deals:
                for seat, v in ddz_small(d).items():
                    small[seat_of[seat]] += v
                expect[seat_of[d["landlord"]]][2] += 1
                bombs = sum(d.get("bombs", {}).values()) + sum(d.get("rockets", {}).values()) + (1 if d.get("spring") or d.get("reverse_spring") else 0)
                if bombs >= 3:
                    for p in seat_of.values():
                        bonus_total[p] += {3: 50, 4: 100, 5: 200}.get(bombs, 500)
            for e, tp in table_pts(small).items():
                expect[e][0] += tp
                expect[e][1] += small[e]
            res = enter_and_confirm(api, eid, rnd, table, {"deals": deals})
            assert res["status"] == "confirmed"
            assert sum(p["small_points"] for p in res["points"].values()) == 0
            assert sum(p["table_points"] for p in res["points"].values()) == 9
        close(api, eid, n)
    st = api.get(f"/events/{eid}/standings").data
    assert st["final"] is True and len(st["standings"]) == 15
    for row in st["standings"]:
        e = expect[row["entry_id"]]
        assert (row["points"]["table_points"], row["points"]["small_points"], row["points"]["landlord_deals"]) == (e[0], e[1], e[2])
    keys = [(r["points"]["table_points"], r["points"]["small_points"], r["points"]["landlord_deals"]) for r in st["standings"]]
    assert keys == sorted(keys, reverse=True)  # table points → small points → landlord deals
    assert [r["prize"] for r in st["standings"][:9]] == [5000, 3000, 2000, 1000, 1000, 1000, 1000, 1000, None]
    bonuses = api.get(f"/events/{eid}/bonuses").data
    got = {p["entry_id"]: p["total"] for p in bonuses["players"]}
    for e, amount in bonus_total.items():
        assert got[e] >= amount  # plus any 'made them all' extra
    assert sum(got.values()) == sum(bonus_total.values()) + 100 * sum(1 for d in bonuses["deals"] if d["extra"])
    assert api.post(f"/events/{eid}/rounds", {"seed": 9}).data["code"] == "event_finished"  # every stage finished
    assert api.get(f"/events/{eid}/rounds").data["finished"] is True


def guandan_cfg(method, rounds=3, early_finish=False, **scoring):
    return {"name": "掼蛋积分赛", "game": "guandan", "entry": "pair", "capacity": 40, "fee": {"amount": 0},
            "stages": [{"format": "swiss", "rounds": rounds, "early_finish": early_finish,
                        "scoring": {"method": method, **scoring}}]}


def test_guandan_swiss_early_finish_scores_the_average(local_api):
    """rules.md §9: an entry certain of first place (still strictly ahead if it lost every remaining match and
    every other won every one) is not drawn in the remaining rounds and scores its average per round. Four pairs,
    four rounds of match points: one pair wins its three matches, every other match is drawn — 6 against 2, 2, 2
    before round 4: losing it, the leader keeps 6; the best other reaches 2 + 2 = 4: certain."""
    api = local_api
    tid, eid, ids = setup_event(api, guandan_cfg("match_points", rounds=4, early_finish=True), people(4, 2, "队"))
    winner = None
    for n in (1, 2, 3, 4):
        rnd = draw(api, eid, seed=n)
        drawn = {s["entry_id"] for t in rnd["tables"] for s in t["sides"]}
        if n < 4:
            assert drawn == set(ids) and not rnd["early_finish"]
        else:
            assert winner not in drawn and any("finished early" in x for x in rnd["notes"])
            (ef,) = rnd["early_finish"]
            assert (ef["entry_id"], ef["place"], ef["score"], ef["worst"], ef["best_other"]) == (winner, 1, 6, 6, 4)
        for table in rnd["tables"]:
            a, b = (s["entry_id"] for s in table["sides"])
            if winner is None:
                winner = a
            if winner in (a, b):
                other = b if a == winner else a
                body = {"final": {"levels": {winner: 10, other: 6}}}
            else:
                body = {"final": {"levels": {a: 8, b: 8}}}
            enter_and_confirm(api, eid, rnd, table, body)
        close(api, eid, n)
    st = {r["entry_id"]: r for r in api.get(f"/events/{eid}/standings").data["standings"]}
    # three wins (2 match points, 13 + 4 level difference points each) and one average round, counted by hand
    assert st[winner]["rank"] == 1
    assert st[winner]["points"]["match_points"] == 8
    assert st[winner]["points"]["level_diff_points"] == 17 * 4


def test_guandan_swiss_level_points(local_api):
    api = local_api
    tid, eid, ids = setup_event(api, guandan_cfg("level_points"), people(8, 2, "队"))
    rng = random.Random(7)
    totals, net = defaultdict(float), defaultdict(float)
    h2h = {}
    for n in range(1, 4):
        rnd = draw(api, eid, seed=n)
        for table in rnd["tables"]:
            a, b = (s["entry_id"] for s in table["sides"])
            la, lb = rng.randint(2, 14), rng.randint(2, 14)
            passed = a if la == 14 and rng.random() < 0.5 else None
            body = {"final": {"levels": {a: la, b: lb}, "passed_a": passed}}
            pa = 15 if passed == a else la
            totals[a] += pa
            totals[b] += lb
            net[a] += pa - lb
            net[b] += lb - pa
            h2h[frozenset((a, b))] = a if pa > lb else b if lb > pa else None
            res = enter_and_confirm(api, eid, rnd, table, body)
            assert res["points"][a]["level_points"] == pa
        close(api, eid, n)
    st = api.get(f"/events/{eid}/standings").data["standings"]
    assert {r["entry_id"]: r["points"]["level_points"] for r in st} == dict(totals)
    for x, y in zip(st, st[1:]):
        assert totals[x["entry_id"]] >= totals[y["entry_id"]]
        if totals[x["entry_id"]] == totals[y["entry_id"]]:
            winner = h2h.get(frozenset((x["entry_id"], y["entry_id"])))
            if winner:  # when they met, the winner ranks first (two tied)
                tied = [r for r in st if totals[r["entry_id"]] == totals[x["entry_id"]]]
                if len(tied) == 2:
                    assert winner == x["entry_id"]
            elif len([r for r in st if totals[r["entry_id"]] == totals[x["entry_id"]]]) == 2:
                assert net[x["entry_id"]] >= net[y["entry_id"]]


def test_guandan_match_points_with_a_bye(local_api):
    api = local_api
    tid, eid, ids = setup_event(api, guandan_cfg("match_points"), people(7, 2, "队"))
    rng = random.Random(11)
    mp, ldp = defaultdict(float), defaultdict(float)
    byes = []
    for n in range(1, 4):
        rnd = draw(api, eid, seed=n)
        assert len(rnd["byes"]) == 1
        byes.append(rnd["byes"][0])
        mp[rnd["byes"][0]] += 1.5
        ldp[rnd["byes"][0]] += 17
        for table in rnd["tables"]:
            a, b = (s["entry_id"] for s in table["sides"])
            la, lb = rng.randint(2, 14), rng.randint(2, 14)
            d = abs(la - lb)
            if la == lb:
                for s in (a, b):
                    mp[s] += 1
                    ldp[s] += 13
            else:
                won, lost = (a, b) if la > lb else (b, a)
                mp[won] += 2
                ldp[won] += 13 + d
                ldp[lost] += 13 - d
            enter_and_confirm(api, eid, rnd, table, {"final": {"levels": {a: la, b: lb}}})
        close(api, eid, n)
    assert len(set(byes)) == 3  # one bye each
    st = api.get(f"/events/{eid}/standings").data["standings"]
    for r in st:
        assert (r["points"]["match_points"], r["points"]["level_diff_points"]) == (mp[r["entry_id"]], ldp[r["entry_id"]])
    keys = [(r["points"]["match_points"], r["points"]["level_diff_points"]) for r in st]
    assert keys == sorted(keys, reverse=True)
    assert {r["entry_id"]: r["byes"] for r in st if r["byes"]} == {b: 1 for b in byes}


def test_gouji_team_knockout_with_a_tie_and_extra_games(local_api):
    api = local_api
    cfg = {"name": "够级团体赛", "game": "gouji", "entry": {"kind": "team", "size": 3}, "capacity": 8, "fee": {"amount": 0},
           "stages": [{"format": "knockout"}]}
    tid, eid, ids = setup_event(api, cfg, people(4, 3, "队"))
    rnd = draw(api, eid)
    assert len(rnd["tables"]) == 2 and not rnd["byes"]
    tie = {"games": [{"order": [1, 2, 4, 3, 6, 5]}]}  # 11:11
    t1, t2 = rnd["tables"]
    n = rnd["number"]
    r = api.put(f"/events/{eid}/rounds/{n}/tables/1/result", {"version": 0, **tie}, token=None,
                headers={"X-Table-Code": t1["codes"][0]})
    assert r.status_code == 422 and r.data["code"] == "invalid_result" and "extra games" in r.data["message"]
    # the tie goes to extra games: the first is tied again, the second won by seats 2,4,6
    res = enter_and_confirm(api, eid, rnd, t1, {**tie, "extra_games": [{"order": [1, 2, 4, 3, 6, 5]}, {"order": [2, 1, 4, 3, 6, 5]}]})
    away1 = t1["sides"][1]["entry_id"]
    assert res["table"]["winner"] == away1
    res2 = enter_and_confirm(api, eid, rnd, t2, {"games": [{"order": [1, 2, 3, 4, 5, 6]}]})
    home2 = t2["sides"][0]["entry_id"]
    assert res2["table"]["winner"] == home2
    close(api, eid, n)
    final = draw(api, eid)
    assert final["number"] == 2 and len(final["tables"]) == 1
    assert {s["entry_id"] for s in final["tables"][0]["sides"]} == {away1, home2}
    ft = final["tables"][0]
    enter_and_confirm(api, eid, final, ft, {"games": [{"order": [1, 2, 3, 4, 5, 6]}]})
    close(api, eid, 2)
    champion = ft["sides"][0]["entry_id"]
    st = api.get(f"/events/{eid}/standings").data
    assert st["final"] is True
    order = [r["entry_id"] for r in st["standings"]]
    assert order[0] == champion and order[1] == ({away1, home2} - {champion}).pop()
    assert set(order[2:]) == set(ids) - {away1, home2}


def tractor_game(banker, other, win=True):
    """Four deals: the banker holds at 0 three times (3→8→13→A) and passes A holding below 160."""
    return [{"banker": banker, "attacker_points": 0}] * 3 + [{"banker": banker, "attacker_points": 100}]


def test_tractor_best_of_three_knockout(local_api):
    api = local_api
    cfg = {"name": "拖拉机淘汰赛", "game": "tractor", "entry": "pair", "capacity": 8, "fee": {"amount": 0},
           "stages": [{"format": "knockout", "scoring": {"method": "level_table", "best_of": 3}}]}
    tid, eid, ids = setup_event(api, cfg, people(4, 2, "对"))
    rnd = draw(api, eid)
    winners = []
    for k, table in enumerate(rnd["tables"]):
        a, b = (s["entry_id"] for s in table["sides"])
        if k == 0:  # 2:1
            deals = tractor_game(a, b) + tractor_game(b, a) + tractor_game(a, b)
            winners.append(a)
        else:  # 2:0 for the away pair
            deals = tractor_game(b, a) + tractor_game(b, a)
            winners.append(b)
        res = enter_and_confirm(api, eid, rnd, table, {"deals": deals})
        assert res["table"]["winner"] == winners[-1]
        games = {e: p["games_won"] for e, p in res["points"].items()}
        assert sorted(games.values()) == ([1, 2] if k == 0 else [0, 2])
    close(api, eid, 1)
    final = draw(api, eid)
    assert {s["entry_id"] for s in final["tables"][0]["sides"]} == set(winners)
    ft = final["tables"][0]
    a, b = (s["entry_id"] for s in ft["sides"])
    enter_and_confirm(api, eid, final, ft, {"final": {"games_won": {a: 0, b: 2}}})
    close(api, eid, 2)
    st = api.get(f"/events/{eid}/standings").data["standings"]
    assert [r["entry_id"] for r in st[:2]] == [b, a]
    assert st[0]["points"]["group_points"] == 2


def test_a_draw_that_cannot_be_made_answers_422_in_chinese_first(local_api):
    api = local_api
    cfg = guandan_cfg("match_points", rounds=3)
    cfg["stages"][0]["rematches"] = "forbidden"
    tid, eid, ids = setup_event(api, cfg, people(2, 2, "队"))
    rnd = draw(api, eid, seed=1)
    table = rnd["tables"][0]
    a, b = (s["entry_id"] for s in table["sides"])
    enter_and_confirm(api, eid, rnd, table, {"final": {"levels": {a: 10, b: 6}}})
    close(api, eid, 1)
    r = api.post(f"/events/{eid}/rounds", {"seed": 2})
    assert r.status_code == 422 and r.data["code"] == "no_valid_pairing"
    assert r.data["message"].startswith("本轮无法避免重复对阵")
    assert api.get(f"/events/{eid}").status_code == 200
    state_rounds = api.get(f"/events/{eid}/rounds/2")
    assert state_rounds.status_code == 404  # nothing half-written


def test_gouji_round_robin_withdrawal_gives_32_to_every_opponent(local_api):
    """rules.md §3 (seed 002): a team withdraws during the round robin → every team drawn against it scores 32
    for that match, played or not (the Guandan 'fewer than half' rule does not apply)."""
    api = local_api
    cfg = {"name": "够级循环赛", "game": "gouji", "entry": {"kind": "team", "size": 3}, "capacity": 8, "fee": {"amount": 0},
           "stages": [{"format": "round_robin"}]}
    tid, eid, ids = setup_event(api, cfg, people(4, 3, "队"))
    rnd = draw(api, eid)
    quitter = rnd["tables"][0]["sides"][1]["entry_id"]
    beaten_by_quitter = rnd["tables"][0]["sides"][0]["entry_id"]
    # the quitter wins its first match 16:6 (seats 2,4,6 take 头科, 二科, 三科)
    enter_and_confirm(api, eid, rnd, rnd["tables"][0], {"games": [{"order": [2, 4, 6, 1, 3, 5]}]})
    enter_and_confirm(api, eid, rnd, rnd["tables"][1], {"games": [{"order": [1, 2, 3, 4, 5, 6]}]})
    close(api, eid, rnd["number"])
    assert api.post(f"/events/{eid}/entries/{quitter}/withdraw", {"reason": "退赛"}).status_code == 200
    st = {r["entry_id"]: r for r in api.get(f"/events/{eid}/standings").data["standings"]}
    # its first-round opponent lost 6:16 but now scores 32 for that match; the two it had still to meet get 32 too
    assert st[beaten_by_quitter]["points"]["position_points"] == 32
    others = set(ids) - {quitter, beaten_by_quitter}
    for e in others:
        assert st[e]["points"]["position_points"] >= 32
    assert st[quitter]["points"]["position_points"] == 0
    assert st[quitter]["rank"] == 4
