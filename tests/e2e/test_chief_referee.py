"""Issue 24 in Chromium: the chief referee edits a pairing and sees the rematch warning before saving; settles a
dispute from the prefilled deals; the public round pages show edited tables and an early finish."""
from __future__ import annotations

from playwright.sync_api import expect

from chalicelib.models import RegistrationIn
from chalicelib.services import registration, results, rounds
from tests.e2e.test_browser import make_tournament, token_sign_in

ORG = results.Actor("organiser", "organiser:test")


def _pairs(store, ev, n, prefix="第"):
    for i in range(n):
        r = registration.register(store, ev.id, RegistrationIn(name=f"{prefix}{i + 1}对", club=f"商会{i % 3}", members=[
            {"name": f"甲{i}", "phone": f"1360000{i:04d}"}, {"name": f"乙{i}"}]), None)
        registration.check_in(store, ev.id, r.entry.id)


def _play_round(store, org, ev, rnd, winner=None, draws_elsewhere=False):
    for tb in rnd.tables:
        a, b = (s.entry_id for s in tb.sides)
        top = b if winner == b else a
        other = a if top == b else b
        levels = {top: 8, other: 8} if draws_elsewhere and winner not in (a, b) else {top: 10, other: 6}
        results.submit_result(store, ev.id, rnd.number, tb.number,
                              {"version": tb.version, "final": {"levels": levels}}, ORG)
        results.confirm_result(store, ev.id, rnd.number, tb.number, ORG)
    rounds.close_round(store, org, ev.id, rnd.number)


def test_the_referee_edits_a_pairing_sees_the_rematch_warning_first_and_the_public_page_marks_it(store, stack, desk, shot):
    org, token, t, (ev,) = make_tournament(store, [
        {"name": "掼蛋编排调整", "game": "guandan", "entry": "pair", "capacity": 12, "fee": {"amount": 0},
         "stages": [{"format": "swiss", "rounds": 3, "early_finish": False, "scoring": {"method": "level_points"}}]}])
    _pairs(store, ev, 6)
    r1, _ = rounds.draw_next(store, org, ev.id, 1)
    _play_round(store, org, ev, r1)
    r2, _ = rounds.draw_next(store, org, ev.id, 2)
    met = {frozenset(s.entry_id for s in tb.sides) for tb in r1.tables}
    swap = None
    for x in r2.tables:
        for y in r2.tables:
            for a in x.sides:
                for b in y.sides:
                    if x.number >= y.number or swap:
                        continue
                    new_x = {s.entry_id for s in x.sides} - {a.entry_id} | {b.entry_id}
                    if frozenset(new_x) in met:   # the swap brings back a round-1 pair at table x
                        swap = (a.entry_id, b.entry_id, x.number, y.number)
    assert swap, "no swap brings back a round-1 pair"
    page = desk.new_page()
    token_sign_in(page, stack, token)
    page.get_by_role("tab", name="比赛进行").click()
    expect(page.get_by_test_id("round").locator("h3")).to_contain_text("第 2 轮")
    page.get_by_test_id("edit-pairing").click()
    form = page.get_by_test_id("pairing-edit")
    form.get_by_test_id("pe-a").select_option(swap[0])
    form.get_by_test_id("pe-b").select_option(swap[1])
    # the warning is there before anything is saved
    warning = form.locator("[data-code=rematch]")
    expect(warning).to_contain_text("重复对阵")
    expect(warning).to_contain_text(f"第 {swap[2]} 桌")
    shot(page, "pairing-edit-warning")
    assert [[s.entry_id for s in tb.sides] for tb in rounds.get_round(store, org, ev.id, 2).tables] == \
        [[s.entry_id for s in tb.sides] for tb in r2.tables]
    form.get_by_test_id("pe-save").click()
    expect(page.get_by_test_id("error")).to_contain_text("请填写调整理由")
    form.get_by_test_id("pe-reason").locator("input").fill("两队要求同桌复赛，裁判长同意")
    form.get_by_test_id("pe-save").click()
    expect(page.get_by_test_id("notice")).to_contain_text("编排已调整")
    expect(page.locator(f"tr[data-table='{swap[2]}']").get_by_test_id("edited")).to_be_visible()
    expect(page.locator(f"tr[data-table='{swap[2]}'] td.reason")).to_contain_text("两队要求同桌复赛")
    shot(page, "pairing-edited")
    # a whole table to the bye (both pairs absent): checked first, then saved with its reason
    third = next(n for n in (1, 2, 3) if n not in swap[2:])
    page.get_by_test_id("edit-pairing").click()
    form.get_by_test_id("pe-bye").select_option(str(third))
    expect(form.get_by_test_id("pe-warnings")).to_be_visible()
    form.get_by_test_id("pe-reason").locator("input").fill("两队均未到场")
    form.get_by_test_id("pe-save").click()
    expect(page.locator(f"tr[data-table='{third}']")).to_have_count(0)
    expect(page.get_by_test_id("round")).to_contain_text("轮空：编排调整")
    page.set_viewport_size({"width": 360, "height": 780})
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    page.get_by_role("button", name="发布成绩").click()
    expect(page.get_by_test_id("published-link")).to_be_visible()
    for prefix, words in (("", "编排调整"), ("/en", "Pairing edited")):
        page.goto(f"{stack['site']}{prefix}/t/{t.id}/{ev.id}/round-2.html")
        expect(page.locator("span.tag.edited").first).to_have_text(words)
        expect(page.locator("body")).to_contain_text("两队要求同桌复赛，裁判长同意")
        shot(page, f"public-round-edited{prefix.replace('/', '-')}")


