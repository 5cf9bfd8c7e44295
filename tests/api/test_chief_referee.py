"""Issue 24, through the routes: late entries, pairing edits (with the draw's warnings), fixed tables."""
from __future__ import annotations

from tests.api.play import close, draw, people, setup_event

SWISS4 = {"name": "掼蛋双人", "game": "guandan", "entry": "pair", "capacity": 40, "fee": {"amount": 0},
          "late_entries": True,   # registration stays open after the first draw (issue 23: it closes otherwise)
          "stages": [{"format": "swiss", "rounds": 4, "scoring": {"method": "level_points"}}]}


def _play(api, eid, rnd):
    for k, tb in enumerate(rnd["tables"]):
        a, b = (s["entry_id"] for s in tb["sides"])
        levels = {a: 14, b: 6 + k % 5} if k % 2 == 0 else {a: 7 + k % 4, b: 14}
        # an edited table's version moved on (a phone holding the old pairing must reload): enter at its version
        where = f"/events/{eid}/rounds/{rnd['number']}/tables/{tb['number']}"
        put = api.put(f"{where}/result", {"version": tb["version"], "final": {"levels": levels}}, token=None,
                      headers={"X-Table-Code": tb["codes"][0]})
        assert put.status_code == 200, put.data
        assert api.post(f"{where}/confirm", token=None, headers={"X-Table-Code": tb["codes"][1]}).status_code == 200
    close(api, eid, rnd["number"])


def _register(api, eid, name, phone):
    body = {"name": name, "club": "迟到商会", "members": [{"name": f"{name}甲", "phone": phone}, {"name": f"{name}乙"}]}
    r = api.post(f"/events/{eid}/entries", body, token=None)
    assert r.status_code == 201, r.data
    return r.data["entry"]["id"]


def _met(rounds):
    pairs = [frozenset(s["entry_id"] for s in t["sides"]) for r in rounds for t in r["tables"]]
    return pairs


def test_a_late_entry_joins_from_the_next_round_and_late_entries_close(api):
    tid, eid, ids = setup_event(api, SWISS4, people(6, 2, "队"))
    r1 = draw(api, eid)
    late = _register(api, eid, "迟到队", "13900001111")
    answer = api.post(f"/events/{eid}/entries/{late}/check-in")
    assert answer.status_code == 200 and answer.data["joins_from_round"] == 2, answer.data
    listed = api.get(f"/events/{eid}/rounds").data["not_drawn"]
    assert listed == [{"entry_id": late, "name": "迟到队", "reason": "late_entry", "joins_from_round": 2}]
    _play(api, eid, r1)
    rounds = [r1]
    r2 = draw(api, eid, seed=2)
    assert [x["entry_id"] for x in r2["late_entries"]] == [late] and r2["late_entries"][0]["from_round"] == 2
    drawn = {s["entry_id"] for t in r2["tables"] for s in t["sides"]} | set(r2["byes"])
    assert late in drawn and len(drawn) == 7
    assert api.get(f"/events/{eid}/rounds").data["not_drawn"] == []
    _play(api, eid, r2)
    rounds.append(r2)
    too_late = _register(api, eid, "太迟队", "13900002222")   # registered in time, not checked in before round 3
    r3 = draw(api, eid, seed=3)
    rounds.append(r3)
    # round 3 (the second-last of four) was the last a late entry could join: now it is closed, registration too
    body = {"name": "更迟队", "members": [{"name": "更迟甲", "phone": "13900003333"}, {"name": "更迟乙"}]}
    closed = api.post(f"/events/{eid}/entries", body, token=None)
    assert (closed.status_code, closed.data["code"]) == (422, "registration_closed"), closed.data
    refused = api.post(f"/events/{eid}/entries/{too_late}/check-in")
    assert refused.status_code == 409 and refused.data["code"] == "late_entry_closed", refused.data
    assert "第 3 轮" in refused.data["message"]
    skipped = api.post(f"/events/{eid}/check-in-all").data["skipped"]
    assert [s["entry_id"] for s in skipped] == [too_late] and skipped[0]["reason_zh"] == "已过补报时间"
    _play(api, eid, r3)
    r4 = draw(api, eid, seed=4)
    rounds.append(r4)
    _play(api, eid, r4)
    pairs = _met(rounds)
    assert len(pairs) == len(set(pairs)), "a rematch"
    rows = api.get(f"/events/{eid}/standings").data["standings"]
    assert late in [r["entry_id"] for r in rows] and len(rows) == 7
    assert too_late not in [r["entry_id"] for r in rows]


