"""Guandan team events (集体赛, rules.md §8) beyond Swiss, through the routes: a team round robin and a team
knockout played whole, rosters of 4 to 6 within one event, each room confirmed by the other team's phone, the
knockout tie rule, and lineups checked against who actually sat in each room.
Expected totals are added up here by rules.md's arithmetic (each room 13 ± d, 场分 2 / 1 / 0 from levels gained)."""
from __future__ import annotations

import random
from collections import defaultdict

import pytest

from tests.api.play import close, draw, setup_event

SCHEDULE = {"first_round_at": "2026-12-01T11:00:00", "round_minutes": 50, "break_minutes": 10}   # clock: 10:00 there


def cfg(fmt: str, *, size=6, min_size=4, **stage):
    return {"name": "掼蛋集体赛", "game": "guandan", "entry": {"kind": "team", "size": size, "min_size": min_size},
            "capacity": 16, "fee": {"amount": 0}, "stages": [{"format": fmt, "schedule": SCHEDULE, **stage}]}


def rosters(sizes: list[int], first: int = 0) -> list[dict]:
    """One team per size, each with its own captain's phone."""
    out = []
    for i, size in enumerate(sizes, start=first):
        members = [{"name": f"队{i}-{m}", **({"phone": f"1370000{i:04d}"} if m == 0 else {})} for m in range(size)]
        out.append({"name": f"队{i}", "club": f"商会{i % 3}", "members": members})
    return out


def as_side(rnd, t, side):
    return {"token": None, "headers": {"X-Table-Code": rnd["tables"][t - 1]["codes"][side]}}


def room_ldp(own: int, other: int) -> float:
    return float(max(0, min(26, 13 + own - other)))


def play_room(api, eid, rnd, t, room, levels, by, version, **extra):
    r = api.put(f"/events/{eid}/rounds/{rnd['number']}/tables/{t}/result?room={room}",
                {"version": version, "final": {"levels": levels}, **extra}, **as_side(rnd, t, by))
    assert r.status_code == 200 and r.data["status"] == "pending", r.data
    return r.data["version"]


def confirm_room(api, eid, rnd, t, room, by):
    r = api.post(f"/events/{eid}/rounds/{rnd['number']}/tables/{t}/confirm?room={room}", **as_side(rnd, t, by))
    assert r.status_code == 200, r.data
    return r.data


def play_match(api, eid, rnd, table, levels, sizes_of, rng):
    """Both teams' phones post lineups, the home phone enters the open room and the away phone the closed room,
    each confirms the other's room. Returns the confirmation's answer."""
    t = table["number"]
    home, away = (s["entry_id"] for s in table["sides"])
    for side, e in ((1, away), (0, home)):   # the team without seat choice first
        pick = rng.sample(range(sizes_of[e]), 4)
        r = api.post(f"/events/{eid}/rounds/{rnd['number']}/tables/{t}/lineup", {"open": pick[:2], "closed": pick[2:]},
                     **as_side(rnd, t, side))
        assert r.status_code == 200, r.data
    v = play_room(api, eid, rnd, t, "open", levels["open"], 0, r.data["table"]["version"])
    play_room(api, eid, rnd, t, "closed", levels["closed"], 1, v)
    first = confirm_room(api, eid, rnd, t, "open", 1)
    assert first["status"] == "pending"
    return confirm_room(api, eid, rnd, t, "closed", 0)


