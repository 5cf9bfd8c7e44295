"""The publisher's cache (issue 29: a result publishes its event only) must survive between publishes with the
wiring the platform really runs with — no sink given to Deps, the sink made from the settings — not only with the
sink a test or bench hands in. A sink made anew per publish reset the cache every time (every result read the whole
tournament again: seconds at 10,000 entries)."""
from __future__ import annotations

from chalicelib import bootstrap
from chalicelib.config import get_settings
from chalicelib.services import publishing
from tests.api.play import draw, enter_and_confirm, people, setup_event

CFG = {"name": "掼蛋", "game": "guandan", "entry": "pair", "capacity": 40, "fee": {"amount": 0},
       "stages": [{"format": "swiss", "rounds": 3}]}


def test_a_result_publishes_by_event_with_the_default_sink(api, moto_repos, monkeypatch, tmp_path):
    monkeypatch.setenv("PUBLISH_DIR", str(tmp_path / "site"))
    get_settings.cache_clear()
    from chalicelib.services import publish_requests
    with monkeypatch.context() as m:
        m.setattr(publish_requests, "request_publish", lambda *a, **k: None)
        tid, eid, _ = setup_event(api, CFG, people(8, 2, "甲队"))
        rnd = draw(api, eid)
    d = bootstrap.deps()
    d.publisher = None   # the platform's own wiring (the test fixture gives a sink in memory)
    publishing.publish_latest(d, tid)
    assert (tmp_path / "site" / "t" / tid / eid / "round-1.html").exists()
    reads = []
    real_list = d.repos.entries.list
    monkeypatch.setattr(d.repos.entries, "list", lambda e, *a, **k: reads.append(e) or real_list(e, *a, **k))
    t1 = rnd["tables"][0]
    x, y = (s["entry_id"] for s in t1["sides"])
    enter_and_confirm(api, eid, rnd, t1, {"final": {"levels": {x: 12, y: 9}}})
    # from the publisher's cache: no entry read again (the same sink both times, so the cache was kept)
    assert bootstrap.deps().publish_cache.last_stats[tid]["by_event"] == [eid] and reads == []
    page = (tmp_path / "site" / "t" / tid / eid / "round-1.html").read_text(encoding="utf-8")
    assert "已确认" in page.split(f'<td class="n">{t1["number"]}</td>')[1].split("</tr>")[0]
