"""Set-up warnings on the answers of create and edit (issue 23): saved anyway, a `warnings` list with stable codes
and the tournament's local times, worded in the console's catalogs. The clock is 2026-12-01 10:00 in Shanghai."""
from __future__ import annotations

import json
from pathlib import Path

from chalicelib.services.setup_warnings import CODES
from tests.factories import tournament_body

DAY = "2026-12-12"


def event(**kw):
    body = {"name": "掼蛋积分赛", "game": "guandan", "entry": "pair", "capacity": 16, "fee": {"amount": 0},
            "stages": [{"format": "swiss", "rounds": 3,
                        "schedule": {"first_round_at": f"{DAY}T14:00", "round_minutes": 50, "break_minutes": 10}}]}
    body.update(kw)
    return body


def codes(answer):
    return [(w["code"], w["params"]) for w in answer["warnings"]]


def test_a_sensible_event_has_no_warnings_and_odd_ones_are_saved_with_them(api):
    tid = api.post("/tournaments", tournament_body(starts_on=DAY, ends_on=DAY)).data["id"]
    ok = api.post(f"/tournaments/{tid}/events", event(registration={"closes_at": "2026-12-11T15:00"}))
    assert ok.status_code == 201 and ok.data["warnings"] == []
    past = api.post(f"/tournaments/{tid}/events", event(registration={"closes_at": "2026-11-30T15:00"}))
    assert past.status_code == 201   # a warning, not an error: the event exists
    assert codes(past.data) == [("deadline_past", {"at": "2026-11-30 15:00"})]
    assert api.get(f"/events/{past.data['id']}").status_code == 200
    late = api.post(f"/tournaments/{tid}/events", event(registration={"closes_at": "2026-12-12T16:00"}))
    assert codes(late.data) == [("deadline_after_start", {"at": "2026-12-12 16:00", "start": "2026-12-12 14:00"})]
    odd = api.post(f"/tournaments/{tid}/events", event(
        capacity=10, prize_shrink={"below_entries": 20, "prizes": [{"place_from": 1, "amount": 100}]},
        stages=[{"format": "swiss", "rounds": 3, "schedule": {"first_round_at": "2026-12-13T09:00"}}]))
    assert codes(odd.data) == [("stage_outside_days", {"n": 1, "day": "2026-12-13"}),
                               ("shrink_always", {"below": 20, "capacity": 10})]


def test_an_edit_answers_its_warnings_and_a_tournament_date_change_names_the_event(api):
    tid = api.post("/tournaments", tournament_body(starts_on=DAY, ends_on=DAY)).data["id"]
    eid = api.post(f"/tournaments/{tid}/events", event(registration={"closes_at": "2026-12-11T15:00"})).data["id"]
    r = api.patch(f"/events/{eid}", {"registration": {"closes_at": "2026-11-20T09:00"}})
    assert r.status_code == 200 and codes(r.data) == [("deadline_past", {"at": "2026-11-20 09:00"})]
    back = api.patch(f"/events/{eid}", {"registration": {"closes_at": "2026-12-11T15:00"}})
    assert back.data["warnings"] == []
    moved = api.patch(f"/tournaments/{tid}", {"starts_on": "2026-12-19", "ends_on": "2026-12-19"})
    assert moved.status_code == 200
    assert [(w["code"], w["event_id"]) for w in moved.data["warnings"]] == [("stage_outside_days", eid)]


def test_every_warning_code_is_worded_in_the_console_catalogs():
    root = Path(__file__).resolve().parents[2] / "frontend" / "app" / "src" / "locales"
    for lang in ("zh-CN", "en"):
        console = json.loads((root / f"{lang}.json").read_text())["console"]
        missing = [c for c in CODES if f"warn_{c}" not in console]
        assert not missing, (lang, missing)


def test_a_stage_starting_while_the_one_before_still_plays_is_warned(api):
    # issue 39: seed 003's group rounds every 100 minutes from 09:30 (8 pairs a group: 7 rounds) ran into 11:10
    tid = api.post("/tournaments", tournament_body(starts_on=DAY, ends_on=DAY)).data["id"]
    knockout = {"format": "knockout", "advance": {"per_group": 2},
                "schedule": {"rounds": [{"starts_at": f"{DAY}T11:10", "ends_at": f"{DAY}T12:40"}]}}
    tractor = {"name": "拖拉机比赛", "game": "tractor", "entry": "pair", "capacity": 32, "fee": {"amount": 0},
               "registration": {"closes_at": "2026-12-11T15:00"}}
    every_100 = api.post(f"/tournaments/{tid}/events", {**tractor, "stages": [
        {"format": "round_robin", "groups": 4,
         "schedule": {"first_round_at": f"{DAY}T09:30", "round_minutes": 90, "break_minutes": 10}}, knockout]})
    assert codes(every_100.data) == [("stages_overlap", {"n": 2, "start": "2026-12-12 11:10", "prev": 1,
                                                         "ends": "2026-12-12 21:00"})]   # 7 rounds: 19:30–21:00
    one_slot = api.post(f"/tournaments/{tid}/events", {**tractor, "stages": [
        {"format": "round_robin", "groups": 4,
         "schedule": {"rounds": [{"starts_at": f"{DAY}T09:30", "ends_at": f"{DAY}T11:00"}]}}, knockout]})
    assert one_slot.data["warnings"] == []   # the seed's own plan: one group slot, the knockout after it