def test_a_team_round_robin_with_rosters_of_four_to_six(api):
    sizes = [4, 5, 6, 4, 6]   # five teams: a bye each round
    tid, eid, ids = setup_event(api, cfg("round_robin"), rosters(sizes))
    sizes_of = dict(zip(ids, sizes))
    got_members = {e["id"]: len(e["members"]) for e in api.get(f"/events/{eid}/entries").data["entries"]}
    assert got_members == sizes_of
    rng = random.Random(2626)
    mp, ldp, met = defaultdict(float), defaultdict(float), set()
    for n in range(1, 6):   # 5 teams → 5 rounds of two matches and a bye
        rnd = draw(api, eid, n)
        assert rnd["format"] == "round_robin" and len(rnd["tables"]) == 2 and len(rnd["byes"]) == 1
        mp[rnd["byes"][0]] += 1.5    # rules.md §1/§9: a bye 1.5 场分, 17 级差分 (one scale for the match)
        ldp[rnd["byes"][0]] += 17.0
        for table in rnd["tables"]:
            home, away = (s["entry_id"] for s in table["sides"])
            met.add(frozenset((home, away)))
            assert table["rooms"][0]["seats"] == {home: ["N", "S"], away: ["E", "W"]}
            levels = {room: {home: rng.randint(2, 14), away: rng.randint(2, 14)} for room in ("open", "closed")}
            ok = play_match(api, eid, rnd, table, levels, sizes_of, rng)
            assert ok["status"] == "confirmed"
            gained = {e: sum(levels[r][e] - 2 for r in levels) for e in (home, away)}
            for e, o in ((home, away), (away, home)):
                won = 2.0 if gained[e] > gained[o] else 1.0 if gained[e] == gained[o] else 0.0
                rooms = room_ldp(gained[e], gained[o])   # 13 ± the combined level difference (rules.md §9)
                assert ok["points"][e] == {"match_points": won, "level_diff_points": rooms}
                mp[e] += won
                ldp[e] += rooms
        close(api, eid, n)
    assert len(met) == 10   # everyone met everyone once
    st = api.get(f"/events/{eid}/standings").data
    assert st["final"] is True
    assert {r["entry_id"]: r["points"] for r in st["standings"]} == {
        e: {"match_points": mp[e], "level_diff_points": ldp[e]} for e in ids}


def test_a_team_knockout_with_a_tie_broken_by_an_extra_deal(api):
    tid, eid, ids = setup_event(api, cfg("knockout"), rosters([4, 6, 5, 4]))
    sizes_of = dict(zip(ids, [4, 6, 5, 4]))
    rng = random.Random(7)
    rnd = draw(api, eid, 1)
    assert rnd["format"] == "knockout" and len(rnd["tables"]) == 2
    winners = []
    # table 1: decided on the rooms (home gains 8 + 2, away 3 + 5)
    t1 = rnd["tables"][0]
    h1, a1 = (s["entry_id"] for s in t1["sides"])
    ok = play_match(api, eid, rnd, t1, {"open": {h1: 10, a1: 5}, "closed": {h1: 4, a1: 7}}, sizes_of, rng)
    assert ok["status"] == "confirmed" and ok["table"]["winner"] == h1
    winners.append(h1)
    # table 2: the same levels gained (8 + 4 each): both rooms confirmed, then the extra deal
    t2 = rnd["tables"][1]
    h2, a2 = (s["entry_id"] for s in t2["sides"])
    tied = play_match(api, eid, rnd, t2, {"open": {h2: 10, a2: 6}, "closed": {h2: 6, a2: 10}}, sizes_of, rng)
    assert tied["status"] == "pending" and tied["table"]["tie_break_needed"] is True, tied
    early = api.post(f"/events/{eid}/rounds/1/close")
    assert early.status_code >= 400   # the round cannot close with a match undecided
    bad = api.put(f"/events/{eid}/rounds/1/tables/2/result?room=tie_break",
                  {"version": tied["version"], "winner": "somebody"}, **as_side(rnd, 2, 1))
    assert bad.status_code == 422 and bad.data["code"] == "invalid_result"
    extra = api.put(f"/events/{eid}/rounds/1/tables/2/result?room=tie_break",
                    {"version": tied["version"], "winner": a2}, **as_side(rnd, 2, 1))
    assert extra.status_code == 200 and extra.data["status"] == "pending", extra.data
    own = api.post(f"/events/{eid}/rounds/1/tables/2/confirm?room=tie_break", **as_side(rnd, 2, 1))
    assert own.status_code == 403
    done = confirm_room(api, eid, rnd, 2, "tie_break", 0)
    assert done["status"] == "confirmed" and done["table"]["winner"] == a2
    assert done["table"]["details"]["tie_break"] == {"winner": a2, "by": "extra_deal"}
    # the away team won the extra deal: it wins the match; the levels gained are even, so 级差分 13 : 13 (rules.md §9)
    assert done["points"] == {h2: {"match_points": 0, "level_diff_points": 13},
                              a2: {"match_points": 2, "level_diff_points": 13}}
    winners.append(a2)
    close(api, eid, 1)
    final = draw(api, eid, 2)
    assert len(final["tables"]) == 1
    assert {s["entry_id"] for s in final["tables"][0]["sides"]} == set(winners)
    hf, af = (s["entry_id"] for s in final["tables"][0]["sides"])
    ok = play_match(api, eid, final, final["tables"][0], {"open": {hf: 5, af: 12}, "closed": {hf: 8, af: 9}}, sizes_of, rng)
    assert ok["status"] == "confirmed" and ok["table"]["winner"] == af
    close(api, eid, 2)
    st = api.get(f"/events/{eid}/standings").data
    assert st["final"] is True and st["standings"][0]["entry_id"] == af
    assert st["standings"][1]["entry_id"] == hf


