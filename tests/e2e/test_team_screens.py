"""Guandan team events (集体赛) in the browser: each team's phone posts its lineup before the deadline, both rooms
are scored from the two phones (each room confirmed by the other team's phone), the director's lineups view in
the console (posted / missing / overdue, posting after the deadline gives the other team seat choice), both rooms
in the run tab and on the published round page. Screenshots at 390 and 1280 px."""
from __future__ import annotations

from datetime import date, datetime, timedelta, UTC

from chalicelib.models import EventConfig, RegistrationIn, TournamentIn
from chalicelib.services import organisers, registration, tournaments
from playwright.sync_api import expect

from tests.e2e.test_browser import token_sign_in


def team_event(store, starts_in_minutes: float, sizes=(6, 4)):
    org, token = organisers.create_organiser(store, "集体赛组委会")
    t = tournaments.create_tournament(store, org, TournamentIn(name="集体赛杯", venue="南宁",
                                                               starts_on=date.today() + timedelta(days=3)))
    start = (datetime.now(UTC) + timedelta(minutes=starts_in_minutes)).replace(microsecond=0)
    ev = tournaments.create_event(store, org, t.id, EventConfig.model_validate(
        {"name": "掼蛋集体赛", "game": "guandan", "entry": {"kind": "team", "size": 6, "min_size": 4}, "capacity": 8,
         "fee": {"amount": 0}, "stages": [{"format": "swiss", "rounds": 2, "early_finish": False,
                                            "schedule": {"first_round_at": start.isoformat(), "round_minutes": 50}}]}))
    for i, size in enumerate(sizes):
        r = registration.register(store, ev.id, RegistrationIn(
            name=f"{'东西'[i]}城队", club=f"商会{i}",
            members=[{"name": f"{'东西'[i]}{'甲乙丙丁戊己'[m]}", **({"phone": f"1370000{i:04d}"} if m == 0 else {})}
                     for m in range(size)]), None)
        registration.check_in(store, ev.id, r.entry.id)
    from chalicelib.services import rounds
    rnd, _ = rounds.draw_next(store, org, ev.id, 1)
    return org, token, t, ev, rnd


def no_sideways_scroll(page):
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")


def set_level(page, room, i, value):
    box = page.get_by_test_id(f"level-{room}-{i}").locator("input")
    box.fill(str(value))
    box.blur()


