from __future__ import annotations

import pytest

from tests.factories import doudizhu_event, guandan_event, tournament_body


def test_create_list_get_patch_tournament(api):
    r = api.post("/tournaments", tournament_body())
    assert r.status_code == 201, r.data
    tid = r.data["id"]
    assert r.data["name"] == "恒全杯商会联谊赛" and r.data["currency"] == "CNY"
    assert api.get("/tournaments").data["tournaments"][0]["id"] == tid
    r = api.patch(f"/tournaments/{tid}", {"venue": "南宁市青秀区"})
    assert r.status_code == 200 and r.data["venue"] == "南宁市青秀区" and r.data["version"] == 2
    assert api.get(f"/tournaments/{tid}").data["venue"] == "南宁市青秀区"


def test_event_defaults_from_rules(api):
    tid = api.post("/tournaments", tournament_body()).data["id"]
    r = api.post(f"/tournaments/{tid}/events", doudizhu_event())
    assert r.status_code == 201, r.data
    scoring = r.data["config"]["stages"][0]["scoring"]
    assert scoring["method"] == "table_points"
    assert scoring["deals_per_round"] == 6 and scoring["places"] == [5, 3, 1] and scoring["bye_table_points"] == 3
    assert scoring["bomb_bonus"]["each"] == {"3": 50, "4": 100, "5": 200, "6": 500}
    assert scoring["tiebreaks"] == ["table_points", "small_points", "landlord_deals", "lots"]
    eid = r.data["id"]
    got = api.get(f"/events/{eid}").data
    assert got["config"]["entry"] == {"kind": "individual", "size": 1}
    assert got["counters"]["confirmed"] == 0


def test_naive_registration_times_are_read_in_the_tournament_zone(api):
    tid = api.post("/tournaments", tournament_body()).data["id"]
    body = guandan_event(registration={"opens_at": "2026-11-01T09:00:00", "closes_at": "2026-12-03T23:59:00"})
    r = api.post(f"/tournaments/{tid}/events", body)
    assert r.status_code == 201, r.data
    assert r.data["config"]["registration"]["closes_at"] == "2026-12-03T15:59:00Z"
    pub = api.get(f"/public/tournaments/{tid}", token=None).data
    assert pub["events"][0]["closes_at_local"] == "2026-12-03 23:59"


@pytest.mark.parametrize("change, field", [
    ({"entry": {"kind": "team", "size": 3}}, "entry"),
    ({"entry": {"kind": "pair", "size": 3}}, "entry"),
    ({"game": "doudizhu", "stages": [{"format": "swiss", "rounds": 5}]}, "entry"),
    ({"stages": [{"format": "knockout", "rounds": 3}]}, "stages.0"),
    ({"registration": {"opens_at": "2026-12-02T00:00:00Z", "closes_at": "2026-12-01T00:00:00Z"}}, "registration"),
    ({"stages": [{"format": "swiss", "rounds": 3, "scoring": {"method": "table_points"}}]}, "stages"),
    ({"capacity": 0}, "capacity"),
    ({"fee": {"amount": -5}}, "fee.amount"),
    ({"game": "mahjong"}, "game"),
])
def test_contradictory_event_configs_are_refused_naming_the_field(api, change, field):
    tid = api.post("/tournaments", tournament_body()).data["id"]
    r = api.post(f"/tournaments/{tid}/events", guandan_event(**change))
    assert r.status_code == 400, r.data
    assert r.data["code"] == "invalid_request"
    assert any(d["field"].startswith(field) for d in r.data["details"]), r.data["details"]


def test_event_patch_revalidates_and_checks_version(api):
    tid = api.post("/tournaments", tournament_body()).data["id"]
    ev = api.post(f"/tournaments/{tid}/events", guandan_event()).data
    r = api.patch(f"/events/{ev['id']}", {"capacity": 60, "version": 1})
    assert r.status_code == 200 and r.data["config"]["capacity"] == 60 and r.data["version"] == 2
    r = api.patch(f"/events/{ev['id']}", {"capacity": 61, "version": 1})
    assert r.status_code == 409 and r.data["code"] == "version_conflict"
    r = api.patch(f"/events/{ev['id']}", {"stages": [{"format": "knockout", "rounds": 2}]})
    assert r.status_code == 400 and r.data["code"] == "invalid_request"


def test_public_tournament_shows_places_and_state(api, clock):
    tid = api.post("/tournaments", tournament_body()).data["id"]
    api.post(f"/tournaments/{tid}/events", guandan_event())
    pub = api.get(f"/public/tournaments/{tid}", token=None)
    assert pub.status_code == 200
    ev = pub.data["events"][0]
    assert ev["places_left"] == 40 and ev["registration_state"] == "open" and ev["currency"] == "CNY"
    assert "organiser_id" not in pub.data
    clock.advance(days=30)
    assert api.get(f"/public/tournaments/{tid}", token=None).data["events"][0]["registration_state"] == "closed"