def test_pairing_edit_warns_like_the_draw_needs_a_reason_and_refuses_a_started_table(api):
    tid, eid, ids = setup_event(api, {**SWISS4, "stages": [{"format": "swiss", "rounds": 3,
                                                             "scoring": {"method": "level_points"}}]}, people(8, 2, "队"))
    r1 = draw(api, eid)
    _play(api, eid, r1)
    r2 = draw(api, eid, seed=5)
    met = {frozenset(s["entry_id"] for s in t["sides"]) for t in r1["tables"]}
    t1, t2 = r2["tables"][0], r2["tables"][1]
    a, b = t1["sides"][0]["entry_id"], t1["sides"][1]["entry_id"]
    c, d = t2["sides"][0]["entry_id"], t2["sides"][1]["entry_id"]
    # find a swap between two tables that brings back a round-1 pair
    swap = None
    for x in r2["tables"]:
        for y in r2["tables"]:
            if x["number"] >= y["number"]:
                continue
            p, q = x["sides"][0]["entry_id"], x["sides"][1]["entry_id"]
            u, v = y["sides"][0]["entry_id"], y["sides"][1]["entry_id"]
            if frozenset((p, v)) in met or frozenset((u, q)) in met:
                swap, tables = [q, v], sorted((x["number"], y["number"]))
                break
        if swap:
            break
    assert swap, "no swap brings back a round-1 pair"
    preview = api.patch(f"/events/{eid}/rounds/2", {"swap": [swap], "dry_run": True})
    assert preview.status_code == 200, preview.data
    codes = {w["code"]: w for w in preview.data["warnings"]}
    assert "rematch" in codes and set(codes["rematch"]["tables"]) <= set(tables), codes
    assert all(n for names in codes["rematch"]["names"] for n in names)   # names, for the console
    unchanged = api.get(f"/events/{eid}/rounds/2").data
    assert [[s["entry_id"] for s in t["sides"]] for t in unchanged["tables"]] == \
        [[s["entry_id"] for s in t["sides"]] for t in r2["tables"]]
    no_reason = api.patch(f"/events/{eid}/rounds/2", {"swap": [[a, c]]})
    assert no_reason.status_code == 400 and no_reason.data["code"] == "invalid_request"
    edited = api.patch(f"/events/{eid}/rounds/2", {"swap": [[b, d]], "reason": "甲队选手行动不便，调换"})
    assert edited.status_code == 200, edited.data
    by = {t["number"]: t for t in edited.data["tables"]}
    assert {s["entry_id"] for s in by[t1["number"]]["sides"]} == {a, d}
    assert {s["entry_id"] for s in by[t2["number"]]["sides"]} == {c, b}
    assert by[t1["number"]]["edited"]["reason"] == "甲队选手行动不便，调换"
    assert by[t1["number"]]["reason_zh"] == "编排调整：甲队选手行动不便，调换"
    assert by[3]["edited"] is None
    audit = [x for x in api.get(f"/events/{eid}/audit").data["audit"] if x["action"] == "pairing_edited"]
    assert len(audit) == 1 and audit[0]["reason"] == "甲队选手行动不便，调换"
    # a table with a result entered cannot change
    t3 = by[3]
    x, y = (s["entry_id"] for s in t3["sides"])
    assert api.put(f"/events/{eid}/rounds/2/tables/3/result", {"version": t3["version"], "final": {"levels": {x: 14, y: 9}}},
                   token=None, headers={"X-Table-Code": t3["codes"][0]}).status_code == 200
    started = api.patch(f"/events/{eid}/rounds/2", {"swap": [[x, a]], "reason": "再调"})
    assert started.status_code == 409 and started.data["code"] == "table_started" and started.data["details"]["tables"] == [3]
    # an entry not in the round, and a table left half-empty, are named
    bad = api.patch(f"/events/{eid}/rounds/2", {"tables": [{"number": 1, "sides": [a, "nobody"]}], "reason": "x"})
    assert bad.status_code == 400 and bad.data["details"]["entries"] == ["nobody"]