def test_the_referee_settles_a_dispute_from_the_prefilled_deals(store, stack, desk, shot):
    org, token, t, (ev,) = make_tournament(store, [
        {"name": "掼蛋裁定", "game": "guandan", "entry": "pair", "capacity": 8, "fee": {"amount": 0},
         "stages": [{"format": "swiss", "rounds": 3, "scoring": {"method": "level_points"}}]}])
    _pairs(store, ev, 2)
    rnd, _ = rounds.draw_next(store, org, ev.id, 1)
    tb = rnd.tables[0]
    home, away = tb.sides
    # home sits N/S: three deals won 1-2 by home (+3 each), then one by away with 1-2 (+3): home 11, away 5
    h, a = home.seats, away.seats
    deals = [{"order": [h[0], h[1], a[0], a[1]]}] * 3 + [{"order": [a[0], a[1], h[0], h[1]]}]
    results.submit_result(store, ev.id, 1, 1, {"version": 0, "deals": deals}, results.Actor("side", "table 1 side 1", side=0))
    results.dispute_result(store, ev.id, 1, 1, "第三副不算：牌没洗", results.Actor("side", "table 1 side 2", side=1))
    page = desk.new_page()
    token_sign_in(page, stack, token)
    page.get_by_role("tab", name="比赛进行").click()
    page.get_by_test_id("disputes").get_by_role("button", name="裁定成绩").click()
    form = page.get_by_test_id("result-form")
    expect(form.get_by_test_id("dispute-facts")).to_contain_text("第三副不算：牌没洗")
    expect(form.get_by_test_id("entered-facts")).to_contain_text(f"{home.name} · 北南 · 级数 J")
    expect(form.get_by_test_id("deal-list").locator("li")).to_have_count(4)
    shot(page, "settle-prefilled")
    form.get_by_test_id("drop-deal-3").click()
    expect(form.get_by_test_id("deal-list").locator("li")).to_have_count(3)
    expect(form.get_by_test_id("recount")).to_contain_text(f"{home.name} 8")   # the engine recounts: 2 +3 +3 = 8
    form.get_by_test_id("fix-reason").locator("input").fill("第三副重发，不计")
    expect(form.get_by_test_id("fix-reason")).to_contain_text("裁定理由")
    form.get_by_role("button", name="提交成绩").click()
    expect(page.locator("tr[data-table='1']").get_by_test_id("table-status")).to_have_text("已确认")
    table = rounds.get_round(store, org, ev.id, 1).tables[0]
    assert len(table.result["deals"]) == 3 and table.details["levels"] == {home.entry_id: 8, away.entry_id: 5}
    # after the close, a correction starts from the settled result and asks for 更正理由 (not the table's 编排说明)
    page.get_by_role("button", name="结束本轮").click()
    page.locator(".act-confirm .van-dialog__confirm").click()   # the confirmation asked first (issue 39)
    expect(page.get_by_test_id("notice")).to_contain_text("第 1 轮已结束")
    page.locator("tr[data-table='1']").get_by_role("button", name="录入成绩").click()
    reason_field = page.get_by_test_id("result-form").get_by_test_id("fix-reason")
    expect(reason_field).to_contain_text("更正理由")
    expect(reason_field).not_to_contain_text("编排说明")
    expect(page.get_by_test_id("deal-list").locator("li")).to_have_count(3)
    shot(page, "correction-after-close")
    page.get_by_test_id("result-form").get_by_role("button", name="关闭").click()
    page.get_by_role("button", name="发布成绩").click()
    expect(page.get_by_test_id("published-link")).to_be_visible()
    page.goto(f"{stack['site']}/t/{t.id}/{ev.id}/corrections.html")
    row = page.locator("tr", has_text="异议裁定")
    expect(row).to_contain_text("第三副重发，不计")
    expect(row).to_contain_text(f"{home.name} 11")
    expect(row).to_contain_text(f"{home.name} 8")
    shot(page, "corrections-named")


