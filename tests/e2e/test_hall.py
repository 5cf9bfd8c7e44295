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


def test_the_board_pages_a_sixty_table_round_without_scrolling(store, stack, browser, shot):
    """Issue 28: hall.html at 1920 × 1080 shows a 60-table round in pages that fit the screen (no scrolling), every
    table on one of them, then the standings; the clock and an announcement stay in view."""
    org, token, t, ev, ids = _guandan_day(store, n=120)
    rnd, _ = rounds.draw_next(store, org, ev.id, 3)
    assert len(rnd.tables) == 60
    from chalicelib.services import hall
    hall.run_clock(store, org, ev.id, 1, "start", None)
    hall.announce(store, org, t.id, "第 3 轮推迟 10 分钟")
    store.publisher = LocalSink(stack["publish_dir"])
    publishing.publish_tournament(store, t.id)
    ctx = browser.new_context(viewport={"width": 1920, "height": 1080}, locale="zh-CN")
    page = ctx.new_page()
    page.goto(f"{stack['site']}/t/{t.id}/hall.html?s=3")
    expect(page.get_by_test_id("hall-clock")).to_be_visible()
    expect(page.get_by_test_id("hall-clock")).to_contain_text("剩余时间")
    expect(page.get_by_test_id("hall-announcements")).to_contain_text("第 3 轮推迟 10 分钟")
    seen_tables, pages_seen = set(), set()
    for _ in range(12):
        state = page.evaluate("""() => {
            const rows = [...document.querySelectorAll('.slide:not([hidden]) .row:not([hidden])')];
            const box = document.querySelector('#hall-slides').getBoundingClientRect();
            return {page: document.body.dataset.page, tables: rows.map(r => r.dataset.table).filter(Boolean),
                    inside: rows.every(r => { const b = r.getBoundingClientRect(); return b.bottom <= box.bottom + 1 && b.right <= innerWidth; }),
                    scroll: [document.scrollingElement.scrollHeight, document.scrollingElement.scrollWidth],
                    fontPx: rows.length ? parseFloat(getComputedStyle(rows[0].querySelector('.nm')).fontSize) : 0}
        }""")
        assert state["inside"], state["page"]
        assert state["scroll"][0] <= 1080 and state["scroll"][1] <= 1920, state
        assert state["fontPx"] >= 36, state   # names about 4 % of the screen's height
        if state["page"] not in pages_seen:
            pages_seen.add(state["page"])
            seen_tables |= set(state["tables"])
            shot(page, "board-" + state["page"].replace(":", "-").replace("/", "of"))
        if seen_tables == {str(n) for n in range(1, 61)} and any(p.startswith("slide-standings") for p in pages_seen):
            break
        page.wait_for_function("p => document.body.dataset.page !== p", arg=state["page"], timeout=8000)
    assert seen_tables == {str(n) for n in range(1, 61)}, sorted(seen_tables, key=int)
    assert len([p for p in pages_seen if p.startswith("slide-round")]) >= 3   # 60 tables do not fit on one screen
    assert any(p.startswith("slide-standings") for p in pages_seen)
    ctx.close()


def _table_phone(browser, stack, ev, rnd, offline_ok=True):
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, locale="zh-CN")
    page = ctx.new_page()
    t1 = rnd.tables[0]
    page.goto(f"{stack['site']}/score.html?e={ev.id}&r=1&t=1&c={t1.codes[0]}")
    expect(page.get_by_test_id("title")).to_be_visible(timeout=15_000)
    return ctx, page


def _seconds(shown: str) -> int:
    """"59:58" or, with an hour or more left, "1:00:00" (roundClock.js's hms)."""
    return sum(int(part) * 60 ** i for i, part in enumerate(reversed(shown.split(":"))))


def _left_seconds(page) -> int:
    return _seconds(page.get_by_test_id("clock-left").inner_text())


def test_the_time_left_is_read_with_its_hours():
    # A phone that read the clock within a second of its start showed "1:00:00": read as mm:ss that was 0 s
    # (the one serial failure of the clock test below, with the page right).
    assert [_seconds(x) for x in ("1:00:00", "59:59", "00:07", "2:03:04")] == [3600, 3599, 7, 7384]


