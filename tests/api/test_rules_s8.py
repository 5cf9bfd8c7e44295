"""Whole events through the routes for rules.md §8 and the narrowed §5: each game keeps its own rules (a Dou
Dizhu forfeit only forfeits the round, a Tractor knockout is redrawn, Gouji's 32 belongs to the round robin),
penalties score through the result route. Expected numbers are worked by hand in the comments."""
from __future__ import annotations

from tests.api.play import close, draw, enter_and_confirm, people, setup_event


def test_doudizhu_unexcused_forfeit_only_forfeits_the_round(api):
    # seed 001: "判该名选手本轮比赛弃权" — the player keeps its place by points (rules.md §5)
    cfg = {"name": "二打一", "game": "doudizhu", "entry": "individual", "capacity": 15, "fee": {"amount": 0},
           "stages": [{"format": "swiss", "rounds": 3}]}
    tid, eid, ids = setup_event(api, cfg, people(6))
    r1 = draw(api, eid, 1)
    t1, t2 = r1["tables"]
    p = t1["sides"][0]["entry_id"]
    assert api.post(f"/events/{eid}/rounds/1/tables/1/forfeit", {"entry_id": p, "reason": "无故未到"}).status_code == 200
    x, y, z = (s["entry_id"] for s in t2["sides"])
    enter_and_confirm(api, eid, r1, t2, {"final": {"small_points": {x: 30, y: 0, z: -30}}})
    close(api, eid, 1)
    r2 = draw(api, eid, 2)
    for t in r2["tables"]:
        a, b, c = (s["entry_id"] for s in t["sides"])
        if p in (a, b, c):   # p wins its table: 5 table points
            others = [e for e in (a, b, c) if e != p]
            small = {p: 40, others[0]: -20, others[1]: -20}
        else:
            small = {a: 0, b: 0, c: 0}
        enter_and_confirm(api, eid, r2, t, {"final": {"small_points": small}})
    close(api, eid, 2)
    st = api.get(f"/events/{eid}/standings").data["standings"]
    row = next(r for r in st if r["entry_id"] == p)
    # p: 0 (forfeit) + 5 = 5 table points. Its table-mates of round 2 shared 2 each, so someone is below p:
    # by points p is not last, and the standings stay in points order.
    assert row["forfeited"] is True and row["points"]["table_points"] == 5
    assert st[-1]["entry_id"] != p
    key = [(-r["points"]["table_points"], -r["points"]["small_points"]) for r in st]
    assert key == sorted(key)
    # the next round still draws p (not barred, nothing more than the round)
    r3 = draw(api, eid, 3)
    assert p in {s["entry_id"] for t in r3["tables"] for s in t["sides"]}


def test_guandan_unexcused_forfeit_in_the_last_round_bars_from_the_next_stage(api):
    # seed 000: "循环赛或积分编排赛最后一场如果无故弃权，则不得进入下一阶段" — Guandan only
    cfg = {"name": "掼蛋", "game": "guandan", "entry": "pair", "capacity": 16, "fee": {"amount": 0},
           "stages": [{"format": "swiss", "rounds": 1, "scoring": {"method": "match_points"}},
                      {"format": "swiss", "rounds": 1, "advance": {"total": 4}, "scoring": {"method": "match_points"}}]}
    tid, eid, ids = setup_event(api, cfg, people(6, 2, "队"))
    r1 = draw(api, eid, 1)
    quitter = r1["tables"][0]["sides"][0]["entry_id"]
    api.post(f"/events/{eid}/rounds/1/tables/1/forfeit", {"entry_id": quitter, "reason": "无故未到"})
    for t in r1["tables"][1:]:
        a, b = (s["entry_id"] for s in t["sides"])
        enter_and_confirm(api, eid, r1, t, {"final": {"levels": {a: 9, b: 5}}})
    close(api, eid, 1)
    r2 = draw(api, eid, 2)
    assert r2["stage"] == 2 and quitter not in {s["entry_id"] for t in r2["tables"] for s in t["sides"]}


