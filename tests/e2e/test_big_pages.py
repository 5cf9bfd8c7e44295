"""Issue 29: a big event's published pages in Chromium — standings and rounds in pages with a pager, and find.html
searching index shards instead of carrying every hit. Page sizes are settings: small here, so a small field shows it."""
from __future__ import annotations

import re

from chalicelib.config import get_settings
from chalicelib.publish.sinks import LocalSink
from chalicelib.services import publishing, results, rounds
from playwright.sync_api import expect

from .test_hall import _guandan_day


def test_a_big_event_pages_its_standings_and_rounds_and_find_searches_the_index(store, stack, browser, shot,
                                                                                 monkeypatch):
    monkeypatch.setattr(get_settings(), "publish_page_rows", 3)
    monkeypatch.setattr(get_settings(), "publish_find_inline", 4)
    org, token, t, ev, ids = _guandan_day(store, n=9)
    actor = results.Actor("organiser", f"organiser:{org.id}")
    rnd, _ = rounds.draw_next(store, org, ev.id, 1)           # 4 tables and a bye: round pages of 3 rows
    for tb in rnd.tables:
        a, b = (s.entry_id for s in tb.sides)
        results.submit_result(store, ev.id, 1, tb.number, {"version": 0, "final": {"levels": {a: 9 + tb.number, b: 5}}},
                              actor)
        results.confirm_result(store, ev.id, 1, tb.number, actor)
    store.publisher = LocalSink(stack["publish_dir"])
    publishing.publish_tournament(store, t.id, force=True)
    base = f"{stack['site']}/t/{t.id}/{ev.id}/"
    ctx = browser.new_context(viewport={"width": 360, "height": 780}, is_mobile=True, has_touch=True, locale="zh-CN")
    page = ctx.new_page()
    page.goto(base + "standings.html")
    pager = page.get_by_test_id("pager").first
    expect(pager).to_be_visible()
    expect(page.locator("table tr:has(td)")).to_have_count(3)
    expect(page.locator(".pager-at").first).to_contain_text("第 1 / 3 页")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    shot(page, "standings-page-1")
    pager.get_by_role("link", name="下一页").click()
    expect(page).to_have_url(re.compile(r"standings-2\.html$"))
    ranks = [int(x) for x in page.locator("table tr:has(td) td:first-child").all_inner_texts()]
    assert len(ranks) == 3 and min(ranks) >= 4
    page.get_by_test_id("pager").first.get_by_role("link", name="3", exact=True).click()
    expect(page).to_have_url(re.compile(r"standings-3\.html$"))
    expect(page.locator("[aria-current=page]").first).to_have_text("3")
    shot(page, "standings-page-3")

    # The round: tables 1–3 on its first page, table 4 and the bye on the second
    page.goto(base + "round-1.html")
    expect(page.locator("table tr:has(td)")).to_have_count(3)
    page.get_by_test_id("pager").first.get_by_role("link", name="2", exact=True).click()
    expect(page).to_have_url(re.compile(r"round-1-2\.html$"))
    expect(page.locator("table tr:has(td)")).to_have_count(2)
    expect(page.locator("table")).to_contain_text("轮空")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    shot(page, "round-page-2")

    # find.html: 9 entries in the round is past the inline limit here, so the page holds no hit; it fetches the
    # index shard as one types, and a hit leads to the round's page that holds the table
    page.get_by_test_id("pager").first.get_by_role("link", name="查找姓名").click()
    expect(page).to_have_url(re.compile(r"/find\.html$"))
    assert page.locator("[data-testid=find-hit]").count() == 0
    hits = page.locator("[data-testid=find-hit]:visible")
    table4 = next(tb for tb in rnd.tables if tb.number == 4)
    name = store.repos.entries.get(ev.id, table4.sides[0].entry_id).name
    box = page.get_by_test_id("find-input")
    box.fill(name)
    expect(hits).to_have_count(1)
    expect(hits.first).to_contain_text("第 4 桌")
    expect(hits.first).to_contain_text("掼蛋积分赛 · 第1轮")
    box.fill("zz")
    expect(page.locator("#find-none")).to_be_visible()
    box.fill("甲")
    expect(hits).to_have_count(0)
    box.fill(name)
    shot(page, "find-from-index")
    hits.first.click()
    expect(page).to_have_url(re.compile(r"round-1-2\.html$"))
    expect(page.locator("table")).to_contain_text(name)
    assert "13300000" not in page.content()                    # no phone number on any page
    ctx.close()
