"""The hall (issue 28) through the routes: the round clock the director runs, announcements, and what the
publisher makes of them (feeds, hall.html, find.html)."""
from __future__ import annotations

import json
import re
from datetime import datetime

from chalicelib import bootstrap
from chalicelib.services import hall
from chalicelib.services.publishing import publish_tournament

from .play import draw, people, setup_event


def guandan(rounds=3):
    return {"name": "掼蛋", "game": "guandan", "entry": "pair", "capacity": 40, "fee": {"amount": 0},
            "stages": [{"format": "swiss", "rounds": rounds, "scoring": {"method": "match_points", "minutes": 40}}]}


def _feed(tid, eid=None, lang=""):
    files = bootstrap.deps().publisher.files
    return json.loads(files[f"{lang}t/{tid}/{eid + '/' if eid else ''}feed.json"])


def test_the_director_runs_the_clock_and_every_feed_carries_it(api, moto_repos, clock):
    tid, eid, ids = setup_event(api, guandan(), people(8, 2, "队"))
    draw(api, eid)
    publish_tournament(bootstrap.deps(), tid)
    assert _feed(tid, eid)["clock"] == {"event_id": eid, "round": 1, "state": "scheduled", "starts_at": None,
                                        "ends_at": None, "extended_minutes": 0}
    r = api.post(f"/events/{eid}/rounds/1/clock", {"action": "start"})
    assert r.status_code == 200, r.data
    start = clock.now
    assert r.data["state"] == "running" and r.data["game"] == "guandan" and r.data["tournament_id"] == tid
    assert datetime.fromisoformat(r.data["ends_at"]) - start == (datetime.fromisoformat(r.data["ends_at"]) - start)
    assert (datetime.fromisoformat(r.data["ends_at"]) - datetime.fromisoformat(r.data["starts_at"])).total_seconds() == 40 * 60
    clock.advance(minutes=10)
    paused = api.post(f"/events/{eid}/rounds/1/clock", {"action": "pause"}).data
    assert paused["state"] == "paused" and paused["paused_at"] == clock.now.isoformat()
    # published at once: the event's feed, the tournament's feed, in every language
    for lang in ("", "en/", "vi/"):
        assert _feed(tid, eid, lang)["clock"]["paused_at"] == clock.now.isoformat()
        assert _feed(tid, lang=lang)["events"][0]["clock"]["state"] == "paused"
    assert api.post(f"/events/{eid}/rounds/1/clock", {"action": "pause"}).data["code"] == "clock_state"
    clock.advance(minutes=3)
    resumed = api.post(f"/events/{eid}/rounds/1/clock", {"action": "resume"}).data
    assert resumed["state"] == "running" and "paused_at" not in {k for k, v in resumed.items() if v}
    # the three paused minutes are given back: 30 left, as when it paused
    assert (datetime.fromisoformat(resumed["ends_at"]) - clock.now).total_seconds() == 30 * 60
    ext = api.post(f"/events/{eid}/rounds/1/clock", {"action": "extend", "minutes": 5}).data
    assert ext["extended_minutes"] == 5 and (datetime.fromisoformat(ext["ends_at"]) - clock.now).total_seconds() == 35 * 60
    shorter = api.post(f"/events/{eid}/rounds/1/clock", {"action": "extend", "minutes": -2}).data
    assert shorter["extended_minutes"] == 3
    assert api.get(f"/events/{eid}/rounds/1/clock").data == shorter
    audit = [a["action"] for a in bootstrap.deps().repos.rounds.audit(eid)]
    assert {"clock_start", "clock_pause", "clock_resume", "clock_extend"} <= set(audit)


def test_bad_clock_requests_answer_stable_codes(api, moto_repos):
    tid, eid, ids = setup_event(api, guandan(), people(4, 2, "队"))
    assert api.post(f"/events/{eid}/rounds/1/clock", {"action": "start"}).status_code == 404   # no round yet
    draw(api, eid)
    for body, status, code in [({"action": "stop"}, 400, "invalid_request"),
                               ({"action": "extend"}, 400, "invalid_request"),
                               ({"action": "extend", "minutes": 500}, 400, "invalid_request"),
                               ({"action": "resume"}, 409, "clock_state"),
                               ({"action": "extend", "minutes": 5}, 409, "clock_state")]:
        r = api.post(f"/events/{eid}/rounds/1/clock", body)
        assert (r.status_code, r.data["code"]) == (status, code), (body, r.data)
    assert api.post(f"/events/{eid}/rounds/1/clock", {"action": "start", "minutes": 30}).status_code == 200
    r = api.post(f"/events/{eid}/rounds/1/clock", {"action": "start"})
    assert (r.status_code, r.data["code"], r.data["details"]) == (409, "clock_state", {"state": "running"})
    r = api.post(f"/events/{eid}/rounds/1/clock", {"action": "extend", "minutes": -60})
    assert r.status_code == 400 and r.data["code"] == "invalid_request"   # it would end before it began


