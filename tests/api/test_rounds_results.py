"""Round lifecycle, result rules, audit, concurrency, cards, publishing and privacy."""
from __future__ import annotations

import re
import threading

from chalice.test import Client

from chalicelib import bootstrap
from tests.api.play import close, draw, enter_and_confirm, people, setup_event
from tests.factories import Api


def guandan(rounds=3, method="level_points"):
    return {"name": "掼蛋", "game": "guandan", "entry": "pair", "capacity": 40, "fee": {"amount": 0},
            "stages": [{"format": "swiss", "rounds": rounds, "scoring": {"method": method}}]}


def levels(table, la=10, lb=8):
    a, b = (s["entry_id"] for s in table["sides"])
    return {"final": {"levels": {a: la, b: lb}}}


def test_round_lifecycle_and_result_rules(api):
    tid, eid, ids = setup_event(api, guandan(), people(4, 2, "队"))
    rnd = draw(api, eid)
    assert rnd["status"] == "open" and rnd["seed"] == 1 and all(t["reason"] for t in rnd["tables"])
    assert api.post(f"/events/{eid}/rounds", {"seed": 2}).data["code"] == "round_open"
    n = rnd["number"]
    t1, t2 = rnd["tables"]
    base = f"/events/{eid}/rounds/{n}/tables/1"
    assert api.put(f"{base}/result", {"version": 0, **levels(t1)}, token=None).status_code == 401
    assert api.put(f"{base}/result", {"version": 0, **levels(t1)}, token=None, headers={"X-Table-Code": "WRONG1"}).status_code == 403
    assert api.put(f"{base}/result", {"version": 0, **levels(t1)}, token=None, headers={"X-Table-Code": t2["codes"][0]}).status_code == 403
    bad = api.put(f"{base}/result", {"version": 0, "deals": [{"order": ["N", "N", "E", "W"]}]}, token=None,
                  headers={"X-Table-Code": t1["codes"][0]})
    assert (bad.status_code, bad.data["code"]) == (422, "invalid_result") and "exactly once" in bad.data["message"]
    ok = api.put(f"{base}/result", {"version": 0, **levels(t1)}, token=None, headers={"X-Table-Code": t1["codes"][0]})
    assert ok.status_code == 200 and ok.data["status"] == "entered" and ok.data["version"] == 1
    stale = api.put(f"{base}/result", {"version": 0, **levels(t1, 9, 9)}, token=None, headers={"X-Table-Code": t1["codes"][1]})
    assert (stale.status_code, stale.data["code"]) == (409, "version_conflict")
    same_side = api.post(f"{base}/confirm", token=None, headers={"X-Table-Code": t1["codes"][0]})
    assert same_side.status_code == 403
    closing = api.post(f"/events/{eid}/rounds/{n}/close")
    assert closing.status_code == 409 and closing.data["details"]["tables"] == [1, 2]
    assert api.post(f"{base}/confirm", token=None, headers={"X-Table-Code": t1["codes"][1]}).data["status"] == "confirmed"
    assert api.post(f"{base}/confirm", token=None, headers={"X-Table-Code": t1["codes"][1]}).data["code"] == "already_confirmed"
    after = api.put(f"{base}/result", {"version": 2, **levels(t1, 3, 3)}, token=None, headers={"X-Table-Code": t1["codes"][0]})
    assert (after.status_code, after.data["code"]) == (409, "already_confirmed")
    # the organiser corrects a confirmed result, with a reason; it stays confirmed
    no_reason = api.put(f"{base}/result", {"version": 2, **levels(t1, 11, 8)})
    assert no_reason.status_code == 400
    fix = api.put(f"{base}/result", {"version": 2, **levels(t1, 11, 8), "reason": "记分错误 score sheet misread"})
    assert fix.status_code == 200 and fix.data["status"] == "confirmed"
    fo = api.post(f"/events/{eid}/rounds/{n}/tables/2/forfeit", {"entry_id": t2["sides"][1]["entry_id"], "reason": "迟到"})
    assert fo.status_code == 200 and fo.data["points"][t2["sides"][0]["entry_id"]]["level_points"] == 15
    close(api, eid, n)
    audit = api.get(f"/events/{eid}/audit").data["audit"]
    actions = [a["action"] for a in audit]
    for want in ("round_drawn", "result_entered", "rejected_stale_version", "result_confirmed", "result_corrected",
                 "forfeit_recorded", "round_closed"):
        assert want in actions, want
    corrected = next(a for a in audit if a["action"] == "result_corrected")
    assert corrected["before"]["points"] != corrected["after"]["points"] and corrected["reason"].startswith("记分错误")
    assert corrected["who"].startswith("organiser:")


