"""Browser tests: Debian's Chromium via Playwright against the local stack on DynamoDB Local."""
from __future__ import annotations

import re
from datetime import date, timedelta

from chalicelib.models import EventConfig, RegistrationIn, TournamentIn
from chalicelib.services import organisers, registration, tournaments
from playwright.sync_api import expect


def token_sign_in(page, stack, token):
    """The console with an API token: it sits behind the "使用 API 令牌登录" fold. In two full runs of this stop
    (never alone) the console did not open within 45 s of a module's first sign-in and the page showed no error;
    the cause is not found. The second try is said in the test's output with what the page and its requests
    showed, so the next stop can find it; a sign-in failing twice still fails."""
    answers: list[str] = []
    page.on("response", lambda r: answers.append(f"{r.status} {r.request.method} {r.url}")
            if r.url.startswith(stack["api"]) else None)
    for attempt in (1, 2):
        page.goto(f"{stack['site']}/organiser.html")
        page.get_by_text("使用 API 令牌登录").click()
        page.get_by_label("组委会令牌").fill(token)
        page.get_by_test_id("token-form").get_by_role("button", name="登录").click()
        try:   # its first API read may wait on a publish
            expect(page.get_by_test_id("console")).to_be_visible(timeout=30_000 if attempt == 1 else 45_000)
            return
        except AssertionError:
            if attempt == 2:
                raise
            import warnings
            warnings.warn(f"console sign-in did not open at the first try; the page: "
                          f"{page.locator('body').inner_text()[:300]!r}; the API's answers: {answers[-6:]}", stacklevel=2)


def make_tournament(d, events: list[dict]):
    org, token = organisers.create_organiser(d, "浏览器测试组委会")
    t = tournaments.create_tournament(d, org, TournamentIn(name="浏览器测试杯", venue="南宁", starts_on=date.today() + timedelta(days=3)))
    evs = [tournaments.create_event(d, org, t.id, EventConfig.model_validate(cfg)) for cfg in events]
    return org, token, t, evs


def test_participant_registers_a_pair_free_and_a_team_paid(store, stack, phone, shot):
    _, _, t, (pair_ev, team_ev) = make_tournament(store, [
        {"name": "掼蛋双人赛", "game": "guandan", "entry": "pair", "capacity": 10, "fee": {"amount": 0},
         "stages": [{"format": "swiss", "rounds": 3}]},
        {"name": "够级团体赛", "game": "gouji", "entry": {"kind": "team", "size": 3}, "capacity": 8,
         "fee": {"amount": 2000, "per": "person"}, "stages": [{"format": "knockout"}]}])
    page = phone.new_page()
    page.goto(f"{stack['site']}/index.html?t={t.id}")
    card = page.get_by_test_id(f"event-{pair_ev.id}")
    expect(card).to_contain_text("剩余名额 10 / 10")
    expect(card).to_contain_text("掼蛋 · 双人")               # the game's name from GET /glossary
    shot(page, "tournament")
    card.get_by_role("link", name="报名").click()
    expect(page.get_by_test_id("event-name")).to_have_text("掼蛋双人赛")
    page.get_by_label("队名").fill("河池一队")
    page.get_by_label("所属商会/俱乐部").fill("南宁河池商会")
    first, second = page.get_by_test_id("member-0"), page.get_by_test_id("member-1")
    first.get_by_label("姓名").fill("张三")
    first.get_by_label("手机号").fill("13800000000")
    second.get_by_label("姓名").fill("李四")
    shot(page, "pair-form")
    page.get_by_role("button", name="提交").click()
    expect(page.get_by_test_id("done")).to_be_visible()
    expect(page.get_by_test_id("done-status")).to_have_text("已确认")
    shot(page, "pair-done")
    manage = page.get_by_test_id("manage").get_attribute("href")
    page.goto(manage)
    expect(page.get_by_test_id("status")).to_have_text("已确认")
    expect(page.locator("#e-m1-name")).to_have_value("李四")
    assert "token=" not in page.url                              # the token left the address bar
    page.locator("#e-m1-phone").fill("13900000002")
    page.get_by_role("button", name="保存修改").click()
    expect(page.get_by_test_id("notice")).to_have_text("已保存")
    shot(page, "my-entry")
    entry = store.repos.entries.list(pair_ev.id)[0]
    assert entry.members[1].phone == "13900000002"

    page.goto(f"{stack['site']}/register.html?e={team_ev.id}&t={t.id}")
    expect(page.get_by_test_id("member-2")).to_be_visible()  # three members for a team of three
    page.get_by_label("队名").fill("东营一队")
    for i, name in enumerate(["王一", "王二", "王三"]):
        page.get_by_test_id(f"member-{i}").get_by_label("姓名").fill(name)
    page.get_by_test_id("member-1").get_by_label("手机号").fill("13900000001")
    page.get_by_role("button", name="提交").click()
    expect(page.get_by_test_id("done-status")).to_have_text("待付款")
    expect(page.get_by_test_id("pay")).to_contain_text("¥60.00")
    shot(page, "team-pay-at-desk")
    entries = store.repos.entries.list(team_ev.id)
    assert [e.status for e in entries] == ["pending_payment"] and entries[0].amount_due == 6000
    assert [m.name for m in entries[0].members] == ["王一", "王二", "王三"]