def test_guandan_penalties_score_through_the_result_route(api):
    cfg = {"name": "掼蛋", "game": "guandan", "entry": "pair", "capacity": 8, "fee": {"amount": 0},
           "stages": [{"format": "swiss", "rounds": 1, "scoring": {"method": "match_points"}}]}
    tid, eid, ids = setup_event(api, cfg, people(2, 2, "队"))
    rnd = draw(api, eid, 1)
    t = rnd["tables"][0]
    ns, ew = (s["entry_id"] for s in t["sides"])
    # deal 1: N 1st, S 2nd → N–S +3 (5); deal 2 lost by E–W as a double-down → N–S +3 (8); E–W slow play in
    # deal 1 → N–S +2 more (match points: 二级) → 10; one 级差分 off N–S. 10 − 2 = 8 → 13 + 8 = 21 − 1 = 20 / 5.
    body = {"deals": [{"order": ["N", "S", "E", "W"]}, {}],
            "penalties": [{"kind": "double_down", "entry_id": ew, "deal": 2, "referee": "王裁判"},
                          {"kind": "slow_play", "entry_id": ew, "deal": 1, "referee": "王裁判"},
                          {"kind": "level_diff_point", "entry_id": ns, "referee": "王裁判"}]}
    res = enter_and_confirm(api, eid, rnd, t, body)
    assert res["points"][ns] == {"match_points": 2, "level_diff_points": 20}
    assert res["points"][ew] == {"match_points": 0, "level_diff_points": 5}
    bad = api.put(f"/events/{eid}/rounds/1/tables/1/result", {"version": 2, "final": {"levels": {ns: 9, ew: 2}},
                                                               "penalties": [{"kind": "slow_play", "entry_id": ew, "deal": 1}]})
    assert bad.status_code in (409, 422)


def test_tractor_time_up_while_level_is_refused_with_play_on(api):
    cfg = {"name": "拖拉机", "game": "tractor", "entry": "pair", "capacity": 8, "fee": {"amount": 0},
           "stages": [{"format": "knockout"}]}
    tid, eid, ids = setup_event(api, cfg, people(2, 2, "对"))
    rnd = draw(api, eid, 1)
    t = rnd["tables"][0]
    a, b = (s["entry_id"] for s in t["sides"])
    r = api.put(f"/events/{eid}/rounds/1/tables/1/result",
                {"version": 0, "deals": [{"banker": a, "attacker_points": 160}], "time_up_leader": a},
                token=None, headers={"X-Table-Code": t["codes"][0]})
    # 160: the attackers take the bank with no rise — 3 : 3 in a 0 : 0 match → level
    assert r.status_code == 422 and r.data["code"] == "play_on"
    r = api.put(f"/events/{eid}/rounds/1/tables/1/result",
                {"version": 0, "deals": [{"banker": a, "attacker_points": 0}], "time_up_leader": b},
                token=None, headers={"X-Table-Code": t["codes"][0]})
    assert r.status_code == 422 and r.data["code"] == "invalid_result"   # a is ahead (8 : 3), not b