def test_a_fixed_table_is_kept_by_later_draws_and_byes_can_be_given(api):
    tid, eid, ids = setup_event(api, {**SWISS4, "stages": [{"format": "swiss", "rounds": 3,
                                                             "scoring": {"method": "level_points"}}]}, people(6, 2, "队"))
    r1 = draw(api, eid)
    last = r1["tables"][-1]
    who = last["sides"][0]["entry_id"]
    fixed = api.patch(f"/events/{eid}/rounds/1", {"fixed": [{"entry_id": who, "table": 1}], "reason": "轮椅，固定 1 号桌"})
    assert fixed.status_code == 200, fixed.data
    one = fixed.data["tables"][0]
    assert who in {s["entry_id"] for s in one["sides"]} and one["fixed"] == [who]
    # two entries to the bye: their table goes
    pair = [s["entry_id"] for s in fixed.data["tables"][1]["sides"]]
    byes = api.patch(f"/events/{eid}/rounds/1", {"byes": pair, "reason": "两队迟到，本轮轮空"})
    assert byes.status_code == 200, byes.data
    assert sorted(byes.data["byes"]) == sorted(pair) and len(byes.data["tables"]) == 2
    assert byes.data["bye_reasons_zh"][pair[0]] == "轮空：编排调整"
    _play(api, eid, api.get(f"/events/{eid}/rounds/1").data)
    r2 = draw(api, eid, seed=9)
    assert who in {s["entry_id"] for s in r2["tables"][0]["sides"]} and r2["tables"][0]["fixed"] == [who]
    assert not ({frozenset(s["entry_id"] for s in t["sides"]) for t in r2["tables"]} &
                {frozenset(s["entry_id"] for s in t["sides"]) for t in byes.data["tables"]})


def _win_for(api, eid, rnd, winner):
    for table in rnd["tables"]:
        a, b = (s["entry_id"] for s in table["sides"])
        top = a if a == winner or b != winner else b
        other = b if top == a else a
        where = f"/events/{eid}/rounds/{rnd['number']}/tables/{table['number']}"
        levels = {top: 10, other: 6} if winner in (a, b) else {top: 8, other: 8}    # the rest draw
        assert api.put(f"{where}/result", {"version": table["version"], "final": {"levels": levels}},
                       token=None, headers={"X-Table-Code": table["codes"][0]}).status_code == 200
        assert api.post(f"{where}/confirm", token=None, headers={"X-Table-Code": table["codes"][1]}).status_code == 200
    close(api, eid, rnd["number"])


def test_early_finish_is_said_on_the_round_and_the_published_pages(local_api):
    """rules.md §5/§9: who finished early, why, and what it scores, is on the round (console) and the round pages
    (zh, en). The winner wins three, the rest draw: 6 against 2, 2, 2 before round 4 — certain (6 > 2 + 2)."""
    from chalicelib import bootstrap
    api = local_api
    cfg = {"name": "掼蛋提前", "game": "guandan", "entry": "pair", "capacity": 8, "fee": {"amount": 0},
           "stages": [{"format": "swiss", "rounds": 4, "early_finish": True, "scoring": {"method": "match_points"}}]}
    tid, eid, ids = setup_event(api, cfg, people(4, 2, "队"))
    r1 = draw(api, eid, seed=1)
    winner = r1["tables"][0]["sides"][0]["entry_id"]
    _win_for(api, eid, r1, winner)
    for n in (2, 3):
        rnd = draw(api, eid, seed=n)
        assert not rnd["early_finish"]
        _win_for(api, eid, rnd, winner)
    r3 = draw(api, eid, seed=4)
    assert [x["entry_id"] for x in r3["early_finish"]] == [winner]
    ef = r3["early_finish"][0]
    # three wins: 2 match points and 17 level-difference points each → 2 and 17 a round
    assert (ef["place"], ef["from_round"], ef["average"]) == (1, 4, {"match_points": 2.0, "level_diff_points": 17.0})
    assert (ef["score"], ef["worst"], ef["best_other"], ef["rounds_left"]) == (6, 6, 4, 1)
    assert ef["chaser_name"] and ef["chaser_name"] != ef["name"]
    name = ef["name"]
    assert name and api.get(f"/events/{eid}/rounds/4").data["early_finish"][0]["name"] == name
    assert any(f"{name} is certain of place 1: on 6, it would still have 6 after losing its 1 remaining round(s), "
               f"more than the 4 {ef['chaser_name']} could reach" in x for x in r3["notes"])
    assert api.post(f"/tournaments/{tid}/publish").status_code == 200
    site = bootstrap.deps().publisher
    page = lambda key: site.files[key].decode() if isinstance(site.files[key], bytes) else site.files[key]  # noqa: E731
    zh = page(f"t/{tid}/{eid}/round-4.html")
    assert f"{name} 已锁定第 1 名，第 4 轮起不再编排，每轮计平均分" in zh and "场分 2" in zh
    assert "（现 6 分，余下 1 轮全负仍有 6 分，多于其他队最多能到的 4 分）" in zh     # why (rules.md §9)
    en = page(f"en/t/{tid}/{eid}/round-4.html")
    assert f"{name} is certain of place 1: not drawn from round 4 on" in en