def test_organiser_runs_a_three_round_guandan_swiss_to_published_standings(store, stack, desk, shot):
    _, token, t, (ev,) = make_tournament(store, [
        {"name": "掼蛋积分赛", "game": "guandan", "entry": "pair", "capacity": 20, "fee": {"amount": 0},
         "stages": [{"format": "swiss", "rounds": 3, "early_finish": False, "scoring": {"method": "level_points"}}]}])
    for i in range(6):
        registration.register(store, ev.id, RegistrationIn(name=f"第{i + 1}对", club=f"商会{i % 3}",
                                                           members=[{"name": f"甲{i}", "phone": f"1390000{i:04d}"}, {"name": f"乙{i}"}]), None)
    page = desk.new_page()
    token_sign_in(page, stack, token)
    expect(page.get_by_test_id("entries").locator("[data-entry]")).to_have_count(6)
    shot(page, "entries")
    page.get_by_role("button", name="全部签到").click()
    page.locator(".act-confirm .van-dialog__confirm").click()   # the confirmation asked first (issue 39)
    # wait for the check-ins themselves (the status tags read "confirmed" before them too)
    expect(page.get_by_test_id("checked-in")).to_have_count(6)
    page.get_by_role("tab", name="比赛进行").click()
    for n in range(1, 4):
        page.get_by_label("抽签种子").fill(str(n))
        page.get_by_role("button", name="抽签编排下一轮").click()
        page.locator(".act-confirm .van-dialog__confirm").click()   # the confirmation asked first (issue 39)
        expect(page.get_by_test_id("round").locator("h3")).to_contain_text(f"第 {n} 轮")
        expect(page.locator("[data-testid=round] td.reason").first).not_to_be_empty()  # the pairing reasons are shown
        shot(page, f"round-{n}-drawn")
        for table in (1, 2, 3):
            page.locator(f"tr[data-table='{table}']").get_by_role("button", name="录入成绩").click()
            page.select_option("#lv0", str(8 + table))
            page.select_option("#lv1", str(2 + n))
            page.get_by_test_id("result-form").get_by_role("button", name="提交成绩").click()
            expect(page.locator(f"tr[data-table='{table}']").get_by_test_id("table-status")).to_have_text("已确认")
        shot(page, f"round-{n}-results")
        page.get_by_role("button", name="结束本轮").click()
        page.locator(".act-confirm .van-dialog__confirm").click()   # the confirmation asked first (issue 39)
        expect(page.get_by_test_id("notice")).to_contain_text(f"第 {n} 轮已结束")
    page.get_by_role("button", name="发布成绩").click()
    link = page.get_by_test_id("published-link")
    expect(link).to_be_visible()
    page.goto(stack["site"] + link.get_attribute("href"))
    expect(page.locator("h2")).to_contain_text("最终排名")
    shot(page, "published-standings")
    rows = page.locator("table tr")
    expect(rows).to_have_count(7)
    from chalicelib.services.standings import event_standings
    top = event_standings(store, store.repos.events.get(ev.id)).standings[0]
    expect(rows.nth(1)).to_contain_text(top.name)
    page.goto(f"{stack['site']}/organiser.html")
    page.get_by_role("tab", name="排名").click()
    expect(page.get_by_test_id("standings").locator("tbody tr")).to_have_count(6)
    shot(page, "console-standings")


