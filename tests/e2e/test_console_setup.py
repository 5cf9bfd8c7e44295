"""Issue 23: an organiser sets up and runs the seeds' days from the console alone. Each seed's day is built from
its template in the browser (no API call but reading back), and GET /events/{eid} is compared with the
configuration written here from the seed itself; an event is edited after registrations exist; and each finding
of the newcomer's walk has its check (a deadline in the past warned before saving, the finished event offering
results instead of 抽签, knockout rounds named by size)."""
from __future__ import annotations

import json
import re
import urllib.request
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from playwright.sync_api import expect

from chalicelib.models import EventConfig, RegistrationIn, TournamentIn
from chalicelib.services import organisers, registration, tournaments
from tests.e2e.conftest import SHOTS
from tests.e2e.test_browser import token_sign_in

DAY = (date.today() + timedelta(days=30)).isoformat()          # the template's day (the form's default)
D = date.fromisoformat(DAY)
BEFORE = (D - timedelta(days=1)).isoformat()
AFTER = (D + timedelta(days=1)).isoformat()


def sched(at, minutes=50, pause=10):
    return {"first_round_at": at, "round_minutes": minutes, "break_minutes": pause}


# Written from ../shared/seeds (the numbers quoted), not from the templates: what each day must hold.
SEED_DAYS = {
    "001": {  # 北京杯 二打一个人赛
        "tournament": {"name": "北京杯牌友二打一比赛", "venue": "北京市朝阳区工人体育场西路8号Coco酒吧三楼", "starts_on": DAY, "ends_on": DAY},
        "events": [{
            "name": "二打一个人赛", "game": "doudizhu", "entry": {"kind": "individual"},
            "capacity": 15,                                              # "限定人数：15人"
            "registration": {"closes_at": f"{BEFORE}T18:00"},            # "报名截止时间" a day before (the template's hour)
            "stages": [{"name": "积分循环赛", "format": "swiss", "rounds": 5,  # "五轮积分循环赛"
                        "schedule": sched(f"{DAY}T14:00", 40, 10),
                        "scoring": {"method": "table_points", "deals_per_round": 6, "minutes": 40,   # "6副牌/40分钟"
                                    "places": [5, 3, 1],                                             # 5 / 3 / 1 场分
                                    "bomb_bonus": {"enabled": True, "each": {3: 50, 4: 100, 5: 200, 6: 500}, "extra": 100},
                                    "tiebreaks": ["table_points", "small_points", "landlord_deals", "lots"]}}],
            "prizes": [{"place_from": 1, "amount": 5000, "label": "第一名"}, {"place_from": 2, "amount": 3000, "label": "第二名"},
                       {"place_from": 3, "amount": 2000, "label": "第三名"},
                       {"place_from": 4, "place_to": 8, "amount": 1000, "label": "第四至八名"}],   # "第四名至第八名…1000元"
            "lateness": {"forfeit_after_minutes": 5, "from_round": 2},   # "从第二轮比赛开始…五分钟"
            "appeals": {"window_minutes": 5, "fee": 20000},              # 5 minutes, 200 CNY
        }],
    },
    "002": {  # 东营万达广场杯 够级团体赛
        "tournament": {"name": "东营万达广场杯够级大赛", "venue": "东营万达广场售楼处", "starts_on": DAY, "ends_on": AFTER},
        "events": [{
            "name": "够级团体赛", "game": "gouji", "entry": {"kind": "team", "size": 3},   # "每队3人"
            "capacity": 64, "registration": {"closes_at": f"{BEFORE}T18:00"},
            "stages": [{"name": "初赛淘汰", "format": "knockout", "schedule": sched(f"{DAY}T09:00")},      # 2月12日 初赛
                       {"name": "复赛循环", "format": "round_robin", "advance": {"total": 8},            # 2月13日 循环决赛
                        "schedule": sched(f"{AFTER}T08:30"),
                        "scoring": {"method": "position_points", "position_values": [7, 5, 4, 3, 2, 1],
                                    "withdrawal_points": 32}}],                                         # "均以32分计分"
            "prizes": [{"place_from": 1, "label": "一等奖"}, {"place_from": 2, "label": "二等奖"}, {"place_from": 3, "label": "三等奖"},
                       {"place_from": 4, "place_to": 9, "label": "四至九等奖"},
                       {"place_from": 10, "place_to": 12, "label": "十至十二等奖"}],                  # "4-9等獎6組，10-12等獎3組"
        }],
    },
    "003": {  # 第一届恒全杯 拖拉机 + 掼蛋
        "tournament": {"name": "第一届恒全杯拖拉机和掼蛋比赛", "venue": "南宁市西乡塘区鲁班路46号人工智能人才培训中心",
                       "starts_on": DAY, "ends_on": DAY},
        "events": [
            {"name": "拖拉机比赛", "game": "tractor", "entry": {"kind": "pair"}, "capacity": 32,
             "fee": {"amount": 2000, "per": "person"},                                       # "報名費：20 元/人"
             "registration": {"closes_at": f"{BEFORE}T15:00",                                # "至6月27日15：00止"
                              "eligibility": {"kind": "codes", "codes": ["HECHI", "YIZHOU", "DONGLAN", "DAHUA"]}},
             "late_entries": True, "substitutes": {"pairs": True},                          # "经同意后方可更换" (issue 39)
             "stages": [{"name": "小组赛", "format": "round_robin", "groups": 4,
                         "schedule": {"rounds": [{"starts_at": f"{DAY}T09:30", "ends_at": f"{DAY}T11:00"}]},   # "09:30-11:00"
                         "scoring": {"method": "level_table", "best_of": 3, "minutes": 90}},   # "3局2勝", "1.5小時"
                        {"name": "淘汰赛", "format": "knockout", "advance": {"per_group": 2}, "knockout_draw": "redraw",  # "重新抽簽"
                         "schedule": {"rounds": [{"starts_at": f"{DAY}T11:10", "ends_at": f"{DAY}T12:40"},
                                                 {"starts_at": f"{DAY}T14:00", "ends_at": f"{DAY}T15:30"},
                                                 {"starts_at": f"{DAY}T15:40", "ends_at": f"{DAY}T17:10"}]},
                         "scoring": {"method": "level_table", "best_of": 3, "minutes": 90}}],
             "prizes": [{"place_from": 1, "label": "一等奖"}, {"place_from": 2, "place_to": 3, "label": "二等奖"},
                        {"place_from": 4, "place_to": 6, "label": "三等奖"}],
             "prize_shrink": {"below_entries": 20, "prizes": [{"place_from": 1, "label": "一等奖"}, {"place_from": 2, "label": "二等奖"},
                                                              {"place_from": 3, "label": "三等奖"}]},   # "不足20組…各1名"
             "lateness": {"forfeit_after_minutes": 15}},                                     # "迟到15分钟者视为弃权"
            {"name": "掼蛋比赛", "game": "guandan", "entry": {"kind": "pair"}, "capacity": 36,   # 36: changed in the form
             "fee": {"amount": 2000, "per": "person"},
             "registration": {"closes_at": f"{BEFORE}T15:00",
                              "eligibility": {"kind": "codes", "codes": ["HECHI", "YIZHOU", "DONGLAN", "DAHUA"]}},
             # "最终按三轮积分累计决出名次": every pair plays all three rounds — no early finish (rules.md §9)
             "late_entries": True, "substitutes": {"pairs": True},
             "stages": [{"name": "积分赛", "format": "swiss", "rounds": 3, "early_finish": False,
                         "schedule": sched(f"{DAY}T14:00", 50, 10),                                             # 14:00–14:50 …
                         "scoring": {"method": "level_points", "minutes": 60,                                   # "單輪限時1小時"
                                     "tiebreaks": ["level_points", "head_to_head", "net_points", "lots"]}}],    # 胜负关系, 净胜分
             "prizes": [{"place_from": 1, "label": "一等奖"}, {"place_from": 2, "place_to": 3, "label": "二等奖"},
                        {"place_from": 4, "place_to": 6, "label": "三等奖"}],
             "prize_shrink": {"below_entries": 20, "prizes": [{"place_from": 1, "label": "一等奖"}, {"place_from": 2, "label": "二等奖"},
                                                              {"place_from": 3, "label": "三等奖"}]}},
        ],
    },
}


