"""Issue 43: a big field's publisher keeps each entry as its pages show it (site_data.ShownEntry), not the whole
model, once the standings are worked out; the pages are the same bytes, a result's publish reads no entry, and a
publish that works the standings out again reads them whole."""
from __future__ import annotations

from chalicelib import bootstrap
from chalicelib.services import publishing
from tests.api.play import Recording, draw, enter_and_confirm, people, setup_event

CFG = {"name": "掼蛋", "game": "guandan", "entry": "pair", "capacity": 40, "fee": {"amount": 0},
       "stages": [{"format": "swiss", "rounds": 3}]}


def test_a_big_fields_entries_are_held_as_shown_with_the_same_pages(api, moto_repos, monkeypatch):
    from chalicelib.config import get_settings
    from chalicelib.publish.site_data import ShownEntry
    from chalicelib.services import publish_requests
    from chalicelib.store import rounds as store_rounds
    with monkeypatch.context() as m:   # no publish while the event is set up
        m.setattr(publish_requests, "request_publish", lambda *a, **k: None)
        tid, eid, ids = setup_event(api, CFG, people(8, 2, "甲队"))
        rnd = draw(api, eid)
    d = bootstrap.deps()

    def cold(live_standings_max: int) -> Recording:   # a new publisher process, publishing everything
        monkeypatch.setattr(get_settings(), "publish_live_standings_max", live_standings_max)
        publishing.forget_warm(d)
        store_rounds._ROUND_CACHE.clear()
        d.publisher = sink = Recording()
        publishing.publish_latest(d, tid)
        return sink

    def held() -> list:
        return d.publish_cache.tournament(tid).events[eid]["entries"]

    small = cold(10**6)   # a small field's publisher: the models kept
    assert len(held()) == len(ids) and not any(type(e) is ShownEntry for e in held())
    big = cold(4)         # 8 entries past 4: a big field's
    assert len(held()) == len(ids) and all(type(e) is ShownEntry for e in held())
    assert big.files.keys() == small.files.keys() and big.files == small.files

    reads = []
    real_list = d.repos.entries.list
    monkeypatch.setattr(d.repos.entries, "list", lambda e, *a, **k: reads.append(e) or real_list(e, *a, **k))
    t1 = rnd["tables"][0]
    x, y = (s["entry_id"] for s in t1["sides"])
    enter_and_confirm(api, eid, rnd, t1, {"final": {"levels": {x: 12, y: 9}}})   # publishes once confirmed
    assert d.publish_cache.last_stats[tid]["by_event"] == [eid] and reads == []   # from the cache, no entry read
    assert {f"t/{tid}/{eid}/entry-{e}.html" for e in (x, y)} <= set(big.written)
    moved = [f"{lang}t/{tid}/{eid}/{page}" for lang in ("", "en/", "vi/")
             for page in (f"entry-{x}.html", f"entry-{y}.html", "round-1.html")]
    warm = {k: big.files[k] for k in moved}
    again = cold(4)   # the same pages as a new publisher's, but for what the standings move (stale in a round)
    assert {k: _unranked(v) for k, v in warm.items()} == {k: _unranked(again.files[k]) for k in moved}

    # a publish that ranks the field again (the cache holding the entries as shown) reads them whole, and keeps
    # those held when they show the same (the caches keyed by them hold)
    ev_warm = d.publish_cache.tournament(tid).events[eid]
    event = next(e for e in d.repos.tournaments.get_with_events(tid)[1] if e.id == eid)
    was = ev_warm["entries"]
    ev_warm.pop("standings")   # (as when the field is to be ranked again)
    reads.clear()
    publishing.event_site_data(d, event, d.repos.tournaments.get(tid), ev_warm, [(0, 1, t1["number"])])
    assert reads == [eid] and ev_warm["entries"] is was
    monkeypatch.setattr(get_settings(), "publish_live_standings_max", 10**6)
    reads.clear()
    data = publishing.event_site_data(d, event, d.repos.tournaments.get(tid), ev_warm,
                                      [(0, 1, t1["number"])])
    assert reads == [eid] and data["standings"] and all(type(e) is not ShownEntry for e in ev_warm["entries"])


def _unranked(page: bytes) -> bytes:
    """A page without what the standings move (a big field's move at the close): the feed's version it names and
    the link card's leaders."""
    import re
    return re.sub(rb'<meta (name|property|itemprop)="[a-z:]*description" content="[^"]*">', b"",
                  re.sub(rb"\b[0-9a-f]{16}\b", b"", page))