def test_the_director_pauses_the_clock_and_a_phone_follows_offline_too(store, stack, browser, shot):
    """Issue 28: the director starts and pauses the round clock in the console; a table phone shows it paused
    within one poll (10 s) and, with the network off, keeps the same time; resumed, it counts down offline."""
    org, token, t, ev, ids = _guandan_day(store, n=4)
    store.publisher = LocalSink(stack["publish_dir"])
    rnd, _ = rounds.draw_next(store, org, ev.id, 3)
    publishing.publish_tournament(store, t.id)
    from .test_browser import token_sign_in
    desk = browser.new_context(viewport={"width": 1280, "height": 900}, locale="zh-CN")
    console = desk.new_page()
    token_sign_in(console, stack, token)
    console.get_by_role("tab", name="赛场").click()
    console.get_by_test_id("clock-start").click()
    expect(console.get_by_test_id("console-clock")).to_contain_text("剩余时间", timeout=30_000)   # the answer waits on a publish
    ctx, phone = _table_phone(browser, stack, ev, rnd)
    expect(phone.get_by_test_id("round-clock")).to_have_attribute("data-state", "running", timeout=15_000)
    first = _left_seconds(phone)
    assert 59 * 60 - 30 <= first <= 60 * 60, first            # match points: 60 minutes a round
    shot(phone, "phone-running")
    console.get_by_test_id("clock-pause").click()
    expect(console.get_by_test_id("console-clock")).to_have_attribute("data-state", "paused", timeout=30_000)
    expect(phone.get_by_test_id("round-clock")).to_have_attribute("data-state", "paused", timeout=12_000)   # one poll (10 s)
    expect(phone.get_by_test_id("round-clock")).to_contain_text("已暂停")
    held = _left_seconds(phone)
    ctx.set_offline(True)
    phone.wait_for_timeout(3000)
    assert _left_seconds(phone) == held                      # paused, offline: the same time
    shot(phone, "phone-paused-offline")
    ctx.set_offline(False)
    console.get_by_test_id("clock-resume").click()
    expect(phone.get_by_test_id("round-clock")).to_have_attribute("data-state", "running", timeout=12_000)
    ctx.set_offline(True)
    a = _left_seconds(phone)
    phone.wait_for_timeout(4000)
    b = _left_seconds(phone)
    assert 2 <= a - b <= 6, (a, b)                           # running, offline: counting down by the phone's clock
    assert abs(b - (held - 4)) <= 8, (held, b)                 # and the paused minutes were given back
    ctx.close()
    desk.close()


def test_announcements_appear_on_phones_and_the_board_and_are_dismissed(store, stack, browser, shot):
    org, token, t, ev, ids = _guandan_day(store, n=4)
    store.publisher = LocalSink(stack["publish_dir"])
    rnd, _ = rounds.draw_next(store, org, ev.id, 3)
    publishing.publish_tournament(store, t.id)
    from .test_browser import token_sign_in
    desk = browser.new_context(viewport={"width": 1280, "height": 900}, locale="zh-CN")
    console = desk.new_page()
    token_sign_in(console, stack, token)
    console.get_by_role("tab", name="赛场").click()
    console.get_by_test_id("announce-text").locator("input").fill("第 3 轮推迟 10 分钟")
    console.get_by_test_id("announce-send").click()
    expect(console.get_by_test_id("announcement-row")).to_contain_text("第 3 轮推迟 10 分钟")
    board_ctx = browser.new_context(viewport={"width": 1920, "height": 1080}, locale="zh-CN")
    board = board_ctx.new_page()
    board.goto(f"{stack['site']}/t/{t.id}/hall.html?poll=2")
    expect(board.get_by_test_id("hall-announcements")).to_contain_text("第 3 轮推迟 10 分钟")
    ctx, phone = _table_phone(browser, stack, ev, rnd)
    expect(phone.get_by_test_id("announcement")).to_contain_text("第 3 轮推迟 10 分钟", timeout=12_000)
    shot(phone, "phone-announcement")
    phone.get_by_test_id("dismiss").click()
    expect(phone.get_by_test_id("announcement")).to_have_count(0)
    phone.reload()
    expect(phone.get_by_test_id("title")).to_be_visible(timeout=15_000)
    phone.wait_for_timeout(1500)
    expect(phone.get_by_test_id("announcement")).to_have_count(0)   # dismissed stays dismissed on this phone
    # a second phone still sees it until the director takes it down, and then the board drops it too
    ctx2, phone2 = _table_phone(browser, stack, ev, rnd)
    expect(phone2.get_by_test_id("announcement")).to_have_count(1, timeout=12_000)
    console.get_by_test_id("announcement-row").get_by_role("button").click()
    expect(console.get_by_test_id("announcement-row")).to_have_count(0)
    expect(board.locator("#hall-announcements p")).to_have_count(0, timeout=8_000)
    expect(phone2.get_by_test_id("announcement")).to_have_count(0, timeout=12_000)
    for c in (ctx, ctx2, board_ctx, desk):
        c.close()