def expected_config(cfg: dict, tz: str) -> dict:
    """The seed's config completed by the API's own defaults, its registration times read in the tournament's zone."""
    out = EventConfig.model_validate(cfg)
    for obj, name in ((out.registration, "opens_at"), (out.registration, "closes_at"), (out.fee, "refund_until")):
        v = getattr(obj, name)
        if v is not None and v.tzinfo is None:
            setattr(obj, name, v.replace(tzinfo=ZoneInfo(tz)).astimezone(ZoneInfo("UTC")))
    return json.loads(out.model_dump_json())


def api_get(stack, token, path):
    req = urllib.request.Request(stack["api"] + path, headers={"Authorization": f"Bearer {token}"})
    return json.loads(urllib.request.urlopen(req, timeout=30).read())


def _diff(a, b, path=""):
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in sorted(set(a) | set(b)) for d in _diff(a.get(k), b.get(k), f"{path}.{k}")]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in _diff(x, y, f"{path}[{i}]")]
    return [] if a == b else [(path, a, b)]


@pytest.mark.parametrize("seed", ["001", "002", "003"])
def test_a_seeds_day_is_built_from_its_template_in_the_console(store, stack, browser, shot, seed):
    _, token = organisers.create_organiser(store, f"模板测试 {seed}")
    for width, height in ((1280, 900), (390, 844)):
        ctx = browser.new_context(viewport={"width": width, "height": height}, locale="zh-CN")
        page = ctx.new_page()
        token_sign_in(page, stack, token)
        page.get_by_test_id("show-day").click()
        form = page.get_by_test_id("day-setup")
        form.get_by_test_id("tpl").select_option(seed)
        expect(form.get_by_test_id("t-name")).to_have_value(SEED_DAYS[seed]["tournament"]["name"])
        expect(form.locator("[data-default=yes]").first).to_be_visible()     # defaults are marked as such
        if width == 390:
            assert page.evaluate("document.documentElement.scrollWidth") <= 400
            shot(page, f"day-{seed}-form-390")
            form.locator("[data-stage='0']").first.scroll_into_view_if_needed()
            page.screenshot(path=str(SHOTS / f"{seed}-day-form-390-stage.png"))    # one screen, to be read
            ctx.close()
            continue
        if seed == "003":   # the form is the organiser's: a change made in it lands in the event
            cap = form.get_by_test_id("e1-capacity")
            cap.fill("36")
            cap.dispatch_event("change")
            expect(form.locator("[data-field=e1-capacity] [data-default]")).to_have_count(0)   # capacity has no default mark
        shot(page, f"day-{seed}-form-1280")
        form.get_by_test_id("day-create").click()
        expect(page.get_by_test_id("notice")).to_have_text("已保存", timeout=20_000)
        shot(page, f"day-{seed}-created")
        ctx.close()
    listing = api_get(stack, token, "/tournaments")["tournaments"]
    assert len(listing) == 1
    tid = listing[0]["id"]
    detail = api_get(stack, token, f"/tournaments/{tid}")
    want_t = SEED_DAYS[seed]["tournament"]
    assert {k: detail[k] for k in want_t} == want_t
    events = sorted(detail["events"], key=lambda e: e["config"]["name"])
    wanted = sorted(SEED_DAYS[seed]["events"], key=lambda e: e["name"])
    assert len(events) == len(wanted)
    for ev, want in zip(events, wanted):
        got = api_get(stack, token, f"/events/{ev['id']}")["config"]
        assert not _diff(got, expected_config(want, detail["timezone"])), (want["name"], _diff(got, expected_config(want, detail["timezone"])))


