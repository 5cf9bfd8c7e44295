"""WeChat Pay and Alipay for each chamber's own account, end to end through the API (issue 40): the organisers'
accounts (services/payment_accounts.py) choose the adapter bound to them (services/gateways.py, the adapters'
`for_account`), through the real SDKs against the signing stand-ins (tests/fakes_china.py), which record which
account every order, query and refund was for.

Two organisers, each with a WeChat Pay partner account (its sub_mchid under the platform's service provider) and
an Alipay app_auth account (its token for the platform's third-party app): each tournament's orders and refunds
reach its own account; a genuinely signed notification naming the other organiser's sub-merchant / auth_app_id
never touches the entry (account_mismatch), the right one confirms it. A third organiser with direct accounts
(its own keys): its orders name its own notify URL, and its notifications are verified there, with its keys."""
from __future__ import annotations

import pytest

from chalicelib import bootstrap
from chalicelib.config import get_settings
from chalicelib.services.organisers import create_organiser
from tests.api.test_registration import make_event, pair, register
from tests.factories import Api, tournament_body
from tests.fakes_china import FakeAlipay, FakeWeChatPay

CHINA = {"providers": ["wechat_pay", "alipay", "offline"]}
WX_URL = "https://api.example.cn/webhooks/wechat-pay"
ALI_URL = "https://api.example.cn/webhooks/alipay"


@pytest.fixture
def china(moto_repos, monkeypatch):
    """The platform's service-provider keys at both providers (PAYMENT_ACCOUNTS=platform: nothing is taken on
    them without an organiser's account)."""
    monkeypatch.setenv("PAYMENT_ACCOUNTS", "platform")
    get_settings.cache_clear()
    wx, ali = FakeWeChatPay(), FakeAlipay()
    providers = bootstrap.deps().providers
    providers["wechat_pay"], providers["alipay"] = wx.gateway(WX_URL), ali.gateway(ALI_URL)
    with wx.mock():
        yield wx, ali


def organiser(chalice_client, name) -> tuple[str, Api]:
    org, token = create_organiser(bootstrap.deps(), name)
    return org.id, Api(chalice_client, token)


def connect(api, provider, body, state="ok"):
    assert api.put(f"/organiser/payment-accounts/{provider}", body).status_code == 200
    r = api.post(f"/organiser/payment-accounts/{provider}/check")
    assert r.status_code == 200 and r.data["state"] == state, r.data
    return r.data


def china_event(api) -> str:
    r = api.post("/tournaments", tournament_body(payments=CHINA))
    assert r.status_code == 201, r.data
    return make_event(api, r.data["id"])   # 20 CNY a person: a pair owes 4000 fen


def registered(api, eid, name):
    r = register(api, eid, pair(name))
    assert r.status_code == 201 and r.data["entry"]["status"] == "pending_payment", r.data
    return r.data["entry"]["id"], {"X-Manage-Token": r.data["manage_token"]}


def pay_with(api, eid, entry_id, manage, provider, channel) -> tuple[str, dict]:
    """(the payment's id = the order's out_trade_no, what the payer's page gets)."""
    r = api.post(f"/entries/{entry_id}/checkout", {"provider": provider, "channel": channel}, token=None,
                 headers=manage)
    assert r.status_code == 200, r.data
    return bootstrap.deps().repos.entries.get(eid, entry_id).payment_id, r.data


def status(api, entry_id, manage) -> tuple[str, str]:
    e = api.get(f"/entries/{entry_id}", token=None, headers=manage).data
    return e["status"], e["payment_state"]


def wx_post(api, headers_body, organiser_id=None):
    headers, body = headers_body
    path = "/webhooks/wechat-pay" + (f"/{organiser_id}" if organiser_id else "")
    return api.post(path, raw=body, token=None, headers=headers)


def ali_post(api, body, organiser_id=None):
    path = "/webhooks/alipay" + (f"/{organiser_id}" if organiser_id else "")
    return api.post(path, raw=body, token=None, headers={"Content-Type": "application/x-www-form-urlencoded"})


