"""The desk's undo (issue 39): a check-in and a cash payment taken back, with their role check and audit; a round
that cannot close names its open tables."""
from __future__ import annotations

from tests.api.play import draw, enter_and_confirm, people, setup_event

PAIRS = {"name": "掼蛋双人", "game": "guandan", "entry": "pair", "capacity": 40, "fee": {"amount": 3000, "per": "entry"},
         "stages": [{"format": "swiss", "rounds": 3, "scoring": {"method": "level_points"}}]}
BODY = {"name": "误点队", "members": [{"name": "误甲", "phone": "13922220001"}, {"name": "误乙"}]}


def _staff(api, tid):
    return {role: api.post(f"/tournaments/{tid}/staff", {"name": role, "role": role}).data["token"]
            for role in ("desk", "scorer")}


def test_cash_and_check_in_are_undone_by_the_desk_before_the_draw(api):
    tid, eid, ids = setup_event(api, PAIRS, people(4, 2, "队"))
    staff = _staff(api, tid)
    entry = api.post(f"/events/{eid}/entries", BODY, token=None).data["entry"]
    paid = api.post(f"/events/{eid}/entries/{entry['id']}/payments", {"method": "cash", "amount": 3000}, token=staff["desk"]).data
    assert paid["status"] == "confirmed"
    checked = api.post(f"/events/{eid}/entries/{entry['id']}/check-in", token=staff["desk"]).data
    assert checked["checked_in"] is True
    # the cash cannot go back while the entry is checked in: the check-in first
    early = api.delete(f"/events/{eid}/entries/{entry['id']}/payments/{paid['payment_id']}", token=staff["desk"])
    assert (early.status_code, early.data["details"]["reason"]) == (409, "checked_in")
    assert api.delete(f"/events/{eid}/entries/{entry['id']}/check-in", token=staff["scorer"]).status_code == 403
    undone = api.delete(f"/events/{eid}/entries/{entry['id']}/check-in", token=staff["desk"])
    assert undone.status_code == 200 and undone.data["checked_in"] is False
    counters = api.get(f"/events/{eid}/entries").data["counters"]
    assert api.delete(f"/events/{eid}/entries/{entry['id']}/payments/{paid['payment_id']}", token=staff["scorer"]).status_code == 403
    voided = api.delete(f"/events/{eid}/entries/{entry['id']}/payments/{paid['payment_id']}", token=staff["desk"])
    assert voided.status_code == 200, voided.data
    assert (voided.data["status"], voided.data["amount_paid"], voided.data["payment_state"]) == ("pending_payment", 0, "unpaid")
    after = api.get(f"/events/{eid}/entries").data["counters"]
    assert (after["confirmed"], after["taken"]) == (counters["confirmed"] - 1, counters["taken"])   # the place is kept
    # a retry answers as it is; paying again works as before
    again = api.delete(f"/events/{eid}/entries/{entry['id']}/payments/{paid['payment_id']}", token=staff["desk"])
    assert again.status_code == 200 and again.data["amount_paid"] == 0
    assert api.post(f"/events/{eid}/entries/{entry['id']}/payments", {"method": "cash", "amount": 3000}).data["status"] == "confirmed"
    audit = [a["action"] for a in api.get(f"/events/{eid}/audit").data["audit"]]
    assert audit.count("check_in_undone") == 1 and audit.count("payment_voided") == 1


def test_an_entry_a_draw_has_taken_keeps_its_check_in(api):
    tid, eid, ids = setup_event(api, {**PAIRS, "fee": {"amount": 0}}, people(4, 2, "队"))
    draw(api, eid)
    refused = api.delete(f"/events/{eid}/entries/{ids[0]}/check-in")
    assert (refused.status_code, refused.data["details"]["reason"]) == (409, "drawn"), refused.data


def test_only_the_latest_desk_payment_of_that_entry_is_undone(api):
    tid, eid, ids = setup_event(api, PAIRS, people(2, 2, "队"))
    entry = api.post(f"/events/{eid}/entries", BODY, token=None).data["entry"]
    first = api.post(f"/events/{eid}/entries/{entry['id']}/payments", {"method": "cash", "amount": 1000}).data
    second = api.post(f"/events/{eid}/entries/{entry['id']}/payments", {"method": "transfer", "amount": 2000}).data
    old = api.delete(f"/events/{eid}/entries/{entry['id']}/payments/{first['payment_id']}")
    assert (old.status_code, old.data["details"]["reason"]) == (409, "not_latest_desk_payment")
    other = api.delete(f"/events/{eid}/entries/{ids[0]}/payments/{second['payment_id']}")
    assert other.status_code == 404
    back = api.delete(f"/events/{eid}/entries/{entry['id']}/payments/{second['payment_id']}").data
    assert (back["amount_paid"], back["status"]) == (1000, "pending_payment")


def test_a_round_that_cannot_close_names_its_open_tables(api):
    tid, eid, ids = setup_event(api, {**PAIRS, "fee": {"amount": 0}}, people(6, 2, "队"))
    rnd = draw(api, eid)
    t1 = rnd["tables"][0]
    a, b = (s["entry_id"] for s in t1["sides"])
    enter_and_confirm(api, eid, rnd, t1, {"final": {"levels": {a: 10, b: 8}}})
    r = api.post(f"/events/{eid}/rounds/1/close")
    assert (r.status_code, r.data["code"]) == (409, "round_not_complete"), r.data
    open_tables = r.data["details"]["open_tables"]
    assert [t["number"] for t in open_tables] == [2, 3]
    assert all(t["status"] == "pending" and len(t["sides"]) == 2 and all(t["sides"]) for t in open_tables)
    names = {s["name"] for t in rnd["tables"][1:] for s in t["sides"]}
    assert {n for t in open_tables for n in t["sides"]} == names
