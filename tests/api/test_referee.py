"""The referee's day on DynamoDB Local (issue 13): schedule, lateness, forfeits, disputes, the correction
window, appeals and prizes. Expected numbers are worked by hand from rules.md §1, §2, §5–§7."""
from __future__ import annotations

from datetime import datetime, UTC

from tests.api.play import close, draw, enter_and_confirm, people, setup_event

# The fixed test clock is 2026-12-01 02:00 UTC = 10:00 in Asia/Shanghai (the tournament's zone).
SCHEDULE = {"first_round_at": "2026-12-01T10:00:00", "round_minutes": 50, "break_minutes": 10}


def guandan(method="level_points", rounds=3, **stage):
    return {"name": "掼蛋", "game": "guandan", "entry": "pair", "capacity": 40, "fee": {"amount": 0},
            "stages": [{"format": "swiss", "rounds": rounds, "early_finish": False, "schedule": SCHEDULE,
                        "scoring": {"method": method}, **stage}]}


def doudizhu(**extra):
    return {"name": "二打一", "game": "doudizhu", "entry": "individual", "capacity": 15, "fee": {"amount": 0},
            "stages": [{"format": "swiss", "rounds": 5, "schedule": SCHEDULE}], **extra}


def side(api, eid, rnd, t, k):
    return {"token": None, "headers": {"X-Table-Code": rnd["tables"][t - 1]["codes"][k]}}


def test_schedule_gives_each_round_its_times_in_utc(local_api, clock):
    api = local_api
    tid, eid, _ = setup_event(api, guandan(), people(4, 2, "队"))
    r1 = draw(api, eid)
    assert r1["starts_at"].startswith("2026-12-01T02:00:00") and r1["ends_at"].startswith("2026-12-01T02:50:00")
    for t in r1["tables"]:
        a, b = (s["entry_id"] for s in t["sides"])
        enter_and_confirm(api, eid, r1, t, {"final": {"levels": {a: 10, b: 8}}})
    close(api, eid, 1)
    r2 = draw(api, eid, seed=2)
    assert r2["starts_at"].startswith("2026-12-01T03:00:00") and r2["ends_at"].startswith("2026-12-01T03:50:00")


def test_guandan_lateness_start_level_and_forfeit(local_api, clock):
    api = local_api
    tid, eid, _ = setup_event(api, guandan(), people(4, 2, "队"))
    rnd = draw(api, eid)
    t1, t2 = rnd["tables"]
    late, other = (s["entry_id"] for s in t1["sides"])
    base = f"/events/{eid}/rounds/1/tables/1"
    # an arrival after now (10:07 typed at 10:00) is a slip, refused, nothing saved (issue 25)
    r = api.post(f"{base}/arrival", {"entry_id": late, "arrived_at": "2026-12-01T10:07:00"})
    assert (r.status_code, r.data["code"]) == (422, "arrival_in_future")
    assert api.get(f"/events/{eid}/rounds/1").data["tables"][0].get("arrivals") in (None, {})
    clock.advance(minutes=15)
    # 7 minutes late (10:07 Shanghai): the other side starts from level 4
    r = api.post(f"{base}/arrival", {"entry_id": late, "arrived_at": "2026-12-01T10:07:00"})
    assert r.status_code == 200, r.data
    assert (r.data["late_minutes"], r.data["effect"], r.data["start_levels"]) == (7, "start_level", {other: 4})
    # one deal won by the late side +2 (N first, S third): late 2→4, the other stays at its start level 4
    seats = {s["entry_id"]: s["seats"] for s in t1["sides"]}
    n1, s1 = seats[late]
    e1, w1 = seats[other]
    res = api.put(f"{base}/result", {"version": 1, "deals": [{"order": [n1, e1, s1, w1]}]}, **side(api, eid, rnd, 1, 0))
    assert res.status_code == 200, res.data
    assert res.data["points"][late]["level_points"] == 4 and res.data["points"][other]["level_points"] == 4
    # a start level sent by a client is ignored: the table's own applies
    res = api.put(f"{base}/result", {"version": 2, "deals": [{"order": [n1, e1, s1, w1]}], "start_levels": {late: 9}},
                  **side(api, eid, rnd, 1, 0))
    assert res.data["points"][late]["level_points"] == 4
    # 12 minutes late at table 2: forfeit (over 10)
    a2 = t2["sides"][0]["entry_id"]
    r = api.post(f"/events/{eid}/rounds/1/tables/2/arrival", {"entry_id": a2, "arrived_at": "2026-12-01T10:12:00"})
    assert r.data["effect"] == "forfeit" and r.data["table"]["status"] == "forfeit"
    assert r.data["table"]["forfeit"]["entry_id"] == a2 and r.data["table"]["forfeit"]["excused"] is False
    # on time: nothing happens
    r = api.post(f"{base}/arrival", {"entry_id": other, "arrived_at": "2026-12-01T09:58:00"})
    assert (r.data["late_minutes"], r.data["effect"]) == (0, "none")
    # not at this table
    assert api.post(f"{base}/arrival", {"entry_id": a2}).status_code == 400