def test_two_phones_enter_and_confirm_a_doudizhu_table(store, stack, browser, shot):
    org, token, t, (ev,) = make_tournament(store, [
        {"name": "二打一", "game": "doudizhu", "entry": "individual", "capacity": 15, "fee": {"amount": 0},
         "stages": [{"format": "swiss", "rounds": 5}]}])
    for i in range(3):
        r = registration.register(store, ev.id, RegistrationIn(members=[{"name": f"牌手{i}", "phone": f"1380000{i:04d}"}]), None)
        registration.check_in(store, ev.id, r.entry.id)
    from chalicelib.services import rounds
    rnd, _ = rounds.draw_next(store, org, ev.id, 3)
    codes = rnd.tables[0].codes
    sides = {s.seats[0]: s.name for s in rnd.tables[0].sides}
    phones = [browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, locale="zh-CN")
              for _ in range(3)]   # a Chinese phone (an en-US one now reads English on a first visit)
    a, b = (ctx.new_page() for ctx in phones[:2])
    a.goto(f"{stack['site']}/score.html?e={ev.id}&r=1&t=1&c={codes[0]}")
    expect(a.get_by_test_id("title")).to_contain_text("第 1 桌")
    shot(a, "phone-a-empty")
    # deal 1: West is landlord, bids 3, plays a bomb and wins with a spring
    a.click("[data-choice='landlord:W']")
    a.click("[data-choice='bid:3']")
    a.click("[data-choice='winner:landlord']")
    a.get_by_test_id("bombs-W").locator("button").last.click()     # the stepper's +
    a.get_by_role("checkbox", name="春天").click()
    a.get_by_test_id("add-deal").click()
    expect(a.get_by_test_id("running")).to_contain_text("小分 24")
    # deal 2: South is landlord, bids 1, the farmers win; East and South each play a bomb, West the rocket
    a.click("[data-choice='landlord:S']")
    a.click("[data-choice='bid:1']")
    a.click("[data-choice='winner:farmers']")
    a.get_by_test_id("bombs-E").locator("button").last.click()
    a.get_by_test_id("bombs-S").locator("button").last.click()
    a.get_by_test_id("rockets-W").locator("button").last.click()
    a.get_by_test_id("add-deal").click()
    expect(a.get_by_test_id("deals").locator("li")).to_have_count(2)
    shot(a, "phone-a-two-deals")
    a.get_by_role("button", name="提交成绩").click()
    expect(a.get_by_test_id("review-text")).to_contain_text("请对方")
    shot(a, "phone-a-submitted")
    b.goto(f"{stack['site']}/score.html?e={ev.id}&r=1&t=1&c={codes[1]}")
    expect(b.get_by_test_id("review-text")).to_contain_text("对方已录入")
    expect(b.get_by_test_id("review-deals").locator("li")).to_have_count(2)
    expect(b.get_by_test_id("review-deals").locator("li").first).to_contain_text("春天")
    shot(b, "phone-b-review")
    b.get_by_role("button", name="确认成绩").click()
    # rules.md §8: at a three-seat table both other players confirm (issue 25)
    expect(b.get_by_test_id("confirm-count")).to_contain_text("1/2")
    c = phones[2].new_page()
    c.goto(f"{stack['site']}/score.html?e={ev.id}&r=1&t=1&c={codes[2]}")
    c.get_by_role("button", name="确认成绩").click()
    expect(c.get_by_test_id("status")).to_contain_text("成绩已确认")
    expect(b.get_by_test_id("status")).to_contain_text("成绩已确认", timeout=20_000)
    shot(b, "phone-b-confirmed")
    _, doc, tables = rounds.load_round(store, ev.id, 1)
    table = tables[0]
    assert table["status"] == "confirmed"
    ids = {s["seats"][0]: s["entry_id"] for s in table["sides"]}
    # deal 1: 3 × 2^(1 bomb + spring) = 12 → W +24, S −12, E −12; deal 2: 1 × 2^3 = 8 → S −16, W +8, E +8
    assert table["points"][ids["W"]]["small_points"] == 32
    assert table["points"][ids["S"]]["small_points"] == -28
    assert table["points"][ids["E"]]["small_points"] == -4
    assert [b_["bombs"] for b_ in table["details"]["bomb_bonuses"]] == [3]  # deal 2: 2 bombs + rocket = 3
    for ctx in phones:
        ctx.close()
    assert sides


