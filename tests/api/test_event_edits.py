"""Editing an event after creation (issue 23): what may no longer change answers a stable code with the reason;
registration closes when the first round is drawn unless late entries are on."""
from __future__ import annotations

import pytest

from tests.api.play import close, draw, enter_and_confirm, people, setup_event
from tests.factories import guandan_event


def test_capacity_below_places_taken_is_refused_with_its_own_code(api):
    tid, eid, _ = setup_event(api, guandan_event(capacity=4, fee={"amount": 0}), people(3, 2))
    r = api.patch(f"/events/{eid}", {"capacity": 2})
    assert (r.status_code, r.data["code"]) == (409, "capacity_below_taken")
    assert r.data["details"] == {"field": "capacity", "taken": 3, "asked": 2}
    assert "3" in r.data["message"]
    ok = api.patch(f"/events/{eid}", {"capacity": 3})
    assert ok.status_code == 200 and ok.data["config"]["capacity"] == 3


def test_game_and_entry_kind_change_until_the_first_entry(api):
    tid = api.post("/tournaments", {"name": "赛事", "starts_on": "2030-06-28"}).data["id"]
    eid = api.post(f"/tournaments/{tid}/events", guandan_event(fee={"amount": 0})).data["id"]
    # no entry yet: the organiser may still turn the pairs event into Tractor pairs (its stages follow)
    r = api.patch(f"/events/{eid}", {"game": "tractor", "stages": [{"format": "knockout"}]})
    assert r.status_code == 200, r.data
    assert r.data["config"]["game"] == "tractor" and r.data["config"]["stages"][0]["scoring"]["method"] == "level_table"
    assert api.post(f"/events/{eid}/entries", people(1, 2)[0], token=None).status_code == 201
    r = api.patch(f"/events/{eid}", {"game": "guandan", "stages": [{"format": "swiss", "rounds": 3}]})
    assert (r.status_code, r.data["code"]) == (409, "locked_once_entries")
    assert r.data["details"]["field"] == "game"
    r = api.patch(f"/events/{eid}", {"entry": {"kind": "team", "size": 4}})
    assert (r.status_code, r.data["code"]) == (400, "invalid_request")   # Tractor takes pairs: invalid before locked
    pairs = api.post(f"/tournaments/{tid}/events", guandan_event(fee={"amount": 0})).data["id"]
    assert api.post(f"/events/{pairs}/entries", people(1, 2)[0], token=None).status_code == 201
    r = api.patch(f"/events/{pairs}", {"entry": {"kind": "team", "size": 4},
                                       "stages": [{"format": "swiss", "rounds": 3, "scoring": {"method": "match_points"}}]})
    assert (r.status_code, r.data["code"], r.data["details"]["field"]) == (409, "locked_once_entries", "entry")
    # the same game sent again is no change: accepted with the other fields
    r = api.patch(f"/events/{eid}", {"game": "tractor", "name": "拖拉机双人赛"})
    assert r.status_code == 200 and r.data["config"]["name"] == "拖拉机双人赛"


def test_a_partner_seeker_counts_as_an_entry_for_the_lock(api):
    tid = api.post("/tournaments", {"name": "赛事", "starts_on": "2030-06-28"}).data["id"]
    eid = api.post(f"/tournaments/{tid}/events", guandan_event(fee={"amount": 0})).data["id"]
    seeker = {"name": "独行侠", "club": "河池商会", "partner_wanted": True,
              "members": [{"name": "独行侠", "phone": "13900001111"}]}
    assert api.post(f"/events/{eid}/entries", seeker, token=None).data["entry"]["status"] == "partner_wanted"
    r = api.patch(f"/events/{eid}", {"game": "tractor", "stages": [{"format": "knockout"}]})
    assert (r.status_code, r.data["code"]) == (409, "locked_once_entries")


def test_a_drawn_stage_keeps_format_and_scoring_but_prizes_and_later_stages_change(api):
    cfg = guandan_event(capacity=8, fee={"amount": 0})
    cfg["stages"] = [{"format": "swiss", "rounds": 3}, {"format": "knockout", "advance": {"total": 4}}]
    tid, eid, _ = setup_event(api, cfg, people(4, 2))
    draw(api, eid)
    assert api.get(f"/events/{eid}/rounds").data["finished"] is False
    stages = api.get(f"/events/{eid}").data["config"]["stages"]
    r = api.patch(f"/events/{eid}", {"stages": [{"format": "round_robin"}, stages[1]]})
    assert (r.status_code, r.data["code"]) == (409, "locked_once_drawn")
    assert r.data["details"]["field"] == "stages[0]"
    r = api.patch(f"/events/{eid}", {"stages": [{**stages[0], "scoring": {"method": "match_points"}}, stages[1]]})
    assert (r.status_code, r.data["code"]) == (409, "locked_once_drawn")
    later = {**stages[1], "advance": {"total": 2}}
    r = api.patch(f"/events/{eid}", {"stages": [stages[0], later], "prizes": [{"place_from": 1, "amount": 500}]})
    assert r.status_code == 200, r.data
    assert r.data["config"]["stages"][1]["advance"]["total"] == 2