def test_two_team_phones_post_lineups_and_score_both_rooms(store, stack, browser, shot):
    org, token, t, ev, rnd = team_event(store, starts_in_minutes=60)
    table = rnd.tables[0]
    home, away = (s.entry_id for s in table.sides)
    phones = [browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True,
                                  has_touch=True, locale="zh-CN") for _ in range(2)]
    a, b = (ctx.new_page() for ctx in phones)
    a.goto(f"{stack['site']}/score.html?e={ev.id}&r=1&t=1&c={table.codes[0]}")
    b.goto(f"{stack['site']}/score.html?e={ev.id}&r=1&t=1&c={table.codes[1]}")
    expect(a.get_by_test_id("team-match")).to_be_visible(timeout=15_000)
    # the home team has seat choice: due 5 minutes before the start; the away team 15
    expect(a.get_by_test_id("lineup-deadline")).to_contain_text("有座位选择权：比赛开始前 5 分钟截止")
    expect(b.get_by_test_id("lineup-deadline")).to_contain_text("无座位选择权：比赛开始前 15 分钟截止")
    expect(a.get_by_test_id("post-lineup")).to_be_disabled()
    # home (six players): 甲 乙 to the open room; with it full, 丙 丁 go to the closed room; 戊 己 do not play
    # (the room forms wait for the team's own lineup)
    expect(a.get_by_test_id("room-open").get_by_test_id("send-open")).to_have_count(0)
    for i in (0, 1, 2, 3):
        a.get_by_test_id(f"member-{i}").click()
    expect(a.get_by_test_id("member-3")).to_contain_text("闭室")
    expect(a.get_by_test_id("member-4")).to_contain_text("不上场")
    shot(a, "home-lineup-form")
    no_sideways_scroll(a)
    a.get_by_test_id("post-lineup").click()
    expect(a.get_by_test_id("lineup-done")).to_be_visible()
    expect(a.get_by_test_id("lineup")).to_contain_text("东甲、东乙")
    # away (four players): the closed room first, then the open room
    b.get_by_test_id("member-0").click()
    b.get_by_test_id("member-0").click()
    b.get_by_test_id("member-1").click()
    b.get_by_test_id("member-1").click()
    b.get_by_test_id("member-2").click()
    b.get_by_test_id("member-3").click()
    b.get_by_test_id("post-lineup").click()
    expect(b.get_by_test_id("lineup-done")).to_be_visible()
    tb = store.repos.rounds.get_table(ev.id, 0, 1, 1)[1]
    assert tb["lineups"] == {home: {"open": [0, 1], "closed": [2, 3]}, away: {"open": [2, 3], "closed": [0, 1]}}
    expect(a.get_by_test_id("other-lineup")).to_contain_text("名单已宣布", timeout=10_000)   # followed by the poll

    # the open room from the home phone: 东城 reached 10, 西城 6
    a.reload()
    open_room = a.get_by_test_id("room-open")
    expect(open_room).to_contain_text("东甲、东乙")
    expect(open_room).to_contain_text("北 南")        # the seats in this room, in the page's own words
    expect(a.locator("body")).not_to_contain_text("console.")   # no catalog key shown raw
    set_level(a, "open", 0, 10)
    set_level(a, "open", 1, 6)
    open_room.get_by_test_id("send-open").click()
    expect(open_room.get_by_test_id("room-hint")).to_have_text("已提交，等对方确认")
    shot(a, "home-open-sent")
    # the away phone sees it and confirms; then enters the closed room: 东城 7, 西城 9
    b.reload()
    expect(b.get_by_test_id("room-open").get_by_test_id("room-levels")).to_contain_text("10")
    shot(b, "away-to-confirm-open")
    b.get_by_test_id("confirm-open").click()
    expect(b.get_by_test_id("room-open").get_by_test_id("room-state")).to_have_text("已确认")
    set_level(b, "closed", 0, 7)
    set_level(b, "closed", 1, 9)
    b.get_by_test_id("send-closed").click()
    expect(b.get_by_test_id("room-closed").get_by_test_id("room-hint")).to_have_text("已提交，等对方确认")
    # the home phone cannot confirm its own room, only the other team's
    a.reload()
    expect(a.get_by_test_id("confirm-open")).to_have_count(0)
    a.get_by_test_id("confirm-closed").click()
    result = a.get_by_test_id("match-result")
    expect(result).to_be_visible(timeout=30_000)   # the last confirmation also publishes the pages (slow under load)
    # by hand: gained 东 8 + 5 = 13, 西 4 + 7 = 11 → 东 2 : 0; 级差分 one 26-point scale over both rooms (rules.md
    # §9): 13 ± 2 → 东 15, 西 11
    expect(result).to_contain_text("共升级 13")
    expect(result).to_contain_text("场分 2")
    expect(result).to_contain_text("级差分 15")
    expect(result).to_contain_text("级差分 11")
    shot(a, "home-match-confirmed")
    no_sideways_scroll(a)
    tb = store.repos.rounds.get_table(ev.id, 0, 1, 1)[1]
    assert tb["status"] == "confirmed" and tb["points"][home] == {"match_points": 2, "level_diff_points": 15}
    assert tb["played"] == {"open": {home: [0, 1], away: [2, 3]}, "closed": {home: [2, 3], away: [0, 1]}}

    # both rooms on the published round page
    from chalicelib.publish.sinks import LocalSink
    from chalicelib.services import publishing
    store.publisher = LocalSink(stack["publish_dir"])
    publishing.publish_tournament(store, t.id)
    page = phones[0].new_page()
    page.goto(f"{stack['site']}/t/{t.id}/{ev.id}/round-1.html")
    expect(page.locator("body")).to_contain_text("开室 10 : 6")
    expect(page.locator("body")).to_contain_text("闭室 7 : 9")
    shot(page, "published-round-390")
    no_sideways_scroll(page)
    for ctx in phones:
        ctx.close()