def test_the_check_says_in_words_what_is_wrong_and_learns_the_alipay_app_id(chalice_client, china):
    wx, ali = china
    _, a = organiser(chalice_client, "河池商会")
    wx.add_sub_merchant("1900000203", bound=False)
    wx.add_sub_merchant("1900000201")
    failed = connect(a, "wechat_pay", {"mode": "partner", "sub_mchid": "1900000203"}, state="failed")
    assert failed["code"] == "sub_merchant_not_bound" and "子商户号未与服务商绑定" in failed["message"]
    assert "wechat_pay" not in a.get("/organiser/payment-accounts").data["offerable"]
    ok = connect(a, "wechat_pay", {"mode": "partner", "sub_mchid": "1900000201"})
    assert ok["id"] == "1900000201" and "wechat_pay" in a.get("/organiser/payment-accounts").data["offerable"]
    # Alipay app_auth with the token alone: the check stores the app id the token query names
    token = ali.authorise("2021000000000101")
    assert a.put("/organiser/payment-accounts/alipay", {"mode": "app_auth", "app_auth_token": token}).data["id"] == ""
    assert connect(a, "alipay", {"mode": "app_auth", "app_auth_token": token})["id"] == "2021000000000101"
    shown = {x["provider"]: x for x in a.get("/organiser/payment-accounts").data["accounts"]}
    assert (shown["alipay"]["id"], shown["alipay"]["state"]) == ("2021000000000101", "ok")
    assert token not in str(shown)
    # The same token sent again keeps the id it named (its open orders were opened on it); another token does not
    assert a.put("/organiser/payment-accounts/alipay", {"mode": "app_auth", "app_auth_token": token}).data["id"] \
        == "2021000000000101"
    other = ali.authorise("2021000000000102")
    assert a.put("/organiser/payment-accounts/alipay", {"mode": "app_auth", "app_auth_token": other}).data["id"] == ""
    # A typed id the token does not belong to: failed, in words, and the typed id is kept (not overwritten)
    typed = connect(a, "alipay", {"mode": "app_auth", "auth_app_id": "2021000000000199", "app_auth_token": token},
                    state="failed")
    assert typed["code"] == "account_mismatch" and "2021000000000101" in typed["message"]
    shown = {x["provider"]: x for x in a.get("/organiser/payment-accounts").data["accounts"]}
    assert (shown["alipay"]["id"], shown["alipay"]["state"]) == ("2021000000000199", "failed")
    assert "alipay" not in a.get("/organiser/payment-accounts").data["offerable"]