def test_language_switch(store, stack, phone, shot):
    _, _, t, _ = make_tournament(store, [{"name": "Guandan pairs", "game": "guandan", "entry": "pair", "capacity": 4,
                                          "stages": [{"format": "swiss", "rounds": 3}]}])
    page = phone.new_page()
    page.goto(f"{stack['site']}/index.html?t={t.id}")
    expect(page.locator("h2")).to_have_text("比赛项目")
    page.get_by_test_id("lang").click()
    page.get_by_role("button", name="English").click()
    expect(page.locator("h2")).to_have_text("Events")
    expect(page.get_by_test_id("lang")).to_have_text("English")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.locator("[data-event]").first).to_contain_text("Places left")
    expect(page.locator("[data-event]").first).to_contain_text("Guandan · Pairs")
    shot(page, "english")
    page.reload()
    expect(page.locator("h2")).to_have_text("Events")  # remembered on this device
    page.get_by_test_id("lang").click()
    page.get_by_role("button", name="Tiếng Việt").click()
    expect(page.locator("h2")).to_have_text("Nội dung thi đấu")
    expect(page.locator("html")).to_have_attribute("lang", "vi")
    shot(page, "vietnamese")
    page.get_by_test_id("lang").click()
    page.get_by_role("button", name="中文").click()
    expect(page.locator("h2")).to_have_text("比赛项目")


def test_a_dispute_reaches_the_referee_and_both_phones_follow(store, stack, browser, desk, shot):
    """Issue 13/16: side B disputes side A's result; the console shows the open dispute, phone A learns it
    without a reload, and the organiser's settlement reaches both phones."""
    org, token, t, (ev,) = make_tournament(store, [
        {"name": "掼蛋异议", "game": "guandan", "entry": "pair", "capacity": 8, "fee": {"amount": 0},
         "stages": [{"format": "swiss", "rounds": 3, "scoring": {"method": "level_points"}}]}])
    for i in range(2):
        r = registration.register(store, ev.id, RegistrationIn(name=f"第{i + 1}对", members=[
            {"name": f"甲{i}", "phone": f"1370000{i:04d}"}, {"name": f"乙{i}"}]), None)
        registration.check_in(store, ev.id, r.entry.id)
    from chalicelib.services import rounds
    rnd, _ = rounds.draw_next(store, org, ev.id, 1)
    codes = rnd.tables[0].codes
    phones = [browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                                  locale="zh-CN") for _ in range(2)]
    a, b = (ctx.new_page() for ctx in phones)
    a.goto(f"{stack['site']}/score.html?e={ev.id}&r=1&t=1&c={codes[0]}")
    expect(a.get_by_test_id("title")).to_contain_text("第 1 桌")
    from chalicelib.services import results
    home, away = (s.entry_id for s in rnd.tables[0].sides)
    results.submit_result(store, ev.id, 1, 1, {"version": 0, "final": {"levels": {home: 10, away: 8}}},
                          results.Actor("side", "table 1 side 1", side=0))
    expect(a.get_by_test_id("review-text")).to_contain_text("请对方", timeout=20_000)   # phone A followed without a reload
    b.goto(f"{stack['site']}/score.html?e={ev.id}&r=1&t=1&c={codes[1]}")
    expect(b.get_by_test_id("review-text")).to_contain_text("对方已录入")
    b.get_by_role("button", name="有异议").click()
    b.get_by_test_id("dispute-reason").locator("textarea").fill("第三副记错了")
    b.get_by_role("button", name="提交异议").click()
    expect(b.get_by_test_id("status")).to_contain_text("有异议，等待裁判处理")
    expect(b.get_by_role("button", name="确认成绩")).to_be_hidden()
    expect(a.get_by_test_id("status")).to_contain_text("第三副记错了", timeout=20_000)
    shot(b, "phone-b-disputed")
    page = desk.new_page()
    token_sign_in(page, stack, token)
    page.get_by_role("tab", name="比赛进行").click()
    expect(page.get_by_test_id("disputes")).to_contain_text("第三副记错了")
    expect(page.locator("tr[data-table='1']").get_by_test_id("table-status")).to_have_text("有异议")
    shot(page, "console-dispute")
    why = page.get_by_test_id("dispute-why").bounding_box()
    settle = page.get_by_test_id("disputes").get_by_role("button", name="裁定成绩").bounding_box()
    # the button stands apart from the reason it follows (on its line, or wrapped below it)
    assert settle["x"] >= why["x"] + why["width"] + 6 or settle["y"] >= why["y"] + why["height"], (why, settle)
    page.get_by_test_id("disputes").get_by_role("button", name="裁定成绩").click()
    # issue 24: the form starts from the entered result (10 : 8) with the dispute's reason beside it
    expect(page.get_by_test_id("dispute-facts")).to_contain_text("第三副记错了")
    expect(page.locator("#lv0")).to_have_value("10")
    expect(page.locator("#lv1")).to_have_value("8")
    page.select_option("#lv1", "9")
    page.get_by_test_id("result-form").get_by_role("button", name="提交成绩").click()
    expect(page.get_by_test_id("error")).to_contain_text("请填写理由")   # the reason is required
    page.get_by_test_id("fix-reason").locator("input").fill("核对记分表：第三副乙方升一级")
    page.get_by_test_id("result-form").get_by_role("button", name="提交成绩").click()
    expect(page.locator("tr[data-table='1']").get_by_test_id("table-status")).to_have_text("已确认")
    expect(page.get_by_test_id("disputes")).to_have_count(0)
    expect(a.get_by_test_id("status")).to_contain_text("成绩已确认", timeout=20_000)
    expect(b.get_by_test_id("status")).to_contain_text("成绩已确认", timeout=20_000)
    expect(b.get_by_test_id("status")).not_to_contain_text("有异议")
    for ctx in phones:
        ctx.close()