def test_pairing_edits_on_dynamodb_local_publish_the_edited_tables_and_the_reason(local_api):
    from chalicelib import bootstrap
    api = local_api
    tid, eid, ids = setup_event(api, {**SWISS4, "stages": [{"format": "swiss", "rounds": 3,
                                                             "scoring": {"method": "level_points"}}]}, people(6, 2, "队"))
    r1 = draw(api, eid)
    a = r1["tables"][0]["sides"][1]["entry_id"]
    b = r1["tables"][1]["sides"][1]["entry_id"]
    edited = api.patch(f"/events/{eid}/rounds/1", {"swap": [[a, b]], "reason": "同一单位的两位选手要求调换"})
    assert edited.status_code == 200, edited.data
    # a second edit from the same stale view of a table fails cleanly (the table moved on)
    t1 = edited.data["tables"][0]
    assert t1["version"] == 1 and t1["edited"]["reason"] == "同一单位的两位选手要求调换"
    _play(api, eid, edited.data)
    assert api.post(f"/tournaments/{tid}/publish").status_code == 200
    site = bootstrap.deps().publisher
    page = lambda key: site.files[key].decode() if isinstance(site.files[key], bytes) else site.files[key]  # noqa: E731
    zh = page(f"t/{tid}/{eid}/round-1.html")
    # the tag says 编排调整 once, the reason follows (issue 39: "编排调整 编排调整：…")
    assert zh.count('class="tag edited"') == 2 and '编排调整</span> 同一单位的两位选手要求调换' in zh
    assert "编排调整：同一单位" not in zh
    assert "Pairing edited" in page(f"en/t/{tid}/{eid}/round-1.html")
    corrections = page(f"t/{tid}/{eid}/corrections.html")
    names = {s["entry_id"]: s["name"] for t in edited.data["tables"] for s in t["sides"]}
    assert "编排调整" in corrections and "同一单位的两位选手要求调换" in corrections
    assert f"{names[a]}" in corrections and f"{names[b]}" in corrections


GOUJI_TEAMS = {"name": "够级团体", "game": "gouji", "entry": {"kind": "team", "size": 3}, "capacity": 8, "fee": {"amount": 0},
               "stages": [{"format": "swiss", "rounds": 3}]}


def test_a_substitute_between_rounds_keeps_the_roster_history_and_pairs_refuse_one(api):
    # a pair without the event's leave: 422 substitution_not_allowed (rules.md §8)
    tid, eid, ids = setup_event(api, SWISS4, people(4, 2, "队"))
    sub = {"out": 1, "in": {"name": "替补甲"}, "reason": "队员生病"}
    refused = api.post(f"/events/{eid}/entries/{ids[0]}/substitutions", sub)
    assert refused.status_code == 422 and refused.data["code"] == "substitution_not_allowed", refused.data
    # the event allows pairs to change: between rounds, with a reason, from the next round not yet drawn
    tid, eid, ids = setup_event(api, {**SWISS4, "substitutes": {"pairs": True}}, people(4, 2, "对"))
    draw(api, eid)
    no_reason = api.post(f"/events/{eid}/entries/{ids[0]}/substitutions", {"out": 1, "in": {"name": "替补甲"}})
    assert no_reason.status_code == 400
    during = api.post(f"/events/{eid}/entries/{ids[0]}/substitutions", {**sub, "from_round": 1})
    assert during.status_code == 409 and during.data["details"]["earliest_round"] == 2
    ok = api.post(f"/events/{eid}/entries/{ids[0]}/substitutions", sub)
    assert ok.status_code == 201, ok.data
    history = ok.data["roster_history"]
    assert len(history) == 1 and history[0]["from_round"] == 2 and history[0]["out"]["name"] == "对0-1"
    assert history[0]["in"]["name"] == "替补甲" and history[0]["roster_before"] == ["对0-0", "对0-1"]
    assert [m["name"] for m in ok.data["members"]] == ["对0-0", "替补甲"]
    from chalicelib import bootstrap
    from chalicelib.services.substitutions import roster_for_round
    entry = bootstrap.deps().repos.entries.get(eid, ids[0])
    assert roster_for_round(entry, 1) == ["对0-0", "对0-1"] and roster_for_round(entry, 2) == ["对0-0", "替补甲"]
    audit = [x for x in api.get(f"/events/{eid}/audit").data["audit"] if x["action"] == "substitution"]
    assert audit and audit[0]["reason"] == "队员生病" and audit[0]["after"]["in"] == "替补甲"