def test_public_round_page_console_and_phone_show_an_early_finish(store, stack, browser, desk, shot):
    org, token, t, (ev,) = make_tournament(store, [
        {"name": "掼蛋提前结束", "game": "guandan", "entry": "pair", "capacity": 8, "fee": {"amount": 0},
         "stages": [{"format": "swiss", "rounds": 4, "early_finish": True, "scoring": {"method": "match_points"}}]}])
    _pairs(store, ev, 4, "东兰")
    # rules.md §9: the leader wins three, every other match is drawn: 6 against 2, 2, 2 with one round left —
    # losing it the leader keeps 6, more than the 2 + 2 any other can reach: certain before round 4, not before
    leader = None
    for n in (1, 2, 3):
        rnd, _ = rounds.draw_next(store, org, ev.id, n)
        leader = leader or rnd.tables[0].sides[0].entry_id
        assert not rnd.early_finish
        _play_round(store, org, ev, rnd, leader, draws_elsewhere=True)
    r4, _ = rounds.draw_next(store, org, ev.id, 4)
    name = store.repos.entries.get(ev.id, leader).name
    assert r4.early_finish and r4.early_finish[0]["entry_id"] == leader
    phone = browser.new_context(viewport={"width": 360, "height": 780}, is_mobile=True, has_touch=True, locale="vi-VN")
    p = phone.new_page()
    p.goto(f"{stack['site']}/score.html?e={ev.id}&r=4&t=1&c={r4.tables[0].codes[0]}&lang=vi")
    expect(p.get_by_test_id("early-finish")).to_contain_text(f"{name} đã chắc hạng 1")
    shot(p, "phone-early-finish-vi")
    phone.close()
    page = desk.new_page()
    token_sign_in(page, stack, token)
    page.get_by_role("tab", name="比赛进行").click()
    expect(page.get_by_test_id("early-finish")).to_contain_text(f"{name} 已锁定第 1 名，第 4 轮起不再编排，每轮计平均分")
    # why, in words: its lead and the most any other can reach
    expect(page.get_by_test_id("early-finish-why")).to_contain_text("现 6 分，余下 1 轮全负仍有 6 分，多于其他队最多能到的 4 分")
    shot(page, "console-early-finish")
    page.get_by_role("button", name="发布成绩").click()
    expect(page.get_by_test_id("published-link")).to_be_visible()
    for prefix, words in (("", f"{name} 已锁定第 1 名"), ("/en", f"{name} is certain of place 1")):
        page.goto(f"{stack['site']}{prefix}/t/{t.id}/{ev.id}/round-4.html")
        expect(page.locator("p.early-finish")).to_contain_text(words)
        shot(page, f"public-early-finish{prefix.replace('/', '-')}")