def test_sign_in_with_password_and_a_staff_link_on_a_phone(store, stack, browser, desk, shot):
    """Issue 14: the organiser signs in with a phone number and a password; a scorer opens the console from
    its sign-in link and sees only the day's run; a desk member only the entries."""
    from chalicelib.services import organisers, principals
    org, _ = organisers.create_account(store, "登录测试商会", "13611112222", "correct horse battery")
    t = tournaments.create_tournament(store, org, TournamentIn(name="角色测试杯", starts_on="2026-12-12"))
    tournaments.create_event(store, org, t.id, EventConfig.model_validate(
        {"name": "掼蛋", "game": "guandan", "entry": "pair", "capacity": 8, "stages": [{"format": "swiss", "rounds": 3}]}))
    page = desk.new_page()
    page.goto(f"{stack['site']}/organiser.html")
    page.get_by_label("手机号或邮箱").fill("13611112222")
    page.get_by_label("密码").fill("wrong password")
    page.get_by_test_id("password-form").get_by_role("button", name="登录").click()
    expect(page.get_by_test_id("error")).to_have_text("手机号/邮箱或密码不正确")   # one language, not "please sign in first"
    page.get_by_label("密码").fill("correct horse battery")
    page.get_by_test_id("password-form").get_by_role("button", name="登录").click()
    expect(page.get_by_test_id("console")).to_be_visible()
    expect(page.get_by_test_id("error")).to_be_hidden()   # the earlier error does not stay beside success
    expect(page.locator(".van-dropdown-menu__bar")).to_contain_text("角色测试杯")
    page.get_by_role("button", name="我的设备").click()
    expect(page.get_by_test_id("devices")).to_contain_text("本机")   # the organiser sees its devices
    shot(page, "signed-in")
    _, scorer_token = principals.add_staff(store, t.id, "李记分", "scorer")
    _, desk_token = principals.add_staff(store, t.id, "王报到", "desk")
    phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, locale="zh-CN")
    p = phone.new_page()
    p.goto(f"{stack['site']}/organiser.html#staff={scorer_token}")
    expect(p.get_by_test_id("who")).to_contain_text("李记分 · 记分员")
    expect(p.get_by_role("tab", name="报名名单")).to_be_hidden()
    expect(p.get_by_role("tab", name="比赛进行")).to_be_visible()
    expect(p.get_by_role("button", name="新建赛事")).to_be_hidden()
    # issue 24: drawing and closing are the chief referee's; the scorer's phone does not offer them
    expect(p.get_by_test_id("appeals")).to_be_attached()
    expect(p.get_by_test_id("draw")).to_have_count(0)
    expect(p.get_by_test_id("close-round")).to_have_count(0)
    assert "staff=" not in p.url   # the token left the address bar
    shot(p, "scorer-phone")
    p2 = phone.new_page()
    p2.goto(f"{stack['site']}/organiser.html#staff={desk_token}")
    expect(p2.get_by_test_id("who")).to_contain_text("王报到 · 报到台")
    expect(p2.get_by_role("tab", name="比赛进行")).to_be_hidden()
    expect(p2.get_by_role("button", name="全部签到")).to_be_visible()
    shot(p2, "desk-phone")
    phone.close()