@pytest.mark.parametrize("late", [False, True])
def test_registration_closes_when_the_first_round_is_drawn_unless_late_entries(api, late):
    cfg = guandan_event(capacity=20, fee={"amount": 0}, late_entries=late)
    tid, eid, _ = setup_event(api, cfg, people(4, 2))
    public = lambda: next(e for e in api.get(f"/public/tournaments/{tid}", token=None).data["events"] if e["id"] == eid)
    assert public()["registration_state"] == "open"
    newcomer = people(6, 2, prefix="新")[5]
    draw(api, eid)
    r = api.post(f"/events/{eid}/entries", newcomer, token=None)
    if late:
        assert r.status_code == 201, r.data
        assert public()["registration_state"] == "open"
    else:
        assert (r.status_code, r.data["code"]) == (422, "registration_closed")
        assert r.data["details"]["drawn"] is True
        assert public()["registration_state"] == "closed"


@pytest.mark.parametrize("backend", ["moto", "dynamodb_local"])
def test_with_late_entries_registration_closes_when_the_last_round_they_may_join_is_drawn(backend, request):
    """Issue 23: late entries keep registration open after the first draw only until the round set (Swiss: the
    second-last); the draw of that round closes it in its own write, so a registration written from a config
    cached before that draw is refused too."""
    api = request.getfixturevalue("api" if backend == "moto" else "local_api")
    cfg = guandan_event(capacity=20, fee={"amount": 0}, late_entries=True)   # 3 rounds: late entries until round 2
    tid, eid, _ = setup_event(api, cfg, people(4, 2))
    public = lambda: next(e for e in api.get(f"/public/tournaments/{tid}", token=None).data["events"] if e["id"] == eid)
    newcomers = people(8, 2, prefix="迟")
    r1 = draw(api, eid)
    assert api.post(f"/events/{eid}/entries", newcomers[4], token=None).status_code == 201   # cached config now
    assert public()["registration_state"] == "open"
    for tb in r1["tables"]:
        a, b = (side["entry_id"] for side in tb["sides"])
        enter_and_confirm(api, eid, r1, tb, {"final": {"levels": {a: 14, b: 8}}})
    close(api, eid, 1)
    draw(api, eid, seed=2)
    r = api.post(f"/events/{eid}/entries", newcomers[5], token=None)
    assert (r.status_code, r.data["code"]) == (422, "registration_closed"), r.data
    assert public()["registration_state"] == "closed"
    assert api.get(f"/events/{eid}").data["counters"]["late_closed"] is True


def test_a_registration_cached_before_the_draw_is_refused_after_it(api):
    """The registration path writes from a cached config without reading: the draw's mark on the counters makes
    that write fail, and the answer is registration_closed, not a retry loop."""
    tid, eid, _ = setup_event(api, guandan_event(capacity=20, fee={"amount": 0}), people(4, 2))
    assert api.post(f"/events/{eid}/entries", people(5, 2, prefix="早")[4], token=None).status_code == 201  # cached now
    draw(api, eid)
    r = api.post(f"/events/{eid}/entries", people(6, 2, prefix="晚")[5], token=None)
    assert (r.status_code, r.data["code"]) == (422, "registration_closed")


def test_the_day_form_refuses_an_event_already_drawn(api):
    tid, eid, _ = setup_event(api, guandan_event(capacity=20, fee={"amount": 0}), people(4, 2))
    draw(api, eid)
    item = {"event_id": eid, **people(7, 2, prefix="日")[6]}
    contact = {"name": "日联系人", "phone": "13911112222"}
    r = api.post(f"/tournaments/{tid}/registrations", {"contact": contact, "items": [item]}, token=None)
    assert (r.status_code, r.data["code"]) == (422, "registration_closed")


