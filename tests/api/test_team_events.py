"""Guandan team events (集体赛, rules.md §8, seed 000) through the routes: 6 teams × 5 Swiss rounds with lineups,
each team match played in an open and a closed room, one room's result at a time, and the standings.
Expected totals are added up here from the levels the test plays, by rules.md's arithmetic (13 ± d, d the two
rooms' combined level difference, rules.md §9)."""
from __future__ import annotations

import random
from collections import defaultdict

from tests.api.play import close, draw, people, setup_event

SCHEDULE = {"first_round_at": "2026-12-01T11:00:00", "round_minutes": 50, "break_minutes": 10}   # clock: 10:00 there


def team_cfg(rounds=5, size=6):
    return {"name": "掼蛋集体赛", "game": "guandan", "entry": {"kind": "team", "size": size}, "capacity": 16,
            "fee": {"amount": 0},
            "stages": [{"format": "swiss", "rounds": rounds, "early_finish": False, "schedule": SCHEDULE}]}


def code(rnd, t, side):
    return {"token": None, "headers": {"X-Table-Code": rnd["tables"][t - 1]["codes"][side]}}


def room_points(own: int, other: int) -> float:
    d = own - other
    return float(max(0, min(26, 13 + d)))


def test_a_team_swiss_with_lineups_and_both_rooms(api):
    tid, eid, ids = setup_event(api, team_cfg(), people(6, 6, "队"))
    rng = random.Random(26)
    mp, ldp = defaultdict(float), defaultdict(float)
    met = set()
    for n in range(1, 6):
        rnd = draw(api, eid, n)
        assert len(rnd["tables"]) == 3
        for table in rnd["tables"]:
            t = table["number"]
            home, away = (s["entry_id"] for s in table["sides"])
            met.add(frozenset((home, away)))
            got = api.get(f"/events/{eid}/rounds/{n}").data["tables"][t - 1]
            assert [r["room"] for r in got["rooms"]] == ["open", "closed"]
            assert got["rooms"][0]["seats"] == {home: ["N", "S"], away: ["E", "W"]}
            assert got["rooms"][1]["seats"] == {home: ["E", "W"], away: ["N", "S"]}
            assert got["seat_choice"] == home
            # lineups: members change between rounds (six players, two pairs play)
            for side in (1, 0):   # the team without seat choice first
                pick = rng.sample(range(6), 4)
                r = api.post(f"/events/{eid}/rounds/{n}/tables/{t}/lineup", {"open": pick[:2], "closed": pick[2:]},
                             **code(rnd, t, side))
                assert r.status_code == 200, r.data
            version = r.data["table"]["version"]
            levels = {room: {home: rng.randint(2, 14), away: rng.randint(2, 14)} for room in ("open", "closed")}
            r = api.put(f"/events/{eid}/rounds/{n}/tables/{t}/result?room=open",
                        {"version": version, "final": {"levels": levels["open"]}}, **code(rnd, t, 0))
            assert r.status_code == 200 and r.data["status"] == "pending", r.data
            r = api.put(f"/events/{eid}/rounds/{n}/tables/{t}/result?room=closed",
                        {"version": r.data["version"], "final": {"levels": levels["closed"]}}, **code(rnd, t, 1))
            assert r.status_code == 200 and r.data["status"] == "pending", r.data
            # each room is confirmed by the other team's phone: the open room (home entered) by the away team…
            own = api.post(f"/events/{eid}/rounds/{n}/tables/{t}/confirm?room=open", **code(rnd, t, 0))
            assert own.status_code == 403, own.data
            one = api.post(f"/events/{eid}/rounds/{n}/tables/{t}/confirm?room=open", **code(rnd, t, 1))
            assert one.status_code == 200 and one.data["status"] == "pending", one.data
            assert one.data["table"]["room_status"]["open"]["status"] == "confirmed"
            # …and the closed room (away entered) by the home team: then the match is scored and confirmed
            ok = api.post(f"/events/{eid}/rounds/{n}/tables/{t}/confirm?room=closed", **code(rnd, t, 0))
            assert ok.status_code == 200 and ok.data["status"] == "confirmed", ok.data
            # by hand: the team that gained more levels over both rooms wins 2 : 0; 级差分 13 ± d once, d the
            # combined level difference of the two rooms (rules.md §9)
            gained = {e: sum(levels[room][e] - 2 for room in levels) for e in (home, away)}
            for e, o in ((home, away), (away, home)):
                room_total = room_points(gained[e], gained[o])
                ldp[e] += room_total
                mp[e] += 2.0 if gained[e] > gained[o] else 1.0 if gained[e] == gained[o] else 0.0
                won = 2.0 if gained[e] > gained[o] else 1.0 if gained[e] == gained[o] else 0.0
                assert ok.data["points"][e] == {"match_points": won, "level_diff_points": room_total}
        close(api, eid, n)
    assert len(met) == 15   # 6 teams, 5 rounds: everyone met everyone once (Swiss, no rematch)
    st = api.get(f"/events/{eid}/standings").data
    assert st["final"] is True
    got = {r["entry_id"]: r["points"] for r in st["standings"]}
    assert got == {e: {"match_points": mp[e], "level_diff_points": ldp[e]} for e in ids}
    keys = [(-mp[r["entry_id"]], -ldp[r["entry_id"]]) for r in st["standings"]]
    assert keys == sorted(keys)