def _registered_event(store, n=3, **cfg):
    org, token = organisers.create_organiser(store, "修改测试组委会")
    t = tournaments.create_tournament(store, org, TournamentIn(name="修改测试杯", venue="南宁", starts_on=date.today() + timedelta(days=5)))
    body = {"name": "掼蛋积分赛", "game": "guandan", "entry": "pair", "capacity": 20, "fee": {"amount": 0},
            "stages": [{"format": "swiss", "rounds": 3}], **cfg}
    ev = tournaments.create_event(store, org, t.id, EventConfig.model_validate(body))
    for i in range(n):
        registration.register(store, ev.id, RegistrationIn(name=f"第{i + 1}对", club=f"商会{i % 2}", members=[
            {"name": f"甲{i}", "phone": f"1370000{i:04d}"}, {"name": f"乙{i}"}]), None)
    return org, token, t, ev


def test_an_event_is_edited_after_registrations_exist(store, stack, desk, shot):
    _, token, t, ev = _registered_event(store)
    page = desk.new_page()
    token_sign_in(page, stack, token)
    page.get_by_test_id("show-edit-e").click()
    form = page.get_by_test_id("edit-e")
    expect(form.get_by_test_id("edit-locks")).to_contain_text("3")
    expect(form.get_by_test_id("ee-game")).to_be_disabled()          # the game stays once entries exist, and says why
    expect(form.locator("[data-field=ee-game]")).to_contain_text("已有报名，不能再改")
    expect(form.get_by_test_id("ee-kind")).to_be_disabled()
    cap = form.get_by_test_id("ee-capacity")
    cap.fill("2")
    cap.dispatch_event("change")
    form.get_by_test_id("ee-save").click()
    expect(page.get_by_test_id("error")).to_contain_text("名额不能少于已占用的名额")   # capacity_below_taken, worded
    shot(page, "edit-capacity-refused")
    cap.fill("30")
    cap.dispatch_event("change")
    fee = form.get_by_test_id("ee-fee")
    fee.fill("25")
    fee.dispatch_event("change")
    form.get_by_test_id("ee-save").click()
    expect(page.get_by_test_id("notice")).to_have_text("已保存")
    got = api_get(stack, token, f"/events/{ev.id}")
    assert (got["config"]["capacity"], got["config"]["fee"]["amount"], got["version"]) == (30, 2500, 2)
    assert got["config"]["game"] == "guandan"
    shot(page, "edit-saved")


