"""Issue 41 item 4 in Debian's Chromium: every registration form (one event's, a team's, the day's) and the manage
page link the privacy notice, which opens at 360 px in zh, en and vi and names the tournament's own retention;
the console's 忘记密码 resets the password with the code read from the outbox file the stack writes."""
from __future__ import annotations

import json
import re
import time
from pathlib import Path

from datetime import date, timedelta

from chalicelib.models import EventConfig, RegistrationIn, TournamentIn, TournamentPatch
from chalicelib.services import organisers, registration, tournaments
from playwright.sync_api import expect

from .test_browser import make_tournament

WORDS = {"zh": ("隐私说明", "90 天"), "en": ("Privacy notice", "90 days"), "vi": ("Thông báo quyền riêng tư", "90 ngày")}
LOCALES = {"zh": "zh-CN", "en": "en-US", "vi": "vi-VN"}


def test_every_form_and_the_manage_page_link_the_notice_in_three_languages(store, stack, browser, shot):
    org, _, t, (pair_ev, team_ev) = make_tournament(store, [
        {"name": "掼蛋双人赛", "game": "guandan", "entry": "pair", "capacity": 10, "fee": {"amount": 0},
         "stages": [{"format": "swiss", "rounds": 3}]},
        {"name": "够级团体赛", "game": "gouji", "entry": {"kind": "team", "size": 3}, "capacity": 8,
         "fee": {"amount": 0}, "stages": [{"format": "knockout"}]}])
    tournaments.update_tournament(store, org, t.id, TournamentPatch(retention_days=90))
    reg = registration.register(store, pair_ev.id, RegistrationIn(name="河池一队", members=[
        {"name": "张三", "phone": "13800001111"}, {"name": "李四"}]), None)
    site = stack["site"]
    pages = {"register": f"{site}/register.html?t={t.id}&e={pair_ev.id}",
             "team": f"{site}/register.html?t={t.id}&e={team_ev.id}",
             "day": f"{site}/day.html?t={t.id}",
             "manage": f"{site}/entry.html?id={reg.entry.id}#token={reg.manage_token}"}
    for lang, (title, retention) in WORDS.items():
        ctx = browser.new_context(viewport={"width": 360, "height": 740}, device_scale_factor=2, is_mobile=True,
                                  has_touch=True, locale=LOCALES[lang])
        page = ctx.new_page()
        for name, url in pages.items():
            page.goto(url)
            link = page.get_by_test_id("privacy-link")
            expect(link).to_be_visible()
            link.scroll_into_view_if_needed()
            assert link.get_attribute("href") == f"privacy.html?t={t.id}", (lang, name)
            shot(page, f"{lang}-{name}")
        with ctx.expect_page() as opened:            # the notice opens beside the form (the form keeps its input)
            page.get_by_test_id("privacy-link").click()
        notice = opened.value
        expect(notice.get_by_test_id("privacy")).to_contain_text(title)
        expect(notice.get_by_test_id("privacy-how_long")).to_contain_text(retention)   # the organiser's 90 days
        expect(notice.get_by_test_id("privacy-tournament")).to_have_text("浏览器测试杯")
        width = notice.evaluate("document.documentElement.scrollWidth")
        assert width <= 360, (lang, width)             # nothing wider than the phone
        shot(notice, f"{lang}-notice")
        ctx.close()


def _code_for(outbox: Path, phone: str, after: int) -> str:
    """The newest organiser code sent to `phone` in the stack's outbox file (api.md v1.3: one JSON object a line)."""
    for _ in range(100):
        lines = outbox.read_text(encoding="utf-8").splitlines()[after:] if outbox.exists() else []
        found = [json.loads(x) for x in lines]
        found = [m for m in found if m["template"] == "organiser_code" and m["to"].endswith(phone)]
        if found:
            return re.search(r"(?<!\d)(\d{6})(?!\d)", found[-1]["text"]).group(1)
        time.sleep(0.1)
    raise AssertionError("no code in the outbox file")


def test_forgot_password_resets_by_the_code_from_the_outbox_file(store, stack, desk, shot):
    organisers.create_account(store, "忘记密码商会", "13622223333", "old horse battery")
    outbox = Path(stack["outbox_file"])
    seen = len(outbox.read_text(encoding="utf-8").splitlines()) if outbox.exists() else 0
    page = desk.new_page()
    page.goto(f"{stack['site']}/organiser.html")
    page.get_by_test_id("forgot").click()
    page.get_by_test_id("reset-ask").get_by_label("手机号或邮箱").fill("136 2222 3333")
    page.get_by_role("button", name="发送验证码").click()
    expect(page.get_by_test_id("reset-code")).to_be_visible()
    shot(page, "code-sent")
    code = _code_for(outbox, "13622223333", seen)
    page.get_by_label("验证码").fill(f"{(int(code) + 1) % 10 ** 6:06d}")
    page.get_by_label("新密码").fill("new horse battery")
    page.get_by_role("button", name="重设密码").click()
    expect(page.get_by_test_id("reset-error")).to_be_visible()         # a wrong code is said so
    page.get_by_label("验证码").fill(code)
    page.get_by_label("新密码").fill("new horse battery")
    page.get_by_role("button", name="重设密码").click()
    expect(page.get_by_test_id("reset-done")).to_be_visible()
    shot(page, "reset-done")
    page.get_by_test_id("reset-back").click()
    page.get_by_label("手机号或邮箱").fill("13622223333")
    page.get_by_label("密码").fill("new horse battery")
    page.get_by_test_id("password-form").get_by_role("button", name="登录").click()
    expect(page.get_by_test_id("console")).to_be_visible()
    page.get_by_role("button", name="我的设备").click()
    expect(page.get_by_test_id("account-phone-now")).to_have_text("136****3333")   # where the codes go, masked
    shot(page, "signed-in")


def test_the_desk_resends_a_manage_link_from_the_entries_list(store, stack, desk, shot):
    org, token = organisers.create_organiser(store, "重发链接商会")
    t = tournaments.create_tournament(store, org, TournamentIn(name="重发链接杯", starts_on=date.today() + timedelta(days=2)))
    ev = tournaments.create_event(store, org, t.id, EventConfig.model_validate(
        {"name": "掼蛋双人赛", "game": "guandan", "entry": "pair", "capacity": 8, "fee": {"amount": 0},
         "stages": [{"format": "swiss", "rounds": 3}]}))
    registration.register(store, ev.id, RegistrationIn(name="丢链接队", members=[
        {"name": "甲", "phone": "13744445555"}, {"name": "乙"}]), None)
    desk.add_init_script(f"if (location.protocol.startsWith('http')) {{ localStorage.setItem('organiserToken', "
                         f"'{token}'); localStorage.setItem('lang', 'zh') }}")
    page = desk.new_page()
    page.goto(f"{stack['site']}/organiser.html")
    row = page.locator("[data-entry]", has_text="丢链接队")
    row.get_by_test_id("resend-link").click()
    expect(page.get_by_test_id("notice")).to_contain_text("管理链接已发送到 137****5555")
    shot(page, "resent")
    queued = [m for m in store.repos.messages.for_tournament(t.id) if m.cause.startswith("resend:")]
    assert [(m.kind, m.to) for m in queued] == [("registration_received", "13744445555")]
    row.get_by_test_id("resend-link").click()                       # again within the minute: the API says wait
    expect(page.get_by_test_id("error")).to_be_visible()