def test_find_my_table_by_two_characters_and_by_pinyin_initials(store, stack, browser, shot):
    org, token, t, ev, ids = _guandan_day(store, n=5)
    r = registration.register(store, ev.id, RegistrationIn(name="武当队", club="武当商会", members=[
        {"name": "张三丰", "phone": "13300009999"}, {"name": "俞岱岩"}]), None)
    registration.check_in(store, ev.id, r.entry.id)
    store.publisher = LocalSink(stack["publish_dir"])
    rnd, _ = rounds.draw_next(store, org, ev.id, 3)
    publishing.publish_tournament(store, t.id)
    table = next(tb for tb in rnd.tables if r.entry.id in [s.entry_id for s in tb.sides])
    ctx = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True, locale="zh-CN")
    page = ctx.new_page()
    page.goto(f"{stack['site']}/t/{t.id}/find.html")
    box = page.get_by_test_id("find-input")
    hits = page.locator("[data-testid=find-hit]:visible")
    box.fill("三")
    expect(hits).to_have_count(0)                             # one character is not enough
    box.fill("三丰")
    expect(hits).to_have_count(1)
    expect(hits.first).to_contain_text("武当队")
    expect(hits.first).to_contain_text(f"第 {table.number} 桌")
    expect(hits.first).to_contain_text("掼蛋积分赛 · 第1轮")
    shot(page, "find-by-name")
    box.fill("ydy")                                           # 俞岱岩's pinyin initials
    expect(hits).to_have_count(1)
    expect(hits.first).to_contain_text("武当队")
    box.fill("ZSF")
    expect(hits).to_have_count(1)
    shot(page, "find-by-initials")
    box.fill("乙")
    expect(hits).to_have_count(0)
    box.fill("乙1")
    expect(hits).to_have_count(1)
    box.fill("无此人")
    expect(page.locator("#find-none")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    assert "13300009999" not in page.content()
    ctx.close()


def test_the_charts_read_at_360_px(store, stack, browser, shot):
    """Issue 28 item 5: the place-by-round chart and Guandan's levels on an entry's page, the leaders on the event's
    page: inline SVG, inside a 360 px screen, with their words in the page's language."""
    org, token, t, ev, ids = _guandan_day(store, n=8)
    actor = results.Actor("organiser", f"organiser:{org.id}")
    orders = [["N", "S", "E", "W"], ["E", "N", "W", "S"], ["N", "E", "S", "W"], ["E", "W", "N", "S"]]
    for n in (1, 2, 3):
        rnd, _ = rounds.draw_next(store, org, ev.id, n)
        for tb in rnd.tables:
            results.submit_result(store, ev.id, n, tb.number, {"version": 0, "deals": [{"order": o} for o in orders[: 2 + tb.number % 3]]},
                                  actor)
            results.confirm_result(store, ev.id, n, tb.number, actor)
        rounds.close_round(store, org, ev.id, n)
    store.publisher = LocalSink(stack["publish_dir"])
    publishing.publish_tournament(store, t.id)
    from chalicelib.services.standings import event_standings
    leader = event_standings(store, store.repos.events.get(ev.id)).standings[0].entry_id
    ctx = browser.new_context(viewport={"width": 360, "height": 780}, is_mobile=True, has_touch=True, locale="zh-CN")
    page = ctx.new_page()
    for lang, title in (("", "各轮后名次"), ("/vi", "Thứ hạng sau mỗi vòng")):
        page.goto(f"{stack['site']}{lang}/t/{t.id}/{ev.id}/entry-{leader}.html")
        expect(page.locator("[data-chart=place] svg")).to_be_visible()
        expect(page.get_by_role("heading", name=title)).to_be_visible()
        assert page.locator("[data-chart=levels] svg").count() == 3          # one a match played
        box = page.locator("[data-chart=place] svg").bounding_box()
        assert box["width"] <= 360 and box["x"] >= 0 and box["height"] >= 120
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
        shot(page, f"chart-entry{lang.replace('/', '-')}")
    page.goto(f"{stack['site']}/t/{t.id}/{ev.id}/index.html")
    expect(page.locator("[data-chart=leaders] svg")).to_be_visible()
    assert page.locator("[data-chart=leaders] li").count() == 5
    page.locator("[data-chart=leaders]").scroll_into_view_if_needed()
    shot(page, "chart-leaders")
    ctx.close()
