"""我的 inside WeChat's browser (Chromium with WeChat's user agent): the page goes through the official account's
silent authorisation (WeChat's authorize page is the test's route, back with a one-use code of the fake OAuth server
the API reaches through its HTTPS proxy), the WeChat not yet bound is asked for the phone once (the SMS code read
from the stack's outbox file), and a new tab of the same WeChat is signed in by the code alone. The openid is
nowhere on the page."""
from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path
from urllib.parse import parse_qsl, urlparse

from playwright.sync_api import expect

from tests.e2e.conftest import _no_csp_violations
from tests.e2e.test_app import WECHAT_UA

PHONE = "13755550123"
OPENID = "oMePlayer_in_WeChat"


def _code(path: str) -> str:
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        lines = [json.loads(x) for x in Path(path).read_text(encoding="utf-8").splitlines() if x.strip()] \
            if os.path.exists(path) else []
        sent = [x for x in lines if x["template"] == "sign_in_code" and x["to"].endswith(PHONE)]
        if sent:
            return re.search(r"\d{6}", sent[-1]["text"]).group(0)
        time.sleep(0.2)
    raise AssertionError("no sign-in code in the outbox")


def _wechat_tab(browser, china_fakes, authorised):
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True,
                              locale="zh-CN", user_agent=WECHAT_UA)
    blocked = _no_csp_violations(ctx)

    def wechat_authorize(route):   # WeChat's silent authorisation (snsapi_base): back with a one-use code
        q = dict(parse_qsl(urlparse(route.request.url).query))
        authorised.append(q)
        back = q["redirect_uri"] + ("&" if "?" in q["redirect_uri"] else "?") + \
            f"code={china_fakes.consent(OPENID)}&state={q['state']}"
        route.fulfill(status=302, headers={"Location": back})
    ctx.route("https://open.weixin.qq.com/**", wechat_authorize)
    return ctx, blocked


def test_inside_wechat_the_phone_once_then_wechat_alone_signs_in(stack, browser, china_fakes, shot):
    authorised: list[dict] = []
    ctx, blocked = _wechat_tab(browser, china_fakes, authorised)
    page = ctx.new_page()
    page.goto(f"{stack['site']}/me.html")
    expect(page.get_by_test_id("wechat-bind")).to_be_visible(timeout=15000)   # back from WeChat: not bound yet
    assert authorised[0]["appid"] == china_fakes.wechat.APPID and authorised[0]["scope"] == "snsapi_base"
    assert "code=" not in page.url                                              # the code left the address bar
    page.locator("#me-phone").fill(PHONE)
    page.get_by_test_id("ask-code").click()
    page.locator("#me-code").fill(_code(stack["outbox_file"]))
    shot(page, "wechat-bind-phone")
    page.get_by_test_id("sign-in-submit").click()
    expect(page.get_by_test_id("me")).to_be_visible(timeout=15000)
    assert OPENID not in page.content()
    ctx.close()

    # another tab of the same WeChat (nothing kept): WeChat's code alone signs in
    ctx, blocked_again = _wechat_tab(browser, china_fakes, authorised)
    page = ctx.new_page()
    page.goto(f"{stack['site']}/me.html")
    expect(page.get_by_test_id("me")).to_be_visible(timeout=15000)
    expect(page.get_by_test_id("me")).to_contain_text("137****0123")
    assert len(authorised) == 2 and page.get_by_test_id("wechat-bind").count() == 0
    assert OPENID not in page.content()
    shot(page, "wechat-signed-in")
    ctx.close()
    assert not blocked and not blocked_again, (blocked, blocked_again)