def test_lineup_deadlines_and_the_referees_change(api, clock):
    tid, eid, ids = setup_event(api, team_cfg(rounds=1, size=4), people(2, 4, "队"))
    rnd = draw(api, eid, 1)
    home, away = (s["entry_id"] for s in rnd["tables"][0]["sides"])
    clock.advance(minutes=50)   # 10:50 there: 10 minutes before the 11:00 start
    late = api.post(f"/events/{eid}/rounds/1/tables/1/lineup", {"open": [0, 1], "closed": [2, 3]}, **code(rnd, 1, 1))
    # the team without seat choice had until 10:45 ("比赛开始前15分钟")
    assert late.status_code == 422 and late.data["code"] == "lineup_closed"
    ok = api.post(f"/events/{eid}/rounds/1/tables/1/lineup", {"open": [0, 1], "closed": [2, 3]}, **code(rnd, 1, 0))
    assert ok.status_code == 200 and ok.data["late"] is False   # with seat choice: until 10:55
    again = api.post(f"/events/{eid}/rounds/1/tables/1/lineup", {"open": [1, 0], "closed": [3, 2]}, **code(rnd, 1, 0))
    assert again.status_code == 422 and again.data["code"] == "lineup_closed"   # announced: a change is the referee's
    bad = api.post(f"/events/{eid}/rounds/1/tables/1/lineup", {"entry_id": away, "open": [0, 1], "closed": [1, 2]})
    assert bad.status_code == 422 and bad.data["code"] == "invalid_result"
    ref = api.post(f"/events/{eid}/rounds/1/tables/1/lineup", {"entry_id": away, "open": [0, 1], "closed": [2, 3]})
    assert ref.status_code == 200 and ref.data["late"] is True and ref.data["table"]["seat_choice"] == home
    change = api.post(f"/events/{eid}/rounds/1/tables/1/lineup", {"entry_id": home, "open": [2, 3], "closed": [0, 1]})
    # "一方需要变更进场名单，必须经裁判长同意，并且此时对方具有座位选择权"
    assert change.status_code == 200 and change.data["table"]["seat_choice"] == away
    actions = [a["action"] for a in api.get(f"/events/{eid}/audit").data["audit"]]
    assert actions.count("lineup_announced") == 2 and "lineup_changed" in actions
    # a pairs event has no rooms
    _, pe, _ = setup_event(api, {"name": "双人赛", "game": "guandan", "entry": "pair", "capacity": 4, "fee": {"amount": 0},
                                 "stages": [{"format": "swiss", "rounds": 1}]}, people(2, 2, "对"))
    r = draw(api, pe, 1)
    assert api.post(f"/events/{pe}/rounds/1/tables/1/lineup", {"open": [0, 1], "closed": [0, 1]},
                    **code(r, 1, 0)).status_code == 400