def test_two_clients_submit_the_same_table_at_once(local_api):
    api = local_api
    tid, eid, ids = setup_event(api, guandan(), people(4, 2, "队"))
    rnd = draw(api, eid)
    t1 = rnd["tables"][0]
    from app import app
    statuses = []

    def submit(code, la):
        with Client(app) as c:
            r = Api(c).put(f"/events/{eid}/rounds/1/tables/1/result", {"version": 0, **levels(t1, la, 8)}, token=None,
                           headers={"X-Table-Code": code})
            statuses.append(r.status_code)

    barrier = threading.Barrier(2)

    def go(code, la):
        barrier.wait()
        submit(code, la)

    # N and S each on their own phone with the side's code (N–S enter, rules.md §8)
    threads = [threading.Thread(target=go, args=(t1["codes"][0], 10)), threading.Thread(target=go, args=(t1["codes"][0], 12))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(statuses) == [200, 409]
    audit = [a for a in api.get(f"/events/{eid}/audit").data["audit"] if a.get("table") == 1]
    assert {a["action"] for a in audit} == {"result_entered", "rejected_stale_version"}
    assert [a["who"] for a in audit] == ["table 1 side 1", "table 1 side 1"]


def test_correction_after_next_round_offers_redraw(api):
    tid, eid, ids = setup_event(api, guandan(rounds=2), people(4, 2, "队"))
    r1 = draw(api, eid)
    for t in r1["tables"]:
        enter_and_confirm(api, eid, r1, t, levels(t))
    close(api, eid, 1)
    r2 = draw(api, eid, seed=5)
    t = r1["tables"][0]
    fix = api.put(f"/events/{eid}/rounds/1/tables/1/result", {"version": 2, **levels(t, 8, 10), "reason": "更正"})
    assert fix.data["redraw_offered"] is True
    again = api.post(f"/events/{eid}/rounds/2/redraw")
    assert again.status_code == 200 and again.data["number"] == 2 and again.data["seed"] == r2["seed"]
    enter_and_confirm(api, eid, again.data, again.data["tables"][0], levels(again.data["tables"][0]))
    assert api.post(f"/events/{eid}/rounds/2/redraw").status_code == 409  # started: no redraw


def test_table_view_cards_and_score_sheet(api):
    tid, eid, ids = setup_event(api, {"name": "二打一", "game": "doudizhu", "entry": "individual", "capacity": 15,
                                      "fee": {"amount": 0}, "stages": [{"format": "swiss", "rounds": 5}]}, people(6))
    rnd = draw(api, eid)
    t = rnd["tables"][0]
    view = api.get(f"/events/{eid}/rounds/1/tables/1", token=None, headers={"X-Table-Code": t["codes"][2]})
    assert view.status_code == 200 and view.data["side"] == 2 and view.data["game"] == "doudizhu"
    assert [s["seats"] for s in view.data["table"]["sides"]] == [["W"], ["S"], ["E"]]
    assert "codes" not in view.data["table"] or view.data["table"]["codes"] is None
    cards = api.get(f"/events/{eid}/rounds/1/cards")
    html = cards.body.decode()
    assert cards.status_code == 200 and html.count("<svg") == 6 + len(rnd["tables"]) and t["codes"][0] in html and "score.html?e=" in html
    assert html.count(f"/t/{tid}/find.html") == len(rnd["tables"])   # issue 28: find my table from every card
    sheet = api.get(f"/events/{eid}/score-sheet", token=None)
    assert sheet.status_code == 200 and "斗地主记分表" in sheet.body.decode()


def test_publish_writes_pages_without_personal_data(api, moto_repos):
    from chalicelib.services.publishing import publish_tournament
    tid, eid, ids = setup_event(api, guandan(), people(6, 2, "队") + [
        {"name": "邮箱队", "club": "x", "members": [{"name": "甲", "phone": "+85291234567"}, {"name": "乙"}],
         "note": "email me at someone@example.com"}])
    r1 = draw(api, eid)
    for t in r1["tables"]:
        enter_and_confirm(api, eid, r1, t, levels(t))
    stats = publish_tournament(bootstrap.deps(), tid)
    files = bootstrap.deps().publisher.files
    assert f"t/{tid}/index.html" in files and f"en/t/{tid}/{eid}/standings.html" in files
    assert f"t/{tid}/{eid}/round-1.html" in files and f"t/{tid}/{eid}/feed.json" in files
    state = (".manifest.json", "/.manifest/", ".places.json")   # the publisher's own files beside the pages
    pages = [k for k in files if not any(x in k for x in state) and not k.startswith("live/")]   # live/: the phones'
    assert stats["files"] == len(pages)  # every page once                                        # (issue 43)
    entries = api.get(f"/events/{eid}/entries").data["entries"]
    phones = {m["phone"] for e in entries for m in e["members"] if m.get("phone")}
    assert phones
    for key, body in files.items():
        if key.endswith(".png"):   # the posters: a QR code of the registration page's address, no personal data
            continue
        text = body.decode()
        for p in phones:
            assert p not in text, (key, p)
        assert not re.search(r"[\w.+-]+@[\w-]+\.[\w.]+", text), key
    assert "排名" in files[f"t/{tid}/{eid}/standings.html"].decode()
    assert "Standings" in files[f"en/t/{tid}/{eid}/standings.html"].decode()
    vi = files[f"vi/t/{tid}/{eid}/standings.html"].decode()   # issue 22: the public pages in Vietnamese too
    assert '<html lang="vi">' in vi and "Bảng xếp hạng" in vi and "排名" not in vi and "Standings" not in vi
    assert f'href="/t/{tid}/{eid}/standings.html" lang="zh-CN"' in vi and f"vi/t/{tid}/{eid}/feed.json" in files


def test_s3_sink_sets_cache_headers(moto_repos):
    import boto3

    from chalicelib.publish.sinks import S3Sink
    s3 = boto3.client("s3", region_name="ap-east-1")
    s3.create_bucket(Bucket="site", CreateBucketConfiguration={"LocationConstraint": "ap-east-1"})
    sink = S3Sink("site")
    sink.write("t/x/feed.json", b"{}")
    sink.write("t/x/index.html", "<p>你好</p>".encode())
    feed = s3.get_object(Bucket="site", Key="t/x/feed.json")
    page = s3.get_object(Bucket="site", Key="t/x/index.html")
    assert feed["CacheControl"].startswith("no-cache") and feed["ContentType"].startswith("application/json")
    assert page["CacheControl"] == "public, max-age=30" and page["Body"].read().decode() == "<p>你好</p>"


def test_demo_published_files_never_show_demo_phones(moto_repos):
    from chalicelib.services.publishing import publish_tournament
    from scripts.demo import load
    demo = load()
    publish_tournament(bootstrap.deps(), demo["tournament_id"])
    files = bootstrap.deps().publisher.files
    phones = {m.phone for eid in demo["event_ids"] for e in moto_repos.entries.list(eid) for m in e.members if m.phone}
    assert len(phones) > 20 and files
    for key, body in files.items():
        if key.endswith(".png"):   # the posters: a QR code of the registration page's address, no personal data
            continue
        text = body.decode()
        assert not any(p in text for p in phones), key
        assert not re.search(r"[\w.+-]+@[\w-]+\.[\w.]+", text), key
