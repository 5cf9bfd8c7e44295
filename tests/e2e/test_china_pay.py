"""WeChat Pay and Alipay on the participant's pages, in Chromium, against the providers' fakes: the real SDKs in
the API subprocess reach WeChat Pay's and Alipay's hosts through HTTPS_PROXY (tests/fakes_china_http.py), the
fakes sign every answer and notification as the providers do, and the API verifies them for real.

What no test here can have: WeChat itself. Its in-app browser is its user agent, and its JavaScript bridge
(WeixinJSBridge) is a stub the test puts in the page, which records the signed parameters the page hands it
and answers as WeChat's cashier would (ok / cancel). The payer's side of the providers (WeChat's H5 cashier,
Alipay's pay page, WeChat's authorisation page) is answered by Playwright's routing, which pays (or not) at the
fake and sends the browser back where the provider would."""
from __future__ import annotations

import io
from datetime import date, timedelta
from urllib.parse import parse_qsl, unquote, urlparse

import pytest
import zxingcpp
from PIL import Image
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import expect

from chalicelib.models import EventConfig, TournamentIn
from chalicelib.services import organisers, payments, tournaments
from tests.e2e.conftest import _no_csp_violations
from tests.e2e.test_app import WECHAT_UA, assert_one_language, vi_words  # noqa: F401 (vi_words: a fixture)
from tests.fakes_china import rsa_verify

DESKTOP_UA = ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 "
              "Safari/537.36")
PHONE_UA = ("Mozilla/5.0 (Linux; Android 14; 23127PN0CC) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/128.0.0.0 "
            "Mobile Safari/537.36")
# What the test puts in the page in place of WeChat's bridge: it keeps what it was handed and answers as told
# (kept in localStorage: the page goes to WeChat's authorisation and back between the two).
BRIDGE = """window.WeixinJSBridge = {invoke(name, params, cb) {
  const calls = JSON.parse(localStorage.getItem('bridge-calls') || '[]');
  localStorage.setItem('bridge-calls', JSON.stringify([...calls, {name, params}]));
  const answers = JSON.parse(localStorage.getItem('bridge-answers') || '[]');
  localStorage.setItem('bridge-answers', JSON.stringify(answers.slice(1)));
  setTimeout(() => cb({err_msg: answers[0] || 'get_brand_wcpay_request:ok'}), 50);
}};"""
BRIDGE_CALLS = "JSON.parse(localStorage.getItem('bridge-calls') || '[]')"


def individual(name, game, fee):
    return EventConfig.model_validate({"name": name, "game": game, "entry": "individual", "capacity": 20,
                                       "fee": {"amount": fee, "per": "entry"}, "stages": [{"format": "swiss", "rounds": 3}]})


@pytest.fixture
def organiser(store, stack, monkeypatch):
    monkeypatch.setenv("SITE_URL", stack["site"])
    org, _ = organisers.create_organiser(store, "支付测试商会")
    t = tournaments.create_tournament(store, org, TournamentIn(
        name="支付测试杯", venue="南宁", currency="CNY", starts_on=date.today() + timedelta(days=9),
        payments={"providers": ["wechat_pay", "alipay", "offline"]}))
    return org, t


@pytest.fixture
def event(store, organiser):
    org, t = organiser
    return t, tournaments.create_event(store, org, t.id, individual("斗地主个人赛", "doudizhu", 3000))


def register(page, stack, t, ev, name, phone, lang="zh"):
    page.goto(f"{stack['site']}/register.html?e={ev.id}&t={t.id}&lang={lang}")
    page.locator("#f-club").fill("南宁河池商会")
    page.locator("#f-m0-name").fill(name)
    page.locator("#f-m0-phone").fill(phone)
    page.get_by_test_id("submit").click()
    expect(page.get_by_test_id("done")).to_be_visible()
    expect(page.get_by_test_id("china-pay")).to_be_visible()
    return page.evaluate("Object.keys(localStorage).find((k) => k.startsWith('manage-')).slice(7)")


def entry_of(store, ev, name):
    return next(e for e in store.repos.entries.list(ev.id) if e.name == name)


def paid(store, ev, name):
    e = entry_of(store, ev, name)
    return e.status, e.amount_paid, e.payment_state