def test_on_dynamodb_local_the_draw_closes_registration_in_its_own_write(local_api):
    """The draw's mark on the counters and the registration's condition on it, on the real store."""
    api = local_api
    tid, eid, _ = setup_event(api, guandan_event(capacity=20, fee={"amount": 0}), people(4, 2))
    assert api.post(f"/events/{eid}/entries", people(5, 2, prefix="早")[4], token=None).status_code == 201
    draw(api, eid)
    r = api.post(f"/events/{eid}/entries", people(6, 2, prefix="晚")[5], token=None)
    assert (r.status_code, r.data["code"]) == (422, "registration_closed")
    assert api.patch(f"/events/{eid}", {"capacity": 3}).data["code"] == "capacity_below_taken"
    assert api.patch(f"/events/{eid}", {"late_entries": True}).status_code == 200
    assert api.post(f"/events/{eid}/entries", people(6, 2, prefix="晚")[5], token=None).status_code == 201


def _paid_pair(api, eid, i=0):
    body = people(i + 1, 2, prefix="付")[i]
    r = api.post(f"/events/{eid}/entries", body, token=None)
    assert r.status_code == 201, r.data
    entry = r.data["entry"]
    assert api.post(f"/events/{eid}/entries/{entry['id']}/payments", {"method": "cash", "amount": entry["amount_due"]}).status_code == 201
    return entry["id"]


def test_a_withdrawal_owes_the_rules_refund_until_the_desk_pays_it_in_cash(api):
    tid = api.post("/tournaments", {"name": "退款赛事", "starts_on": "2030-06-28"}).data["id"]
    cfg = guandan_event(fee={"amount": 2000, "per": "person"}, registration={"closes_at": "2030-06-27T15:00:00+08:00"})
    eid = api.post(f"/tournaments/{tid}/events", cfg).data["id"]
    entry = _paid_pair(api, eid)
    r = api.post(f"/events/{eid}/entries/{entry}/withdraw", {"reason": "家中有事"})
    assert r.status_code == 200, r.data
    assert (r.data["status"], r.data["payment_state"], r.data["refund_owed"]) == ("withdrawn", "refund_due", 4000)
    listed = next(e for e in api.get(f"/events/{eid}/entries").data["entries"] if e["id"] == entry)
    assert listed["refund_owed"] == 4000 and "家中有事" in listed["notices"]
    export = api.get(f"/events/{eid}/entries/export?format=csv")
    import csv
    import io
    head, row = list(csv.reader(io.StringIO(export.body.decode("utf-8-sig"))))
    assert row[head.index("应退 owed back")] == "40.0"
    wrong = api.post(f"/events/{eid}/entries/{entry}/refund", {"method": "cash", "amount": 3000})
    assert (wrong.status_code, wrong.data["details"]["owed"]) == (400, 4000)
    paid = api.post(f"/events/{eid}/entries/{entry}/refund", {"method": "cash", "amount": 4000})
    assert paid.status_code == 200, paid.data
    assert (paid.data["payment_state"], paid.data["refund_owed"], paid.data["amount_refunded"], paid.data["amount_paid"]) == \
        ("refunded", 0, 4000, 0)
    again = api.post(f"/events/{eid}/entries/{entry}/refund", {"method": "cash", "amount": 4000})
    assert again.status_code == 200 and again.data["amount_refunded"] == 4000      # a retry counts nothing twice


def test_the_director_changes_the_refund_with_a_reason(api):
    tid = api.post("/tournaments", {"name": "退款赛事", "starts_on": "2030-06-28"}).data["id"]
    eid = api.post(f"/tournaments/{tid}/events", guandan_event(fee={"amount": 2000})).data["id"]
    a, b = _paid_pair(api, eid, 0), _paid_pair(api, eid, 1)
    r = api.post(f"/events/{eid}/entries/{a}/withdraw", {"reason": "迟到", "refund_amount": 2000})
    assert (r.status_code, r.data["details"]["field"]) == (400, "refund_reason")
    r = api.post(f"/events/{eid}/entries/{a}/withdraw", {"reason": "迟到", "refund_amount": 5000, "refund_reason": "多退"})
    assert (r.status_code, r.data["details"]["field"]) == (400, "refund_amount")
    r = api.post(f"/events/{eid}/entries/{a}/withdraw", {"reason": "迟到", "refund_amount": 2000, "refund_reason": "扣一半场地费"})
    assert r.status_code == 200 and r.data["refund_owed"] == 2000
    assert any("扣一半场地费" in n for n in r.data["notices"])
    r = api.post(f"/events/{eid}/entries/{b}/withdraw", {"reason": "不退", "refund_amount": 0, "refund_reason": "开赛后退赛"})
    assert r.status_code == 200 and (r.data["refund_owed"], r.data["payment_state"]) == (0, "paid")
    assert api.post(f"/events/{eid}/entries/{b}/refund", {"method": "cash", "amount": 1}).data["code"] == "conflict"