def test_another_organiser_cannot_touch_the_clock_or_the_announcements(api, other_api, moto_repos):
    tid, eid, ids = setup_event(api, guandan(), people(4, 2, "队"))
    draw(api, eid)
    assert other_api.post(f"/events/{eid}/rounds/1/clock", {"action": "start"}).status_code == 404
    assert other_api.post(f"/tournaments/{tid}/announcements", {"text": "x"}).status_code == 404
    ann = api.post(f"/tournaments/{tid}/announcements", {"text": "第 3 轮推迟 10 分钟"}).data
    assert other_api.delete(f"/announcements/{ann['id']}").status_code == 404
    assert api.delete("/announcements/01NOSUCHANNOUNCEMENT00000").status_code == 404


def test_announcements_reach_the_feeds_and_the_board_until_taken_down(api, moto_repos, clock):
    tid, eid, ids = setup_event(api, guandan(), people(6, 2, "队"))
    draw(api, eid)
    r = api.post(f"/tournaments/{tid}/announcements", {"text": "第 3 轮推迟 10 分钟"})
    assert r.status_code == 201 and set(r.data) == {"id", "text", "at"}
    clock.advance(minutes=1)
    second = api.post(f"/tournaments/{tid}/announcements", {"text": "午餐在二楼"}).data
    listed = api.get(f"/tournaments/{tid}/announcements").data["announcements"]
    assert [a["text"] for a in listed] == ["午餐在二楼", "第 3 轮推迟 10 分钟"]   # newest first
    for lang in ("", "en/", "vi/"):
        assert [a["text"] for a in _feed(tid, lang=lang)["announcements"]] == ["午餐在二楼", "第 3 轮推迟 10 分钟"]
        assert _feed(tid, eid, lang)["announcements"][0]["id"] == second["id"]
    board = bootstrap.deps().publisher.files[f"t/{tid}/hall.html"].decode()
    assert "第 3 轮推迟 10 分钟" in board and "午餐在二楼" in board
    assert api.post(f"/tournaments/{tid}/announcements", {"text": ""}).status_code == 400
    assert api.post(f"/tournaments/{tid}/announcements", {"text": "长" * 201}).status_code == 400
    assert api.delete(f"/announcements/{second['id']}").status_code == 204
    assert [a["text"] for a in _feed(tid)["announcements"]] == ["第 3 轮推迟 10 分钟"]
    assert api.delete(f"/announcements/{second['id']}").status_code == 404


def test_the_board_and_find_pages_name_every_table_and_seat(api, moto_repos):
    entries = [{"name": "张三丰队", "club": "武当商会", "members": [{"name": "张三丰", "phone": "13900000001"}, {"name": "李四"}]},
               *people(5, 2, "队")]
    tid, eid, ids = setup_event(api, guandan(), entries)
    rnd = draw(api, eid)
    publish_tournament(bootstrap.deps(), tid)
    files = bootstrap.deps().publisher.files
    board, find = files[f"t/{tid}/hall.html"].decode(), files[f"t/{tid}/find.html"].decode()
    assert board.count('class="row"') == len(rnd["tables"]) + len(rnd.get("byes") or []) + 6   # tables, byes, standings rows
    assert "武当商会" in board and "南北" in board and "<svg" in board    # club, seats in words, the QR to find.html
    assert "13900000001" not in board and "13900000001" not in find
    hit = [line for line in find.splitlines() if "zsfd" in line]
    assert hit and 'data-q="张三丰队|张三丰|李四|zsfd|zsf|ls"' in hit[0]   # names and pinyin initials of the entry and its members
    assert 'lang="vi"' in files[f"vi/t/{tid}/hall.html"].decode() and "Tìm bàn của tôi" in files[f"vi/t/{tid}/find.html"].decode()