def test_weak_wifi_keeps_the_result_and_sends_it_later(store, stack, browser, shot):
    """Issue 16: a result entered while the phone is offline is kept, shown as 未发送, and sent when the network
    returns; a page opened without its code asks for it (issue 17)."""
    org, token, t, (ev,) = make_tournament(store, [
        {"name": "二打一离线", "game": "doudizhu", "entry": "individual", "capacity": 15, "fee": {"amount": 0},
         "stages": [{"format": "swiss", "rounds": 5}]}])
    for i in range(3):
        r = registration.register(store, ev.id, RegistrationIn(members=[{"name": f"牌手{i}", "phone": f"1350000{i:04d}"}]), None)
        registration.check_in(store, ev.id, r.entry.id)
    from chalicelib.services import rounds
    rnd, _ = rounds.draw_next(store, org, ev.id, 3)
    code = rnd.tables[0].codes[0]
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, locale="zh-CN")
    a = ctx.new_page()
    a.goto(f"{stack['site']}/score.html?e={ev.id}&r=1&t=1")
    expect(a.get_by_test_id("code-form")).to_be_visible()
    expect(a.locator("body")).not_to_contain_text("null")
    a.get_by_label("桌号码").fill(code[:5].lower() + " " + code[5:])
    a.get_by_role("button", name="打开本桌").click()
    expect(a.get_by_test_id("title")).to_contain_text("第 1 桌")
    a.click("[data-choice='landlord:W']")
    a.click("[data-choice='bid:2']")
    a.click("[data-choice='winner:landlord']")
    a.get_by_test_id("add-deal").click()
    expect(a.get_by_test_id("deals").locator("li")).to_have_count(1)
    ctx.set_offline(True)
    # a deal added with no network is kept (the preview cannot run); the server checks it when it is sent
    a.click("[data-choice='landlord:S']")
    a.click("[data-choice='winner:farmers']")
    a.get_by_test_id("add-deal").click()
    expect(a.get_by_test_id("running")).to_contain_text("离线")
    expect(a.get_by_test_id("deals").locator("li")).to_have_count(2)
    a.get_by_role("button", name="提交成绩").click()
    expect(a.get_by_test_id("sync")).to_contain_text("未发送")
    shot(a, "offline-unsent")
    _, _, tables = rounds.load_round(store, ev.id, 1)
    assert tables[0]["status"] == "pending"
    ctx.set_offline(False)
    expect(a.get_by_test_id("sync")).to_contain_text("已发送", timeout=25_000)
    expect(a.get_by_test_id("review-text")).to_contain_text("请对方")
    shot(a, "back-online-sent")
    _, _, tables = rounds.load_round(store, ev.id, 1)
    assert tables[0]["status"] == "entered" and tables[0]["version"] == 1
    assert [d["landlord"] for d in tables[0]["result"]["deals"]] == ["W", "S"]
    ctx.close()


def test_one_form_for_the_day_on_a_phone(store, stack, phone, browser, shot):
    """Issue 15 at 390 × 844: tick two events, one contact, one total; Chinese field names in errors; the done
    page fits the phone; the manage link shows both entries and a receipt; the same person twice is refused."""
    org, token, t, events = make_tournament(store, [
        {"name": "拖拉机淘汰赛", "game": "tractor", "entry": "pair", "capacity": 16, "fee": {"amount": 2000, "per": "person"},
         "stages": [{"format": "knockout", "scoring": {"method": "level_table"}}]},
        {"name": "掼蛋积分赛", "game": "guandan", "entry": "pair", "capacity": 16, "fee": {"amount": 2000, "per": "person"},
         "stages": [{"format": "swiss", "rounds": 3}]}])
    page = phone.new_page()
    page.goto(f"{stack['site']}/index.html?t={t.id}")
    page.get_by_test_id("register-day").click()
    expect(page.locator(".pick-card")).to_have_count(2)
    expect(page.get_by_test_id("pay-how")).to_contain_text("报到台")          # online payment is off here: no pay button
    for e in events:
        page.get_by_test_id(f"pick-{e.id}").click()
    page.get_by_label("姓名", exact=True).fill("张三")
    page.get_by_label("手机号", exact=True).fill("12345")                        # a wrong phone number
    page.get_by_test_id(f"event-{events[0].id}").get_by_label("队员 2 · 姓名").fill("李四")
    expect(page.get_by_test_id(f"event-{events[1].id}").get_by_label("队员 2 · 姓名")).to_have_value("李四")  # reused
    expect(page.get_by_test_id("total")).to_contain_text("¥80.00")
    page.get_by_role("button", name="提交").click()
    # the phone's problem at the phone field on screen, once (issue 39: "第 1 项报名 · 队员 1", three times)
    expect(page.get_by_test_id("error")).to_contain_text("请修改标红的项")
    expect(page.locator(".van-field__error-message")).to_have_count(1)
    expect(page.get_by_test_id("c-phone").locator(".van-field__error-message")).to_contain_text("手机号")
    assert "第 1 项报名" not in page.inner_text("body")
    expect(page.get_by_test_id("error")).not_to_contain_text("members.0")
    expect(page.get_by_test_id("error")).not_to_contain_text("phone")            # worded by the catalog, not the server
    shot(page, "day-error")
    page.get_by_label("手机号", exact=True).fill("13800000088")
    page.get_by_role("button", name="提交").click()
    expect(page.get_by_test_id("done")).to_be_visible()
    expect(page.get_by_test_id("done-items").locator("li")).to_have_count(2)
    expect(page.get_by_test_id("error")).to_be_hidden()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390   # the long link wraps
    shot(page, "day-done")
    manage = page.get_by_test_id("manage").get_attribute("href")
    page.goto(manage)
    expect(page.get_by_test_id("reg-items").locator(".card")).to_have_count(2)
    expect(page.get_by_test_id("receipt")).to_contain_text("拖拉机淘汰赛")
    shot(page, "day-manage")
    # the link works in any browser, not only the one that registered (issue 20)
    other = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, locale="zh-CN")
    try:
        elsewhere = other.new_page()
        violations = []
        elsewhere.on("console", lambda m: violations.append(m.text) if "Content Security Policy" in m.text else None)
        elsewhere.goto(manage)
        expect(elsewhere.get_by_test_id("reg-items").locator(".card")).to_have_count(2)
        assert "#token=" not in elsewhere.url          # the token leaves the address bar once kept
        elsewhere.reload()
        expect(elsewhere.get_by_test_id("reg-items").locator(".card")).to_have_count(2)
        assert not violations, violations              # the site's CSP (no inline script) breaks nothing here
        shot(elsewhere, "day-manage-other-browser")
    finally:
        other.close()
    page.goto(f"{stack['site']}/day.html?t={t.id}")
    page.get_by_test_id(f"pick-{events[1].id}").click()
    page.get_by_label("姓名", exact=True).fill("张三")
    page.get_by_label("手机号", exact=True).fill("13800000088")
    page.get_by_test_id(f"event-{events[1].id}").get_by_label("队员 2 · 姓名").fill("王五")
    page.get_by_role("button", name="提交").click()
    expect(page.get_by_test_id("error")).to_contain_text("已在本项目报名")
    shot(page, "day-duplicate")


