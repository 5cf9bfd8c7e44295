"""JSAPI's openid per the tournament's organiser account (issue 40): a JSAPI order's openid must be of the AppID the
order is placed with. A chamber with a direct WeChat Pay account (its own AppID, and its official account's AppSecret
given write-only on PUT) authorises its payers at its own AppID and its orders carry that openid; a partner
account's payers are authorised at the platform's AppID (sp_openid), as before. WeChat's OAuth server is a fake per
official account (tests/fakes_china_http.py), the merchant API the signing fake (tests/fakes_china.py)."""
from __future__ import annotations

import io
import json
import urllib.request
from urllib.parse import parse_qsl, urlparse

import pytest

from chalicelib import bootstrap
from tests.api.test_payment_accounts_china import (china, china_event, connect, organiser,  # noqa: F401 (fixture)
                                                   registered)
from tests.fakes_china_http import FakeWeChatOAuth

SITE = "http://127.0.0.1:8080"
CHAMBER_APPID, CHAMBER_SECRET = "wx0000000000000301", "c0ffee" * 5 + "ab"


@pytest.fixture
def official_accounts(china, monkeypatch):   # noqa: F811
    """The platform's official account (its WeChat Pay AppID) and the chamber's, each answering only its own codes
    with its own AppSecret."""
    wx, _ = china
    platform = bootstrap.deps().providers["wechat_pay"]
    platform._app_secret = FakeWeChatOAuth.SECRET
    accounts = {platform.appid: FakeWeChatOAuth(platform.appid), CHAMBER_APPID: FakeWeChatOAuth(CHAMBER_APPID)}
    accounts[CHAMBER_APPID].SECRET = CHAMBER_SECRET

    def urlopen(url, timeout=None):
        appid = dict(parse_qsl(urlparse(url).query)).get("appid")
        fake = accounts.get(appid) or accounts[platform.appid]   # an unknown AppID: refused as WeChat would
        return io.BytesIO(fake.answer(url)[2].encode())
    monkeypatch.setattr(urllib.request, "urlopen", urlopen)
    return accounts


def _tournament_of(eid):
    return bootstrap.deps().repos.events.get(eid).tournament_id


def test_a_direct_account_authorises_at_its_own_appid_and_its_jsapi_order_carries_that_openid(
        chalice_client, china, official_accounts):   # noqa: F811
    wx, _ = china
    platform_appid = bootstrap.deps().providers["wechat_pay"].appid
    _, direct = organiser(chalice_client, "柳州商会")
    m = wx.add_merchant("1900000301", CHAMBER_APPID)
    put = direct.put("/organiser/payment-accounts/wechat_pay",
                     {"mode": "direct", "mchid": m.mchid, **m.values(), "app_secret": CHAMBER_SECRET})
    assert put.status_code == 200 and CHAMBER_SECRET not in json.dumps(put.data)          # write-only
    connect(direct, "wechat_pay", {"mode": "direct", "mchid": m.mchid, **m.values(), "app_secret": CHAMBER_SECRET})
    _, partner = organiser(chalice_client, "河池商会")
    wx.add_sub_merchant("1900000201")
    connect(partner, "wechat_pay", {"mode": "partner", "sub_mchid": "1900000201"})
    listed = direct.get("/organiser/payment-accounts").data
    assert CHAMBER_SECRET not in json.dumps(listed)

    eid = china_event(direct)
    tid = _tournament_of(eid)
    r = direct.post("/wechat-pay/authorize", {"return_to": f"{SITE}/entry.html?id=E1", "tournament_id": tid},
                    token=None)
    assert r.status_code == 200, r.data
    assert dict(parse_qsl(urlparse(r.data["url"]).query))["appid"] == CHAMBER_APPID
    # a code of the platform's official account is not the chamber's: WeChat refuses it at the chamber's AppID
    stray = official_accounts[platform_appid].consent("oPlatformPayer")
    wrong = direct.post("/wechat-pay/openid", {"code": stray, "tournament_id": tid}, token=None)
    assert wrong.status_code == 400 and wrong.data["code"] == "wechat_code_invalid"
    code = official_accounts[CHAMBER_APPID].consent("oChamberPayer")
    got = direct.post("/wechat-pay/openid", {"code": code, "tournament_id": tid}, token=None)
    assert got.status_code == 200 and got.data == {"openid": "oChamberPayer"}
    assert official_accounts[CHAMBER_APPID].calls[-1]["secret"] == CHAMBER_SECRET
    entry_id, manage = registered(direct, eid, "柳州微信队")
    paid = direct.post(f"/entries/{entry_id}/checkout", {"provider": "wechat_pay", "channel": "jsapi",
                                                           "openid": "oChamberPayer"}, token=None, headers=manage)
    assert paid.status_code == 200, paid.data
    order = [o for o in wx.orders.values() if o["kind"] == "jsapi"][-1]
    assert (order["appid"], order["payer"], order["account"]) == (CHAMBER_APPID, {"openid": "oChamberPayer"},
                                                                  m.mchid)

    # a partner account's payers are the platform's official account's (sp_openid)
    peid = china_event(partner)
    ptid = _tournament_of(peid)
    r = partner.post("/wechat-pay/authorize", {"return_to": f"{SITE}/entry.html?id=E2", "tournament_id": ptid},
                     token=None)
    assert dict(parse_qsl(urlparse(r.data["url"]).query))["appid"] == platform_appid
    code = official_accounts[platform_appid].consent("oPlatformPayer")
    assert partner.post("/wechat-pay/openid", {"code": code, "tournament_id": ptid},
                        token=None).data == {"openid": "oPlatformPayer"}
    entry_id, manage = registered(partner, peid, "河池微信队")
    assert partner.post(f"/entries/{entry_id}/checkout", {"provider": "wechat_pay", "channel": "jsapi",
                                                           "openid": "oPlatformPayer"}, token=None,
                        headers=manage).status_code == 200
    order = [o for o in wx.orders.values() if o["kind"] == "jsapi"][-1]
    assert (order["appid"], order["payer"], order["account"]) == (platform_appid, {"sp_openid": "oPlatformPayer"},
                                                                  "1900000201")
    unknown = partner.post("/wechat-pay/authorize", {"return_to": f"{SITE}/x", "tournament_id": "01JNOPE"}, token=None)
    assert unknown.status_code == 404


def test_a_direct_account_without_its_app_secret_cannot_authorise(chalice_client, china, official_accounts):  # noqa: F811
    wx, _ = china
    _, direct = organiser(chalice_client, "柳州商会")
    m = wx.add_merchant("1900000301", CHAMBER_APPID)
    connect(direct, "wechat_pay", {"mode": "direct", "mchid": m.mchid, **m.values()})
    tid = _tournament_of(china_event(direct))
    r = direct.post("/wechat-pay/authorize", {"return_to": f"{SITE}/x", "tournament_id": tid}, token=None)
    assert r.status_code == 409 and r.data["code"] == "online_payment_off"   # never the platform's AppID instead