def test_clock_arithmetic_is_pure():
    t0 = datetime.fromisoformat("2026-12-01T10:00:00+08:00")
    c = hall.apply(None, "start", t0, minutes=None, duration=40)
    assert c["ends_at"] == "2026-12-01T10:40:00+08:00" and hall.clock_state(c) == "running"
    c = hall.apply(c, "pause", datetime.fromisoformat("2026-12-01T10:10:00+08:00"), minutes=None, duration=40)
    c = hall.apply(c, "resume", datetime.fromisoformat("2026-12-01T10:25:00+08:00"), minutes=None, duration=40)
    assert (c["starts_at"], c["ends_at"]) == ("2026-12-01T10:15:00+08:00", "2026-12-01T10:55:00+08:00")
    assert hall.initials("张三丰") == "zsf" and hall.initials("Nguyễn Văn An") == "nva" and hall.fold("Đức") == "duc"


def test_the_pages_draw_places_leaders_and_guandan_levels_as_svg(api, moto_repos):
    """Issue 28 item 5: an entry's place after each closed round, the leaders' places on the event page, and a
    Guandan table's levels deal by deal, as inline SVG (no script) — from the standings as they stood."""
    from .play import close, enter_and_confirm
    tid, eid, ids = setup_event(api, guandan(), people(8, 2, "队"))
    orders = [["N", "S", "E", "W"], ["E", "N", "W", "S"], ["N", "E", "S", "W"]]   # +3, +1 (E–W), +2
    for n in (1, 2):
        rnd = draw(api, eid, seed=n)
        for t in rnd["tables"]:
            enter_and_confirm(api, eid, rnd, t, {"deals": [{"order": o} for o in orders]})
        close(api, eid, n)
    publish_tournament(bootstrap.deps(), tid)
    files = bootstrap.deps().publisher.files
    from chalicelib.services.standings import event_standings
    d = bootstrap.deps()
    rows = event_standings(d, d.repos.events.get(eid)).standings
    leader = rows[0].entry_id
    page = files[f"t/{tid}/{eid}/entry-{leader}.html"].decode()
    assert page.count("<svg") == 2 and 'data-chart="place"' in page and "<script" not in page.split("</main>")[0]
    # issue 43: the place chart is in the entry's places file (a close rewrites it, not the page), drawn by live.js
    src = re.search(r'data-places="(places-\d+\.json)" data-entry="' + leader, page).group(1)
    place = json.loads(files[f"t/{tid}/{eid}/{src}"])["charts"][leader]
    assert place.count("<svg") == 1 and "第1名" in place    # the last place named at the line's end
    levels = page.split('data-chart="levels"')[1]
    assert levels.count("<circle") == 2 * (len(orders) + 1)   # both sides, the start and each deal
    assert ">A<" in levels and ">2<" in levels             # the level axis in Guandan's names
    event_page = files[f"t/{tid}/{eid}/index.html"].decode()
    assert 'data-chart="leaders"' in event_page and event_page.count('<li><i style="background:') == 5
    assert f"1. {rows[0].name}" in event_page
    vi = files[f"vi/t/{tid}/{eid}/entry-{leader}.html"].decode()
    assert "Thứ hạng sau mỗi vòng" in vi and "hạng 1" in json.loads(files[f"vi/t/{tid}/{eid}/{src}"])["charts"][leader]


def test_a_closed_round_publishes_no_clock_so_the_board_stops_counting(api, moto_repos):
    """Issue 39: after the last round closed (the event over) the hall board and the phones kept counting down the
    round's old clock; a closed round's feed carries none."""
    from .play import close, enter_and_confirm
    tid, eid, ids = setup_event(api, guandan(rounds=1), people(4, 2, "队"))
    rnd = draw(api, eid)
    assert api.post(f"/events/{eid}/rounds/1/clock", {"action": "start"}).status_code == 200
    publish_tournament(bootstrap.deps(), tid)
    assert _feed(tid, eid)["clock"]["state"] == "running"
    for t in rnd["tables"]:
        enter_and_confirm(api, eid, rnd, t, {"deals": [{"order": ["N", "S", "E", "W"]}]})
    close(api, eid, 1)
    publish_tournament(bootstrap.deps(), tid)
    assert _feed(tid, eid)["clock"] is None
    assert _feed(tid)["events"][0]["clock"] is None
