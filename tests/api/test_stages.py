"""Multi-stage events through the routes: group round robin → knockout (seed 003's Tractor day)."""
from __future__ import annotations

from tests.api.play import close, draw, enter_and_confirm, people, setup_event


def test_groups_then_knockout_moves_between_stages(api):
    cfg = {"name": "拖拉机", "game": "tractor", "entry": "pair", "capacity": 16, "fee": {"amount": 0},
           "stages": [{"name": "小组赛", "format": "round_robin", "groups": 2},
                      {"name": "淘汰赛", "format": "knockout", "advance": {"per_group": 2}, "knockout_draw": "bracket"}]}
    tid, eid, ids = setup_event(api, cfg, people(8, 2, "对"))
    number = {e: i for i, e in enumerate(ids)}  # the lower registration index wins every match

    def play_round(seed):
        rnd = draw(api, eid, seed)
        for t in rnd["tables"]:
            a, b = (s["entry_id"] for s in t["sides"])
            win, lose = (a, b) if number[a] < number[b] else (b, a)
            enter_and_confirm(api, eid, rnd, t, {"final": {"games_won": {win: 2, lose: 0}}})
        close(api, eid, rnd["number"])
        return rnd

    first = play_round(1)
    assert first["stage"] == 1 and first["format"] == "round_robin" and len(first["tables"]) == 4
    play_round(2)
    play_round(3)
    groups = api.get(f"/events/{eid}/standings?stage=1").data["standings"]
    assert len(groups) == 8
    ko = play_round(4)
    assert ko["stage"] == 2 and ko["format"] == "knockout" and ko["stage_round"] == 1 and len(ko["tables"]) == 2
    finalists = {s["entry_id"] for t in ko["tables"] for s in t["sides"]}
    # the top two of each group advance; group winners are seeded apart (1 v 4, 2 v 3)
    by_group = {}
    for row in groups:
        by_group.setdefault(row["rank"], []).append(row["entry_id"])
    assert finalists == set(by_group[1]) | set(by_group[2])
    for t in ko["tables"]:
        home, away = (s["entry_id"] for s in t["sides"])
        assert home in by_group[1] and away in by_group[2]
    final = play_round(5)
    assert final["stage"] == 2 and len(final["tables"]) == 1
    st = api.get(f"/events/{eid}/standings").data
    assert st["final"] is True and st["stage"] == 2
    assert st["standings"][0]["entry_id"] == min(finalists, key=number.get)
    assert api.post(f"/events/{eid}/rounds", {"seed": 9}).data["code"] == "event_finished"


def test_round_robin_withdrawal_before_half_removes_all_results(api):
    # Guandan's rule (seed 000, rules.md §5); Gouji has its own (32 to every opponent, test_events_played)
    cfg = {"name": "掼蛋循环", "game": "guandan", "entry": "pair", "capacity": 8, "fee": {"amount": 0},
           "stages": [{"format": "round_robin", "scoring": {"method": "match_points"}}]}
    tid, eid, ids = setup_event(api, cfg, people(4, 2, "对"))
    rnd = draw(api, eid)
    leaver = rnd["tables"][0]["sides"][1]["entry_id"]
    beaten = rnd["tables"][0]["sides"][0]["entry_id"]
    for t in rnd["tables"]:  # the away side wins every match 10:6 (级差分 13+4 / 13-4)
        home, away = (s["entry_id"] for s in t["sides"])
        enter_and_confirm(api, eid, rnd, t, {"final": {"levels": {home: 6, away: 10}}})
    close(api, eid, 1)
    before = {r["entry_id"]: r["points"] for r in api.get(f"/events/{eid}/standings").data["standings"]}
    assert before[leaver]["match_points"] == 2 and before[beaten]["level_diff_points"] == 9
    # one match of three played, then the pair withdraws: fewer than half → all its results removed
    assert api.post(f"/events/{eid}/entries/{leaver}/withdraw", {"reason": "退赛"}).status_code == 200
    after = {r["entry_id"]: r["points"] for r in api.get(f"/events/{eid}/standings").data["standings"]}
    assert after[beaten] == {"match_points": 0, "level_diff_points": 0} and after[leaver]["match_points"] == 0
    others = [e for e in ids if e not in (leaver, beaten)]
    assert all(after[e] == before[e] for e in others)


def test_double_elimination_gives_a_second_chance(api):
    cfg = {"name": "掼蛋双败淘汰", "game": "guandan", "entry": "pair", "capacity": 8, "fee": {"amount": 0},
           "stages": [{"format": "knockout", "double_elimination": True, "scoring": {"method": "match_points"}}]}
    tid, eid, ids = setup_event(api, cfg, people(4, 2, "对"))
    losses = {e: 0 for e in ids}
    upset_done = False
    rounds = []
    for _ in range(6):
        r = api.post(f"/events/{eid}/rounds", {"seed": 3})
        if r.status_code == 409:
            break
        rnd = r.data
        rounds.append(rnd)
        for t in rnd["tables"]:
            a, b = (s["entry_id"] for s in t["sides"])
            # the better seed (home) wins, except one upset in the first round: its loser goes to the lower bracket
            win, lose = (a, b) if (upset_done or rnd["number"] > 1) else (b, a)
            upset_done = True
            losses[lose] += 1
            enter_and_confirm(api, eid, rnd, t, {"final": {"levels": {win: 12, lose: 8}}})
        close(api, eid, rnd["number"])
    assert r.data["code"] == "event_finished"  # the stage (and the event) is over
    reasons = [t["reason"] for rnd in rounds for t in rnd["tables"]]
    assert any(x.startswith("lower bracket") for x in reasons) and reasons[-1].startswith("grand final")
    final = rounds[-1]["tables"][0]
    finalists = {s["entry_id"] for s in final["sides"]}
    champion = final["sides"][0]["entry_id"]
    assert losses[champion] <= 1
    assert all(losses[e] >= 2 for e in ids if e not in finalists)  # out only after two losses
    st = api.get(f"/events/{eid}/standings").data
    assert st["standings"][0]["entry_id"] == champion