def test_tractor_groups_then_a_knockout_redrawn_after_each_round(api):
    # seed 003: "采用抽签分组对抗淘汰赛…胜者晋级，负者淘汰，晋级后重新抽签比赛"
    cfg = {"name": "拖拉机", "game": "tractor", "entry": "pair", "capacity": 16, "fee": {"amount": 0},
           "stages": [{"name": "小组赛", "format": "round_robin", "groups": 4},
                      {"name": "淘汰赛", "format": "knockout", "advance": {"per_group": 2}}]}
    tid, eid, ids = setup_event(api, cfg, people(16, 2, "对"))
    number = {e: i for i, e in enumerate(ids)}   # the lower registration index wins every match

    def play(seed):
        rnd = draw(api, eid, seed)
        for t in rnd["tables"]:
            a, b = (s["entry_id"] for s in t["sides"])
            win, lose = (a, b) if number[a] < number[b] else (b, a)
            enter_and_confirm(api, eid, rnd, t, {"final": {"games_won": {win: 2, lose: 0}}})
        close(api, eid, rnd["number"])
        return rnd

    for s in (1, 2, 3):
        assert play(s)["format"] == "round_robin"
    ko1 = play(4)
    assert ko1["format"] == "knockout" and len(ko1["tables"]) == 4
    winners = {min((s["entry_id"] for s in t["sides"]), key=number.get) for t in ko1["tables"]}
    ko2 = play(5)
    assert {s["entry_id"] for t in ko2["tables"] for s in t["sides"]} == winners and len(ko2["tables"]) == 2
    assert any("redrawn by lot" in n for n in ko2["notes"])
    # a different seed for round 2 may pair the winners otherwise: the lot decides, not the bracket
    cfg_fixed = api.get(f"/events/{eid}").data["config"]["stages"][1]
    assert cfg_fixed["knockout_draw"] == "redraw"
    final = play(6)
    assert len(final["tables"]) == 1
    st = api.get(f"/events/{eid}/standings").data
    assert st["final"] is True and st["standings"][0]["entry_id"] == min(winners, key=number.get)


def test_gouji_knockout_then_round_robin_with_a_withdrawal_in_each(api):
    # seed 002: "复赛过程中，若有参赛队中途退赛，所有与该队对阵的参赛队均以32分计分" — the round robin only;
    # in the knockout a withdrawal forfeits the next match and results already played stand.
    cfg = {"name": "够级", "game": "gouji", "entry": {"kind": "team", "size": 3}, "capacity": 16, "fee": {"amount": 0},
           "stages": [{"name": "淘汰赛", "format": "knockout"},
                      {"name": "复赛循环", "format": "round_robin", "advance": {"total": 4}}]}
    tid, eid, ids = setup_event(api, cfg, people(8, 3, "队"))
    ko1 = draw(api, eid, 1)
    # every home team wins 16 : 6 (seats 1, 3, 5 take 头科–三科)
    for t in ko1["tables"]:
        enter_and_confirm(api, eid, ko1, t, {"games": [{"order": [1, 3, 5, 2, 4, 6]}]})
    close(api, eid, 1)
    quitter = ko1["tables"][0]["sides"][0]["entry_id"]
    beaten = ko1["tables"][0]["sides"][1]["entry_id"]
    assert api.post(f"/events/{eid}/entries/{quitter}/withdraw", {"reason": "退赛"}).status_code == 200
    st = {r["entry_id"]: r for r in api.get(f"/events/{eid}/standings").data["standings"]}
    assert st[beaten]["points"]["position_points"] == 6      # its played 6 stands (not 32: no round robin yet)
    assert st[quitter]["points"]["position_points"] == 16
    ko2 = draw(api, eid, 2)
    for t in ko2["tables"]:
        sides = [s["entry_id"] for s in t["sides"]]
        if quitter in sides:   # a withdrawal in the knockout: the next match is forfeited
            r = api.post(f"/events/{eid}/rounds/{ko2['number']}/tables/{t['number']}/forfeit",
                         {"entry_id": quitter, "reason": "退赛"})
            assert r.status_code == 200
        else:
            enter_and_confirm(api, eid, ko2, t, {"games": [{"order": [1, 3, 5, 2, 4, 6]}]})
    close(api, eid, ko2["number"])
    ko3 = draw(api, eid, 3)
    for t in ko3["tables"]:
        enter_and_confirm(api, eid, ko3, t, {"games": [{"order": [1, 3, 5, 2, 4, 6]}]})
    close(api, eid, ko3["number"])
    rr1 = draw(api, eid, 4)
    assert rr1["stage"] == 2 and rr1["format"] == "round_robin"
    field = {s["entry_id"] for t in rr1["tables"] for s in t["sides"]}
    assert quitter not in field and len(field) == 4
    for t in rr1["tables"]:
        enter_and_confirm(api, eid, rr1, t, {"games": [{"order": [1, 3, 5, 2, 4, 6]}]})
    close(api, eid, rr1["number"])
    leaver = rr1["tables"][0]["sides"][0]["entry_id"]     # won its first round-robin match 16 : 6
    victim = rr1["tables"][0]["sides"][1]["entry_id"]
    assert api.post(f"/events/{eid}/entries/{leaver}/withdraw", {"reason": "退赛"}).status_code == 200
    rr = {r["entry_id"]: r for r in api.get(f"/events/{eid}/standings?stage=2").data["standings"]}
    # the round robin's rule: its played 6 becomes 32, and the two teams it had still to meet get 32 each
    assert rr[victim]["points"]["position_points"] == 32
    assert rr[leaver]["points"]["position_points"] == 0
    others = field - {leaver, victim}
    for e in others:
        assert rr[e]["points"]["position_points"] >= 32
    # and the knockout stage's results are untouched by either withdrawal: the beaten team still has its 6
    ko = {r["entry_id"]: r for r in api.get(f"/events/{eid}/standings?stage=1").data["standings"]}
    assert ko[beaten]["points"]["position_points"] == 6