def test_doudizhu_lateness_counts_from_round_two(local_api, clock):
    api = local_api
    tid, eid, ids = setup_event(api, doudizhu(), people(6))
    rnd = draw(api, eid)
    p = rnd["tables"][0]["sides"][0]["entry_id"]
    clock.advance(minutes=10)
    r = api.post(f"/events/{eid}/rounds/1/tables/1/arrival", {"entry_id": p, "arrived_at": "2026-12-01T10:08:00"})
    assert r.data["effect"] == "none"   # round 1 has no limit (seed 001)
    for t in rnd["tables"]:
        a, b, c = (s["entry_id"] for s in t["sides"])
        enter_and_confirm(api, eid, rnd, t, {"final": {"small_points": {a: 6, b: -3, c: -3}}})
    close(api, eid, 1)
    r2 = draw(api, eid, seed=2)
    p2 = r2["tables"][0]["sides"][1]["entry_id"]
    clock.advance(minutes=60)
    r = api.post(f"/events/{eid}/rounds/2/tables/1/arrival", {"entry_id": p2, "arrived_at": "2026-12-01T11:05:30"})
    assert (r.data["late_minutes"], r.data["effect"]) == (6, "forfeit")
    assert r.data["table"]["points"][p2]["table_points"] == 0


def test_disputes_hold_the_table_for_the_referee(local_api):
    api = local_api
    tid, eid, _ = setup_event(api, guandan(), people(4, 2, "队"))
    rnd = draw(api, eid)
    t1 = rnd["tables"][0]
    a, b = (s["entry_id"] for s in t1["sides"])
    base = f"/events/{eid}/rounds/1/tables/1"
    api.put(f"{base}/result", {"version": 0, "final": {"levels": {a: 10, b: 8}}}, **side(api, eid, rnd, 1, 0))
    d = api.post(f"{base}/dispute", {"reason": "最后一副记错了"}, **side(api, eid, rnd, 1, 1))
    assert d.status_code == 200 and d.data["status"] == "disputed"
    assert d.data["table"]["dispute"]["reason"] == "最后一副记错了"
    # nobody can confirm it, the other side cannot re-enter it, and it holds the round open
    c = api.post(f"{base}/confirm", **side(api, eid, rnd, 1, 1))
    assert (c.status_code, c.data["code"]) == (409, "disputed")
    again = api.put(f"{base}/result", {"version": 2, "final": {"levels": {a: 9, b: 8}}}, **side(api, eid, rnd, 1, 0))
    assert (again.status_code, again.data["code"]) == (409, "disputed")
    seen = api.get(f"/events/{eid}/rounds/1").data
    assert seen["disputes"] == [1] and seen["tables"][0]["status"] == "disputed"
    assert api.get(base, **side(api, eid, rnd, 1, 0)).data["table"]["status"] == "disputed"   # both phones see it
    closing = api.post(f"/events/{eid}/rounds/1/close")
    assert closing.status_code == 409 and closing.data["details"]["disputed"] == [1]
    # the organiser settles it by entering the result
    s = api.put(f"{base}/result", {"version": 2, "final": {"levels": {a: 10, b: 9}}, "reason": "裁判核对记分表"})
    assert s.status_code == 200 and s.data["status"] == "confirmed" and s.data["table"]["dispute"] is None
    assert any(x["action"] == "dispute_settled" for x in api.get(f"/events/{eid}/audit").data["audit"])


