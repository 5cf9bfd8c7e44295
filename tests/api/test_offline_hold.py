"""A place to be paid at the desk or by transfer is held for a bound (issue 36: it was held forever), then
released by the sweeper as an unpaid online hold is, and its place goes to the waitlist."""
from __future__ import annotations

from chalicelib import bootstrap
from chalicelib.services.payments import sweep_expired_holds
from tests.api.test_registration import make_event, tid  # noqa: F401  (tid: the fixture)


def pair(n):
    return {"name": f"{n}队", "members": [{"name": f"甲{n}", "phone": f"136{n:08d}"}, {"name": f"乙{n}"}]}


def register(api, eid, n):
    r = api.post(f"/events/{eid}/entries", pair(n), token=None)
    assert r.status_code == 201, r.data
    return r.data["entry"]


def test_an_offline_hold_ends_after_the_events_hours_and_its_place_goes_to_the_waitlist(api, tid, clock):
    eid = make_event(api, tid, capacity=1, fee={"amount": 2000, "offline_hold_hours": 6})
    assert api.get(f"/events/{eid}").data["config"]["fee"]["offline_hold_hours"] == 6
    held, waiting = register(api, eid, 1), register(api, eid, 2)
    assert held["status"] == "pending_payment" and held["hold_expires_at"] == "2026-12-01T08:00:00Z"
    assert waiting["status"] == "waitlisted" and waiting["hold_expires_at"] is None
    clock.advance(hours=5, minutes=59)
    assert sweep_expired_holds(bootstrap.deps())["released"] == 0
    clock.advance(minutes=2)
    assert sweep_expired_holds(bootstrap.deps())["released"] == 1
    entries = {e["id"]: e for e in api.get(f"/events/{eid}/entries").data["entries"]}
    assert entries[held["id"]]["status"] == "cancelled"
    promoted = entries[waiting["id"]]
    # the waitlist's first gets the place, held for the desk in turn (6 h from now)
    assert promoted["status"] == "pending_payment" and promoted["hold_expires_at"] == "2026-12-01T14:01:00Z"
    assert "前到报名台付款" in promoted["notices"][-1]
    # released, its player may register again (the person is freed as by a cancellation)
    assert api.post(f"/events/{eid}/entries", pair(1), token=None).data["entry"]["status"] == "waitlisted"


def test_the_hold_never_runs_past_the_registration_deadline(api, tid, clock):
    eid = make_event(api, tid, registration={"opens_at": "2026-11-01T00:00:00Z", "closes_at": "2026-12-01T12:00:00Z"})
    assert register(api, eid, 1)["hold_expires_at"] == "2026-12-01T12:00:00Z"   # the default 48 h cut at the deadline


def test_paid_at_the_desk_in_time_the_place_stays(api, tid, clock):
    eid = make_event(api, tid)
    entry = register(api, eid, 1)
    paid = api.post(f"/events/{eid}/entries/{entry['id']}/payments", {"method": "cash", "amount": entry["amount_due"]})
    assert paid.data["status"] == "confirmed" and paid.data["hold_expires_at"] is None
    clock.advance(hours=49)
    assert sweep_expired_holds(bootstrap.deps())["released"] == 0


def test_a_days_offline_places_are_held_for_the_bound_too(api, tid, clock):
    eid = make_event(api, tid, fee={"amount": 2000, "offline_hold_hours": 24})
    body = {"contact": {"name": "甲", "phone": "13600000001"}, "items": [{"event_id": eid, **pair(1)}]}
    r = api.post(f"/tournaments/{tid}/registrations", body, token=None)
    assert r.status_code == 201, r.data
    item = r.data["registration"]["items"][0]["entry"]
    assert item["status"] == "pending_payment" and item["hold_expires_at"] == "2026-12-02T02:00:00Z"
    clock.advance(hours=25)
    assert sweep_expired_holds(bootstrap.deps())["released"] == 1


def test_the_local_runner_sweeps_holds_as_aws_schedule_does(api, tid, clock, monkeypatch):
    """make run / make venue have no scheduler: the runner's loop sweeps every 5 minutes (scripts/dev.py)."""
    from scripts import dev
    eid = make_event(api, tid, fee={"amount": 2000, "offline_hold_hours": 1})
    register(api, eid, 1)
    clock.advance(hours=2)
    assert dev.sweep_holds()["released"] == 1

    def down(*_):
        raise ConnectionError("store down")
    monkeypatch.setattr("chalicelib.services.payments.sweep_expired_holds", down)
    assert dev.sweep_holds() is None   # the runner keeps running