def test_disqualification_awards_open_tables_and_takes_the_entry_out(api):
    # seed 003: "取消作弊方的比赛资格，判对方获胜"; seed 000: "蓄意弃权者取消本次比赛资格" (rules.md §8)
    cfg = {"name": "掼蛋", "game": "guandan", "entry": "pair", "capacity": 8, "fee": {"amount": 0},
           "prizes": [{"place_from": 1, "amount": 500}],
           "stages": [{"format": "swiss", "rounds": 3, "early_finish": False, "scoring": {"method": "match_points"}}]}
    tid, eid, ids = setup_event(api, cfg, people(4, 2, "队"))
    r1 = draw(api, eid, 1)
    for t in r1["tables"]:   # the home pair wins 14 : 2 (级差分 13 + 12 = 25 / 1)
        a, b = (s["entry_id"] for s in t["sides"])
        enter_and_confirm(api, eid, r1, t, {"final": {"levels": {a: 14, b: 2}}})
    close(api, eid, 1)
    cheat = r1["tables"][0]["sides"][0]["entry_id"]
    r2 = draw(api, eid, 2)
    t = next(t for t in r2["tables"] if cheat in {s["entry_id"] for s in t["sides"]})
    opponent = next(s["entry_id"] for s in t["sides"] if s["entry_id"] != cheat)
    r = api.post(f"/events/{eid}/entries/{cheat}/disqualify", {"kind": "cheating", "reason": "偷看他人的牌"})
    assert r.status_code == 200 and r.data["status"] == "disqualified"
    again = api.post(f"/events/{eid}/entries/{cheat}/disqualify", {"kind": "cheating", "reason": "偷看他人的牌"})
    assert again.status_code == 200   # idempotent
    table = api.get(f"/events/{eid}/rounds/2").data["tables"][t["number"] - 1]
    assert table["status"] == "forfeit"
    # the open table to the opponent: withdrawal points 2 场分 and 17 级差分 (rules.md §1)
    other = next(x for x in r2["tables"] if x["number"] != t["number"])
    a, b = (s["entry_id"] for s in other["sides"])
    enter_and_confirm(api, eid, r2, other, {"final": {"levels": {a: 9, b: 5}}})
    close(api, eid, 2)
    st = api.get(f"/events/{eid}/standings").data["standings"]
    assert cheat not in {row["entry_id"] for row in st} and len(st) == 3
    assert [row["rank"] for row in st] == [1, 2, 3]
    opp = next(row for row in st if row["entry_id"] == opponent)
    assert opp["points"]["match_points"] >= 2
    r3 = draw(api, eid, 3)
    assert cheat not in {s["entry_id"] for t in r3["tables"] for s in t["sides"]}
    assert api.post(f"/events/{eid}/entries/{ids[0] if ids[0] != cheat else ids[1]}/disqualify",
                    {"kind": "sometimes", "reason": "x"}).status_code == 400