def test_correction_window_needs_an_override_after_it(local_api, clock):
    api = local_api
    tid, eid, _ = setup_event(api, guandan(), people(4, 2, "队"))
    rnd = draw(api, eid)
    for t in rnd["tables"]:
        a, b = (s["entry_id"] for s in t["sides"])
        enter_and_confirm(api, eid, rnd, t, {"final": {"levels": {a: 10, b: 8}}})
    close(api, eid, 1)
    t1 = rnd["tables"][0]
    a, b = (s["entry_id"] for s in t1["sides"])
    base = f"/events/{eid}/rounds/1/tables/1/result"
    clock.now = datetime(2026, 12, 1, 3, 15, tzinfo=UTC)   # 25 minutes after the 02:50 end: open
    ok = api.put(base, {"version": 2, "final": {"levels": {a: 11, b: 8}}, "reason": "双方同意更正"})
    assert ok.status_code == 200 and ok.data["status"] == "confirmed"
    clock.now = datetime(2026, 12, 1, 3, 21, tzinfo=UTC)   # 31 minutes after: closed
    late = api.put(base, {"version": 3, "final": {"levels": {a: 12, b: 8}}, "reason": "发现错误"})
    assert (late.status_code, late.data["code"]) == (422, "correction_window_closed")
    no_reason = api.put(base, {"version": 3, "final": {"levels": {a: 12, b: 8}}, "override": True})
    assert no_reason.status_code == 422
    over = api.put(base, {"version": 3, "final": {"levels": {a: 12, b: 8}}, "override": True, "reason": "裁判长决定"})
    assert over.status_code == 200 and over.data["points"][a]["level_points"] == 12
    actions = [x["action"] for x in api.get(f"/events/{eid}/audit").data["audit"]]
    assert "result_overridden" in actions and "result_corrected" in actions


def test_forfeits_unexcused_last_and_force_majeure_a_draw_for_the_absent_side(local_api):
    api = local_api
    tid, eid, ids = setup_event(api, guandan("match_points", rounds=2), people(4, 2, "队"))
    rnd = draw(api, eid)
    t1, t2 = rnd["tables"]
    a, b = (s["entry_id"] for s in t1["sides"])
    c, d = (s["entry_id"] for s in t2["sides"])
    # a forfeits unexcused, but then wins big in round 2: it still ranks last of the stage
    api.post(f"/events/{eid}/rounds/1/tables/1/forfeit", {"entry_id": a, "reason": "无故未到"})
    fm = api.post(f"/events/{eid}/rounds/1/tables/2/forfeit", {"entry_id": c, "force_majeure": True, "reason": "暴雨"})
    assert fm.status_code == 200
    # force majeure (seed 000 §36, rules.md §9): the absent side a draw (1 match point, 13 level difference
    # points), its opponent as against a forfeit (2 and 17, rules.md §1)
    assert fm.data["points"][c] == {"match_points": 1, "level_diff_points": 13}
    assert fm.data["points"][d] == {"match_points": 2, "level_diff_points": 17}
    close(api, eid, 1)
    r2 = draw(api, eid, seed=2)
    for t in r2["tables"]:
        x, y = (s["entry_id"] for s in t["sides"])
        win = x if a in (x, y) and x == a else y if a == y else x
        lose = y if win == x else x
        enter_and_confirm(api, eid, r2, t, {"final": {"levels": {win: 14, lose: 2}}})
    close(api, eid, 2)
    st = api.get(f"/events/{eid}/standings").data["standings"]
    assert st[-1]["entry_id"] == a and st[-1]["forfeited"] is True and st[-1]["rank"] == 4
    assert all(not r["forfeited"] for r in st[:-1])


