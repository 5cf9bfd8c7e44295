"""Issue 29: big published pages are split into pages (a setting; small here so a small field proves it), and a
small event's pages stay one page each."""
from __future__ import annotations

import re

import pytest

from chalicelib import bootstrap
from chalicelib.config import get_settings
from chalicelib.publish.sinks import MemorySink
from chalicelib.services import publishing
from chalicelib.services.publishing import publish_tournament
from tests.api.play import Recording, close, draw, enter_and_confirm, people, setup_event

CFG = {"name": "掼蛋", "game": "guandan", "entry": "pair", "capacity": 40, "fee": {"amount": 0},
       "stages": [{"format": "swiss", "rounds": 3}]}


@pytest.fixture
def rows(monkeypatch):
    def set_rows(n: int) -> None:
        monkeypatch.setattr(get_settings(), "publish_page_rows", n)
    return set_rows


def _played(api, n_entries: int = 11):
    """An event of n pairs (odd: one bye) with round 1 played and closed and round 2 drawn."""
    tid, eid, ids = setup_event(api, CFG, people(n_entries, 2, "队"))
    rnd = draw(api, eid)
    for t in rnd["tables"]:
        a, b = (s["entry_id"] for s in t["sides"])
        enter_and_confirm(api, eid, rnd, t, {"final": {"levels": {a: 10 + t["number"] % 4, b: 8}}})
    close(api, eid, 1)
    rnd2 = draw(api, eid, seed=2)
    return tid, eid, ids, rnd, rnd2


def _text(sink, key: str) -> str:
    return sink.files[key].decode()


def _links(html: str) -> list[str]:
    return re.findall(r'href="([^"]+)"', html)


def test_big_standings_and_rounds_are_paginated_and_small_ones_are_not(api, moto_repos, rows, monkeypatch):
    from chalicelib.services import publish_requests
    monkeypatch.setattr(publish_requests, "request_publish", lambda *a, **k: None)   # one publish, below
    tid, eid, ids, rnd, rnd2 = _played(api)
    d = bootstrap.deps()
    d.publisher = sink = MemorySink()
    rows(4)   # 11 entries: standings in 3 pages of 4 / 4 / 3; round 1's 5 tables and a bye in 2 pages
    publish_tournament(d, tid, force=True)
    ep = f"t/{tid}/{eid}/"
    for lang_prefix in ("", "en/", "vi/"):
        base = lang_prefix + ep
        pages = [_text(sink, base + name) for name in ("standings.html", "standings-2.html", "standings-3.html")]
        assert base + "standings-4.html" not in sink.files
        seen = [re.findall(r'<td class="nm"><a href="entry-([^"]+)\.html">', p) for p in pages]
        assert [len(s) for s in seen] == [4, 4, 3]
        assert sorted(sum(seen, [])) == sorted(ids)                  # every entry on exactly one page
        for _i, p in enumerate(pages, start=1):
            assert 'data-testid="pager"' in p and 'aria-current="page"' in p
            for href in _links(p):                                      # the pager's links all lead somewhere
                if href.startswith(("standings", "round-", "entry-", "index")):
                    assert base + href in sink.files, href
            assert "../find.html" in p                                  # and a search beside them
        ranks = [int(x) for x in re.findall(r'<tr><td class="n">(\d+)</td>', pages[1])]
        assert ranks == sorted(ranks) and ranks[0] >= 5                # page 2 holds places 5 onwards
        r1 = [_text(sink, base + "round-1.html"), _text(sink, base + "round-1-2.html")]
        tables = [re.findall(r'<tr><td class="n">(\d+)</td>', p) for p in r1]
        assert tables[0] == ["1", "2", "3", "4"] and tables[1] == ["5"] and base + "round-1-3.html" not in sink.files
        assert "entry-" in r1[1].split("<table>")[1] and r1[1].count('<td class="n">–</td>') == 1   # the bye, last
        event = _text(sink, base + "index.html")                       # the event page: page 1 of the latest round
        assert len(re.findall(r'<tr><td class="n">(\d+)</td>', event.split("<h3>")[1])) == 4
        assert "round-2-2.html" in event
    assert "第 2 / 3 页" in _text(sink, ep + "standings-2.html") and "Page 2 of 3" in _text(sink, "en/" + ep + "standings-2.html")
    assert "Trang 2/3" in _text(sink, "vi/" + ep + "standings-2.html")

    rows(250)   # the default: one page each, no pager, exactly the pages as they were before pagination
    d.publisher = small = MemorySink()
    publish_tournament(d, tid, force=True)
    assert not any(re.search(r"(standings|round-\d+)-\d+\.html$", k) for k in small.files)
    assert not any('data-testid="pager"' in v.decode(errors="ignore") for k, v in small.files.items() if k.endswith(".html"))
    assert len(re.findall(r'<td class="nm"><a href="entry-', _text(small, ep + "standings.html"))) == len(ids)


def test_one_result_rewrites_only_the_page_holding_its_table(api, moto_repos, rows, monkeypatch):
    from chalicelib.services import publish_requests
    with monkeypatch.context() as m:   # no publish while the field is set up: one below, then the result's
        m.setattr(publish_requests, "request_publish", lambda *a, **k: None)
        tid, eid, ids, rnd, rnd2 = _played(api, 17)   # round 2: 8 tables and a bye, pages of 3
    rows(3)
    d = bootstrap.deps()

    d.publisher = sink = Recording()
    publishing.publish_latest(d, tid)
    t = next(x for x in rnd2["tables"] if x["number"] == 5)      # on page 2 of round 2 (tables 4–6)
    a, b = (s["entry_id"] for s in t["sides"])
    sink.written.clear()
    enter_and_confirm(api, eid, rnd2, t, {"final": {"levels": {a: 12, b: 9}}})   # publishes once confirmed
    rounds_written = {k for k in sink.written if "/round-" in k}
    assert rounds_written == {f"{p}t/{tid}/{eid}/round-2-2.html" for p in ("", "en/", "vi/")}
    entries_written = {k.rsplit("entry-", 1)[1][:-5] for k in sink.written if "/entry-" in k}
    assert entries_written == {a, b}
    assert "5" in re.findall(r'<tr><td class="n">(\d+)</td>', _text(sink, f"t/{tid}/{eid}/round-2-2.html"))
    assert "已确认" in _text(sink, f"t/{tid}/{eid}/round-2-2.html").split('<td class="n">5</td>')[1].split("</tr>")[0]