def test_disqualified_before_half_of_a_round_robin_loses_all_results(api):
    # rules.md §8: "in a round robin the 'played fewer than half' rule of §5 decides whether its results stand"
    cfg = {"name": "掼蛋循环", "game": "guandan", "entry": "pair", "capacity": 8, "fee": {"amount": 0},
           "stages": [{"format": "round_robin", "scoring": {"method": "match_points"}}]}
    tid, eid, ids = setup_event(api, cfg, people(4, 2, "对"))
    rnd = draw(api, eid)
    for t in rnd["tables"]:   # the away side wins 10 : 6 (级差分 17 / 9)
        home, away = (s["entry_id"] for s in t["sides"])
        enter_and_confirm(api, eid, rnd, t, {"final": {"levels": {home: 6, away: 10}}})
    close(api, eid, 1)
    cheat = rnd["tables"][0]["sides"][1]["entry_id"]
    beaten = rnd["tables"][0]["sides"][0]["entry_id"]
    assert api.post(f"/events/{eid}/entries/{cheat}/disqualify", {"kind": "deliberate_forfeit", "reason": "蓄意弃权"}).status_code == 200
    st = {r["entry_id"]: r for r in api.get(f"/events/{eid}/standings").data["standings"]}
    # one of three matches played (< half): its win over `beaten` is removed — beaten back to 0 / 0; not ranked
    assert cheat not in st and st[beaten]["points"] == {"match_points": 0, "level_diff_points": 0}


def test_mixed_pairs_seat_the_man_north_or_west(api):
    # seed 000: "男运动员坐西或者北的方位，女运动员坐东或者南的方位"
    cfg = {"name": "混双", "game": "guandan", "entry": "pair", "capacity": 8, "fee": {"amount": 0}, "mixed_pairs": True,
           "stages": [{"format": "swiss", "rounds": 2}]}
    bodies = []
    for i in range(4):
        first, second = ("f", "m") if i % 2 else ("m", "f")   # half the rosters list the woman first
        members = [{"name": f"队{i}-0", "phone": f"139{i:04d}0000", "gender": first}, {"name": f"队{i}-1", "gender": second}]
        bodies.append({"name": f"队{i}", "club": "", "members": members})
    tid, eid, ids = setup_event(api, cfg, bodies)
    # rules.md §9: a roster that is not one man and one woman is refused at registration (it used to be drawn)
    same = {"name": "两男", "members": [{"name": "甲", "phone": "13900009999", "gender": "m"}, {"name": "乙", "gender": "m"}]}
    refused = api.post(f"/events/{eid}/entries", same, token=None)
    assert (refused.status_code, refused.data["code"]) == (422, "mixed_pair_genders")
    gender = {ids[i]: [m["gender"] for m in b["members"]] for i, b in enumerate(bodies)}
    rnd = draw(api, eid, 1)
    for t in rnd["tables"]:
        for s in t["sides"]:
            e = s["entry_id"]
            seat = dict(zip(s["seats"], gender[e]))
            assert {seat[x] for x in s["seats"] if x in ("N", "W")} == {"m"}
            assert {seat[x] for x in s["seats"] if x in ("S", "E")} == {"f"}
    # scoring still works with the seats in member order: N–S still one side
    t = rnd["tables"][0]
    a, b = (s["entry_id"] for s in t["sides"])
    res = enter_and_confirm(api, eid, rnd, t, {"deals": [{"order": ["N", "S", "E", "W"]}]})
    assert res["points"][a]["level_points"] == 5 and res["points"][b]["level_points"] == 2