def test_team_knockout_tie_rule_home_sends_the_home_team_through(api):
    tid, eid, ids = setup_event(api, cfg("knockout", size=4, min_size=4, scoring={"method": "match_points",
                                                                                   "team_knockout_tie": "home"}),
                                rosters([4, 4]))
    rnd = draw(api, eid, 1)
    table = rnd["tables"][0]
    home, away = (s["entry_id"] for s in table["sides"])
    ok = play_match(api, eid, rnd, table, {"open": {home: 9, away: 5}, "closed": {home: 5, away: 9}},
                    dict.fromkeys(ids, 4), random.Random(1))
    assert ok["status"] == "confirmed" and ok["table"]["winner"] == home
    assert ok["table"]["details"]["tie_break"]["by"] == "home"
    # a Swiss or round robin match tied on levels is a draw, never an extra deal
    _, rr, rr_ids = setup_event(api, cfg("round_robin", size=4, min_size=4), rosters([4, 4]))
    r = draw(api, rr, 1)
    h, a = (s["entry_id"] for s in r["tables"][0]["sides"])
    drawn = play_match(api, rr, r, r["tables"][0], {"open": {h: 9, a: 5}, "closed": {h: 5, a: 9}},
                       dict.fromkeys(rr_ids, 4), random.Random(1))
    assert drawn["status"] == "confirmed" and drawn["points"][h]["match_points"] == 1


def test_roster_size_four_to_six_within_one_event(api):
    tid, eid, _ = setup_event(api, cfg("swiss", rounds=1), [])
    for size, status in ((3, 422), (4, 201), (5, 201), (6, 201), (7, 422)):
        r = api.post(f"/events/{eid}/entries", rosters([size], first=size)[0], token=None)
        assert r.status_code == status, (size, r.data)
        if status == 422:
            assert r.data["code"] == "roster_size" and r.data["details"]["min"] == 4 and r.data["details"]["expected"] == 6
    # the bounds belong to a Guandan team: a pair takes no min_size, Gouji's team is three, min_size ≤ size
    base = {"name": "x", "capacity": 4, "fee": {"amount": 0}, "stages": [{"format": "swiss", "rounds": 1}]}
    for bad in ({"game": "guandan", "entry": {"kind": "pair", "size": 2, "min_size": 1}},
                {"game": "gouji", "entry": {"kind": "team", "size": 3, "min_size": 2}},
                {"game": "guandan", "entry": {"kind": "team", "size": 5, "min_size": 6}},
                {"game": "guandan", "entry": {"kind": "team", "size": 6, "min_size": 3}}):
        r = api.post(f"/tournaments/{tid}/events", {**base, **bad})
        assert r.status_code == 400 and r.data["code"] == "invalid_request", (bad, r.data)