def test_the_day_form_says_before_sending_that_too_many_events_do_not_fit(store, stack, phone, shot):
    """One registration is one transaction of at most 100 actions: fourteen pair events with the contact's and a
    partner's phone are 102 of them here (7 an event, 4 the registration's own without an online payment). The
    form says so before sending anything, naming how many fit (13); with 13 picked it registers them all."""
    _, _, t, events = make_tournament(store, [
        {"name": f"拖拉机{i + 1}组", "game": "tractor", "entry": "pair", "capacity": 16, "fee": {"amount": 0},
         "stages": [{"format": "knockout", "scoring": {"method": "level_table"}}]} for i in range(14)])
    page = phone.new_page()
    sent = []
    page.on("request", lambda r: sent.append(r.url) if r.method == "POST" and "/registrations" in r.url else None)
    page.goto(f"{stack['site']}/day.html?t={t.id}")
    expect(page.locator(".pick-card")).to_have_count(14)
    page.get_by_label("姓名", exact=True).fill("张三")
    page.get_by_label("手机号", exact=True).fill("138 0000 0071")
    for e in events:
        page.get_by_test_id(f"pick-{e.id}").click()
    first = page.get_by_test_id(f"event-{events[0].id}")
    first.get_by_label("队员 2 · 姓名").fill("李四")
    first.get_by_label("队员 2 · 手机号").fill("13800000072")          # reused in the other thirteen
    expect(page.get_by_test_id("too-large")).to_contain_text("已选 14 个项目")
    expect(page.get_by_test_id("too-large")).to_contain_text("一次最多报 13 个项目")
    page.get_by_role("button", name="提交").click()
    expect(page.get_by_test_id("error")).to_contain_text("一次最多报 13 个项目")
    shot(page, "day-too-large")
    assert sent == [] and all(store.repos.entries.counters(e.id)["taken"] == 0 for e in events)
    page.get_by_test_id(f"pick-{events[-1].id}").click()
    expect(page.get_by_test_id("too-large")).to_be_hidden()
    page.get_by_role("button", name="提交").click()
    expect(page.get_by_test_id("done")).to_be_visible()
    expect(page.get_by_test_id("done-items").locator("li")).to_have_count(13)
    assert [store.repos.entries.counters(e.id)["taken"] for e in events] == [1] * 13 + [0]