def test_console_lineups_view_and_both_rooms_in_the_run_tab(store, stack, browser, shot):
    # the round starts in 3 minutes: both deadlines (15 and 5 minutes before) have passed
    org, token, t, ev, rnd = team_event(store, starts_in_minutes=3, sizes=(5, 4))
    table = rnd.tables[0]
    home, away = (s.entry_id for s in table.sides)
    desk = browser.new_context(viewport={"width": 1280, "height": 900}, locale="zh-CN")
    page = desk.new_page()
    token_sign_in(page, stack, token)
    page.get_by_role("tab", name="比赛进行").click()
    panel = page.get_by_test_id("lineups")
    expect(panel).to_be_visible(timeout=15_000)
    expect(panel.get_by_test_id("lineups-count")).to_have_text("已交 0 / 2 队")
    expect(panel.get_by_test_id("lineup-1-0").get_by_test_id("lineup-state")).to_have_text("已过截止")
    expect(panel.get_by_test_id("lineup-1-0")).to_contain_text("有座位选择权")
    expect(page.get_by_test_id("rooms")).to_contain_text("开室")
    shot(page, "console-lineups-1280")
    # a team's phone is too late now
    phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, locale="zh-CN")
    p = phone.new_page()
    p.goto(f"{stack['site']}/score.html?e={ev.id}&r=1&t=1&c={table.codes[0]}")
    expect(p.get_by_test_id("lineup-late")).to_be_visible(timeout=15_000)
    shot(p, "phone-lineup-late")
    # the director posts the home team's lineup after its deadline: the away team then has seat choice
    panel.get_by_test_id("post-for-1-0").click()
    expect(panel.get_by_test_id("after-deadline")).to_have_text("截止后由裁判长代交：对方获得座位选择权")
    for i in (0, 4, 1, 2):   # 甲 戊 to the open room; with it full, 乙 丙 to the closed room
        panel.get_by_test_id(f"member-{i}").click()
    shot(page, "console-post-lineup-1280")
    panel.get_by_test_id("post-lineup").click()
    expect(panel.get_by_test_id("lineups-count")).to_have_text("已交 1 / 2 队", timeout=10_000)
    expect(panel.get_by_test_id("lineup-1-0")).to_contain_text("东甲、东戊")
    expect(panel.get_by_test_id("lineup-1-0")).not_to_contain_text("有座位选择权")
    expect(panel.get_by_test_id("lineup-1-1")).to_contain_text("有座位选择权")
    tb = store.repos.rounds.get_table(ev.id, 0, 1, 1)[1]
    assert tb["seat_choice"] == away and tb["lineups"][home] == {"open": [0, 4], "closed": [1, 2]}
    # the home phone (N–S in the open room) names the away team's players with the room's result (the away team
    # has no lineup); the director confirms it in the run tab
    p2 = phone.new_page()
    p2.goto(f"{stack['site']}/score.html?e={ev.id}&r=1&t=1&c={table.codes[0]}")
    room = p2.get_by_test_id("room-open")
    expect(room.get_by_test_id("players-open-1")).to_be_visible(timeout=15_000)
    set_level(p2, "open", 0, 5)
    set_level(p2, "open", 1, 9)
    expect(room.get_by_test_id("send-open")).to_be_disabled()     # its two players first
    room.get_by_test_id("players-open-1").get_by_role("button", name="西甲").click()
    room.get_by_test_id("players-open-1").get_by_role("button", name="西乙").click()
    shot(p2, "phone-room-with-players")
    no_sideways_scroll(p2)
    room.get_by_test_id("send-open").click()
    expect(room.get_by_test_id("room-hint")).to_have_text("已提交，等对方确认")
    cell = page.locator("tr[data-table='1']").get_by_test_id("rooms")
    expect(cell.get_by_test_id("rooms-open")).to_contain_text("待确认", timeout=15_000)
    expect(cell.get_by_test_id("rooms-open")).to_contain_text("5 : 9")
    cell.get_by_test_id("confirm-room-open").click()
    expect(cell.get_by_test_id("rooms-open")).to_contain_text("已确认", timeout=30_000)
    expect(cell.get_by_test_id("rooms-closed")).to_contain_text("未录入")
    # the closed room is the away team's to enter (N–S there): the home phone waits for it
    p2.reload()
    expect(p2.get_by_test_id("room-closed").get_by_test_id("room-wait")).to_have_text("本室由坐南北的队录入，你队核对确认")
    shot(page, "console-rooms-1280")
    tb = store.repos.rounds.get_table(ev.id, 0, 1, 1)[1]
    assert tb["room_status"]["open"]["status"] == "confirmed"
    assert tb["room_status"]["open"]["players"] == {home: [0, 4], away: [0, 1]}
    # the same console on a phone: no sideways scroll
    small = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, locale="zh-CN")
    sp = small.new_page()
    token_sign_in(sp, stack, token)
    sp.get_by_role("tab", name="比赛进行").click()
    expect(sp.get_by_test_id("lineups")).to_be_visible(timeout=15_000)
    shot(sp, "console-lineups-390")
    no_sideways_scroll(sp)
    for ctx in (desk, phone, small):
        ctx.close()