def test_a_room_result_is_checked_alone_and_the_team_result_needs_both(api):
    tid, eid, ids = setup_event(api, team_cfg(rounds=1, size=4), people(2, 4, "队"))
    rnd = draw(api, eid, 1)
    home, away = (s["entry_id"] for s in rnd["tables"][0]["sides"])
    bad = api.put(f"/events/{eid}/rounds/1/tables/1/result?room=open", {"version": 0, "final": {"levels": {home: 1, away: 5}}},
                  **code(rnd, 1, 0))
    assert bad.status_code == 422 and bad.data["code"] == "invalid_result"
    whole = api.put(f"/events/{eid}/rounds/1/tables/1/result", {"version": 0, "final": {"levels": {home: 9, away: 5}}},
                    **code(rnd, 1, 0))
    assert whole.status_code == 422 and "both rooms" in whole.data["message"]
    # both rooms in one body also works: open H 9 : 5 (17 / 9), closed H 4 : 6 (11 / 15); gained H 7 + 2 = 9 > 3 + 4
    rooms = {"open": {"final": {"levels": {home: 9, away: 5}}}, "closed": {"final": {"levels": {home: 4, away: 6}}}}
    # no lineup was announced: a phone must say who sat in each room
    unnamed = api.put(f"/events/{eid}/rounds/1/tables/1/result", {"version": 0, "rooms": rooms}, **code(rnd, 1, 0))
    assert unnamed.status_code == 422 and unnamed.data["code"] == "lineup_missing", unnamed.data
    rooms["open"]["players"] = {home: [0, 1], away: [2, 3]}
    rooms["closed"]["players"] = {home: [1, 2], away: [0, 1]}
    twice = api.put(f"/events/{eid}/rounds/1/tables/1/result", {"version": 0, "rooms": rooms}, **code(rnd, 1, 0))
    assert twice.status_code == 422 and twice.data["code"] == "lineup_mismatch", twice.data   # member 1 of home in both
    rooms["closed"]["players"][home] = [2, 3]
    both = api.put(f"/events/{eid}/rounds/1/tables/1/result", {"version": 0, "rooms": rooms}, **code(rnd, 1, 0))
    assert both.status_code == 200, both.data
    assert both.data["table"]["played"] == {"open": {home: [0, 1], away: [2, 3]}, "closed": {home: [2, 3], away: [0, 1]}}
    # 级差分: one 26-point scale over both rooms (rules.md §9): gained 9 v 7 → 13 + 2 = 15 : 11
    assert both.data["points"] == {home: {"match_points": 2, "level_diff_points": 15},
                                   away: {"match_points": 0, "level_diff_points": 11}}
    assert api.post(f"/events/{eid}/rounds/1/tables/1/confirm", **code(rnd, 1, 1)).status_code == 200
    # both rooms on the published round page, home team first
    from chalicelib import bootstrap
    assert api.post(f"/tournaments/{tid}/publish").status_code == 200
    files = bootstrap.deps().publisher.files
    page = files[f"t/{tid}/{eid}/round-1.html"]
    page = page.decode() if isinstance(page, bytes) else page
    assert "开室 9 : 5" in page and "闭室 4 : 6" in page


def test_a_team_events_appeal_needs_the_captains_consent(api):
    # seed 000: "集体赛必须经领队同意，双人赛必须两名运动员均同意，方可提出申诉"
    tid, eid, ids = setup_event(api, team_cfg(rounds=1, size=4), people(2, 4, "队"))
    rnd = draw(api, eid, 1)
    home = rnd["tables"][0]["sides"][0]["entry_id"]
    no = api.post(f"/events/{eid}/rounds/1/tables/1/appeals", {"entry_id": home, "text": "裁判判罚有误"}, **code(rnd, 1, 0))
    assert no.status_code == 422 and no.data["code"] == "captain_consent_required"
    yes = api.post(f"/events/{eid}/rounds/1/tables/1/appeals", {"entry_id": home, "text": "裁判判罚有误",
                                                                 "captain_consent": True}, **code(rnd, 1, 0))
    assert yes.status_code == 201, yes.data