def test_each_room_is_entered_by_one_team_and_confirmed_by_the_other(api):
    tid, eid, ids = setup_event(api, cfg("swiss", rounds=1, size=4), rosters([4, 4]))
    rnd = draw(api, eid, 1)
    home, away = (s["entry_id"] for s in rnd["tables"][0]["sides"])
    for side in (1, 0):
        assert api.post(f"/events/{eid}/rounds/1/tables/1/lineup", {"open": [0, 1], "closed": [2, 3]},
                        **as_side(rnd, 1, side)).status_code == 200
    base = api.get(f"/events/{eid}/rounds/1/tables/1", **as_side(rnd, 1, 0)).data["table"]
    nothing = api.post(f"/events/{eid}/rounds/1/tables/1/confirm?room=open", **as_side(rnd, 1, 1))
    assert nothing.status_code == 409   # no result in that room yet
    v = play_room(api, eid, rnd, 1, "open", {home: 9, away: 5}, 0, base["version"])
    # rules.md §8: N–S enter, E–W confirm — in the open room the away team sits E–W: it confirms, it does not enter
    ew = api.put(f"/events/{eid}/rounds/1/tables/1/result?room=open",
                 {"version": v, "final": {"levels": {home: 8, away: 5}}}, **as_side(rnd, 1, 1))
    assert ew.status_code == 403 and ew.data["code"] == "north_south_enters"
    assert api.post(f"/events/{eid}/rounds/1/tables/1/confirm?room=open", **as_side(rnd, 1, 0)).status_code == 403
    # the away team reads the sheet differently: it disputes the room; the referee enters it again
    d = api.post(f"/events/{eid}/rounds/1/tables/1/dispute?room=open", {"reason": "第5副记错了"}, **as_side(rnd, 1, 1))
    assert d.status_code == 200 and d.data["table"]["room_status"]["open"]["status"] == "disputed", d.data
    assert d.data["table"]["room_status"]["open"]["dispute"]["reason"] == "第5副记错了"
    held = api.put(f"/events/{eid}/rounds/1/tables/1/result?room=open",
                   {"version": d.data["version"], "final": {"levels": {home: 8, away: 5}}}, **as_side(rnd, 1, 0))
    assert held.status_code == 409 and held.data["code"] == "disputed"
    assert api.post(f"/events/{eid}/rounds/1/tables/1/confirm?room=open", **as_side(rnd, 1, 1)).status_code == 409
    ref = api.put(f"/events/{eid}/rounds/1/tables/1/result?room=open",
                  {"version": d.data["version"], "final": {"levels": {home: 8, away: 5}}, "reason": "核对记分表"})
    assert ref.status_code == 200 and ref.data["table"]["room_status"]["open"]["status"] == "entered", ref.data
    conf = confirm_room(api, eid, rnd, 1, "open", 0)   # the referee entered it: either team confirms
    got = conf["table"]["room_status"]["open"]
    assert (got["status"], got["entered_side"], got["confirmed_by"], got["players"]) == (
        "confirmed", None, "table 1 side 1", {home: [0, 1], away: [0, 1]})
    # a confirmed room is the referee's: a phone cannot enter it again
    again = api.put(f"/events/{eid}/rounds/1/tables/1/result?room=open",
                    {"version": conf["version"], "final": {"levels": {home: 14, away: 2}}}, **as_side(rnd, 1, 0))
    assert again.status_code == 409 and again.data["code"] == "already_confirmed"
    # the table phone's view carries both rooms' state
    view = api.get(f"/events/{eid}/rounds/1/tables/1", **as_side(rnd, 1, 1)).data
    assert view["table"]["room_status"]["open"]["status"] == "confirmed" and "closed" not in view["table"]["room_status"]
    assert view["table"]["room_results"]["open"] == {"final": {"levels": {home: 8, away: 5}}}
    v = play_room(api, eid, rnd, 1, "closed", {home: 6, away: 6}, 1, conf["version"])   # away sits N–S here
    done = confirm_room(api, eid, rnd, 1, "closed", 0)
    # by hand: gained H 6 + 4 = 10 > A 3 + 4 = 7 → H 2 : 0; 级差分 one scale over both rooms: 13 ± 3 = 16 : 10
    assert done["status"] == "confirmed"
    assert done["points"] == {home: {"match_points": 2, "level_diff_points": 16},
                              away: {"match_points": 0, "level_diff_points": 10}}
    assert done["table"]["played"] == {"open": {home: [0, 1], away: [0, 1]}, "closed": {home: [2, 3], away: [2, 3]}}
    actions = [a["action"] for a in api.get(f"/events/{eid}/audit").data["audit"]]
    assert actions.count("room_result_entered") == 3 and actions.count("room_result_confirmed") == 1
    assert actions.count("room_result_disputed") == 1
    assert actions.count("result_confirmed") == 1