def test_a_deadline_already_past_is_warned_before_saving(store, stack, desk, shot):
    """Newcomer: "a deadline already past is accepted silently (the public page then says 已截止)"."""
    org, token = organisers.create_organiser(store, "截止测试组委会")
    t = tournaments.create_tournament(store, org, TournamentIn(name="截止测试杯", venue="南宁", starts_on=date.today() + timedelta(days=5)))
    page = desk.new_page()
    token_sign_in(page, stack, token)
    page.get_by_test_id("show-new-e").click()
    form = page.get_by_test_id("new-e")
    form.get_by_test_id("ne-name").fill("掼蛋双人赛")
    form.get_by_test_id("ne-name").dispatch_event("change")
    yesterday = (datetime.now(ZoneInfo("Asia/Shanghai")) - timedelta(days=1)).strftime("%Y-%m-%dT%H:%M")
    form.get_by_test_id("ne-closes").fill(yesterday)
    form.get_by_test_id("ne-closes").dispatch_event("change")
    form.get_by_test_id("ne-create").click()
    dialog = page.locator(".setup-warnings")
    expect(dialog).to_contain_text("已过")
    shot(page, "deadline-warned")
    dialog.get_by_role("button", name="返回修改").click()
    assert store.repos.events.list_for_tournament(t.id) == []          # nothing saved behind the warning
    later = (date.today() + timedelta(days=4)).isoformat() + "T20:00"
    form.get_by_test_id("ne-closes").fill(later)
    form.get_by_test_id("ne-closes").dispatch_event("change")
    form.get_by_test_id("ne-create").click()
    expect(page.get_by_test_id("notice")).to_have_text("已保存")
    assert [e.config.name for e in store.repos.events.list_for_tournament(t.id)] == ["掼蛋双人赛"]


def test_a_finished_event_offers_results_not_another_draw(store, stack, desk, shot):
    """Newcomer: "the last round over, the console still offers 抽签 and 结束本轮 … 状态冲突"."""
    from chalicelib.services import results, rounds
    org, token, t, ev = _registered_event(store, n=2, stages=[{"format": "swiss", "rounds": 1, "early_finish": False}])
    for e in store.repos.entries.list(ev.id):
        registration.check_in(store, ev.id, e.id)
    rnd, _ = rounds.draw_next(store, org, ev.id, 1)
    a, b = (s.entry_id for s in rnd.tables[0].sides)
    results.submit_result(store, ev.id, 1, 1, {"version": 0, "final": {"levels": {a: 10, b: 7}}},
                          results.Actor("side", "table 1 side 0", side=0))
    results.confirm_result(store, ev.id, 1, 1, results.Actor("side", "table 1 side 1", side=1))
    rounds.close_round(store, org, ev.id, 1)
    page = desk.new_page()
    token_sign_in(page, stack, token)
    page.get_by_role("tab", name="比赛进行").click()
    expect(page.get_by_test_id("event-over")).to_contain_text("赛事已结束")
    expect(page.get_by_test_id("draw")).to_have_count(0)
    expect(page.get_by_test_id("close-round")).to_have_count(0)
    shot(page, "finished")
    page.get_by_test_id("to-standings").click()
    expect(page.get_by_test_id("standings").locator("tbody tr")).to_have_count(2)