def test_appeals_window_fee_and_decision(local_api, clock):
    api = local_api
    tid, eid, ids = setup_event(api, doudizhu(), people(6))
    rnd = draw(api, eid)
    t1 = rnd["tables"][0]
    p1, p2, p3 = (s["entry_id"] for s in t1["sides"])
    for t in rnd["tables"]:
        a, b, c = (s["entry_id"] for s in t["sides"])
        enter_and_confirm(api, eid, rnd, t, {"final": {"small_points": {a: 6, b: -3, c: -3}}})
    close(api, eid, 1)
    base = f"/events/{eid}/rounds/1/tables/1/appeals"
    # Dou Dizhu (seed 001): within 5 minutes after the round's scheduled end (02:50 UTC), fee 200 CNY
    clock.now = datetime(2026, 12, 1, 2, 54, tzinfo=UTC)
    lodged = api.post(base, {"entry_id": p2, "text": "对方出牌违规，应判庄家负"}, **side(api, eid, rnd, 1, 1))
    assert lodged.status_code == 201, lodged.data
    ap = lodged.data
    assert (ap["status"], ap["fee_status"], ap["fee"]) == ("lodged", "due", {"amount": 20000, "currency": "CNY"})
    assert ap["deadline"].startswith("2026-12-01T02:55:00")
    # a side appeals only in its own name
    assert api.post(base, {"entry_id": p1, "text": "x"}, **side(api, eid, rnd, 1, 1)).status_code == 403
    clock.now = datetime(2026, 12, 1, 2, 56, tzinfo=UTC)
    late = api.post(base, {"entry_id": p3, "text": "太晚了"}, **side(api, eid, rnd, 1, 2))
    assert (late.status_code, late.data["code"]) == (422, "appeal_window_closed")
    assert api.post(f"/appeals/{ap['id']}/fee", {"method": "cash"}).data["fee_status"] == "paid"
    assert api.post(f"/appeals/{ap['id']}/fee", {"method": "cash"}).status_code == 409
    decided = api.post(f"/appeals/{ap['id']}/decision", {
        "outcome": "upheld", "ruling": "庄家违规，改判",
        "result": {"final": {"small_points": {p1: -6, p2: 3, p3: 3}}}})
    assert decided.status_code == 200, decided.data
    assert (decided.data["outcome"], decided.data["fee_status"]) == ("upheld", "refunded")
    table = api.get(f"/events/{eid}/rounds/1").data["tables"][0]
    assert table["points"][p2]["table_points"] == 4 and table["points"][p1]["table_points"] == 1
    audit = api.get(f"/events/{eid}/audit").data["audit"]
    assert any(x["action"] in ("result_corrected", "result_overridden") and "申诉成立" in x["reason"] for x in audit)
    assert api.post(f"/appeals/{ap['id']}/decision", {"outcome": "rejected", "ruling": "x"}).status_code == 409
    listed = api.get(f"/events/{eid}/appeals").data["appeals"]
    assert [x["id"] for x in listed] == [ap["id"]] and listed[0]["name"]


def test_appeal_rejected_keeps_the_fee(local_api, clock):
    api = local_api
    tid, eid, ids = setup_event(api, doudizhu(), people(3))
    rnd = draw(api, eid)
    a, b, c = (s["entry_id"] for s in rnd["tables"][0]["sides"])
    ap = api.post(f"/events/{eid}/rounds/1/tables/1/appeals", {"entry_id": a, "text": "记分有误"}).data
    api.post(f"/appeals/{ap['id']}/fee", {"method": "transfer"})
    out = api.post(f"/appeals/{ap['id']}/decision", {"outcome": "rejected", "ruling": "维持原判"}).data
    assert (out["outcome"], out["fee_status"]) == ("rejected", "kept")


def test_prizes_shrink_below_twenty_entries(local_api):
    api = local_api
    prizes = [{"place_from": 1, "amount": 5000, "label": "一等奖"}, {"place_from": 2, "amount": 3000, "label": "二等奖"},
              {"place_from": 3, "amount": 2000, "label": "三等奖"}, {"place_from": 4, "place_to": 8, "amount": 1000, "label": "优胜奖"}]
    shrink = {"below_entries": 20, "prizes": prizes[:3]}
    cfg = {**doudizhu(prizes=prizes, prize_shrink=shrink)}
    cfg["stages"][0]["rounds"] = 1
    tid, eid, ids = setup_event(api, cfg, people(6))
    assert api.get(f"/events/{eid}/prizes").data == {**api.get(f"/events/{eid}/prizes").data, "final": False, "prizes": []}
    rnd = draw(api, eid)
    for t in rnd["tables"]:
        a, b, c = (s["entry_id"] for s in t["sides"])
        enter_and_confirm(api, eid, rnd, t, {"final": {"small_points": {a: 12, b: -4, c: -8}}})
    close(api, eid, 1)
    out = api.get(f"/events/{eid}/prizes").data
    assert out["final"] is True and out["shrunk"] is True and out["entries"] == 6
    assert [p["label"] for p in out["prizes"]] == ["一等奖", "二等奖", "三等奖"]   # 4th–8th dropped (seed 003)
    st = api.get(f"/events/{eid}/standings").data["standings"]
    assert [r["prize"] for r in st] == [5000, 3000, 2000, None, None, None]



