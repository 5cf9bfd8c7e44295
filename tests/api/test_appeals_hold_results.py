"""Issue 39: an open appeal (待裁决) holds the final places and prizes up — marked provisional in the API, the
published pages and the console — and a dispute says what is wrong."""
from __future__ import annotations

from chalicelib import bootstrap
from tests.api.play import close, draw, enter_and_confirm, people, setup_event

DDZ = {"name": "二打一", "game": "doudizhu", "entry": "individual", "capacity": 15,
       "prizes": [{"place_from": 1, "amount": 500, "label": "一等奖"}, {"place_from": 2, "amount": 300, "label": "二等奖"}],
       "stages": [{"format": "swiss", "rounds": 1}]}


def _page(key):
    body = bootstrap.deps().publisher.files[key]
    return body.decode() if isinstance(body, bytes) else body


def test_prizes_and_final_standings_stay_provisional_while_an_appeal_is_open(api):
    tid, eid, ids = setup_event(api, DDZ, people(3))
    rnd = draw(api, eid)
    a, b, c = (s["entry_id"] for s in rnd["tables"][0]["sides"])
    ap = api.post(f"/events/{eid}/rounds/1/tables/1/appeals", {"entry_id": b, "text": "第三副记错"}).data
    enter_and_confirm(api, eid, rnd, rnd["tables"][0], {"final": {"small_points": {a: 12, b: -4, c: -8}}})
    close(api, eid, 1)
    standings = api.get(f"/events/{eid}/standings").data
    prizes = api.get(f"/events/{eid}/prizes").data
    assert standings["final"] and (standings["provisional"], standings["open_appeals"]) == (True, 1)
    assert prizes["final"] and (prizes["provisional"], prizes["open_appeals"]) == (True, 1)
    assert api.post(f"/tournaments/{tid}/publish").status_code == 200
    assert "最终排名（暂定）" in _page(f"t/{tid}/{eid}/standings.html")
    assert "有 1 项申诉待裁决" in _page(f"t/{tid}/{eid}/standings.html")
    assert "暂定：有 1 项申诉待裁决" in _page(f"t/{tid}/prizes.html")
    assert "provisional" in _page(f"en/t/{tid}/{eid}/standings.html").lower()
    # decided: final, and said so everywhere
    api.post(f"/appeals/{ap['id']}/fee", {"method": "cash"})
    assert api.post(f"/appeals/{ap['id']}/decision", {"outcome": "rejected", "ruling": "维持原判"}).status_code == 200
    assert api.get(f"/events/{eid}/standings").data["provisional"] is False
    assert api.get(f"/events/{eid}/prizes").data["provisional"] is False
    assert api.post(f"/tournaments/{tid}/publish").status_code == 200
    standings_page = _page(f"t/{tid}/{eid}/standings.html")
    assert "最终排名" in standings_page and "暂定" not in standings_page and "data-provisional" not in _page(f"t/{tid}/prizes.html")


def test_before_the_end_nothing_is_called_provisional(api):
    tid, eid, ids = setup_event(api, {**DDZ, "stages": [{"format": "swiss", "rounds": 2}]}, people(3))
    rnd = draw(api, eid)
    api.post(f"/events/{eid}/rounds/1/tables/1/appeals", {"entry_id": rnd["tables"][0]["sides"][0]["entry_id"], "text": "记错"})
    standings = api.get(f"/events/{eid}/standings").data
    assert (standings["final"], standings["provisional"]) == (False, False)


def test_a_dispute_says_what_is_wrong(api):
    tid, eid, ids = setup_event(api, {**DDZ, "prizes": []}, people(3))
    rnd = draw(api, eid)
    tb = rnd["tables"][0]
    a, b, c = (s["entry_id"] for s in tb["sides"])
    base = f"/events/{eid}/rounds/1/tables/1"
    assert api.put(f"{base}/result", {"version": 0, "final": {"small_points": {a: 12, b: -4, c: -8}}}, token=None,
                   headers={"X-Table-Code": tb["codes"][0]}).status_code == 200
    for empty in ({}, {"reason": ""}, {"reason": "   "}):
        r = api.post(f"{base}/dispute", empty, token=None, headers={"X-Table-Code": tb["codes"][1]})
        assert r.status_code in (400, 422) and r.data["code"] == "invalid_request", r.data
    ok = api.post(f"{base}/dispute", {"reason": "第二副炸弹没算"}, token=None, headers={"X-Table-Code": tb["codes"][1]})
    assert ok.status_code == 200 and ok.data["table"]["dispute"]["reason"] == "第二副炸弹没算"