def test_a_team_changes_a_player_and_a_scorer_may_not(api):
    tid, eid, ids = setup_event(api, GOUJI_TEAMS, people(4, 3, "队"))
    scorer = api.post(f"/tournaments/{tid}/staff", {"name": "李记分", "role": "scorer"}).data["token"]
    sub = {"out": 2, "in": {"name": "新队员", "phone": "13912345678"}, "reason": "赛前报备，经组委会同意"}
    assert api.post(f"/events/{eid}/entries/{ids[1]}/substitutions", sub, token=scorer).status_code == 403
    ok = api.post(f"/events/{eid}/entries/{ids[1]}/substitutions", sub)
    assert ok.status_code == 201 and ok.data["members"][2]["name"] == "新队员"
    assert ok.data["roster_history"][0]["from_round"] == 1
    again = api.post(f"/events/{eid}/entries/{ids[1]}/substitutions", {**sub, "out": 1})
    assert again.status_code == 409   # already on the roster


def test_penalty_records_are_shown_on_the_round_page_and_the_corrections_page(local_api):
    """rules.md §8: "扣除违规方1个级差分" as a record on the result (kind, offender, referee), scored by the engine."""
    from chalicelib import bootstrap
    api = local_api
    cfg = {"name": "掼蛋判罚", "game": "guandan", "entry": "pair", "capacity": 8, "fee": {"amount": 0},
           "stages": [{"format": "swiss", "rounds": 3, "scoring": {"method": "match_points"}}]}
    tid, eid, ids = setup_event(api, cfg, people(2, 2, "队"))
    rnd = draw(api, eid)
    tb = rnd["tables"][0]
    a, b = (s["entry_id"] for s in tb["sides"])
    body = {"version": 0, "final": {"levels": {a: 12, b: 8}},
            "penalties": [{"kind": "level_diff_point", "entry_id": a, "referee": "王裁判"}]}
    put = api.put(f"/events/{eid}/rounds/1/tables/1/result", body, token=None, headers={"X-Table-Code": tb["codes"][0]})
    assert put.status_code == 200, put.data
    # 4 levels apart: the winner's level-difference points less the one deducted (the engine's table, not ours)
    plain = api.post(f"/events/{eid}/rounds/1/tables/1/preview", {"version": 0, "final": {"levels": {a: 12, b: 8}}}).data
    assert put.data["points"][a]["level_diff_points"] == plain["points"][a]["level_diff_points"] - 1
    audit = [x for x in api.get(f"/events/{eid}/audit").data["audit"] if x["action"] == "result_entered"]
    assert audit[0]["after"]["result"]["penalties"][0]["referee"] == "王裁判"
    assert api.post(f"/tournaments/{tid}/publish").status_code == 200
    site = bootstrap.deps().publisher
    page = lambda key: site.files[key].decode() if isinstance(site.files[key], bytes) else site.files[key]  # noqa: E731
    name = tb["sides"][0]["name"]
    zh = page(f"t/{tid}/{eid}/round-1.html")
    assert f"{name} · 从总分扣除1个级差分 · 裁判 王裁判" in zh
    assert "One level-difference point off the total" in page(f"en/t/{tid}/{eid}/round-1.html")
    corrections = page(f"t/{tid}/{eid}/corrections.html")
    assert "违规判罚" in corrections and f"{name} · 从总分扣除1个级差分" in corrections


