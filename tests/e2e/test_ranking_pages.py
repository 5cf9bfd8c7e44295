"""The published ranking page on a 360-px phone in zh-CN, en and vi (issue 42): rank, name and points in view,
nothing swiped sideways, the pager and the player's page reached by tapping — real Chromium over a real HTTP
server of the published files."""
from __future__ import annotations

import functools
import http.server
import threading

from chalicelib import bootstrap
from chalicelib.config import get_settings
from chalicelib.publish.sinks import LocalSink
from chalicelib.services.ranking_pages import publish_ranking

INSIDE = """sel => [...document.querySelectorAll(sel)].filter(e => e.offsetParent !== null).map(e => {
  const r = e.getBoundingClientRect(); return [e.textContent.trim().slice(0, 30), r.left, r.right]; })"""


def _ranking(repos, clock) -> str:
    """45 players with long names and clubs (the widest rows a page meets), two events, ratings some provisional."""
    repos.rankings.create({"id": "RK1", "organiser_id": "O1", "name": "广西商会掼蛋联赛 2026 年度积分排名",
                           "game": "guandan", "points": {"places": [100, 80, 65], "decay_per_year": 0.15},
                           "rating": True, "provisional_tables": 5})
    for k, date in enumerate(("2026-03-01", "2025-09-01")):
        repos.rankings.add_event("RK1", {"event_id": f"E{k}", "tournament": "恒全杯商会联谊赛暨第三届掼蛋公开赛",
                                         "event": "掼蛋双人赛（公开组）", "date": date})
    names = ["欧阳建国", "Nguyễn Thị Phương Thảo", "司马长风特别长的名字测试", "李"]
    players = [{"player_id": f"p{i:019d}", "name": names[i % 4] + str(i), "club": "广西壮族自治区南宁市潮汕商会" if i % 2 else "",
                "mu": 30 - i * 0.2, "sigma": 3 + (i % 7), "tables": i % 9,
                "results": {"E0": [i + 1, round(100 - i * 1.5, 2)], **({"E1": [i + 2, 50.0]} if i % 3 == 0 else {})}}
               for i in range(45)]
    repos.rankings.save_players("RK1", players)
    return "RK1"


def test_the_ranking_page_fits_a_360_px_phone_in_three_languages(moto_repos, clock, browser, shot, tmp_path,
                                                                 monkeypatch):
    monkeypatch.setattr(get_settings(), "publish_page_rows", 20)   # the settings are read once per process
    rid = _ranking(moto_repos, clock)
    deps = bootstrap.deps()
    deps.publisher = LocalSink(str(tmp_path))
    done = publish_ranking(deps, rid)
    assert done["pages"] == 3 and done["players"] == 45
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    site = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        for prefix, locale, word in (("", "zh-CN", "积分排名"), ("/en", "en", "Ranking"), ("/vi", "vi", "Bảng xếp hạng")):
            ctx = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True,
                                      locale=locale)
            failed = []
            ctx.on("response", lambda r, failed=failed: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
            page = ctx.new_page()
            page.goto(f"{site}{prefix}/r/{rid}/index.html")
            assert word in page.inner_text("h2")
            assert page.evaluate("document.scrollingElement.scrollWidth <= innerWidth"), locale
            for sel in (".rk td.pt", ".rk td.nm", ".rk td:nth-child(4)"):
                cells = page.evaluate(INSIDE, sel)
                assert len(cells) == 20, (locale, sel)
                assert all(0 <= left and right <= 360 for _, left, right in cells), (locale, sel, cells[:3])
            shot(page, f"ranking-{locale}")
            page.click("nav.pager a[rel=next]")
            page.wait_for_url(f"**/r/{rid}/page-2.html")
            assert page.evaluate("document.scrollingElement.scrollWidth <= innerWidth"), locale
            page.click(".rk td.nm a >> nth=0")
            page.wait_for_url("**/p/*.html")
            assert page.evaluate("document.scrollingElement.scrollWidth <= innerWidth"), locale
            shot(page, f"player-{locale}")
            ctx.close()
            assert not failed, failed
    finally:
        server.shutdown()