def test_each_organisers_orders_refunds_and_notifications_go_through_its_own_accounts(chalice_client, china, clock):
    wx, ali = china
    orgs = {}
    for name, sub, app in (("河池商会", "1900000201", "2021000000000101"), ("南宁商会", "1900000202", "2021000000000102")):
        oid, api = organiser(chalice_client, name)
        wx.add_sub_merchant(sub)
        connect(api, "wechat_pay", {"mode": "partner", "sub_mchid": sub})
        connect(api, "alipay", {"mode": "app_auth", "app_auth_token": ali.authorise(app)})
        orgs[name] = {"oid": oid, "api": api, "sub": sub, "app": app, "eid": china_event(api)}
    a, b = orgs["河池商会"], orgs["南宁商会"]
    for o in (a, b):
        o["wx"] = registered(o["api"], o["eid"], f"{o['sub'][-3:]}微信队")
        o["ali"] = registered(o["api"], o["eid"], f"{o['app'][-3:]}支付宝队")
        o["wx_pay"] = pay_with(o["api"], o["eid"], *o["wx"], "wechat_pay", "native")[0]
        o["ali_pay"], answer = pay_with(o["api"], o["eid"], *o["ali"], "alipay", "wap")
        ali.open_trade(answer["pay_url"])   # the payer's browser takes the signed URL to Alipay
    for o in (a, b):   # each order at its own account, telling the platform's one notify URL
        order, trade = wx.orders[o["wx_pay"]], ali.trades[o["ali_pay"]]
        assert (order["account"], order["partner"], order["notify_url"]) == (o["sub"], True, WX_URL)
        assert (trade["account"], trade["app_id"], trade["notify_url"]) == (o["app"], ali.APPID, ALI_URL)
        wx.pay(o["wx_pay"]), ali.pay(o["ali_pay"])
    api = a["api"]
    # Genuinely signed (for the platform), but naming the other organiser's sub-merchant / app: never this entry's
    forged = wx_post(api, wx.notification(a["wx_pay"], clock(), sub_mchid=b["sub"]))
    assert (forged.status_code, forged.data) == (200, {"code": "SUCCESS", "message": "not_processed"})
    assert ali_post(api, ali.notification(a["ali_pay"], clock(), auth_app_id=b["app"])).status_code == 200
    assert status(api, *a["wx"]) == status(api, *a["ali"]) == ("pending_payment", "pending")
    # The right ones confirm
    assert wx_post(api, wx.notification(a["wx_pay"], clock())).data["message"] == "confirmed"
    assert ali_post(api, ali.notification(a["ali_pay"], clock())).status_code == 200
    assert status(api, *a["wx"]) == status(api, *a["ali"]) == ("confirmed", "paid")
    assert status(b["api"], *b["wx"]) == ("pending_payment", "pending")   # the other organiser's: untouched
    # Withdrawing sends each refund back through the account that took the money, and never the other's
    for key in ("wx", "ali"):
        r = api.delete(f"/entries/{a[key][0]}", token=None, headers=a[key][1])
        assert r.status_code == 200 and r.data["payment_state"] == "refunded", r.data
    assert [(r["account"], r["sub_mchid"], r["amount"]["refund"]) for r in wx.refunds] == [(a["sub"], a["sub"], 4000)]
    assert [(r["account"], r["refund_amount"]) for r in ali.refunds] == [(a["app"], "40.00")]
    # The other organiser's entries pay through its own accounts the same way
    assert wx_post(b["api"], wx.notification(b["wx_pay"], clock())).data["message"] == "confirmed"
    assert ali_post(b["api"], ali.notification(b["ali_pay"], clock())).status_code == 200
    assert status(b["api"], *b["wx"]) == status(b["api"], *b["ali"]) == ("confirmed", "paid")
    assert {r["account"] for r in wx.requests if r["body"].get("out_trade_no") in (b["wx_pay"], a["wx_pay"])} \
        == {a["sub"], b["sub"]}
    assert {c["account"] for c in ali.calls if c["biz"].get("out_trade_no") == b["ali_pay"]} <= {b["app"]}


def test_a_direct_accounts_notifications_come_to_its_organisers_own_route(chalice_client, china, clock):
    wx, ali = china
    oid, api = organiser(chalice_client, "柳州商会")
    partner_oid, partner = organiser(chalice_client, "河池商会")
    wx.add_sub_merchant("1900000201")
    connect(partner, "wechat_pay", {"mode": "partner", "sub_mchid": "1900000201"})
    connect(partner, "alipay", {"mode": "app_auth", "app_auth_token": ali.authorise("2021000000000101")})
    m = wx.add_merchant("1900000301", "wx0000000000000301")
    connect(api, "wechat_pay", {"mode": "direct", "mchid": m.mchid, **m.values()})
    connect(api, "alipay", {"mode": "direct", "appid": "2021000000000201", **ali.add_app("2021000000000201")})
    eid = china_event(api)
    wx_entry, ali_entry = registered(api, eid, "柳州微信队"), registered(api, eid, "柳州支付宝队")
    wx_pay = pay_with(api, eid, *wx_entry, "wechat_pay", "native")[0]
    ali_pay, answer = pay_with(api, eid, *ali_entry, "alipay", "wap")
    ali.open_trade(answer["pay_url"])
    order, trade = wx.orders[wx_pay], ali.trades[ali_pay]
    assert (order["account"], order["partner"], order["notify_url"]) == (m.mchid, False, f"{WX_URL}/{oid}")
    assert (trade["account"], trade["app_id"], trade["notify_url"]) == ("2021000000000201", "2021000000000201",
                                                                        f"{ALI_URL}/{oid}")
    wx.pay(wx_pay), ali.pay(ali_pay)
    wx_note, ali_note = wx.notification(wx_pay, clock()), ali.notification(ali_pay, clock())
    # Encrypted / signed with the chamber's own keys: the platform's URL, or another organiser's, cannot verify them
    for path_oid in (None, partner_oid):
        assert wx_post(api, wx_note, path_oid).data["code"] == "invalid_signature"
        assert ali_post(api, ali_note, path_oid).status_code == 400
    assert wx_post(api, wx_note, "01JZZZZZZZZZZZZZZZZZZZZZZZ").status_code == 404   # an organiser with no account
    # Another organiser cannot connect the same merchant: one chamber's merchant id belongs to one organiser
    same_oid, same = organiser(chalice_client, "同号商会")
    taken = same.put("/organiser/payment-accounts/wechat_pay", {"mode": "direct", "mchid": m.mchid, **m.values()})
    assert (taken.status_code, taken.data["code"]) == (409, "payment_account_taken")
    assert wx_post(api, wx_note, same_oid).status_code == 404                     # no account there: nothing verifies
    assert status(api, *wx_entry) == status(api, *ali_entry) == ("pending_payment", "pending")
    assert wx_post(api, wx_note, oid).data == {"code": "SUCCESS", "message": "confirmed"}
    ok = ali_post(api, ali_note, oid)
    assert (ok.status_code, ok.body) == (200, b"success") or (ok.status_code, ok.data) == (200, "success")
    assert status(api, *wx_entry) == status(api, *ali_entry) == ("confirmed", "paid")
    for entry_id, manage in (wx_entry, ali_entry):
        assert api.delete(f"/entries/{entry_id}", token=None, headers=manage).data["payment_state"] == "refunded"
    assert [(r["mchid"], r["account"]) for r in wx.requests if r["path"] == "/v3/refund/domestic/refunds"] \
        == [(m.mchid, m.mchid)]
    assert [r["account"] for r in ali.refunds] == ["2021000000000201"]


