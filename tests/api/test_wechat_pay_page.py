"""What the payer's page needs from the API besides the checkout itself: the Native QR code drawn by the server
(segno, so the page ships no QR library), and JSAPI's openid from WeChat's web authorisation — the authorize URL
for the merchant's official account, and the one-use code exchanged at WeChat (a fake answering as WeChat does)."""
from __future__ import annotations

import io
import urllib.request
from urllib.parse import parse_qsl, unquote, urlparse

import pytest

from chalicelib import bootstrap
from tests.api.test_china_payments import checkout, eid, registered, wechat  # noqa: F401 (fixtures)
from tests.fakes_china_http import FakeWeChatOAuth

SITE = "http://127.0.0.1:8080"


@pytest.fixture
def oauth(wechat, monkeypatch):   # noqa: F811
    """WeChat's OAuth server; the adapter's HTTP (urllib's urlopen) answered by it."""
    fake = FakeWeChatOAuth(wechat.APPID)
    bootstrap.deps().providers["wechat_pay"]._app_secret = fake.SECRET

    def urlopen(url, timeout=None):
        assert url.startswith("https://api.weixin.qq.com/sns/oauth2/access_token?") and timeout
        return io.BytesIO(fake.answer(url)[2].encode())
    monkeypatch.setattr(urllib.request, "urlopen", urlopen)
    return fake


def test_native_answers_its_qr_code_as_an_svg_the_page_can_show(api, eid, wechat):   # noqa: F811
    """Only the answer's shape here: tests/e2e/test_china_pay.py reads the code back from what Chromium drew."""
    entry_id, manage = registered(api, eid)
    r = checkout(api, entry_id, manage, provider="wechat_pay", channel="native")
    assert r.status_code == 200, r.data
    head, _, svg = r.data["code_svg"].partition(",")
    assert head == "data:image/svg+xml;charset=utf-8"
    text = unquote(svg)
    assert text.startswith("<svg") and "<path" in text and "script" not in text and "href" not in text
    again = checkout(api, entry_id, manage, provider="wechat_pay", channel="native")   # the same order, same code
    assert again.data["code_svg"] == r.data["code_svg"] and again.data["code_url"] == r.data["code_url"]
    h5 = checkout(api, entry_id, manage, provider="wechat_pay", channel="h5")
    assert h5.status_code == 200 and h5.data.get("code_svg") is None and h5.data["h5_url"]


def test_the_authorize_url_is_wechats_for_the_merchants_official_account(api, oauth, wechat):   # noqa: F811
    back = f"{SITE}/entry.html?id=E1"
    r = api.post("/wechat-pay/authorize", {"return_to": back}, token=None)
    assert r.status_code == 200, r.data
    url = urlparse(r.data["url"])
    assert (url.scheme, url.netloc, url.path, url.fragment) == ("https", "open.weixin.qq.com", "/connect/oauth2/authorize",
                                                                "wechat_redirect")
    q = dict(parse_qsl(url.query))
    assert q == {"appid": wechat.APPID, "redirect_uri": back, "response_type": "code", "scope": "snsapi_base",
                 "state": r.data["state"]} and len(r.data["state"]) >= 16
    other = api.post("/wechat-pay/authorize", {"return_to": back}, token=None)
    assert other.data["state"] != r.data["state"]
    for bad in ("https://evil.example/entry.html", SITE + ".evil.example/x", "javascript:alert(1)"):
        r = api.post("/wechat-pay/authorize", {"return_to": bad}, token=None)
        assert r.status_code == 400 and r.data["code"] == "invalid_request", bad


def test_a_code_becomes_the_openid_once_and_then_pays_by_jsapi(api, eid, oauth, wechat):   # noqa: F811
    code = oauth.consent("oPayer42")
    r = api.post("/wechat-pay/openid", {"code": code}, token=None)
    assert r.status_code == 200 and r.data == {"openid": "oPayer42"}
    assert oauth.calls[-1] == {"appid": wechat.APPID, "secret": oauth.SECRET, "code": code,
                               "grant_type": "authorization_code"}
    again = api.post("/wechat-pay/openid", {"code": code}, token=None)            # one use only, as WeChat's
    assert again.status_code == 400 and again.data["code"] == "wechat_code_invalid"
    assert api.post("/wechat-pay/openid", {"code": ""}, token=None).data["code"] == "invalid_request"
    entry_id, manage = registered(api, eid)
    paid = checkout(api, entry_id, manage, provider="wechat_pay", channel="jsapi", openid="oPayer42")
    assert paid.status_code == 200 and paid.data["jsapi"]["package"].startswith("prepay_id=")
    assert wechat.requests[-1]["body"]["payer"] == {"openid": "oPayer42"}


def test_without_the_official_accounts_secret_or_reachable_wechat(api, oauth, wechat, monkeypatch):   # noqa: F811
    def down(url, timeout=None):
        raise OSError("unreachable")
    monkeypatch.setattr(urllib.request, "urlopen", down)
    r = api.post("/wechat-pay/openid", {"code": "abc"}, token=None)
    assert r.status_code == 502 and r.data["code"] == "payment_unavailable"
    bootstrap.deps().providers["wechat_pay"]._app_secret = None
    for path, body in (("/wechat-pay/openid", {"code": "abc"}), ("/wechat-pay/authorize", {"return_to": SITE + "/x"})):
        r = api.post(path, body, token=None)
        assert r.status_code == 409 and r.data["code"] == "online_payment_off", path
    bootstrap.deps().providers.pop("wechat_pay")
    assert api.post("/wechat-pay/openid", {"code": "abc"}, token=None).data["code"] == "online_payment_off"


def test_both_oauth_routes_are_limited_per_client_address_and_a_limited_call_never_reaches_wechat(
        api, oauth, clock, monkeypatch):
    """Public routes without a limit: /openid spends a call to WeChat's API (with the official account's secret)
    on every request. Each client address gets OPENID/AUTHORIZE_PER_MINUTE a minute; others are not held up."""
    from chalicelib.api import wechat_oauth
    from chalicelib.config import get_settings
    monkeypatch.setenv("TRUSTED_PROXY_HOPS", "1")
    get_settings.cache_clear()

    def post(path, body, ip):
        return api.post(path, body, token=None, headers={"X-Forwarded-For": f"9.9.9.9, {ip}"})
    for _ in range(wechat_oauth.OPENID_PER_MINUTE):
        assert post("/wechat-pay/openid", {"code": "not-a-code"}, "10.0.0.66").status_code == 400
    asked = len(oauth.calls)
    limited = post("/wechat-pay/openid", {"code": oauth.consent("oLate")}, "10.0.0.66")
    assert limited.status_code == 429 and limited.data["code"] == "rate_limited"
    assert 0 < int(limited.headers["Retry-After"]) <= 60 and len(oauth.calls) == asked   # WeChat not asked
    assert post("/wechat-pay/openid", {"code": oauth.consent("oOther")}, "10.0.0.7").data == {"openid": "oOther"}
    back = {"return_to": f"{SITE}/entry.html?id=E1"}
    for _ in range(wechat_oauth.AUTHORIZE_PER_MINUTE):
        assert post("/wechat-pay/authorize", back, "10.0.0.66").status_code == 200
    assert post("/wechat-pay/authorize", back, "10.0.0.66").status_code == 429
    assert post("/wechat-pay/authorize", back, "10.0.0.7").status_code == 200
    clock.advance(minutes=1)
    assert post("/wechat-pay/openid", {"code": oauth.consent("oNext")}, "10.0.0.66").data == {"openid": "oNext"}
    assert post("/wechat-pay/authorize", back, "10.0.0.66").status_code == 200