def test_lineups_are_checked_against_who_played(api):
    tid, eid, ids = setup_event(api, cfg("swiss", rounds=1), rosters([6, 5]))
    rnd = draw(api, eid, 1)
    home, away = (s["entry_id"] for s in rnd["tables"][0]["sides"])
    assert api.post(f"/events/{eid}/rounds/1/tables/1/lineup", {"open": [0, 1], "closed": [2, 3]},
                    **as_side(rnd, 1, 0)).status_code == 200
    version = api.get(f"/events/{eid}/rounds/1/tables/1", **as_side(rnd, 1, 0)).data["table"]["version"]
    room = {"version": version, "final": {"levels": {home: 9, away: 5}}}
    # the away team announced nothing: its phone must name who sat in the room
    missing = api.put(f"/events/{eid}/rounds/1/tables/1/result?room=open", room, **as_side(rnd, 1, 0))
    assert missing.status_code == 422 and missing.data["code"] == "lineup_missing"
    assert missing.data["details"] == {"entry_id": away, "room": "open"}
    # member 4 was not in the home team's announced lineup
    wrong = api.put(f"/events/{eid}/rounds/1/tables/1/result?room=open",
                    {**room, "players": {home: [0, 4], away: [3, 4]}}, **as_side(rnd, 1, 0))
    assert wrong.status_code == 422 and wrong.data["code"] == "lineup_mismatch"
    assert wrong.data["details"]["lineup"] == [0, 1] and wrong.data["details"]["played"] == [0, 4]
    out_of_roster = api.put(f"/events/{eid}/rounds/1/tables/1/result?room=open",
                            {**room, "players": {home: [1, 0], away: [4, 5]}}, **as_side(rnd, 1, 0))
    assert out_of_roster.status_code == 400   # the away team has five members: 0..4
    ok = api.put(f"/events/{eid}/rounds/1/tables/1/result?room=open",
                 {**room, "players": {home: [1, 0], away: [3, 4]}}, **as_side(rnd, 1, 0))
    assert ok.status_code == 200, ok.data
    assert ok.data["table"]["room_status"]["open"]["players"] == {home: [1, 0], away: [3, 4]}
    # in the closed room: away's member 3 sat in the open room already; home's lineup there is 2, 3
    twice = api.put(f"/events/{eid}/rounds/1/tables/1/result?room=closed",
                    {"version": ok.data["version"], "final": {"levels": {home: 5, away: 7}}, "players": {away: [3, 0]}},
                    **as_side(rnd, 1, 1))
    assert twice.status_code == 422 and twice.data["code"] == "lineup_mismatch"
    assert twice.data["details"]["other_room"] == "open"
    # the director records a change the referee allowed (with a reason): home's 4 for 3 in the closed room
    unexplained = api.put(f"/events/{eid}/rounds/1/tables/1/result?room=closed",
                          {"version": ok.data["version"], "final": {"levels": {home: 5, away: 7}},
                           "players": {home: [2, 4], away: [0, 1]}})
    assert unexplained.status_code == 422 and unexplained.data["code"] == "lineup_mismatch"
    ref = api.put(f"/events/{eid}/rounds/1/tables/1/result?room=closed",
                  {"version": ok.data["version"], "final": {"levels": {home: 5, away: 7}},
                   "players": {home: [2, 4], away: [0, 1]}, "reason": "3号队员受伤，裁判长同意换人"})
    assert ref.status_code == 200, ref.data
    audit = [a for a in api.get(f"/events/{eid}/audit").data["audit"] if a["action"] == "room_result_entered"]
    assert audit[-1]["reason"] == "3号队员受伤，裁判长同意换人" and audit[-1]["after"]["players"][home] == [2, 4]


def test_the_table_shows_each_teams_lineup_deadline(api, clock):
    tid, eid, ids = setup_event(api, cfg("swiss", rounds=1, size=4), rosters([4, 4]))
    rnd = draw(api, eid, 1)
    table = rnd["tables"][0]
    home, away = (s["entry_id"] for s in table["sides"])
    # the round starts 11:00 there (+08:00, 03:00 UTC): without seat choice by 10:45, with it by 10:55
    assert table["lineup_deadlines"] == {home: "2026-12-01T02:55:00+00:00", away: "2026-12-01T02:45:00+00:00"}
    clock.advance(minutes=50)
    late = api.post(f"/events/{eid}/rounds/1/tables/1/lineup", {"entry_id": away, "open": [0, 1], "closed": [2, 3]})
    assert late.status_code == 200 and late.data["late"] is True
    # posted by the director after the deadline: the other side (home) now has seat choice — it already had it
    assert late.data["table"]["seat_choice"] == home
    late_home = api.post(f"/events/{eid}/rounds/1/tables/1/lineup", {"entry_id": home, "open": [0, 1], "closed": [2, 3]},
                         **as_side(rnd, 1, 0))
    assert late_home.status_code == 200   # home's own deadline (10:55) has not passed


@pytest.mark.parametrize("body", [{"version": 0, "winner": None}])
def test_no_extra_deal_before_both_rooms_are_confirmed(api, body):
    tid, eid, ids = setup_event(api, cfg("knockout", size=4), rosters([4, 4]))
    rnd = draw(api, eid, 1)
    r = api.put(f"/events/{eid}/rounds/1/tables/1/result?room=tie_break", body, **as_side(rnd, 1, 0))
    assert r.status_code == 409 and r.data["code"] == "conflict"
