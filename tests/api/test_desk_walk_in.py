"""The desk's walk-in (api.md v1.3, issue 39): after the deadline, after the first draw with late entries, paid at once."""
from __future__ import annotations

from datetime import datetime, UTC

from tests.api.play import draw, people, setup_event
from tests.factories import guandan_event

SWISS = {"name": "掼蛋双人", "game": "guandan", "entry": "pair", "capacity": 40, "fee": {"amount": 5000, "per": "entry"},
         "registration": {"opens_at": "2026-11-01T00:00:00Z", "closes_at": "2026-12-11T12:00:00Z"},
         "stages": [{"format": "swiss", "rounds": 4, "scoring": {"method": "level_points"}}]}
WALK_IN = {"name": "现场队", "club": "临时商会", "members": [{"name": "现场甲", "phone": "13911112222"}, {"name": "现场乙"}]}


def _after_deadline(clock):
    clock.now = datetime(2026, 12, 12, 8, 0, tzinfo=UTC)


def test_a_walk_in_after_the_deadline_is_registered_and_paid_at_once(api, clock):
    tid = api.post("/tournaments", {"name": "周末赛", "timezone": "Asia/Shanghai", "currency": "CNY",
                                    "starts_on": "2026-12-12"}).data["id"]
    eid = api.post(f"/tournaments/{tid}/events", SWISS).data["id"]
    _after_deadline(clock)
    public = api.post(f"/events/{eid}/entries", WALK_IN, token=None)
    assert (public.status_code, public.data["code"]) == (422, "registration_closed")
    r = api.post(f"/events/{eid}/entries/desk", {**WALK_IN, "payment": {"method": "cash"}})
    assert r.status_code == 201, r.data
    entry = r.data["entry"]
    assert (entry["status"], entry["amount_paid"], entry["payment_state"]) == ("confirmed", 5000, "paid")
    assert r.data["manage_token"]
    listed = {e["id"]: e for e in api.get(f"/events/{eid}/entries").data["entries"]}
    assert listed[entry["id"]]["amount_paid"] == 5000
    audit = api.get(f"/events/{eid}/audit").data["audit"]
    assert [a["after"]["entry_id"] for a in audit if a["action"] == "desk_entry"] == [entry["id"]]
    # unpaid when no payment is given: the desk takes the cash later
    later = api.post(f"/events/{eid}/entries/desk", {**WALK_IN, "name": "后付队",
                                                     "members": [{"name": "后付甲", "phone": "13911113333"}, {"name": "后付乙"}]})
    assert (later.data["entry"]["status"], later.data["entry"]["amount_paid"]) == ("pending_payment", 0)


def test_the_registration_rules_still_apply_at_the_desk(api, clock):
    tid = api.post("/tournaments", {"name": "周末赛", "timezone": "Asia/Shanghai", "currency": "CNY",
                                    "starts_on": "2026-12-12"}).data["id"]
    eid = api.post(f"/tournaments/{tid}/events", {**SWISS, "capacity": 2, "waitlist": False}).data["id"]
    _after_deadline(clock)
    short = api.post(f"/events/{eid}/entries/desk", {**WALK_IN, "members": WALK_IN["members"][:1]})
    assert (short.status_code, short.data["code"]) == (422, "roster_size")
    no_phone = api.post(f"/events/{eid}/entries/desk", {**WALK_IN, "members": [{"name": "甲"}, {"name": "乙"}]})
    assert (no_phone.status_code, no_phone.data["code"]) == (422, "phone_required")
    assert api.post(f"/events/{eid}/entries/desk", WALK_IN).status_code == 201
    again = api.post(f"/events/{eid}/entries/desk", WALK_IN)
    assert (again.status_code, again.data["code"]) == (409, "duplicate_entry"), again.data
    api.post(f"/events/{eid}/entries/desk", {**WALK_IN, "name": "二队", "members": [{"name": "乙甲", "phone": "13911114444"}, {"name": "乙乙"}]})
    full = api.post(f"/events/{eid}/entries/desk", {**WALK_IN, "name": "三队", "members": [{"name": "丙甲", "phone": "13911115555"}, {"name": "丙乙"}]})
    assert (full.status_code, full.data["code"]) == (409, "event_full"), full.data


def test_after_the_first_draw_only_with_late_entries(api, clock):
    _, closed_eid, _ = setup_event(api, {**SWISS, "fee": {"amount": 0}}, people(4, 2, "队"))
    draw(api, closed_eid)
    refused = api.post(f"/events/{closed_eid}/entries/desk", WALK_IN)
    assert (refused.status_code, refused.data["code"]) == (422, "registration_closed"), refused.data
    _, late_eid, _ = setup_event(api, {**SWISS, "fee": {"amount": 0}, "late_entries": True}, people(4, 2, "队"))
    draw(api, late_eid)
    taken = api.post(f"/events/{late_eid}/entries/desk", WALK_IN)
    assert taken.status_code == 201, taken.data
    checked = api.post(f"/events/{late_eid}/entries/{taken.data['entry']['id']}/check-in")
    assert checked.status_code == 200 and checked.data["joins_from_round"] == 2


def test_a_retry_with_the_same_key_pays_once(api, clock):
    tid = api.post("/tournaments", {"name": "周末赛", "timezone": "Asia/Shanghai", "currency": "CNY",
                                    "starts_on": "2026-12-12"}).data["id"]
    eid = api.post(f"/tournaments/{tid}/events", SWISS).data["id"]
    key = {"Idempotency-Key": "desk-walk-in-0001-abcdef"}
    body = {**WALK_IN, "payment": {"method": "transfer", "reference": "微信转账 0412"}}
    first = api.post(f"/events/{eid}/entries/desk", body, headers=key)
    second = api.post(f"/events/{eid}/entries/desk", body, headers=key)
    assert first.status_code == 201 and second.status_code == 201, second.data
    assert first.data["entry"]["id"] == second.data["entry"]["id"] and second.data["entry"]["amount_paid"] == 5000
    assert len(api.get(f"/events/{eid}/entries").data["entries"]) == 1


def test_only_the_desk_and_the_director_add_walk_ins(api, clock):
    tid = api.post("/tournaments", {"name": "周末赛", "timezone": "Asia/Shanghai", "currency": "CNY",
                                    "starts_on": "2026-12-12"}).data["id"]
    eid = api.post(f"/tournaments/{tid}/events", guandan_event()).data["id"]
    tokens = {role: api.post(f"/tournaments/{tid}/staff", {"name": role, "role": role}).data["token"]
              for role in ("desk", "director", "scorer")}
    assert api.post(f"/events/{eid}/entries/desk", WALK_IN, token=tokens["scorer"]).status_code == 403
    assert api.post(f"/events/{eid}/entries/desk", WALK_IN, token=None).status_code == 401
    assert api.post(f"/events/{eid}/entries/desk", WALK_IN, token=tokens["desk"]).status_code == 201
    other = {**WALK_IN, "members": [{"name": "丁甲", "phone": "13911116666"}, {"name": "丁乙"}], "name": "丁队"}
    assert api.post(f"/events/{eid}/entries/desk", other, token=tokens["director"]).status_code == 201
