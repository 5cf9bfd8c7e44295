"""Issue 29: after a result the publisher reads and publishes only that event (and in it only the changed tables),
from its own cache; anything it was not told about, or another publisher in between, sends it back to reading
everything. A small field proves it; bench/publish.py has the figures at 10,000 entries."""
from __future__ import annotations

from chalicelib import bootstrap
from chalicelib.services import publishing
from chalicelib.services.publish_requests import request_publish
from tests.api.play import Recording, draw, enter_and_confirm, people, setup_event

CFG = {"name": "掼蛋", "game": "guandan", "entry": "pair", "capacity": 40, "fee": {"amount": 0},
       "stages": [{"format": "swiss", "rounds": 3}]}


def test_a_result_publishes_its_event_from_the_cache_and_anything_else_reads_again(api, moto_repos, monkeypatch):
    from chalicelib.services import publish_requests
    with monkeypatch.context() as m:   # no publish while the events are set up: the first one is below
        m.setattr(publish_requests, "request_publish", lambda *a, **k: None)
        tid, a_eid, a_ids = setup_event(api, CFG, people(8, 2, "甲队"))
        r = api.post(f"/tournaments/{tid}/events", {**CFG, "name": "斗地主"})
        b_eid = r.data["id"]
        for body in people(6, 2, "乙队"):
            reg = api.post(f"/events/{b_eid}/entries", body, token=None)
            api.post(f"/events/{b_eid}/entries/{reg.data['entry']['id']}/check-in")
        rnd = draw(api, a_eid)
        rnd_b = draw(api, b_eid)
    d = bootstrap.deps()
    d.publisher = sink = Recording()
    publishing.publish_latest(d, tid)           # a publish through the lease: the cache is current from here
    reads = []
    real_list = d.repos.entries.list
    monkeypatch.setattr(d.repos.entries, "list", lambda eid, *a, **k: reads.append(eid) or real_list(eid, *a, **k))

    t1, t2, t3 = rnd["tables"][:3]
    sink.written.clear()
    from chalicelib.publish.site_pages import PageOut
    visited, real_unchanged = [], PageOut.unchanged
    monkeypatch.setattr(PageOut, "unchanged", lambda out, key, inputs: visited.append(key) or real_unchanged(out, key, inputs))
    x, y = (s["entry_id"] for s in t1["sides"])
    enter_and_confirm(api, a_eid, rnd, t1, {"final": {"levels": {x: 12, y: 9}}})   # publishes once confirmed
    stats = bootstrap.deps().publish_cache.last_stats[tid]
    assert stats["by_event"] == [a_eid] and reads == []                # by event, no entry read again
    # only the two entries' pages are even looked at (in each language); the others' lines are carried
    assert sorted(k.rsplit("/", 1)[1] for k in visited if "/entry-" in k) == sorted(3 * [f"entry-{x}.html", f"entry-{y}.html"])
    assert stats["files"] > len(a_ids) * 3   # every page is still counted
    assert not any(f"/{b_eid}/" in k for k in sink.written)            # the other event's pages are left alone
    assert {f"t/{tid}/{a_eid}/entry-{e}.html" for e in (x, y)} <= set(sink.written)
    assert not any(f"entry-{e}.html" in k for k in sink.written for e in a_ids if e not in (x, y))
    page = sink.files[f"t/{tid}/{a_eid}/round-1.html"].decode()
    assert "已确认" in page.split(f'<td class="n">{t1["number"]}</td>')[1].split("</tr>")[0]
    assert f"t/{tid}/{b_eid}/index.html" in sink.files and f"t/{tid}/{a_eid}/standings.html" in sink.written

    # A result entered but not confirmed asks for no publish; the next result's publish finds it anyway (the
    # round's rev moved by more than the one write it was told of: the round is read again whole).
    u, v = (s["entry_id"] for s in t2["sides"])
    put = api.put(f"/events/{a_eid}/rounds/1/tables/{t2['number']}/result",
                  {"version": 0, "final": {"levels": {u: 13, v: 4}}}, token=None, headers={"X-Table-Code": t2["codes"][0]})
    assert put.status_code == 200
    p, q = (s["entry_id"] for s in t3["sides"])
    enter_and_confirm(api, a_eid, rnd, t3, {"final": {"levels": {p: 11, q: 9}}})
    assert bootstrap.deps().publish_cache.last_stats[tid]["by_event"] == [a_eid] and reads == []
    page = sink.files[f"t/{tid}/{a_eid}/round-1.html"].decode()
    assert "待确认" in page.split(f'<td class="n">{t2["number"]}</td>')[1].split("</tr>")[0]

    # The round clock: the feeds and the board only, no event read again, and the event's own feed carries it
    sink.written.clear()
    assert api.post(f"/events/{a_eid}/rounds/1/clock", {"action": "start"}).status_code == 200
    assert bootstrap.deps().publish_cache.last_stats[tid]["by_event"] == [] and reads == []
    assert not any(k.endswith(".html") and "/entry-" in k for k in sink.written)
    import json
    assert json.loads(sink.files[f"t/{tid}/{a_eid}/feed.json"])["clock"]["state"] == "running"

    # Anything else (an entry renamed: no table change) is read again, whatever event it is in
    before = d.repos.entries.get(b_eid, d.repos.entries.list(b_eid)[0].id)
    reads.clear()
    d.repos.entries.transition(before, before.model_copy(update={"name": "改名队"}), take_place=False)
    request_publish(d, tid)
    assert bootstrap.deps().publish_cache.last_stats[tid]["by_event"] is None and set(reads) >= {a_eid, b_eid}
    assert "改名队" in sink.files[f"t/{tid}/{b_eid}/entry-{before.id}.html"].decode()

    # Another publisher took asks of this event's lease meanwhile (the count says so): this one does not trust its
    # cache (issue 43: each event has a lease of its own)
    t4 = rnd["tables"][3]
    d.repos.publish_leases.ask(tid, scope=a_eid)
    d.repos.publish_leases.take(tid, scope=a_eid)
    reads.clear()
    m, w = (s["entry_id"] for s in t4["sides"])
    enter_and_confirm(api, a_eid, rnd, t4, {"final": {"levels": {m: 10, w: 8}}})
    assert bootstrap.deps().publish_cache.last_stats[tid]["by_event"] is None and a_eid in reads
    page = sink.files[f"t/{tid}/{a_eid}/round-1.html"].decode()
    assert "已确认" in page.split(f'<td class="n">{t4["number"]}</td>')[1].split("</tr>")[0]

    # A big field (more entries than publish_live_standings_max): a result in the open round leaves the
    # standings as they were (they move at the close); its round and entry pages go out as before
    from chalicelib.config import get_settings
    monkeypatch.setattr(get_settings(), "publish_live_standings_max", 4)
    tb = rnd_b["tables"][0]
    g, h = (s["entry_id"] for s in tb["sides"])
    before = sink.files[f"t/{tid}/{b_eid}/standings.html"]
    sink.written.clear()
    enter_and_confirm(api, b_eid, rnd_b, tb, {"final": {"levels": {g: 14, h: 2}}})
    assert bootstrap.deps().publish_cache.last_stats[tid]["by_event"] == [b_eid]
    assert f"t/{tid}/{b_eid}/standings.html" not in sink.written and sink.files[f"t/{tid}/{b_eid}/standings.html"] == before
    assert {f"t/{tid}/{b_eid}/entry-{g}.html", f"t/{tid}/{b_eid}/round-1.html"} <= set(sink.written)