def test_desktop_pays_by_wechat_qr_and_by_alipay_page_and_the_qr_times_out(stack, store, browser, china_fakes, event, shot):
    t, ev = event
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, locale="zh-CN", user_agent=DESKTOP_UA)
    blocked = _no_csp_violations(ctx)
    page = ctx.new_page()
    page.clock.install()   # real time flows; the test jumps it only to run a QR code's time out

    # WeChat Pay Native: the QR code of the order's code_url, then paid by WeChat's signed notification
    register(page, stack, t, ev, "张三", "13800000001")
    expect(page.get_by_test_id("pay-alipay")).to_be_visible()
    page.get_by_test_id("pay-wechat_pay").click()
    expect(page.get_by_test_id("pay-qr")).to_be_visible()
    order = china_fakes.wechat_order("native")
    assert order["amount"] == {"total": 3000, "currency": "CNY"}
    image = Image.open(io.BytesIO(page.get_by_test_id("qr-image").screenshot()))
    # read back by a decoder we did not write: the fake's code_url for this order
    assert [c.text for c in zxingcpp.read_barcodes(image)] == [f"weixin://wxpay/bizpayurl?pr={order['out_trade_no'][-8:]}"]
    assert_one_language(page, "zh", "qr")
    shot(page, "wechat-native-qr")
    assert paid(store, ev, "张三")[0] == "pending_payment"
    assert china_fakes.wechat_pays(order["out_trade_no"]) == 200
    expect(page.get_by_test_id("pay-paid")).to_be_visible(timeout=15000)
    expect(page.get_by_test_id("done-status")).to_have_text("已确认")
    assert paid(store, ev, "张三") == ("confirmed", 3000, "paid")
    shot(page, "wechat-native-paid")

    # Alipay's page (电脑网站支付): off to Alipay, paid there, back to the entry page that asks until paid
    register(page, stack, t, ev, "李四", "13800000002")
    seen = []

    def alipay_page(route):
        seen.append(route.request.url)
        assert china_fakes.alipay_pays(route.request.url) == 200
        back = dict(parse_qsl(urlparse(route.request.url).query))["return_url"]
        route.fulfill(status=302, headers={"Location": back})
    page.route("https://openapi.alipay.com/**", alipay_page)
    page.get_by_test_id("pay-alipay").click()
    expect(page.get_by_test_id("pay-paid")).to_be_visible(timeout=15000)
    assert dict(parse_qsl(urlparse(seen[0]).query))["method"] == "alipay.trade.page.pay"
    assert urlparse(page.url).path.endswith("/entry.html")
    expect(page.get_by_test_id("status")).to_have_text("已确认")
    assert paid(store, ev, "李四") == ("confirmed", 3000, "paid")
    shot(page, "alipay-page-paid")

    # a QR code nobody scans: when the order's time is up the page says so and offers to pay again
    register(page, stack, t, ev, "王五", "13800000003")
    page.get_by_test_id("pay-wechat_pay").click()
    expect(page.get_by_test_id("pay-qr")).to_be_visible()
    page.clock.fast_forward("40:00")
    expect(page.get_by_test_id("pay-timeout")).to_be_visible(timeout=10000)
    assert_one_language(page, "zh", "timeout")
    shot(page, "wechat-native-timeout")
    assert paid(store, ev, "王五")[0] == "pending_payment"
    ctx.close()
    assert not blocked, blocked