def test_an_order_opened_on_a_replaced_or_deleted_account_is_notified_and_refunded_through_that_account(
        chalice_client, china, clock):
    """Issue 40 follow-up: the organiser replaces its WeChat Pay merchant and deletes its Alipay app after orders
    were opened on them; the old accounts are kept sealed (a count, never listed): the late notification in the old
    keys confirms the entry, and each refund reaches the OLD account, not the new one."""
    wx, ali = china
    oid, api = organiser(chalice_client, "梧州商会")
    old = wx.add_merchant("1900000401", "wx0000000000000401")
    connect(api, "wechat_pay", {"mode": "direct", "mchid": old.mchid, **old.values()})
    connect(api, "alipay", {"mode": "direct", "appid": "2021000000000401", **ali.add_app("2021000000000401")})
    eid = china_event(api)
    wx_entry, ali_entry = registered(api, eid, "梧州微信队"), registered(api, eid, "梧州支付宝队")
    wx_pay = pay_with(api, eid, *wx_entry, "wechat_pay", "native")[0]
    ali_pay, answer = pay_with(api, eid, *ali_entry, "alipay", "wap")
    ali.open_trade(answer["pay_url"])
    wx.pay(wx_pay), ali.pay(ali_pay)
    wx_note, ali_note = wx.notification(wx_pay, clock()), ali.notification(ali_pay, clock())

    new = wx.add_merchant("1900000402", "wx0000000000000402")
    connect(api, "wechat_pay", {"mode": "direct", "mchid": new.mchid, **new.values()})
    assert api.delete("/organiser/payment-accounts/alipay").status_code == 200
    listed = api.get("/organiser/payment-accounts").data
    assert [a["id"] for a in listed["accounts"]] == [new.mchid] and listed["retired"] == 2
    # the notifications signed with the old keys still reach the payments opened on them
    assert wx_post(api, wx_note, oid).data == {"code": "SUCCESS", "message": "confirmed"}
    assert ali_post(api, ali_note, oid).status_code == 200
    assert status(api, *wx_entry) == status(api, *ali_entry) == ("confirmed", "paid")
    for entry_id, manage in (wx_entry, ali_entry):
        out = api.delete(f"/entries/{entry_id}", token=None, headers=manage)
        assert out.status_code == 200 and out.data["payment_state"] == "refunded", out.data
    assert [(r["mchid"], r["account"]) for r in wx.requests if r["path"] == "/v3/refund/domestic/refunds"] \
        == [(old.mchid, old.mchid)]
    assert [r["account"] for r in ali.refunds] == ["2021000000000401"]
    # a new order goes through the account the organiser has now
    again = registered(api, eid, "梧州新队")
    assert wx.orders[pay_with(api, eid, *again, "wechat_pay", "native")[0]]["account"] == new.mchid