def test_knockout_rounds_are_named_by_their_size(store, stack, phone, shot):
    """Newcomer: "knockout rounds are called 第1/2/3轮, not 1/4决赛 / 半决赛 / 决赛"."""
    from chalicelib.services import rounds
    org, token = organisers.create_organiser(store, "淘汰测试组委会")
    t = tournaments.create_tournament(store, org, TournamentIn(name="淘汰测试杯", venue="南宁", starts_on=date.today() + timedelta(days=5)))
    ev = tournaments.create_event(store, org, t.id, EventConfig.model_validate({
        "name": "拖拉机淘汰赛", "game": "tractor", "entry": "pair", "capacity": 8, "fee": {"amount": 0},
        "stages": [{"format": "knockout"}]}))
    for i in range(4):
        r = registration.register(store, ev.id, RegistrationIn(name=f"第{i + 1}对", club=f"商会{i}", members=[
            {"name": f"甲{i}", "phone": f"1360000{i:04d}"}, {"name": f"乙{i}"}]), None)
        registration.check_in(store, ev.id, r.entry.id)
    rounds.draw_next(store, org, ev.id, 1)
    page = phone.new_page()
    token_sign_in(page, stack, token)
    page.get_by_role("tab", name="比赛进行").click()
    expect(page.get_by_test_id("round-name")).to_have_text("半决赛")
    shot(page, "knockout-semi-390")


def test_a_withdrawal_shows_the_refund_owed_until_the_desk_pays_it(store, stack, browser, desk, shot):
    """Newcomer: "a withdrawal asks only 退赛?: no reason, no refund amount; the row then shows 已退赛 40.00 CNY /
    40.00 CNY and nobody sees that 40 CNY is owed"."""
    from chalicelib.models import OfflinePaymentIn
    org, token = organisers.create_organiser(store, "退款测试组委会")
    t = tournaments.create_tournament(store, org, TournamentIn(name="退款测试杯", venue="南宁", starts_on=date.today() + timedelta(days=5)))
    ev = tournaments.create_event(store, org, t.id, EventConfig.model_validate({
        "name": "掼蛋双人赛", "game": "guandan", "entry": "pair", "capacity": 8, "fee": {"amount": 2000, "per": "person"},
        "stages": [{"format": "swiss", "rounds": 3}]}))
    r = registration.register(store, ev.id, RegistrationIn(name="河池一队", club="河池商会", members=[
        {"name": "甲", "phone": "13500000001"}, {"name": "乙"}]), None)
    registration.record_offline_payment(store, ev.id, r.entry.id, OfflinePaymentIn(method="cash", amount=4000))
    page = desk.new_page()
    token_sign_in(page, stack, token)
    row = page.locator(f"[data-entry='{r.entry.id}']")
    row.get_by_role("button", name="退赛").click()
    form = row.get_by_test_id("withdraw-form")
    expect(form.get_by_test_id("refund-rule").locator("input")).to_have_value(re.compile("40"))
    form.get_by_test_id("withdraw-submit").click()
    expect(page.get_by_test_id("error")).to_contain_text("退赛理由")          # the reason is asked
    form.get_by_test_id("withdraw-reason").locator("input").fill("家中有事")
    shot(page, "withdraw-form")
    form.get_by_test_id("withdraw-submit").click()
    expect(page.locator(".act-confirm")).to_contain_text("应退 ¥40.00")   # the consequence, asked first (issue 39)
    page.locator(".act-confirm .van-dialog__confirm").click()
    expect(page.get_by_test_id("notice")).to_contain_text("应退")
    expect(row.get_by_test_id("owed")).to_contain_text("40")
    shot(page, "withdrawn-owed")
    phone = browser.new_context(viewport={"width": 390, "height": 844}, locale="zh-CN")
    mine = phone.new_page()
    mine.goto(f"{stack['site']}/entry.html?id={r.entry.id}#token={r.manage_token}")
    expect(mine.get_by_test_id("refund-due")).to_contain_text("40")          # the participant sees it too
    shot(mine, "participant-owed-390")
    phone.close()
    row.get_by_test_id("refund-paid").click()
    page.locator(".van-dialog").get_by_role("button", name="已现金退款").click()
    expect(row.get_by_test_id("owed")).to_have_count(0)
    expect(row).to_contain_text("已退")
    after = store.repos.entries.get(ev.id, r.entry.id)
    assert (after.payment_state, after.refund_owed, after.amount_refunded) == ("refunded", 0, 4000)
    shot(page, "refund-paid")