ULID = re.compile(r"\b[0-9A-HJKMNP-TV-Z]{26}\b")
CODE = re.compile(r"\b[a-z]+_[a-z_]+\b")   # snake_case: an internal code on screen


def _no_machine_words(page, where):
    text = page.evaluate("document.body.innerText")
    assert not ULID.search(text), (where, ULID.search(text).group(0))
    assert not CODE.search(text), (where, CODE.search(text).group(0))
    for bad in ("'null'", "undefined", "NaN", "[object Object]"):
        assert bad not in text, (where, bad)
    return text


def test_every_page_speaks_in_words_at_two_sizes_and_two_languages(store, stack, browser, shot):
    """Issue 17: console, table page and published pages at 390 × 844 and 1280 × 900, in 中文 and English:
    no raw ids, no internal codes, labelled numbers, a bye shown by name."""
    org, token, t, (ev,) = make_tournament(store, [
        {"name": "掼蛋积分赛", "game": "guandan", "entry": "pair", "capacity": 20, "fee": {"amount": 0},
         "stages": [{"format": "swiss", "rounds": 3, "early_finish": False, "scoring": {"method": "match_points"}}]}])
    ids = []
    for i in range(5):
        r = registration.register(store, ev.id, RegistrationIn(name=f"第{i + 1}对", club=f"商会{i % 2}", members=[
            {"name": f"甲{i}", "phone": f"1330000{i:04d}"}, {"name": f"乙{i}"}]), None)
        registration.check_in(store, ev.id, r.entry.id)
        ids.append(r.entry.id)
    from chalicelib.services import publishing, results, rounds
    rnd, _ = rounds.draw_next(store, org, ev.id, 3)
    t1 = rnd.tables[0]
    a, b = (s.entry_id for s in t1.sides)
    results.submit_result(store, ev.id, 1, 1, {"version": 0, "final": {"levels": {a: 10, b: 7}}},
                          results.Actor("organiser", f"organiser:{org.id}"))
    from chalicelib.publish.sinks import LocalSink
    store.publisher = LocalSink(stack["publish_dir"])
    publishing.publish_tournament(store, t.id)
    code = t1.codes[0]
    pages = [("console", "/organiser.html"), ("table", f"/score.html?e={ev.id}&r=1&t=1&c={code}"),
             ("tournament", f"/t/{t.id}/index.html"), ("event", f"/t/{t.id}/{ev.id}/index.html"),
             ("round", f"/t/{t.id}/{ev.id}/round-1.html"), ("standings", f"/t/{t.id}/{ev.id}/standings.html"),
             ("corrections", f"/t/{t.id}/{ev.id}/corrections.html"), ("entry", f"/t/{t.id}/{ev.id}/entry-{a}.html")]
    for width, height in ((390, 844), (1280, 900)):
        for lang in ("zh", "en"):
            ctx = browser.new_context(viewport={"width": width, "height": height}, locale="zh-CN")
            # before any page script: a page's own first load writes its language there once its words are in,
            # which could land after a setItem made from the test and put it back to Chinese
            ctx.add_init_script(f"localStorage.setItem('organiserToken', '{token}'); localStorage.setItem('lang', '{lang}')")
            page = ctx.new_page()
            for name, path in pages:
                if lang == "en" and path.startswith("/t/"):
                    path = "/en" + path
                page.goto(stack["site"] + path)
                if name == "console":   # the entries tab first: its counts with their unit (issue 23)
                    expect(page.get_by_test_id("counters")).to_have_text(
                        "已确认 5 个 · 待付款 0 个 · 候补 0 个" if lang == "zh" else "5 confirmed · 0 awaiting payment · 0 waitlisted")
                    page.get_by_role("tab", name="比赛进行" if lang == "zh" else "Run the day").click()
                    expect(page.locator("tr[data-table='1']")).to_be_visible()
                    bye_name = "第" if lang == "zh" else "第"
                    expect(page.get_by_test_id("round")).to_contain_text(bye_name)
                elif name == "table":
                    expect(page.get_by_test_id("title")).to_be_visible()
                    expect(page.get_by_test_id("table-head")).to_contain_text("第1对")   # the sides by name
                else:
                    page.wait_for_load_state("load")
                text = _no_machine_words(page, (name, width, lang))
                if name == "round":
                    assert ("场分" in text) if lang == "zh" else ("Match points" in text)   # labelled numbers
                    assert " / " not in text
                if name == "tournament":
                    assert "5" in text
                if width == 390:
                    assert page.evaluate("document.documentElement.scrollWidth") <= 400, (name, lang)
                shot(page, f"{name}-{width}-{lang}")
            ctx.close()
