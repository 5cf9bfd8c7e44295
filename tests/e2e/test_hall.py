"""Issue 28 (the hall) and issue 22's published pages in Vietnamese: Debian's Chromium against the local stack."""
from __future__ import annotations

import re

from chalicelib.models import RegistrationIn
from chalicelib.publish.sinks import LocalSink
from chalicelib.services import publishing, registration, results, rounds
from playwright.sync_api import expect

from .test_browser import _no_machine_words, make_tournament

CJK = re.compile(r"[\u3400-\u9fff]")


def _guandan_day(store, n=5, rounds_=3):
    org, token, t, (ev,) = make_tournament(store, [
        {"name": "掼蛋积分赛", "game": "guandan", "entry": "pair", "capacity": 200, "fee": {"amount": 0},
         "stages": [{"format": "swiss", "rounds": rounds_, "early_finish": False, "scoring": {"method": "match_points"}}]}])
    ids = []
    for i in range(n):
        r = registration.register(store, ev.id, RegistrationIn(name=f"第{i + 1}对", club=f"商会{i % 2}", members=[
            {"name": f"甲{i}", "phone": f"1330000{i:04d}"}, {"name": f"乙{i}"}]), None)
        registration.check_in(store, ev.id, r.entry.id)
        ids.append(r.entry.id)
    return org, token, t, ev, ids


def test_published_pages_in_vietnamese(store, stack, browser, shot):
    """Issue 22 item 2: the published pages in vi from the shared catalog; names (data) excepted, no Chinese
    or English interface words; the language links lead to the same page in 中文 and English."""
    org, token, t, ev, ids = _guandan_day(store)
    rnd, _ = rounds.draw_next(store, org, ev.id, 3)
    t1 = rnd.tables[0]
    a, b = (s.entry_id for s in t1.sides)
    results.submit_result(store, ev.id, 1, 1, {"version": 0, "final": {"levels": {a: 10, b: 7}}},
                          results.Actor("organiser", f"organiser:{org.id}"))
    store.publisher = LocalSink(stack["publish_dir"])
    publishing.publish_tournament(store, t.id)
    names = {f"第{i + 1}对" for i in range(5)} | {f"甲{i}" for i in range(5)} | {f"乙{i}" for i in range(5)}
    names |= {"商会0", "商会1", "浏览器测试杯", "南宁", "掼蛋积分赛", "中文"}
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, locale="vi-VN")
    page = ctx.new_page()
    for name, path, word in [("tournament", "index.html", "Nội dung thi đấu"), ("event", f"{ev.id}/index.html", "Vòng 1"),
                             ("round", f"{ev.id}/round-1.html", "Điểm trận"),
                             ("standings", f"{ev.id}/standings.html", "Bảng xếp hạng"),
                             ("corrections", f"{ev.id}/corrections.html", "Chưa có khiếu nại"),
                             ("entry", f"{ev.id}/entry-{a}.html", "Các trận đã đấu")]:
        page.goto(f"{stack['site']}/vi/t/{t.id}/{path}")
        assert page.evaluate("document.documentElement.lang") == "vi"
        text = _no_machine_words(page, (name, "vi"))
        assert word in text, (name, word)
        left = text
        for n in sorted(names, key=len, reverse=True):
            left = left.replace(n, "")
        assert not CJK.search(left), (name, CJK.findall(left)[:10])
        for english in ("Standings", "Round ", "Table", "Match points", "Draw seed", "This page refreshes"):
            assert english not in text, (name, english)
        assert page.evaluate("document.documentElement.scrollWidth") <= 400, name
        shot(page, f"vi-{name}")
    page.get_by_role("link", name="中文").click()
    expect(page.locator("html")).to_have_attribute("lang", "zh-CN")
    assert page.url.endswith(f"/t/{t.id}/{ev.id}/entry-{a}.html") and "/vi/" not in page.url
    expect(page.get_by_text("历次对局")).to_be_visible()
    page.get_by_role("link", name="Tiếng Việt").click()
    expect(page.get_by_text("Các trận đã đấu")).to_be_visible()
    ctx.close()
