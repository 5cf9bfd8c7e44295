"""Issue 25 in Chromium: nothing typed on the table phone is lost (13 Tractor deals survive a reload; a result
submitted while the store is stopped is sent once it is back, exactly once), a Tractor match ended by time from
the phone, a Dou Dizhu table confirmed by both other players, an appeal lodged from the phone and decided in
the console."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

import pytest
from playwright.sync_api import expect

from chalicelib.models import RegistrationIn
from chalicelib.services import registration, rounds
from scripts.site_build import built_site
from tests.e2e.conftest import ROOT
from tests.e2e.test_browser import make_tournament, token_sign_in
from datetime import UTC

# The phone's result queue (frontend/app/src/shared/outbox.js), read from its IndexedDB as the page keeps it.
READ_QUEUE = """() => new Promise((ok, no) => {
  const r = indexedDB.open("cardgames-phone");
  r.onerror = () => no(r.error);
  r.onsuccess = () => { const q = r.result.transaction("outbox").objectStore("outbox").getAll();
                        q.onsuccess = () => { r.result.close(); ok(q.result); }; };
})"""


def _phone(browser, locale="zh-CN", width=390):
    return browser.new_context(viewport={"width": width, "height": 844}, is_mobile=True, has_touch=True, locale=locale)


def _tractor_table(store, name="拖拉机计时", scoring=None):
    org, token, t, (ev,) = make_tournament(store, [
        {"name": name, "game": "tractor", "entry": "pair", "capacity": 8, "fee": {"amount": 0},
         "stages": [{"format": "swiss", "rounds": 3, **({"scoring": scoring} if scoring else {})}]}])
    for i in range(2):
        r = registration.register(store, ev.id, RegistrationIn(name=f"红{i + 1}队", members=[
            {"name": f"甲{i}", "phone": f"1361000{i:04d}"}, {"name": f"乙{i}"}]), None)
        registration.check_in(store, ev.id, r.entry.id)
    rnd, _ = rounds.draw_next(store, org, ev.id, 1)
    return org, token, t, ev, rnd.tables[0]


def _tractor_deal(page, banker: str, points: int):
    page.click(f"[data-choice='banker:{banker}']")
    box = page.get_by_test_id("attacker-points").locator("input")
    box.fill(str(points))
    box.blur()
    page.get_by_test_id("add-deal").click()


def test_thirteen_tractor_deals_survive_a_reload_and_the_match_ends_by_time(store, stack, browser, shot):
    org, token, t, ev, table = _tractor_table(store)
    a, b = (s.entry_id for s in table.sides)
    ctx = _phone(browser)
    page = ctx.new_page()
    page.goto(f"{stack['site']}/score.html?e={ev.id}&r=1&t=1&c={table.codes[0]}")
    expect(page.get_by_test_id("title")).to_contain_text("第 1 桌")
    expect(page.get_by_test_id("server-version")).to_have_attribute("data-version", "0")
    expect(page.get_by_test_id(f"run-{a}")).to_contain_text("3")     # levels on screen before the first deal
    # deal 1: a holds the bank with 0 points (3 → 8); then 12 deals of 160: the bank changes hands, nobody rises
    _tractor_deal(page, a, 0)
    banker = a
    for _ in range(12):
        _tractor_deal(page, banker, 160)
        banker = b if banker == a else a
    expect(page.get_by_test_id("deals").locator("li")).to_have_count(13)
    expect(page.get_by_test_id(f"run-{a}")).to_contain_text("8")
    shot(page, "thirteen-deals")
    page.reload()
    expect(page.get_by_test_id("deals").locator("li")).to_have_count(13)
    expect(page.get_by_test_id("notice")).to_contain_text("已恢复本机保存的 13 副")
    expect(page.get_by_test_id("deals").locator("li").nth(12)).to_contain_text("抓分 160")
    # levels and games won stay on screen while the match is undecided; time is up: a leads 8 : 3
    expect(page.get_by_test_id(f"run-{a}")).to_contain_text("0")
    expect(page.get_by_test_id(f"run-{b}")).to_contain_text("3")
    expect(page.get_by_test_id("submit")).to_be_disabled()
    shot(page, "reloaded-running")
    page.get_by_test_id("time-up").click()
    expect(page.get_by_test_id("time-up-chosen")).to_contain_text("红")
    shot(page, "time-up-chosen")
    page.get_by_test_id("submit").click()
    expect(page.get_by_test_id("review-text")).to_contain_text("请对方")
    expect(page.get_by_test_id("sync-state")).to_contain_text("已发送")
    expect(page.get_by_test_id("server-version")).to_have_attribute("data-version", "1")
    _, _, tables = rounds.load_round(store, ev.id, 1)
    saved = tables[0]
    assert saved["status"] == "entered" and saved["winner"] == a and len(saved["result"]["deals"]) == 13
    assert saved["result"]["time_up_leader"] == a
    # E–W confirm (rules.md §8): their phone has no entry form while the table is pending, only the check
    other = _phone(browser).new_page()
    other.goto(f"{stack['site']}/score.html?e={ev.id}&r=1&t=1&c={table.codes[1]}")
    other.get_by_test_id("confirm").click()
    expect(other.get_by_test_id("status")).to_contain_text("成绩已确认")
    expect(page.get_by_test_id("status")).to_contain_text("成绩已确认", timeout=20_000)
    # confirmed: nothing is kept on the phone any more
    page.reload()
    expect(page.get_by_test_id("status")).to_contain_text("成绩已确认")
    assert page.evaluate(f"localStorage.getItem('draft:{ev.id}:1:1')") is None
    other.context.close()
    ctx.close()


def test_a_tractor_penalty_recorded_at_the_table_phone(store, stack, browser, shot):
    """Issue 39: the referee's table recorded Tractor penalties, the phone could not. At 360 px in zh, en and vi:
    a wrong play on deal 2 (2 cards back, at this stage's 5 points a card) is worded in the stage's numbers, shown
    on its deal, scored by the preview (the bank holder's side loses its rise), removable; sent with the result."""
    org, token, t, ev, table = _tractor_table(store, "拖拉机判罚", {"method": "level_table",
                                                               "wrong_play_points_per_card": 5, "penalty_levels": 2})
    a, b = (s.entry_id for s in table.sides)
    words = {"en-US": ("Record a penalty", "Wrong play: 2 card(s) taken back × 5 = 10 points"),
             "vi-VN": ("Ghi một lỗi phạt", "Đánh sai: rút lại 2 lá × 5 = phạt 10 điểm"),
             "zh-CN": ("记录判罚", "出牌错误：拿回 2 张 × 5 分 = 罚 10 分")}   # Chinese last: it sends the result
    for locale, (button, said) in words.items():
        ctx = _phone(browser, locale, width=360)
        page = ctx.new_page()
        page.goto(f"{stack['site']}/score.html?e={ev.id}&r=1&t=1&c={table.codes[0]}")
        _tractor_deal(page, a, 0)
        _tractor_deal(page, a, 40)
        expect(page.get_by_test_id("pen-open")).to_have_text(button)
        page.get_by_test_id("pen-open").click()
        form = page.get_by_test_id("tractor-penalty-form")
        form.get_by_test_id("tpen-kind").select_option("wrong_play")
        form.get_by_role("radio").nth(1).click()                        # the other pair (b) played wrong
        expect(form.get_by_test_id("tpen-deal")).to_have_value("2")     # the deal just entered
        form.get_by_test_id("tpen-cards").locator("button.van-stepper__plus").click()
        expect(form.get_by_test_id("tpen-cards")).to_contain_text(said.split("：")[-1].split(": ")[-1])
        form.get_by_test_id("tpen-add").click()
        pen = page.get_by_test_id("deals").locator("li").nth(1).get_by_test_id("deal-penalty")
        expect(pen).to_contain_text(said)
        assert page.evaluate("document.scrollingElement.scrollWidth <= innerWidth"), locale
        shot(page, f"tractor-penalty-{locale}")
        if locale != "zh-CN":
            page.get_by_test_id("drop-penalty-2-1").click()            # a penalty recorded by mistake goes
            expect(page.get_by_test_id("deal-penalty")).to_have_count(0)
            page.evaluate("localStorage.clear()")
            ctx.close()
            continue
        expect(page.get_by_test_id("pen-open")).to_be_visible()
        page.get_by_test_id("time-up").click()
        page.get_by_test_id("submit").click()
        expect(page.get_by_test_id("review-text")).to_contain_text("请对方")
        expect(page.get_by_test_id("penalty")).to_contain_text(said)    # the table's notes in the stage's numbers
        _, _, tables = rounds.load_round(store, ev.id, 1)
        assert tables[0]["result"]["deals"][1]["penalties"] == [{"kind": "wrong_play", "entry_id": b, "cards": 2}]
        ctx.close()


def test_east_west_wait_for_north_south(store, stack, browser, shot):
    org, token, t, ev, table = _tractor_table(store, "拖拉机南北录入")
    ctx = _phone(browser)
    page = ctx.new_page()
    page.goto(f"{stack['site']}/score.html?e={ev.id}&r=1&t=1&c={table.codes[1]}")
    expect(page.get_by_test_id("review-text")).to_contain_text("南北方录入")
    expect(page.get_by_test_id("entry")).to_have_count(0)
    shot(page, "east-west-waits")
    ctx.close()


def _three_players(store, name):
    org, token, t, (ev,) = make_tournament(store, [
        {"name": name, "game": "doudizhu", "entry": "individual", "capacity": 15, "fee": {"amount": 0},
         "stages": [{"format": "swiss", "rounds": 5}]}])
    for i in range(3):
        r = registration.register(store, ev.id, RegistrationIn(members=[{"name": f"牌手{i}", "phone": f"1362000{i:04d}"}]), None)
        registration.check_in(store, ev.id, r.entry.id)
    rnd, _ = rounds.draw_next(store, org, ev.id, 3)
    return org, token, t, ev, rnd.tables[0]


def _ddz_deal(page, landlord="W", bid=2, winner="landlord"):
    page.click(f"[data-choice='landlord:{landlord}']")
    page.click(f"[data-choice='bid:{bid}']")
    page.click(f"[data-choice='winner:{winner}']")
    page.get_by_test_id("add-deal").click()


def test_an_appeal_lodged_at_the_table_is_decided_in_the_console(store, stack, browser, desk, shot):
    org, token, t, ev, table = _three_players(store, "二打一申诉")
    ctx = _phone(browser)
    page = ctx.new_page()
    page.goto(f"{stack['site']}/score.html?e={ev.id}&r=1&t=1&c={table.codes[1]}")
    # seed 001: 5 minutes, 200 CNY; this round has no scheduled end yet, so no countdown
    expect(page.get_by_test_id("appeal-terms")).to_contain_text("5 分钟")
    expect(page.get_by_test_id("appeal-terms")).to_contain_text("200")
    page.get_by_test_id("appeal-open").click()
    page.get_by_test_id("appeal-send").click()
    expect(page.get_by_test_id("appeal-error")).to_contain_text("请填写申诉内容")
    page.get_by_test_id("appeal-text").locator("textarea").fill("第二副地主多出了一张牌")
    page.get_by_test_id("appeal-send").click()
    expect(page.get_by_test_id("appeal-lodged")).to_contain_text("第二副地主多出了一张牌")
    expect(page.get_by_test_id("appeal-lodged")).to_contain_text("待交")
    shot(page, "appeal-lodged")
    console = desk.new_page()
    token_sign_in(console, stack, token)
    console.get_by_role("tab", name="比赛进行").click()
    appeals = console.get_by_test_id("appeals")
    expect(appeals).to_contain_text("第二副地主多出了一张牌")
    shot(console, "console-appeal")
    _decide_in_console(console)
    expect(page.get_by_test_id("appeal-decided")).to_contain_text("申诉不成立", timeout=20_000)
    expect(page.get_by_test_id("ruling")).to_contain_text("核对录像无误")
    shot(page, "appeal-decided")
    ctx.close()


def _decide_in_console(console):
    appeals = console.get_by_test_id("appeals")
    appeals.get_by_role("button", name="已收申诉费").click()          # seed 001: the fee comes first, at the desk
    appeals.get_by_label("裁决理由").fill("核对录像无误")
    appeals.get_by_role("button", name="驳回").click()
    expect(console.locator(".act-confirm")).to_contain_text("申诉费不退")       # the decision asked first (issue 39)
    console.locator(".act-confirm .van-dialog__confirm").click()
    expect(appeals).to_contain_text("核对录像无误")


def test_a_three_seat_table_needs_both_other_players(store, stack, browser, shot):
    """…and the other phones' confirmations reach the first phone through the table's live JSON (issue 43): after
    opening its table, that phone sends the API its result and nothing else — no poll."""
    org, token, t, ev, table = _three_players(store, "二打一三人确认")
    phones = [_phone(browser) for _ in range(3)]
    a, b, c = (p.new_page() for p in phones)
    asked = []   # phone A's requests: (method, url)
    a.on("request", lambda r: asked.append((r.method, r.url)))
    a.goto(f"{stack['site']}/score.html?e={ev.id}&r=1&t=1&c={table.codes[0]}")
    _ddz_deal(a)
    a.get_by_test_id("submit").click()
    expect(a.get_by_test_id("review-text")).to_contain_text("请对方")
    b.goto(f"{stack['site']}/score.html?e={ev.id}&r=1&t=1&c={table.codes[1]}")
    b.get_by_test_id("confirm").click()
    expect(b.get_by_test_id("review-text")).to_contain_text("您已确认")
    expect(b.get_by_test_id("confirm-count")).to_contain_text("1/2")
    expect(b.get_by_test_id("confirm")).to_have_count(0)
    shot(b, "one-of-two-confirmed")
    assert rounds.load_round(store, ev.id, 1)[2][0]["status"] == "entered"
    c.goto(f"{stack['site']}/score.html?e={ev.id}&r=1&t=1&c={table.codes[2]}")
    expect(c.get_by_test_id("confirm-count")).to_contain_text("1/2")
    c.get_by_test_id("confirm").click()
    expect(c.get_by_test_id("status")).to_contain_text("成绩已确认")
    expect(a.get_by_test_id("status")).to_contain_text("成绩已确认", timeout=20_000)
    assert rounds.load_round(store, ev.id, 1)[2][0]["confirmed_sides"] == [1, 2]
    to_api = [(m, u.split("?")[0]) for m, u in asked if u.startswith(stack["api"])]
    table_reads = [u for m, u in to_api if m == "GET" and "/tables/" in u]
    assert len(table_reads) == 1, to_api                     # the page's first open (the code checked, its side)
    assert [m for m, u in to_api if "/tables/" in u and u.endswith("/result")] == ["PUT"]
    live = [u for m, u in asked if m == "GET" and "/live/" in u]
    assert live and all(u.startswith(stack["site"] + f"/live/{ev.id}/") for u in live)   # how C's confirmation came
    for p in phones:
        p.close()


# ---------------------------------------------------------------------------------------- the store stopped

@pytest.fixture
def own_stack():
    """A stack of this test alone: its DynamoDB Local (on disk, so it can be stopped and started again), the API
    and the site."""
    from scripts import ddblocal
    from chalicelib.store import dynamo, schema
    data = tempfile.mkdtemp(prefix="e2e-own-ddb-")
    ddb_port, api_port, site_port = ddblocal.free_port(), ddblocal.free_port(), ddblocal.free_port()
    ddb = {"proc": ddblocal.start(ddb_port, db_path=data, log_path=str(ROOT / ".data" / "ddblocal-phone-test.log")),
           "port": ddb_port, "path": data}
    endpoint = f"http://127.0.0.1:{ddb_port}"
    ddblocal.wait_for_port(ddb_port, 60)
    old = os.environ.get("AWS_ENDPOINT_URL_DYNAMODB")
    os.environ["AWS_ENDPOINT_URL_DYNAMODB"] = endpoint
    dynamo.reset_client()
    schema.ensure_table(dynamo.client(), "phone")
    env = dict(os.environ, AWS_ENDPOINT_URL_DYNAMODB=endpoint, TABLE_NAME="phone", STAGE="local",
               PUBLISH_DIR=tempfile.mkdtemp(prefix="e2e-own-site-"), API_URL=f"http://127.0.0.1:{api_port}",
               SITE_URL=f"http://127.0.0.1:{site_port}", AWS_DEFAULT_REGION="ap-east-1", AWS_ACCESS_KEY_ID="local",
               AWS_SECRET_ACCESS_KEY="local")
    log = open(ROOT / ".data" / "e2e-own-api.log", "ab")
    api = subprocess.Popen([sys.executable, "-m", "scripts.api_server", "--host", "127.0.0.1", "--port", str(api_port)],
                           cwd=str(ROOT), env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    site = subprocess.Popen([sys.executable, "-m", "scripts.site_server", "--port", str(site_port), "--frontend",
                             str(built_site()), "--published", env["PUBLISH_DIR"], "--api", f"http://127.0.0.1:{api_port}"],
                            cwd=str(ROOT), env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    from chalicelib import bootstrap
    from chalicelib.store.repositories import Repos
    from datetime import datetime
    try:
        ddblocal.wait_for_port(api_port, 60)
        ddblocal.wait_for_port(site_port, 30)
        d = bootstrap.Deps(repos=Repos(dynamo.Table("phone")), clock=lambda: datetime.now(UTC))
        bootstrap.override(d)
        yield {"site": f"http://127.0.0.1:{site_port}", "api": f"http://127.0.0.1:{api_port}", "store": d, "ddb": ddb}
    finally:
        bootstrap.override(None)
        for p in (api, site, ddb["proc"]):
            ddblocal.stop(p)
        if old is None:
            os.environ.pop("AWS_ENDPOINT_URL_DYNAMODB", None)
        else:
            os.environ["AWS_ENDPOINT_URL_DYNAMODB"] = old
        dynamo.reset_client()


def test_a_result_sent_while_the_store_is_stopped_arrives_once_it_is_back(own_stack, browser, shot):
    from scripts import ddblocal
    store = own_stack["store"]
    org, token, t, ev, table = _three_players(store, "二打一停库")
    ctx = _phone(browser)
    page = ctx.new_page()
    answers: list[int] = []
    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.url) if r.method == "PUT" else None)
    page.on("response", lambda r: answers.append(r.status) if r.request.method == "PUT" else None)
    # 0: no answer at all — the phone gave up after its own timeout (seen under a loaded CI machine)
    page.on("requestfailed", lambda r: answers.append(0) if r.method == "PUT" else None)
    page.goto(f"{own_stack['site']}/score.html?e={ev.id}&r=1&t=1&c={table.codes[0]}")
    _ddz_deal(page, "S", 3, "farmers")
    _ddz_deal(page, "E", 1, "landlord")
    expect(page.get_by_test_id("deals").locator("li")).to_have_count(2)
    ddblocal.stop(own_stack["ddb"]["proc"])                 # the store is gone: the API answers 503
    page.get_by_test_id("submit").click()
    expect(page.get_by_test_id("sync-state")).to_contain_text("未发送", timeout=20_000)
    page.wait_for_function(f"async () => {{ const q = await ({READ_QUEUE})(); return q.length === 1 && q[0].tries >= 2; }}",
                           timeout=60_000)
    # The network events reach Python on their own path, after the page has already counted its tries (a loaded CI
    # machine once showed none yet at this point): wait for them rather than read the list at once.
    for _ in range(150):
        if answers:
            break
        page.wait_for_timeout(100)
    assert sent, "the phone never sent the result while the store was down"
    assert set(answers) <= {503, 0}, answers   # tried, nothing taken: the store is down
    expect(page.get_by_test_id("deals").locator("li")).to_have_count(2)   # still on screen, still kept
    shot(page, "store-stopped-unsent")
    page.reload()                                                        # even a reload while it is down keeps it
    expect(page.get_by_test_id("sync-state")).to_contain_text("未发送", timeout=20_000)
    own_stack["ddb"]["proc"] = ddblocal.start(own_stack["ddb"]["port"], db_path=own_stack["ddb"]["path"])
    ddblocal.wait_for_port(own_stack["ddb"]["port"], 60)
    expect(page.get_by_test_id("sync-state")).to_contain_text("已发送", timeout=90_000)
    expect(page.get_by_test_id("review-text")).to_contain_text("请对方", timeout=20_000)
    shot(page, "store-back-sent")
    _, _, tables = rounds.load_round(store, ev.id, 1)
    assert tables[0]["status"] == "entered" and tables[0]["version"] == 1
    assert [d["landlord"] for d in tables[0]["result"]["deals"]] == ["S", "E"]
    audit = [a for a in store.repos.rounds.audit(ev.id) if a["action"] == "result_entered"]
    assert len(audit) == 1
    assert page.evaluate(READ_QUEUE) == []
    ctx.close()
    assert json.dumps(answers)


def test_the_console_enters_a_dou_dizhu_table_with_its_bombs(store, stack, browser, desk, shot):
    """The console's result form takes Dou Dizhu deal by deal, so a bomb's bonus is not lost (issue 25)."""
    org, token, t, ev, table = _three_players(store, "二打一后台录入")
    page = desk.new_page()
    token_sign_in(page, stack, token)
    page.get_by_role("tab", name="比赛进行").click()
    page.locator("tr[data-table='1']").get_by_role("button", name="录入成绩").click()
    form = page.get_by_test_id("result-form")
    # West is landlord, bids 3, plays a bomb and wins with a spring: 3 × 2^2 = 12 → W +24, S −12, E −12
    form.locator("[data-choice='landlord:W']").click()
    form.locator("[data-choice='bid:3']").click()
    form.locator("[data-choice='winner:landlord']").click()
    form.get_by_test_id("bombs-W").locator("button").last.click()
    form.get_by_role("checkbox", name="春天").click()
    form.get_by_test_id("add-deal").click()
    expect(form.get_by_test_id("console-deals").locator("li")).to_have_count(1)
    expect(form.get_by_test_id("console-deals")).to_contain_text("炸弹 × 1")
    shot(page, "console-ddz-deals")
    form.get_by_role("button", name="提交成绩").click()
    expect(page.locator("tr[data-table='1']").get_by_test_id("table-status")).to_have_text("已确认")
    saved = rounds.load_round(store, ev.id, 1)[2][0]
    ids = {s["seats"][0]: s["entry_id"] for s in saved["sides"]}
    assert saved["status"] == "confirmed"
    assert saved["points"][ids["W"]]["small_points"] == 24 and saved["points"][ids["S"]]["small_points"] == -12
    assert saved["result"]["deals"][0]["bombs"] == {"W": 1}


def test_my_day_after_the_last_round_shows_place_prize_and_bomb_bonus(store, stack, browser, shot):
    """我的比赛 after the event (issue 25): no table to sit at any more; the final place, the points by name, the
    prize and the bomb bonuses; a forfeit in words. Then the same page in English and Vietnamese at 360 px."""
    from chalicelib.models import DayRegistrationIn
    from chalicelib.services import day_registration, results
    org, token, t, (ev,) = make_tournament(store, [
        {"name": "斗地主决赛", "game": "doudizhu", "entry": "individual", "capacity": 15, "fee": {"amount": 0},
         "prizes": [{"place_from": 1, "amount": 800}, {"place_from": 2, "amount": 300}],
         "stages": [{"format": "swiss", "rounds": 2}]}])
    reg = day_registration.register_day(store, t.id, DayRegistrationIn.model_validate(
        {"contact": {"name": "陈文", "phone": "13700000199"},
         "items": [{"event_id": ev.id, "members": [{"name": "陈文", "phone": "13700000199"}]}]}), None)
    mine = reg.registration.items[0].entry.id
    registration.check_in(store, ev.id, mine)
    for i in range(1, 2):
        r = registration.register(store, ev.id, RegistrationIn(members=[{"name": f"对手{i}", "phone": f"1363000{i:04d}"}]), None)
        registration.check_in(store, ev.id, r.entry.id)
    r = registration.register(store, ev.id, RegistrationIn(members=[{"name": "对手0", "phone": "13630000000"}]), None)
    registration.check_in(store, ev.id, r.entry.id)
    single = _phone(browser).new_page()     # the one-entry manage page names the event (issue 25)
    single.goto(f"{stack['site']}/entry.html?id={r.entry.id}#token={r.manage_token}")
    expect(single.get_by_test_id("event-name")).to_have_text("比赛项目：斗地主决赛")
    single.context.close()
    director = results.Actor("organiser", f"organiser:{org.id}")
    # round 1: my player is landlord, bids 3 and wins with three bombs of their own (bonus 50 each + 100 extra)
    rnd, _ = rounds.draw_next(store, org, ev.id, 1)
    seat = next(s.seats[0] for s in rnd.tables[0].sides if s.entry_id == mine)
    results.submit_result(store, ev.id, 1, 1, {"version": 0, "deals": [
        {"landlord": seat, "bid": 3, "winner": "landlord", "bombs": {seat: 3}}]}, director)
    results.confirm_result(store, ev.id, 1, 1, director)
    rounds.close_round(store, org, ev.id, 1)
    link = f"{stack['site']}/entry.html?reg={reg.registration.id}#token={reg.manage_token}"
    ctx = _phone(browser)
    page = ctx.new_page()
    page.goto(link)
    expect(page.get_by_test_id("results").locator("li")).to_have_count(1)
    expect(page.get_by_test_id("final")).to_have_count(0)                # one round still to come
    # round 2: an opponent does not come (unexcused): it is worded, not "0"
    rnd2, _ = rounds.draw_next(store, org, ev.id, 2)
    absent = next(s.entry_id for s in rnd2.tables[0].sides if s.entry_id != mine)
    results.record_forfeit(store, ev.id, 2, 1, absent, "未到场", director)
    page.reload()
    expect(page.get_by_test_id("reg-items")).to_contain_text("第 2 轮 · 第 1 桌")   # where to sit while it runs
    rounds.close_round(store, org, ev.id, 2)
    page.reload()
    expect(page.get_by_test_id("reg-items")).not_to_contain_text("第 2 轮 · 第 1 桌")
    expect(page.get_by_test_id("place")).to_contain_text("第 1 名（共 3）")
    expect(page.get_by_test_id("prize")).to_contain_text("¥800.00")
    expect(page.get_by_test_id("bomb-bonus")).to_contain_text("¥150.00")
    expect(page.get_by_test_id("forfeit-word")).to_contain_text("对方弃权")
    shot(page, "my-day-after-zh-390")
    for lang, place in (("en", "Final place: 1 of 3"), ("vi", "Hạng chung cuộc: 1 / 3")):
        small = _phone(browser, width=360)
        # before the page's scripts (a setItem after its first load could lose to the page writing its own language)
        small.add_init_script(f"localStorage.setItem('lang', '{lang}'); "
                              f"localStorage.setItem('manage-reg-{reg.registration.id}', '{reg.manage_token}')")
        p = small.new_page()
        p.goto(f"{stack['site']}/entry.html?reg={reg.registration.id}")
        expect(p.get_by_test_id("place")).to_contain_text(place)
        assert p.evaluate("document.documentElement.scrollWidth") <= 360
        shot(p, f"my-day-after-{lang}-360")
        small.close()
    ctx.close()


def test_a_late_arrival_and_its_start_level_are_shown_at_the_table(store, stack, browser, shot):
    """rules.md §7: the referee records a late pair; both phones say who was late and the level the other side
    starts from (issue 25)."""
    from datetime import datetime
    from chalicelib.services import referee, results
    org, token, t, (ev,) = make_tournament(store, [
        {"name": "掼蛋迟到", "game": "guandan", "entry": "pair", "capacity": 8, "fee": {"amount": 0},
         "stages": [{"format": "swiss", "rounds": 3}]}])
    for i in range(2):
        r = registration.register(store, ev.id, RegistrationIn(name=f"蓝{i + 1}队", members=[
            {"name": f"丙{i}", "phone": f"1364000{i:04d}"}, {"name": f"丁{i}"}]), None)
        registration.check_in(store, ev.id, r.entry.id)
    rnd, _ = rounds.draw_next(store, org, ev.id, 1)
    late, other = (s.entry_id for s in rnd.tables[0].sides)
    out = referee.record_arrival(store, ev.id, 1, 1, late, datetime.now(UTC),
                                 results.Actor("organiser", f"organiser:{org.id}"))
    assert out.effect == "start_level" and out.start_levels == {other: 3}
    page = _phone(browser).new_page()
    page.goto(f"{stack['site']}/score.html?e={ev.id}&r=1&t=1&c={rnd.tables[0].codes[0]}")
    late_name = next(s.name for s in out.table.sides if s.entry_id == late)
    other_name = next(s.name for s in out.table.sides if s.entry_id == other)
    expect(page.get_by_test_id("late")).to_contain_text(f"{late_name} 迟到 1 分钟")
    expect(page.get_by_test_id("start-level")).to_contain_text(f"{other_name} 从 3 打起")
    shot(page, "late-start-level")
    page.context.close()


def test_the_outbox_waits_as_long_as_a_429_asks_and_keeps_the_deals_on_a_definite_no(store, stack, browser, shot):
    """A 429 with Retry-After keeps the result and tries again after the wait; a definite 4xx drops the send,
    says so, and keeps every typed deal (also through a reload). The hall's proxy is played by the browser's
    own request routing: only the PUT's answers are replaced, everything else is the real stack."""
    cors = {"Access-Control-Allow-Origin": "*", "Access-Control-Expose-Headers": "ETag, Retry-After",
            "Content-Type": "application/json"}
    org, token, t, ev, table = _three_players(store, "二打一限流")
    ctx = _phone(browser)
    page = ctx.new_page()
    seen = []

    def once_429(route):
        if route.request.method != "PUT":
            return route.continue_()
        seen.append(route.request.method)
        if len(seen) == 1:
            return route.fulfill(status=429, headers={**cors, "Retry-After": "3"},
                                 body=json.dumps({"code": "rate_limited", "message": "slow down"}))
        return route.continue_()
    page.route("**/events/*/rounds/1/tables/1/result", once_429)
    page.goto(f"{stack['site']}/score.html?e={ev.id}&r=1&t=1&c={table.codes[0]}")
    _ddz_deal(page)
    page.get_by_test_id("submit").click()
    expect(page.get_by_test_id("sync-state")).to_contain_text("未发送")
    expect(page.get_by_test_id("sync-state")).to_contain_text("秒后重试")
    shot(page, "rate-limited-waiting")
    expect(page.get_by_test_id("sync-state")).to_contain_text("已发送", timeout=20_000)
    assert len(seen) == 2
    assert rounds.load_round(store, ev.id, 1)[2][0]["version"] == 1
    ctx.close()

    org, token, t, ev, table = _three_players(store, "二打一拒收")
    ctx = _phone(browser)
    page = ctx.new_page()

    def refuse(route):
        if route.request.method != "PUT":
            return route.continue_()
        return route.fulfill(status=422, headers=cors, body=json.dumps({"code": "invalid_result", "message": "no"}))
    page.route("**/events/*/rounds/1/tables/1/result", refuse)
    page.goto(f"{stack['site']}/score.html?e={ev.id}&r=1&t=1&c={table.codes[0]}")
    _ddz_deal(page, "S", 3, "farmers")
    _ddz_deal(page, "E", 1, "landlord")
    page.get_by_test_id("submit").click()
    expect(page.get_by_test_id("notice")).to_contain_text("服务器未接受这份成绩")
    expect(page.get_by_test_id("error")).to_contain_text("成绩不合规则")
    expect(page.get_by_test_id("deals").locator("li")).to_have_count(2)
    assert page.evaluate(READ_QUEUE) == []
    shot(page, "refused-deals-kept")
    page.reload()
    expect(page.get_by_test_id("deals").locator("li")).to_have_count(2)
    assert rounds.load_round(store, ev.id, 1)[2][0]["status"] == "pending"
    ctx.close()


def test_a_reverse_spring_entered_in_any_order_of_taps_is_one_deal_and_a_refused_deal_stays(store, stack, browser, shot):
    """Issue 39: "加入这一副" was enabled before 先出完的农民 was chosen, and the refusal cleared the whole deal (a
    table sent 5 deals of 6). The four taps of a reverse spring (landlord, bid, winner, 反春 then its farmer) in
    each of their 24 orders end as one deal; until the farmer is chosen the button waits and says what is missing.
    A deal the rules refuse stays in the form with the reason beside it."""
    import itertools
    org, token, t, ev, table = _three_players(store, "二打一反春")
    ctx = _phone(browser)
    page = ctx.new_page()
    page.goto(f"{stack['site']}/score.html?e={ev.id}&r=1&t=1&c={table.codes[0]}")
    add, listed = page.get_by_test_id("add-deal"), page.get_by_test_id("deals").locator("li")
    taps = {"landlord": "[data-choice='landlord:S']", "bid": "[data-choice='bid:3']",
            "winner": "[data-choice='winner:farmers']", "reverse": "[data-testid=reverse-spring]"}
    for order in itertools.permutations(taps):
        for i, k in enumerate(order):
            page.click(taps[k])
            if k == "reverse":
                expect(add).to_be_disabled()
                expect(page.get_by_test_id("deal-missing")).to_contain_text(
                    "先出完的农民" if "landlord" in order[:i] else "地主")
                page.click("[data-choice='first_out:E']")
        add.click()
        expect(listed).to_have_count(1)
        expect(listed.first).to_contain_text("反春")
        expect(page.get_by_test_id("deal-refused")).to_have_count(0)
        expect(page.locator("[data-choice='landlord:S']")).to_have_attribute("aria-checked", "false")   # cleared
        page.get_by_test_id("undo-deal").click()
        expect(listed).to_have_count(0)
    # one deck has 13 bombs: 7 for West and 7 for South is refused by the rules, and the deal stays (7 alone is
    # within the event's 8 doublings a deal, so the mended deal is a valid one)
    page.click("[data-choice='landlord:W']")
    for seat, n in (("W", 7), ("S", 7)):
        page.get_by_test_id(f"bombs-{seat}").locator("input").fill(str(n))
    blur = "document.activeElement && document.activeElement.blur()"   # the typed field's change re-renders first
    page.evaluate(blur)
    add.click()
    # the rule it broke, in words, beside the bombs (not "第 1 副不合规则")
    expect(page.get_by_test_id("deal-refused")).to_have_text("一副牌最多 13 个炸弹，这里共 14 个")
    expect(listed).to_have_count(0)
    expect(page.locator("[data-choice='landlord:W']")).to_have_attribute("aria-checked", "true")
    expect(page.get_by_test_id("bombs-W").locator("input")).to_have_value("7")
    shot(page, "deal-refused-kept")
    # mended (South's bombs taken off) and added: leaving the field changes nothing above the button (issue 39: a
    # line coming or going there moved it between the press and the release, and no deal was added)
    page.get_by_test_id("bombs-S").locator("input").fill("0")
    before = add.bounding_box()
    page.evaluate(blur)
    page.wait_for_timeout(100)
    assert add.bounding_box() == before
    add.click()
    try:
        expect(listed).to_have_count(1)
    except AssertionError:   # failed twice in fresh clones' full runs of an earlier form (cause not reproduced): say what the page shows
        shot(page, "mended-not-added")
        raise AssertionError({"refused": page.get_by_test_id("deal-refused").all_inner_texts(),
                              "error": page.get_by_test_id("error").all_inner_texts(),
                              "bombs": [page.get_by_test_id(f"bombs-{s}").locator("input").input_value() for s in "WSE"],
                              "landlord": page.locator("[data-choice^='landlord:'][aria-checked=true]").count(),
                              "button": [before, add.bounding_box(), add.is_enabled()]}) from None
    expect(page.get_by_test_id("deal-refused")).to_have_count(0)
    ctx.close()


def test_a_refused_deal_says_its_rule_beside_its_field_in_english_and_vietnamese(store, stack, browser, shot):
    """Issue 39: the refusal said only "deal N is not possible". At 360 px in en and vi: a spring with a farmer's
    bomb is refused with the rule, worded in the phone's language, below the bombs and the spring, in view."""
    org, token, t, ev, table = _three_players(store, "二打一规则")
    words = {"en-US": "the farmers played no card", "vi-VN": "nông dân chưa đánh lá nào"}
    for locale, said in words.items():
        ctx = _phone(browser, locale, width=360)
        page = ctx.new_page()
        page.goto(f"{stack['site']}/score.html?e={ev.id}&r=1&t=1&c={table.codes[0]}")
        page.click("[data-choice='landlord:W']")
        page.get_by_test_id("bombs-E").locator("button.van-stepper__plus").click()
        page.get_by_test_id("spring").click()
        page.get_by_test_id("add-deal").click()
        refused = page.get_by_test_id("deal-refused")
        expect(refused).to_contain_text(said)
        # beside the fields it names: after the spring's box, before the button
        below = page.evaluate("""() => { const r = document.querySelector('[data-testid=deal-refused]').getBoundingClientRect();
            const s = document.querySelector('[data-testid=spring]').getBoundingClientRect();
            const b = document.querySelector('[data-testid=add-deal]').getBoundingClientRect();
            return [s.bottom <= r.top, r.bottom <= b.top, r.top >= 0 && r.bottom <= innerHeight]; }""")
        assert below == [True, True, True], (locale, below)
        assert page.evaluate("document.scrollingElement.scrollWidth <= innerWidth"), locale
        expect(page.get_by_test_id("deals").locator("li")).to_have_count(0)
        shot(page, f"ddz-rule-{locale}")
        ctx.close()


def test_the_printed_code_typed_on_bare_score_html_opens_its_table(store, stack, browser, shot):
    """Issue 39: bare score.html showed a red "scan the QR" before anything was typed, and a typed code led
    nowhere. Now a wrong code says so and the form stays for another try; the right one opens its table."""
    org, token, t, ev, table = _three_players(store, "二打一输码")
    ctx = _phone(browser)
    page = ctx.new_page()
    page.goto(f"{stack['site']}/score.html")
    box = page.get_by_test_id("code-input").locator("input")
    box.wait_for()
    expect(page.get_by_test_id("error")).to_have_count(0)
    shot(page, "bare-empty")
    box.fill("WRONG-CODE1")
    page.get_by_test_id("code-form").get_by_role("button").click()
    expect(page.get_by_test_id("error")).to_contain_text("没有这个桌号码")
    expect(page.get_by_test_id("code-form")).to_be_visible()
    shot(page, "bare-wrong")
    code = table.codes[1]
    box.fill(f"{code[:5].lower()} {code[5:]}")
    page.get_by_test_id("code-form").get_by_role("button").click()
    expect(page.get_by_test_id("title")).to_contain_text("第 1 桌")
    expect(page.get_by_test_id("error")).to_have_count(0)
    ctx.close()