def test_phone_pays_by_wechat_h5_and_a_cancelled_alipay_wap_until_the_hold_runs_out(stack, store, browser, china_fakes,
                                                                                  event, vi_words, shot):
    t, ev = event
    ctx = browser.new_context(viewport={"width": 360, "height": 780}, device_scale_factor=2, is_mobile=True,
                              has_touch=True, locale="vi-VN", user_agent=PHONE_UA)
    blocked = _no_csp_violations(ctx)
    page = ctx.new_page()
    page.clock.install()

    # WeChat Pay H5: the phone goes to WeChat's cashier (h5_url), pays, and WeChat sends it to redirect_url
    register(page, stack, t, ev, "Nguyễn Văn An", "13900000001", lang="vi")
    assert_one_language(page, "vi", "choose", vi_words)   # the catalog's words only (names are data: translate="no")
    shot(page, "phone-choose")
    cashier = []

    def wechat_h5(route):
        cashier.append(route.request.url)
        assert china_fakes.wechat_pays(kind="h5") == 200
        back = unquote(dict(parse_qsl(urlparse(route.request.url).query))["redirect_url"])
        route.fulfill(status=302, headers={"Location": back})
    page.route("https://wx.tenpay.com/**", wechat_h5)
    page.get_by_test_id("pay-wechat_pay").click()
    expect(page.get_by_test_id("pay-paid")).to_be_visible(timeout=15000)
    assert cashier and cashier[0].startswith("https://wx.tenpay.com/cgi-bin/mmpayweb-bin/checkmweb?prepay_id=")
    assert china_fakes.wechat_order("h5")["kind"] == "h5"
    assert paid(store, ev, "Nguyễn Văn An") == ("confirmed", 3000, "paid")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    assert_one_language(page, "vi", "paid", vi_words)
    shot(page, "phone-h5-paid")

    # Alipay wap, and the payer leaves Alipay's page without paying: back on the entry page nothing arrives
    register(page, stack, t, ev, "Trần Thị Bình", "13900000002", lang="vi")
    wap = []

    def alipay_quit(route):
        wap.append(dict(parse_qsl(urlparse(route.request.url).query)))
        china_fakes.alipay.open_trade(route.request.url)   # the trade exists at Alipay, unpaid
        route.fulfill(status=302, headers={"Location": wap[0]["return_url"]})
    page.route("https://openapi.alipay.com/**", alipay_quit)
    page.get_by_test_id("pay-alipay").click()
    expect(page.get_by_test_id("pay-waiting")).to_be_visible(timeout=15000)
    assert wap[0]["method"] == "alipay.trade.wap.pay"
    page.clock.fast_forward("01:05")
    expect(page.get_by_test_id("pay-not_yet")).to_be_visible(timeout=10000)
    assert_one_language(page, "vi", "not yet", vi_words)
    shot(page, "phone-alipay-not-yet")

    # the hold runs out (as the sweeper finds it): asked again, the page says the place was released
    entry = entry_of(store, ev, "Trần Thị Bình")
    assert entry.status == "pending_payment"
    assert payments.release_hold(store, store.repos.payments.get(entry.payment_id), reason="hold expired")
    # a check still in flight from the fast-forwarded minute may answer after the release and show it at once
    # (seen under load: the page said "released" before the button could be pressed); else the payer asks again
    check, released = page.get_by_test_id("pay-check"), page.get_by_test_id("pay-released")
    expect(check.or_(released)).to_be_visible(timeout=15000)
    try:
        check.click(timeout=3000)
    except PlaywrightTimeoutError:   # gone meanwhile: the late answer showed the release
        pass
    expect(released).to_be_visible(timeout=15000)
    assert_one_language(page, "vi", "released", vi_words)
    shot(page, "phone-hold-released")
    ctx.close()
    assert not blocked, blocked


def test_inside_wechat_jsapi_after_the_openid_step_cancelled_then_paid(stack, store, browser, china_fakes, event, shot):
    t, ev = event
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True,
                              has_touch=True, locale="en-US", user_agent=WECHAT_UA)
    ctx.add_init_script(BRIDGE)
    blocked = _no_csp_violations(ctx)
    page = ctx.new_page()
    authorised = []

    def wechat_authorize(route):   # WeChat's silent authorisation (snsapi_base): back with a one-use code
        q = dict(parse_qsl(urlparse(route.request.url).query))
        authorised.append(q)
        back = q["redirect_uri"] + ("&" if "?" in q["redirect_uri"] else "?") + \
            f"code={china_fakes.consent('oPayer_in_WeChat')}&state={q['state']}"
        route.fulfill(status=302, headers={"Location": back})
    page.route("https://open.weixin.qq.com/**", wechat_authorize)

    register(page, stack, t, ev, "Zhao Liu", "13700000001", lang="en")
    expect(page.get_by_test_id("pay-alipay-elsewhere")).to_be_visible()   # WeChat does not open Alipay
    assert_one_language(page, "en", "in wechat")
    shot(page, "wechat-choose")
    page.evaluate("localStorage.setItem('bridge-answers', JSON.stringify(['get_brand_wcpay_request:cancel']))")
    page.get_by_test_id("pay-wechat_pay").click()
    # back from the authorisation on the entry page: the code became the openid, the order went to the bridge
    expect(page.get_by_test_id("pay-cancelled")).to_be_visible(timeout=15000)
    assert authorised[0]["appid"] == china_fakes.wechat.APPID and authorised[0]["scope"] == "snsapi_base"
    assert china_fakes.oauth.calls[-1]["secret"] and "code=" not in page.url   # the code left the address bar
    order = china_fakes.wechat_order("jsapi")
    assert china_fakes.wechat.requests[-1]["body"]["payer"] == {"openid": "oPayer_in_WeChat"}
    calls = page.evaluate(BRIDGE_CALLS)
    assert [c["name"] for c in calls] == ["getBrandWCPayRequest"]
    p = calls[0]["params"]
    assert p["appId"] == china_fakes.wechat.APPID and p["package"].startswith("prepay_id=") and p["signType"] == "RSA"
    signed = f"{p['appId']}\n{p['timeStamp']}\n{p['nonceStr']}\n{p['package']}\n"
    assert rsa_verify(china_fakes.wechat.merchant_key.public_key(), signed, p["paySign"])   # signed by the merchant
    assert_one_language(page, "en", "cancelled")
    shot(page, "wechat-jsapi-cancelled")

    # again: the openid is known (no second trip to WeChat), the payer pays, WeChat notifies
    page.get_by_test_id("pay-again").click()
    page.get_by_test_id("pay-wechat_pay").click()
    expect(page.get_by_test_id("pay-waiting")).to_be_visible(timeout=15000)
    assert len(authorised) == 1 and len(page.evaluate(BRIDGE_CALLS)) == 2
    assert china_fakes.wechat_pays(order["out_trade_no"]) == 200
    expect(page.get_by_test_id("pay-paid")).to_be_visible(timeout=15000)
    expect(page.get_by_test_id("status")).to_have_text("Confirmed")
    assert paid(store, ev, "Zhao Liu") == ("confirmed", 3000, "paid")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    shot(page, "wechat-jsapi-paid")
    ctx.close()
    assert not blocked, blocked