def test_an_entry_withdrawn_after_the_draw_still_counts_for_the_prize_shrink(local_api):
    """rules.md §9 (003 "若单项报名人数不足20组"): the count is of entries registered, not only of those that played;
    only an entry withdrawn before the draw does not count. One withdrawing mid-event must not shrink the prizes."""
    api = local_api
    prizes = [{"place_from": 1, "amount": 500, "label": "一等奖"}, {"place_from": 2, "place_to": 4, "amount": 100,
                                                                   "label": "优胜奖"}]
    cfg = doudizhu(prizes=prizes, prize_shrink={"below_entries": 6, "prizes": prizes[:1]})
    cfg["stages"][0]["rounds"] = 2
    tid, eid, ids = setup_event(api, cfg, people(7))
    early = ids[6]
    assert api.post(f"/events/{eid}/entries/{early}/withdraw", {"reason": "未到"}).status_code == 200
    draw(api, eid)                                       # 6 drawn
    assert api.get(f"/events/{eid}/prizes").data["entries"] == 6
    late = next(e for e in ids[:6])
    assert api.post(f"/events/{eid}/entries/{late}/withdraw", {"reason": "家中有事"}).status_code == 200
    out = api.get(f"/events/{eid}/prizes").data
    assert out["entries"] == 6 and out["shrunk"] is False, out


def test_published_pages_show_schedule_prizes_and_appeals(local_api, clock):
    from chalicelib import bootstrap
    api = local_api
    prizes = [{"place_from": 1, "amount": 500, "label": "一等奖"}, {"place_from": 2, "amount": 300, "label": "二等奖"}]
    cfg = doudizhu(prizes=prizes)
    cfg["stages"][0]["rounds"] = 1
    tid, eid, ids = setup_event(api, cfg, people(3))
    rnd = draw(api, eid)
    a, b, c = (s["entry_id"] for s in rnd["tables"][0]["sides"])
    ap = api.post(f"/events/{eid}/rounds/1/tables/1/appeals", {"entry_id": b, "text": "电话 13900000000 请回电"}).data
    enter_and_confirm(api, eid, rnd, rnd["tables"][0], {"final": {"small_points": {a: 12, b: -4, c: -8}}})
    close(api, eid, 1)
    api.post(f"/appeals/{ap['id']}/fee", {"method": "cash"})
    api.post(f"/appeals/{ap['id']}/decision", {"outcome": "rejected", "ruling": "维持原判"})
    assert api.post(f"/tournaments/{tid}/publish").status_code == 200
    site = bootstrap.deps().publisher
    page = lambda key: site.files[key].decode() if isinstance(site.files[key], bytes) else site.files[key]  # noqa: E731
    round_page = page(f"t/{tid}/{eid}/round-1.html")
    assert "赛程 <span data-zone>12-01 10:00–10:50</span>" in round_page   # data-zone: live.js names the zone (issue 39)
    corrections = page(f"t/{tid}/{eid}/corrections.html")
    assert "申诉驳回" in corrections and "维持原判" in corrections and "13900000000" not in corrections
    day = page(f"t/{tid}/prizes.html")
    assert "一等奖" in day and "二等奖" in day and "二打一" in day
    assert "一等奖" in page(f"t/{tid}/{eid}/index.html")


def test_an_appeal_is_decided_only_once_its_fee_is_paid(local_api, clock):
    api = local_api
    tid, eid, ids = setup_event(api, doudizhu(), people(3))
    rnd = draw(api, eid)
    a = rnd["tables"][0]["sides"][0]["entry_id"]
    ap = api.post(f"/events/{eid}/rounds/1/tables/1/appeals", {"entry_id": a, "text": "记分有误"}).data
    early = api.post(f"/appeals/{ap['id']}/decision", {"outcome": "rejected", "ruling": "维持原判"})
    assert early.status_code == 409 and "申诉费" in early.data["message"]
    api.post(f"/appeals/{ap['id']}/fee", {"method": "cash"})
    assert api.post(f"/appeals/{ap['id']}/decision", {"outcome": "rejected", "ruling": "维持原判"}).status_code == 200