def test_a_whole_event_with_a_late_entry_a_substitute_a_pairing_edit_and_a_disqualification(api):
    """Five Swiss rounds, eight pairs and one late: every power of the chief referee once, and the event still
    ends with a full ranking and no rematch."""
    cfg = {**SWISS4, "substitutes": {"pairs": True},
           "stages": [{"format": "swiss", "rounds": 5, "scoring": {"method": "level_points"}}]}
    tid, eid, ids = setup_event(api, cfg, people(8, 2, "队"))
    rounds = [draw(api, eid, seed=11)]
    late = _register(api, eid, "补报队", "13900003333")
    assert api.post(f"/events/{eid}/entries/{late}/check-in").data["joins_from_round"] == 2
    _play(api, eid, rounds[0])
    sub = api.post(f"/events/{eid}/entries/{ids[1]}/substitutions",
                   {"out": 0, "in": {"name": "替补乙"}, "reason": "队员家中有事，裁判长批准"})
    assert sub.status_code == 201 and sub.data["roster_history"][0]["from_round"] == 2
    r2 = draw(api, eid, seed=12)
    assert late in {s["entry_id"] for t in r2["tables"] for s in t["sides"]} | set(r2["byes"])
    # a pairing edit the draw's cost function finds clean (no rematch), saved with its reason
    edit = None
    for x in r2["tables"]:
        for y in r2["tables"]:
            if x["number"] < y["number"] and edit is None:
                body = {"swap": [[x["sides"][1]["entry_id"], y["sides"][1]["entry_id"]]], "dry_run": True}
                if not [w for w in api.patch(f"/events/{eid}/rounds/2", body).data["warnings"] if w["code"] == "rematch"]:
                    edit = body
    assert edit, "every swap of round 2 makes a rematch"
    saved = api.patch(f"/events/{eid}/rounds/2", {**edit, "dry_run": False, "reason": "场地调整"})
    assert saved.status_code == 200
    rounds.append(saved.data)
    _play(api, eid, saved.data)
    dq = api.post(f"/events/{eid}/entries/{ids[2]}/disqualify", {"kind": "cheating", "reason": "第二轮作弊，查实"})
    assert dq.status_code == 200 and dq.data["status"] == "disqualified"
    for n in (3, 4, 5):
        r = draw(api, eid, seed=10 + n)
        assert ids[2] not in {s["entry_id"] for t in r["tables"] for s in t["sides"]} | set(r["byes"])
        rounds.append(r)
        _play(api, eid, r)
    pairs = _met(rounds)
    assert len(pairs) == len(set(pairs)), "a rematch"
    standings = api.get(f"/events/{eid}/standings").data["standings"]
    ranked = [r["entry_id"] for r in standings]
    assert late in ranked and ids[2] not in ranked and len(ranked) == 8
    from chalicelib import bootstrap
    from chalicelib.services.substitutions import roster_for_round
    entry = bootstrap.deps().repos.entries.get(eid, ids[1])
    assert roster_for_round(entry, 1)[0] == "队1-0" and roster_for_round(entry, 2)[0] == "替补乙"
    actions = {x["action"] for x in api.get(f"/events/{eid}/audit").data["audit"]}
    assert {"pairing_edited", "substitution", "entry_disqualified"} <= actions


def test_a_late_entry_starts_with_the_events_late_score(api):
    cfg = {**SWISS4, "late_entry": {"until_round": 2, "score": 7}}
    tid, eid, ids = setup_event(api, cfg, people(4, 2, "队"))
    r1 = draw(api, eid)
    late = _register(api, eid, "七分队", "13900004444")
    assert api.post(f"/events/{eid}/entries/{late}/check-in").data["joins_from_round"] == 2
    _play(api, eid, r1)
    other = _register(api, eid, "八分队", "13900005555")   # registered in time, not checked in before round 2
    r2 = draw(api, eid, seed=2)
    assert r2["late_entries"] == [{"entry_id": late, "from_round": 2, "score": 7.0, "name": "七分队"}]
    _play(api, eid, r2)
    played = api.get(f"/events/{eid}/rounds/2").data
    if late in played["byes"]:
        from chalicelib.engine.games import game
        from chalicelib.models import EventConfig
        stage = EventConfig.model_validate(cfg).stages[0]
        earned = game("guandan").bye(late, stage.scoring)["level_points"]
    else:
        earned = next(t for t in played["tables"] if late in t["points"])["points"][late]["level_points"]
    row = next(r for r in api.get(f"/events/{eid}/standings").data["standings"] if r["entry_id"] == late)
    assert row["points"]["level_points"] == 7 + earned   # the late score, then what it earned in round 2
    # until_round 2: once round 2 is drawn nobody else joins (registration closed with that draw; one registered
    # before it but not checked in is refused at check-in)
    assert api.post(f"/events/{eid}/entries/{other}/check-in").data["code"] == "late_entry_closed"
    body = {"name": "九分队", "members": [{"name": "九分甲", "phone": "13900006666"}, {"name": "九分乙"}]}
    assert api.post(f"/events/{eid}/entries", body, token=None).data["code"] == "registration_closed"
