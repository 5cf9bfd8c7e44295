"""Retention (issue 41 item 4) through the API: the organiser sets `retention_days` (bounds with a clear 4xx), the
hold sweeper's job erases a finished tournament's contact data once it is due, and the published standings are the
same bytes before and after (names and results stay)."""
from __future__ import annotations

import logging

from chalicelib import bootstrap
from chalicelib.api import jobs
from chalicelib.publish.sinks import MemorySink
from chalicelib.services.publishing import publish_tournament
from tests.api.play import close, draw, enter_and_confirm, people, setup_event
from tests.factories import tournament_body

CFG = {"name": "掼蛋", "game": "guandan", "entry": "pair", "capacity": 40, "fee": {"amount": 0},
       "stages": [{"format": "swiss", "rounds": 3}]}


def test_retention_days_default_bounds_and_patch(api):
    made = api.post("/tournaments", tournament_body())
    assert made.status_code == 201 and made.data["retention_days"] == 180
    for bad in (29, 1096, "x"):
        refused = api.post("/tournaments", tournament_body(retention_days=bad))
        assert refused.status_code == 400 and refused.data["code"] == "invalid_request", refused.data
    tid = made.data["id"]
    assert api.patch(f"/tournaments/{tid}", {"retention_days": 20}).status_code == 400
    assert api.patch(f"/tournaments/{tid}", {"retention_days": 30}).data["retention_days"] == 30
    assert api.get(f"/public/tournaments/{tid}", token=None).data["retention_days"] == 30


def test_the_sweep_erases_phones_and_leaves_the_published_standings_as_they_were(api, moto_repos, clock, caplog,
                                                                              monkeypatch):
    from chalicelib.services import publish_requests
    monkeypatch.setattr(publish_requests, "request_publish", lambda *a, **k: None)   # the publishes below only
    caplog.set_level(logging.DEBUG, logger="cardgames")
    tid, eid, ids = setup_event(api, CFG, people(6, 2, "队"), tournament_body(retention_days=30))
    rnd = draw(api, eid)
    for t in rnd["tables"]:
        a, b = (s["entry_id"] for s in t["sides"])
        enter_and_confirm(api, eid, rnd, t, {"final": {"levels": {a: 10, b: 8}}})
    close(api, eid, 1)
    d = bootstrap.deps()
    d.publisher = before = MemorySink()
    published_at = clock.now
    publish_tournament(d, tid, force=True)
    phones = [m["phone"] for e in api.get(f"/events/{eid}/entries").data["entries"] for m in e["members"] if m["phone"]]
    assert len(phones) == 6

    clock.advance(days=30)                        # ended 2026-12-12; 30 days later is not yet "more than 30"
    assert jobs.sweep_holds()["retention"]["tournaments"] == 0
    clock.advance(days=12)
    swept = jobs.sweep_holds()["retention"]
    # the manage links, the results to confirm: addressed to the phones (the worker's jobs — the draw's fan-out,
    # the final places — are addressed to nobody)
    queued = [m for m in d.repos.messages.for_tournament(tid) if m.channel != "job"]
    assert len(queued) >= 6 and swept == {"tournaments": 1, "entries": 6, "registrations": 0,
                                          "messages": len(queued), "players": 0, "more": False}
    assert {m.to for m in d.repos.messages.for_tournament(tid)} == {""}
    listed = api.get(f"/events/{eid}/entries").data["entries"]
    assert [m["phone"] for e in listed for m in e["members"]] == [None] * 12
    assert sorted(e["name"] for e in listed) == [f"队{i}" for i in range(6)]

    d.publisher = after = MemorySink()
    clock.now = published_at                       # the pages say when they were made: the same moment, for bytes
    publish_tournament(d, tid, force=True)
    standings = [k for k in before.files if k.endswith("standings.html")]
    assert len(standings) == 3                     # zh, en, vi
    for key in standings:
        assert after.files[key] == before.files[key], key
    assert not any(p in caplog.text for p in phones) and "队0" not in caplog.text


def test_after_the_sweep_the_erased_tournament_leaves_me_and_the_export_the_player_stays(api, wired, clock):
    """Issue 41 follow-up: an entry whose contact data the sweep erased is linked to no phone any more (anonymous,
    as on the published pages): it leaves the player's "我的" and export; the player, who still holds an entry in
    another tournament, keeps its account (name, e-mail)."""
    from tests.api.test_players_me import _signed_in
    phone = "13712345678"
    entries = {}
    for name, ends, days in (("早赛", "2026-12-12", 30), ("晚赛", "2027-03-20", 180)):
        tid = api.post("/tournaments", tournament_body(name=name, starts_on=ends, ends_on=ends,
                                                       retention_days=days)).data["id"]
        eid = api.post(f"/tournaments/{tid}/events", CFG).data["id"]
        made = api.post(f"/events/{eid}/entries", {"name": "队", "members": [{"name": "甲", "phone": phone},
                                                                            {"name": "乙"}]}, token=None)
        assert made.status_code == 201, made.data
        entries[name] = made.data["entry"]["id"]
    me = _signed_in(api, wired, phone)
    assert api.patch("/players/me", {"email": "jia@example.com"}, token=None, headers=me).status_code == 200
    listed = api.get("/players/me", token=None, headers=me).data["registrations"]
    assert sorted(r["tournament"] for r in listed) == ["早赛", "晚赛"]

    clock.advance(days=42)                         # the early one ended more than 30 days ago; the late one not yet
    swept = jobs.sweep_holds()["retention"]
    assert swept["tournaments"] == 1 and swept["entries"] == 1 and swept["players"] == 0
    me = _signed_in(api, wired, phone)             # the session of 42 days ago has expired
    got = api.get("/players/me", token=None, headers=me)
    assert got.status_code == 200 and got.data["email"] == "jia@example.com"
    assert [r["entry_id"] for r in got.data["registrations"]] == [entries["晚赛"]]
    exported = api.get("/players/me/export", token=None, headers=me).data
    assert [e["id"] for e in exported["entries"]] == [entries["晚赛"]]
    assert {m["tournament_id"] for m in exported["messages"]} <= {e["tournament_id"] for e in exported["entries"]}