def test_a_days_one_checkout_by_wechat_qr_on_a_desktop(stack, store, browser, china_fakes, organiser, event, shot):
    """The day's page (27b's POST /registrations/{id}/checkout): one order for every event picked, one QR code,
    one notification confirms them all; the manage page of the day shows both paid."""
    t, ev = event
    ev2 = tournaments.create_event(store, organiser[0], t.id, individual("斗地主公开赛", "doudizhu", 2000))
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, locale="zh-CN", user_agent=DESKTOP_UA)
    blocked = _no_csp_violations(ctx)
    page = ctx.new_page()
    page.goto(f"{stack['site']}/day.html?t={t.id}&lang=zh")
    expect(page.get_by_test_id("pay-how")).to_have_text("提交后一次付清所选项目的报名费")
    page.locator("#c-name").fill("孙七")
    page.locator("#c-phone").fill("13600000001")
    page.get_by_test_id(f"pick-{ev.id}").click()
    page.get_by_test_id(f"pick-{ev2.id}").click()
    page.get_by_test_id("submit").click()
    expect(page.get_by_test_id("done")).to_be_visible()
    expect(page.get_by_test_id("china-pay")).to_contain_text("¥50.00")
    expect(page.get_by_test_id("pay-desk")).to_contain_text("¥50.00")   # the desk still takes it, or online
    page.get_by_test_id("pay-wechat_pay").click()
    expect(page.get_by_test_id("pay-qr")).to_be_visible()
    order = china_fakes.wechat_order("native")
    assert order["amount"] == {"total": 5000, "currency": "CNY"}   # one order for both events
    image = Image.open(io.BytesIO(page.get_by_test_id("qr-image").screenshot()))
    assert [c.text for c in zxingcpp.read_barcodes(image)] == [f"weixin://wxpay/bizpayurl?pr={order['out_trade_no'][-8:]}"]
    shot(page, "day-qr")
    assert china_fakes.wechat_pays(order["out_trade_no"]) == 200
    expect(page.get_by_test_id("pay-paid")).to_be_visible(timeout=15000)
    expect(page.get_by_test_id("done-items")).to_contain_text("斗地主个人赛 · 已确认")
    expect(page.get_by_test_id("done-items")).to_contain_text("斗地主公开赛 · 已确认")
    expect(page.get_by_test_id("pay-desk")).to_be_hidden()   # nothing left to pay at the desk
    assert paid(store, ev, "孙七") == ("confirmed", 3000, "paid") and paid(store, ev2, "孙七")[0] == "confirmed"
    assert_one_language(page, "zh", "day paid")
    shot(page, "day-paid")

    # another day's registration paid from its manage page (entry.html?reg=): the same one order, asked again
    page.goto(f"{stack['site']}/day.html?t={t.id}&lang=zh")
    page.locator("#c-name").fill("周八")
    page.locator("#c-phone").fill("13600000002")
    page.get_by_test_id(f"pick-{ev.id}").click()
    page.get_by_test_id("submit").click()
    page.get_by_test_id("pay-wechat_pay").click()
    expect(page.get_by_test_id("pay-qr")).to_be_visible()
    orders = len(china_fakes.wechat.orders)
    page.get_by_test_id("manage").click()
    expect(page.get_by_test_id("reg-items")).to_be_visible()
    page.get_by_test_id("pay-wechat_pay").click()
    expect(page.get_by_test_id("pay-qr")).to_be_visible()
    assert len(china_fakes.wechat.orders) == orders   # the registration's open order again, not a second one
    assert china_fakes.wechat_pays(china_fakes.wechat_order("native")["out_trade_no"]) == 200
    expect(page.get_by_test_id("pay-paid")).to_be_visible(timeout=15000)
    expect(page.get_by_test_id("receipt")).to_contain_text("¥30.00")
    assert paid(store, ev, "周八") == ("confirmed", 3000, "paid")
    shot(page, "day-manage-paid")
    ctx.close()
    assert not blocked, blocked