def test_knockout_opponents_chosen_in_order_by_the_director(api):
    # seed 000: "优先选择淘汰赛对手" — round robin, then the top entries choose their knockout opponents in order
    cfg = {"name": "掼蛋", "game": "guandan", "entry": "pair", "capacity": 8, "fee": {"amount": 0},
           "stages": [{"format": "round_robin", "scoring": {"method": "match_points"}},
                      {"format": "knockout", "knockout_draw": "choice", "advance": {"total": 4},
                       "scoring": {"method": "match_points"}}]}
    tid, eid, ids = setup_event(api, cfg, people(4, 2, "对"))
    number = {e: i for i, e in enumerate(ids)}   # the lower registration index wins: final order ids[0..3]
    for seed in (1, 2, 3):
        rnd = draw(api, eid, seed)
        for t in rnd["tables"]:
            a, b = (s["entry_id"] for s in t["sides"])
            win, lose = (a, b) if number[a] < number[b] else (b, a)
            enter_and_confirm(api, eid, rnd, t, {"final": {"levels": {win: 10, lose: 6}}})
        close(api, eid, rnd["number"])
    first, second, third, fourth = ids
    wrong = api.post(f"/events/{eid}/rounds", {"seed": 4, "choices": [[second, third]]})
    assert wrong.status_code == 400 and "turn" in wrong.data["message"]
    rnd = api.post(f"/events/{eid}/rounds", {"seed": 4, "choices": [[first, second]]})
    assert rnd.status_code == 201, rnd.data
    pairs = [{s["entry_id"] for s in t["sides"]} for t in rnd.data["tables"]]
    # 1st chose 2nd; the two left meet each other
    assert {first, second} in pairs and {third, fourth} in pairs
    assert any("chose" in t["reason_en"] for t in rnd.data["tables"])
    late = api.post(f"/events/{eid}/rounds", {"seed": 5, "choices": [[first, third]]})
    assert late.status_code in (400, 409)


def test_special_swiss_champion_is_the_last_unbeaten_pair(api):
    # seed 000: "胜区最后一支胜队获得冠军，其后名次则按最后积分确定" — whatever the scoring method
    cfg = {"name": "特别积分编排", "game": "guandan", "entry": "pair", "capacity": 8, "fee": {"amount": 0},
           "stages": [{"format": "special_swiss", "rounds": 2}]}
    tid, eid, ids = setup_event(api, cfg, people(4, 2, "对"))
    r1 = draw(api, eid, 1)
    (a, b), (c, d) = ([s["entry_id"] for s in t["sides"]] for t in r1["tables"])
    enter_and_confirm(api, eid, r1, r1["tables"][0], {"final": {"levels": {a: 10, b: 9}}})
    enter_and_confirm(api, eid, r1, r1["tables"][1], {"final": {"levels": {c: 14, d: 2}}})
    close(api, eid, 1)
    r2 = draw(api, eid, 2)
    pairs = {frozenset(s["entry_id"] for s in t["sides"]): t for t in r2["tables"]}
    assert set(pairs) == {frozenset((a, c)), frozenset((b, d))}   # winners' zone and losers' zone
    enter_and_confirm(api, eid, r2, pairs[frozenset((a, c))], {"final": {"levels": {a: 8, c: 7}}})
    enter_and_confirm(api, eid, r2, pairs[frozenset((b, d))], {"final": {"levels": {b: 14, d: 3}}})
    close(api, eid, 2)
    st = api.get(f"/events/{eid}/standings").data["standings"]
    # totals a 10 + 8 = 18, b 9 + 14 = 23, c 14 + 7 = 21, d 2 + 3 = 5: a won both (the last unbeaten) → first;
    # then by points b, c, d
    assert [r["entry_id"] for r in st] == [a, b, c, d]
    assert [r["points"]["level_points"] for r in st] == [18, 23, 21, 5]