def test_the_referee_substitutes_a_player_and_disqualifies_an_entry_from_the_desk_screen(store, stack, desk, shot):
    org, token, t, (ev,) = make_tournament(store, [
        {"name": "掼蛋替补", "game": "guandan", "entry": "pair", "capacity": 8, "fee": {"amount": 0},
         "substitutes": {"pairs": True}, "stages": [{"format": "swiss", "rounds": 3, "scoring": {"method": "level_points"}}]}])
    _pairs(store, ev, 4)
    entries = sorted(store.repos.entries.list(ev.id), key=lambda e: e.name)
    first, second = entries[0], entries[1]
    page = desk.new_page()
    token_sign_in(page, stack, token)
    row = page.locator(f"[data-entry='{first.id}']")
    row.get_by_test_id("sub-open").click()
    form = row.get_by_test_id("sub-form")
    form.get_by_role("radio", name=f"换下 {first.members[1].name}").click()
    form.get_by_label("换上（姓名）").fill("替补丙")
    form.get_by_test_id("sub-reason").locator("input").fill("队员身体不适，裁判长批准")
    shot(page, "substitute-form")
    form.get_by_role("button", name="提交").click()
    expect(page.locator(".act-confirm")).to_contain_text(f"{first.members[1].name} 换为 替补丙")
    page.locator(".act-confirm .van-dialog__confirm").click()   # the confirmation asked first (issue 39)
    expect(page.get_by_test_id("notice")).to_contain_text(f"{first.members[1].name} 换为 替补丙，第 1 轮起")
    expect(row).to_contain_text("替补丙")
    after = store.repos.entries.get(ev.id, first.id)
    assert after.roster_history[0]["reason"] == "队员身体不适，裁判长批准"
    row2 = page.locator(f"[data-entry='{second.id}']")
    row2.get_by_test_id("dq-open").click()
    dq = row2.get_by_test_id("dq-form")
    dq.get_by_role("radio", name="作弊").click()
    dq.get_by_test_id("dq-reason").locator("input").fill("查实作弊")
    dq.get_by_role("button", name="取消资格").click()
    page.locator(".van-dialog").get_by_role("button", name="取消资格").click()
    expect(page.get_by_test_id("notice")).to_contain_text(f"{second.name} 已被取消比赛资格")
    assert store.repos.entries.get(ev.id, second.id).status == "disqualified"
    shot(page, "disqualified")
    page.set_viewport_size({"width": 360, "height": 780})
    assert page.evaluate("document.documentElement.scrollWidth") <= 360


def test_the_referee_records_a_penalty_with_the_result_and_the_table_shows_it(store, stack, desk, shot):
    org, token, t, (ev,) = make_tournament(store, [
        {"name": "掼蛋判罚", "game": "guandan", "entry": "pair", "capacity": 8, "fee": {"amount": 0},
         "stages": [{"format": "swiss", "rounds": 3, "scoring": {"method": "match_points"}}]}])
    _pairs(store, ev, 2)
    rnd, _ = rounds.draw_next(store, org, ev.id, 1)
    home = rnd.tables[0].sides[0]
    page = desk.new_page()
    token_sign_in(page, stack, token)
    page.get_by_role("tab", name="比赛进行").click()
    page.locator("tr[data-table='1']").get_by_role("button", name="录入成绩").click()
    form = page.get_by_test_id("result-form")
    page.select_option("#lv0", "12")
    page.select_option("#lv1", "8")
    form.get_by_test_id("pen-kind").select_option("level_diff_point")
    form.get_by_test_id("pen-referee").locator("input").fill("王裁判")
    form.get_by_test_id("pen-add").click()
    expect(form.get_by_test_id("penalty-editor")).to_contain_text(f"{home.name} · 从总分扣除1个级差分 · 王裁判")
    shot(page, "penalty-form")
    form.get_by_role("button", name="提交成绩").click()
    expect(page.locator("tr[data-table='1']").get_by_test_id("table-status")).to_have_text("已确认")
    expect(page.locator("tr[data-table='1']").get_by_test_id("penalty")).to_contain_text(f"{home.name} · 从总分扣除1个级差分 · 王裁判")
    table = rounds.get_round(store, org, ev.id, 1).tables[0]
    assert table.result["penalties"] == [{"kind": "level_diff_point", "entry_id": home.entry_id, "referee": "王裁判"}]
    shot(page, "penalty-on-table")
