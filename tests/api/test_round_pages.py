"""GET …/rounds/{n} answers a page of a big round's tables (issue 43: every table of a 100,000-entry round was
39 MB of JSON, over the 6 MB a Lambda function may answer): ?from= (a table number) and ?limit=, `tables_total`
when the page is not the whole round. The page size is patched small here rather than drawing 5,000 tables."""
from __future__ import annotations

import pytest

from chalicelib.services import rounds as svc
from tests.api.play import draw, people, setup_event


def _pairs(capacity: int) -> dict:
    return {"name": "掼蛋", "game": "guandan", "entry": "pair", "capacity": capacity, "fee": {"amount": 0},
            "stages": [{"format": "swiss", "rounds": 3, "scoring": {"method": "match_points"}}]}


@pytest.fixture()
def seven_tables(api):
    _, eid, _ = setup_event(api, _pairs(20), people(15, 2, "队"))   # 15 pairs: 7 tables and a bye
    n = draw(api, eid)["number"]
    whole = api.get(f"/events/{eid}/rounds/{n}").data   # before the page is made small: every table
    return eid, n, whole


def test_a_round_within_the_page_is_answered_whole_as_before(api, seven_tables):
    eid, n, whole = seven_tables
    assert [t["number"] for t in whole["tables"]] == [1, 2, 3, 4, 5, 6, 7] and whole["tables_total"] is None
    assert len(whole["byes"]) == 1 and whole["bye_names"][whole["byes"][0]]
    # asked for from 1 with room for every table: the same answer, no tables_total
    assert api.get(f"/events/{eid}/rounds/{n}?from=1&limit=7").data == whole


def test_a_round_past_the_page_answers_a_page_by_table_number_and_the_count(api, seven_tables, monkeypatch):
    eid, n, whole = seven_tables
    monkeypatch.setattr(svc, "ROUND_PAGE_TABLES", 3)
    first = api.get(f"/events/{eid}/rounds/{n}")
    assert first.status_code == 200, first.data
    assert [t["number"] for t in first.data["tables"]] == [1, 2, 3] and first.data["tables_total"] == 7
    assert first.data["tables"] == whole["tables"][:3]   # rows as in the whole answer: names, codes, reasons
    assert first.data["byes"] == whole["byes"] and first.data["bye_reasons_zh"] == whole["bye_reasons_zh"]
    middle = api.get(f"/events/{eid}/rounds/{n}?from=4&limit=2").data
    assert [t["number"] for t in middle["tables"]] == [4, 5] and middle["tables_total"] == 7
    last = api.get(f"/events/{eid}/rounds/{n}?from=7").data
    assert last["tables"] == whole["tables"][6:] and last["tables_total"] == 7
    past = api.get(f"/events/{eid}/rounds/{n}?from=8").data
    assert past["tables"] == [] and past["tables_total"] == 7
    # a dispute at table 5 is the round's: said on every page, not only on the one that shows table 5
    t5 = whole["tables"][4]
    a, b = (x["entry_id"] for x in t5["sides"])
    base = f"/events/{eid}/rounds/{n}/tables/5"
    assert api.put(f"{base}/result", {"version": 0, "final": {"levels": {a: 5, b: 2}}}, token=None,
                   headers={"X-Table-Code": t5["codes"][0]}).status_code == 200
    assert api.post(f"{base}/dispute", {"reason": "少记一级"}, token=None,
                    headers={"X-Table-Code": t5["codes"][1]}).status_code == 200
    assert api.get(f"/events/{eid}/rounds/{n}").data["disputes"] == [5]


def test_bad_from_or_limit_is_a_400_naming_it(api, seven_tables):
    eid, n, _ = seven_tables
    for query, param in [("from=0", "from"), ("from=-1", "from"), ("from=x", "from"), ("from=99999999", "from"),
                         ("limit=0", "limit"), ("limit=5001", "limit"), ("limit=2.5", "limit"), ("limit=", "limit"),
                         ("limit=%C2%B2", "limit")]:
        r = api.get(f"/events/{eid}/rounds/{n}?{query}")
        assert r.status_code == 400, (query, r.data)
        assert r.data["code"] == "invalid_request" and r.data["details"]["param"] == param, (query, r.data)


def test_closing_a_big_round_names_some_open_tables_and_answers_its_first_page(api, monkeypatch):
    _, eid, _ = setup_event(api, _pairs(20), people(8, 2, "合"))   # 4 tables
    rnd = draw(api, eid)
    first = rnd["tables"][0]
    api.post(f"/events/{eid}/rounds/{rnd['number']}/tables/1/forfeit",
             {"entry_id": first["sides"][1]["entry_id"], "reason": "未到场"})
    monkeypatch.setattr(svc, "ROUND_PAGE_TABLES", 3)
    monkeypatch.setattr(svc, "OPEN_TABLES_NAMED", 1)
    blocked = api.post(f"/events/{eid}/rounds/{rnd['number']}/close")   # tables 2–4 still open: named 1, counted 3
    assert blocked.status_code == 409 and blocked.data["details"]["tables"] == [2, 3, 4], blocked.data
    assert [t["number"] for t in blocked.data["details"]["open_tables"]] == [2]
    assert "2 …" in blocked.data["message"] and "3" not in blocked.data["message"].split("·")[0]
    for table in rnd["tables"][1:]:
        api.post(f"/events/{eid}/rounds/{rnd['number']}/tables/{table['number']}/forfeit",
                 {"entry_id": table["sides"][1]["entry_id"], "reason": "未到场"})
    closed = api.post(f"/events/{eid}/rounds/{rnd['number']}/close")
    assert closed.status_code == 200, closed.data
    assert closed.data["status"] == "closed" and [t["number"] for t in closed.data["tables"]] == [1, 2, 3]
    assert closed.data["tables_total"] == 4 and all(t["status"] == "forfeit" for t in closed.data["tables"])
    again = api.post(f"/events/{eid}/rounds/{rnd['number']}/close").data   # closed already: the same answer
    assert len(again["tables"]) == 3 and again["tables_total"] == 4


def test_a_pairing_edit_of_a_big_round_answers_its_first_page(api, seven_tables, monkeypatch):
    """The edit's answer was every table with its codes (39 MB at 100,000 entries: the edit committed, its answer a
    5xx on AWS); the console reads only its warnings."""
    eid, n, whole = seven_tables
    monkeypatch.setattr(svc, "ROUND_PAGE_TABLES", 3)
    a, b = whole["tables"][0]["sides"][1]["entry_id"], whole["tables"][5]["sides"][1]["entry_id"]
    for dry in (True, False):
        r = api.patch(f"/events/{eid}/rounds/{n}", {"swap": [[a, b]], "dry_run": dry, "reason": "场地调整"})
        assert r.status_code == 200, r.data
        assert [t["number"] for t in r.data["tables"]] == [1, 2, 3] and r.data["tables_total"] == 7
        assert b in [s["entry_id"] for s in r.data["tables"][0]["sides"]] and r.data["tables"][0]["codes"]
        assert isinstance(r.data["warnings"], list)
    table6 = api.get(f"/events/{eid}/rounds/{n}?from=6&limit=1").data["tables"][0]
    assert a in [s["entry_id"] for s in table6["sides"]]   # the edit saved: the whole round, not only the page
