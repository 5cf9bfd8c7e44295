"""WeChat Pay (API v3) and Alipay through the real SDKs, their HTTP answered by fakes that sign as the providers
do (tests/fakes_china.py): checkout per channel, notifications verified for real, duplicates, forgeries, stale
and late notifications, amount mismatches, holds and refunds through the provider that took the money."""
from __future__ import annotations

from urllib.parse import parse_qsl, urlparse

import pytest

from chalicelib import bootstrap
from tests.api.test_registration import make_event, pair, register
from tests.factories import tournament_body
from tests.fakes_china import FakeAlipay, FakeWeChatPay, new_key, rsa_verify

CHINA = {"providers": ["wechat_pay", "alipay", "offline"]}


@pytest.fixture
def wechat(moto_repos):
    fake = FakeWeChatPay()
    bootstrap.deps().providers["wechat_pay"] = fake.gateway()
    with fake.mock():
        yield fake


@pytest.fixture
def alipay(moto_repos):
    fake = FakeAlipay()
    bootstrap.deps().providers["alipay"] = fake.gateway()
    return fake


@pytest.fixture
def eid(api):
    tid = api.post("/tournaments", tournament_body(payments=CHINA)).data["id"]
    return make_event(api, tid)   # 20 CNY a person: a pair owes 4000 fen


def registered(api, eid, name="河池一队"):
    r = register(api, eid, pair(name))
    assert r.status_code == 201 and r.data["entry"]["status"] == "pending_payment", r.data
    return r.data["entry"]["id"], {"X-Manage-Token": r.data["manage_token"]}


def checkout(api, entry_id, manage, **body):
    return api.post(f"/entries/{entry_id}/checkout", body, token=None, headers=manage)


def entry(api, entry_id, manage):
    return api.get(f"/entries/{entry_id}", token=None, headers=manage).data


def payment_of(entry_id, eid):
    d = bootstrap.deps()
    return d.repos.payments.get(d.repos.entries.get(eid, entry_id).payment_id)


def wx_notify(api, headers, body):
    return api.post("/webhooks/wechat-pay", raw=body, token=None, headers=headers)


def ali_notify(api, body):
    return api.post("/webhooks/alipay", raw=body, token=None,
                    headers={"Content-Type": "application/x-www-form-urlencoded"})


# --------------------------------------------------------------------------- WeChat Pay
def test_wechat_native_qr_paid_once_and_duplicate_acknowledged(api, eid, wechat, clock):
    entry_id, manage = registered(api, eid)
    r = checkout(api, entry_id, manage, provider="wechat_pay", channel="native")
    assert r.status_code == 200, r.data
    assert r.data["provider"] == "wechat_pay" and r.data["code_url"].startswith("weixin://wxpay/bizpayurl?pr=")
    order = wechat.requests[-1]   # what the SDK sent, its Authorization verified by the fake with the merchant key
    assert order["path"] == "/v3/pay/transactions/native"
    assert order["body"]["amount"] == {"total": 4000, "currency": "CNY"} and order["body"]["mchid"] == wechat.MCHID
    assert order["body"]["notify_url"].endswith("/webhooks/wechat-pay") and order["body"]["time_expire"].endswith("+08:00")
    assert entry(api, entry_id, manage)["hold_expires_at"] is not None
    # asked again: the same order, nothing new at WeChat
    again = checkout(api, entry_id, manage, provider="wechat_pay", channel="native")
    assert again.data["code_url"] == r.data["code_url"] and len(wechat.orders) == 1

    payment = payment_of(entry_id, eid)
    wechat.pay(payment.id)
    headers, body = wechat.notification(payment.id, clock(), event_id="EV-1")
    first = wx_notify(api, headers, body)
    assert (first.status_code, first.data["code"]) == (200, "SUCCESS")
    e = entry(api, entry_id, manage)
    assert (e["status"], e["payment_state"], e["amount_paid"]) == ("confirmed", "paid", 4000)
    paid = payment_of(entry_id, eid)
    assert paid.state == "confirmed" and paid.payment_intent == wechat.orders[payment.id]["transaction_id"]

    headers, body = wechat.notification(payment.id, clock(), event_id="EV-1")   # WeChat resends (new signature)
    dup = wx_notify(api, headers, body)
    assert (dup.status_code, dup.data["code"], dup.data["message"]) == (200, "SUCCESS", "duplicate")
    headers, body = wechat.notification(payment.id, clock(), event_id="EV-2")   # another id, same payment
    assert wx_notify(api, headers, body).data["code"] == "SUCCESS"
    assert entry(api, entry_id, manage)["amount_paid"] == 4000   # counted once
    assert api.get(f"/events/{eid}").data["counters"]["confirmed"] == 1


@pytest.mark.parametrize("forgery", ["other_key", "tampered", "wrong_apiv3_key", "unknown_serial", "no_signature"])
def test_wechat_forged_notifications_are_refused(api, eid, wechat, clock, forgery):
    entry_id, manage = registered(api, eid)
    checkout(api, entry_id, manage, provider="wechat_pay", channel="native")
    payment = payment_of(entry_id, eid)
    wechat.pay(payment.id)
    kw = {"other_key": {"signer": new_key()}, "wrong_apiv3_key": {"apiv3_key": "0" * 32},
          "unknown_serial": {"serial": 0x999}}.get(forgery, {})
    headers, body = wechat.notification(payment.id, clock(), **kw)
    if forgery == "tampered":
        body = body.replace(b'"summary": "', b'"summary": "x')
    if forgery == "no_signature":
        headers.pop("Wechatpay-Signature")
    r = wx_notify(api, headers, body)
    assert (r.status_code, r.data["code"]) == (400, "invalid_signature"), r.data
    assert entry(api, entry_id, manage)["status"] == "pending_payment"
    assert payment_of(entry_id, eid).state == "pending"


def test_wechat_stale_or_future_notification_is_refused(api, eid, wechat, clock):
    from datetime import timedelta
    entry_id, manage = registered(api, eid)
    checkout(api, entry_id, manage, provider="wechat_pay", channel="native")
    payment = payment_of(entry_id, eid)
    wechat.pay(payment.id)
    for when in (clock() - timedelta(minutes=6), clock() + timedelta(minutes=6)):
        r = wx_notify(api, *wechat.notification(payment.id, when, event_id="EV-OLD"))
        assert (r.status_code, r.data["code"]) == (400, "stale_signature")
    assert entry(api, entry_id, manage)["status"] == "pending_payment"
    ok = wx_notify(api, *wechat.notification(payment.id, clock() - timedelta(minutes=4), event_id="EV-OLD"))
    assert ok.status_code == 200 and entry(api, entry_id, manage)["status"] == "confirmed"


def test_wechat_amount_mismatch_is_acknowledged_not_processed(api, eid, wechat, clock):
    entry_id, manage = registered(api, eid)
    checkout(api, entry_id, manage, provider="wechat_pay", channel="native")
    payment = payment_of(entry_id, eid)
    wechat.pay(payment.id, total=1)
    r = wx_notify(api, *wechat.notification(payment.id, clock()))
    assert (r.status_code, r.data["code"], r.data["message"]) == (200, "SUCCESS", "not_processed")
    e = entry(api, entry_id, manage)
    assert (e["status"], e["amount_paid"]) == ("pending_payment", 0)


def test_wechat_jsapi_needs_openid_and_gives_signed_bridge_parameters(api, eid, wechat):
    entry_id, manage = registered(api, eid)
    r = checkout(api, entry_id, manage, provider="wechat_pay", channel="jsapi")
    assert (r.status_code, r.data["code"]) == (400, "invalid_request")
    r = checkout(api, entry_id, manage, provider="wechat_pay", channel="jsapi", openid="oUpF8uMuAJO_M2pxb1Q9zNjWeS6o")
    assert r.status_code == 200, r.data
    js = r.data["jsapi"]
    assert js["appId"] == wechat.APPID and js["package"].startswith("prepay_id=wx") and js["signType"] == "RSA"
    assert wechat.requests[-1]["body"]["payer"] == {"openid": "oUpF8uMuAJO_M2pxb1Q9zNjWeS6o"}
    # what WeixinJSBridge checks: RSA-SHA256 of the four lines with the merchant key
    signed = f"{js['appId']}\n{js['timeStamp']}\n{js['nonceStr']}\n{js['package']}\n"
    assert rsa_verify(wechat.merchant_key.public_key(), signed, js["paySign"])


def test_wechat_h5_sends_the_phone_to_wechat_and_back(api, eid, wechat):
    entry_id, manage = registered(api, eid)
    r = checkout(api, entry_id, manage, provider="wechat_pay", channel="h5")
    assert r.status_code == 200, r.data
    url = urlparse(r.data["h5_url"])
    assert url.netloc == "wx.tenpay.com"
    back = dict(parse_qsl(url.query))["redirect_url"]
    assert back.endswith(f"/entry.html?id={entry_id}&paid=1")
    assert wechat.requests[-1]["body"]["scene_info"]["h5_info"] == {"type": "Wap"}


def test_wechat_refund_goes_back_through_wechat(api, eid, wechat, clock):
    entry_id, manage = registered(api, eid)
    checkout(api, entry_id, manage, provider="wechat_pay", channel="native")
    payment = payment_of(entry_id, eid)
    wechat.pay(payment.id)
    wx_notify(api, *wechat.notification(payment.id, clock()))
    r = api.delete(f"/entries/{entry_id}", token=None, headers=manage)
    assert r.status_code == 200 and r.data["payment_state"] == "refunded", r.data
    assert len(wechat.refunds) == 1
    refund = wechat.refunds[0]
    assert refund["amount"] == {"refund": 4000, "total": 4000, "currency": "CNY"}
    assert refund["transaction_id"] == wechat.orders[payment.id]["transaction_id"]
    assert payment_of(entry_id, eid).state == "refunded"
    # WeChat's refund notification afterwards changes nothing, and is acknowledged
    note = wx_notify(api, *wechat.refund_notification(payment.id, clock(), 4000))
    assert (note.status_code, note.data["code"]) == (200, "SUCCESS")
    assert len(wechat.refunds) == 1 and entry(api, entry_id, manage)["payment_state"] == "refunded"


def test_wechat_hold_expires_then_late_payment_restores_or_refunds(api, eid, wechat, clock):
    from chalicelib.services.payments import sweep_expired_holds
    entry_id, manage = registered(api, eid)
    checkout(api, entry_id, manage, provider="wechat_pay", channel="native")
    payment = payment_of(entry_id, eid)
    clock.advance(minutes=40)
    assert sweep_expired_holds(bootstrap.deps()) == {"released": 1, "confirmed": 0, "failed": 0}
    assert wechat.closed == [payment.id]   # the order was closed at WeChat before the place was let go
    assert entry(api, entry_id, manage)["status"] == "cancelled"
    # out of order: WeChat reports a payment made just before closing; the place is still free
    wechat.orders[payment.id]["trade_state"] = "SUCCESS"
    wechat.orders[payment.id]["transaction_id"] = "4200late"
    r = wx_notify(api, *wechat.notification(payment.id, clock()))
    assert r.data["message"] == "confirmed_late"
    e = entry(api, entry_id, manage)
    assert (e["status"], e["amount_paid"]) == ("confirmed", 4000) and not wechat.refunds


def test_wechat_sweeper_confirms_a_paid_order_whose_notification_was_lost(api, eid, wechat, clock):
    from chalicelib.services.payments import sweep_expired_holds
    entry_id, manage = registered(api, eid)
    checkout(api, entry_id, manage, provider="wechat_pay", channel="native")
    wechat.pay(payment_of(entry_id, eid).id)
    clock.advance(minutes=40)
    assert sweep_expired_holds(bootstrap.deps()) == {"released": 0, "confirmed": 1, "failed": 0}
    assert entry(api, entry_id, manage)["status"] == "confirmed"


# --------------------------------------------------------------------------- Alipay
@pytest.mark.parametrize("channel, product", [("page", "FAST_INSTANT_TRADE_PAY"), ("wap", "QUICK_WAP_PAY")])
def test_alipay_pay_url_notification_and_duplicate(api, eid, alipay, clock, channel, product):
    entry_id, manage = registered(api, eid)
    r = checkout(api, entry_id, manage, provider="alipay", channel=channel)
    assert r.status_code == 200, r.data
    trade = alipay.open_trade(r.data["pay_url"])   # the URL's sign checked with the app's public key
    assert trade["biz"]["total_amount"] == "40.00" and trade["biz"]["product_code"] == product
    assert trade["notify_url"].endswith("/webhooks/alipay") and trade["sign_type"] == "RSA2"
    payment = payment_of(entry_id, eid)
    assert trade["biz"]["out_trade_no"] == payment.id
    alipay.pay(payment.id)
    body = alipay.notification(payment.id, clock(), notify_id="N-1")
    first = ali_notify(api, body)
    assert (first.status_code, first.body) == (200, b"success")
    e = entry(api, entry_id, manage)
    assert (e["status"], e["amount_paid"]) == ("confirmed", 4000)
    assert ali_notify(api, body).body == b"success"   # Alipay resends until it reads "success"
    assert entry(api, entry_id, manage)["amount_paid"] == 4000


@pytest.mark.parametrize("forgery", ["other_key", "tampered", "other_app", "no_sign"])
def test_alipay_forged_notifications_are_refused(api, eid, alipay, clock, forgery):
    entry_id, manage = registered(api, eid)
    alipay.open_trade(checkout(api, entry_id, manage, provider="alipay", channel="page").data["pay_url"])
    payment = payment_of(entry_id, eid)
    alipay.pay(payment.id)
    kw = {"other_key": {"signer": new_key()}, "other_app": {"app_id": "2021999999999999"}}.get(forgery, {})
    body = alipay.notification(payment.id, clock(), **kw)
    if forgery == "tampered":
        body = body.replace(b"total_amount=40.00", b"total_amount=0.01")
    if forgery == "no_sign":
        body = b"&".join(p for p in body.split(b"&") if not p.startswith(b"sign="))
    r = ali_notify(api, body)
    assert (r.status_code, r.data["code"]) == (400, "invalid_signature"), r.body
    assert entry(api, entry_id, manage)["status"] == "pending_payment"


def test_alipay_amount_mismatch_is_acknowledged_not_processed(api, eid, alipay, clock):
    entry_id, manage = registered(api, eid)
    alipay.open_trade(checkout(api, entry_id, manage, provider="alipay", channel="page").data["pay_url"])
    payment = payment_of(entry_id, eid)
    alipay.pay(payment.id)
    alipay.trades[payment.id]["total_amount"] = "0.01"
    r = ali_notify(api, alipay.notification(payment.id, clock()))
    assert (r.status_code, r.body) == (200, b"success")
    assert entry(api, entry_id, manage)["status"] == "pending_payment"


def test_alipay_refund_goes_back_through_alipay(api, eid, alipay, clock):
    entry_id, manage = registered(api, eid)
    alipay.open_trade(checkout(api, entry_id, manage, provider="alipay", channel="wap").data["pay_url"])
    payment = payment_of(entry_id, eid)
    alipay.pay(payment.id)
    ali_notify(api, alipay.notification(payment.id, clock()))
    r = api.delete(f"/entries/{entry_id}", token=None, headers=manage)
    assert r.status_code == 200 and r.data["payment_state"] == "refunded", r.data
    assert [(c["refund_amount"], c["out_trade_no"]) for c in alipay.refunds] == [("40.00", payment.id)]
    # Alipay's notification of the refund (refund_fee: the running total) changes nothing more
    note = ali_notify(api, alipay.notification(payment.id, clock(), refund_fee="40.00", gmt_refund="2026-12-01 10:05:00"))
    assert note.body == b"success" and len(alipay.refunds) == 1
    assert entry(api, entry_id, manage)["payment_state"] == "refunded"


def test_alipay_unopened_trade_expires_and_releases_the_hold(api, eid, alipay, clock):
    from chalicelib.services.payments import sweep_expired_holds
    entry_id, manage = registered(api, eid)
    checkout(api, entry_id, manage, provider="alipay", channel="page")   # the payer never opens the URL
    clock.advance(minutes=40)
    assert sweep_expired_holds(bootstrap.deps())["released"] == 1
    assert [c["method"] for c in alipay.calls] == ["alipay.trade.query"]
    assert entry(api, entry_id, manage)["status"] == "cancelled"


# --------------------------------------------------------------------------- choosing
def test_switching_provider_closes_the_first_order(api, eid, wechat, alipay):
    entry_id, manage = registered(api, eid)
    checkout(api, entry_id, manage, provider="wechat_pay", channel="native")
    first = payment_of(entry_id, eid)
    r = checkout(api, entry_id, manage, provider="alipay", channel="page")
    assert r.status_code == 200 and r.data["pay_url"], r.data
    assert wechat.closed == [first.id]
    d = bootstrap.deps()
    assert d.repos.payments.get(first.id).state == "cancelled"
    assert payment_of(entry_id, eid).provider == "alipay"


def test_switching_away_from_a_paid_order_is_refused(api, eid, wechat, alipay):
    entry_id, manage = registered(api, eid)
    checkout(api, entry_id, manage, provider="wechat_pay", channel="native")
    wechat.pay(payment_of(entry_id, eid).id)   # paid; the notification is on its way
    r = checkout(api, entry_id, manage, provider="alipay", channel="page")
    assert (r.status_code, r.data["code"]) == (409, "conflict")


def test_provider_not_offered_by_the_tournament(api, wechat, alipay):
    tid = api.post("/tournaments", tournament_body(payments={"providers": ["alipay", "offline"]})).data["id"]
    eid = make_event(api, tid)
    entry_id, manage = registered(api, eid)
    r = checkout(api, entry_id, manage, provider="wechat_pay", channel="native")
    assert (r.status_code, r.data["code"]) == (409, "online_payment_off")
    assert r.data["details"]["providers"] == ["alipay", "offline"]
    bad = checkout(api, entry_id, manage, provider="alipay", channel="native")
    assert (bad.status_code, bad.data["code"]) == (400, "invalid_request")
    assert not wechat.orders


def test_tournament_payment_settings_are_validated(api):
    r = api.post("/tournaments", tournament_body(payments={"providers": ["paypal"]}))
    assert r.status_code == 400
    r = api.post("/tournaments", tournament_body(payments={"providers": ["alipay", "alipay"]}))
    assert r.status_code == 400
    tid = api.post("/tournaments", tournament_body()).data["id"]
    r = api.patch(f"/tournaments/{tid}", {"payments": {"providers": ["wechat_pay", "offline"]}})
    assert r.status_code == 200, r.data


def test_webhooks_without_configured_provider_say_so(api, moto_repos):
    r = api.post("/webhooks/wechat-pay", raw=b"{}", token=None)
    assert (r.status_code, r.data["code"]) == (409, "online_payment_off")
    r = api.post("/webhooks/alipay", raw=b"a=b", token=None, headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert (r.status_code, r.data["code"]) == (409, "online_payment_off")


def test_a_payment_made_after_switching_is_sent_back_not_counted_twice(api, eid, wechat, alipay, clock):
    entry_id, manage = registered(api, eid)
    checkout(api, entry_id, manage, provider="wechat_pay", channel="native")
    first = payment_of(entry_id, eid)
    alipay.open_trade(checkout(api, entry_id, manage, provider="alipay", channel="page").data["pay_url"])
    second = payment_of(entry_id, eid)
    alipay.pay(second.id)
    assert ali_notify(api, alipay.notification(second.id, clock())).body == b"success"
    # WeChat reports that the first, closed order had been paid in the same second after all
    wechat.orders[first.id].update(trade_state="SUCCESS", transaction_id="4200race")
    r = wx_notify(api, *wechat.notification(first.id, clock(), event_id="EV-RACE"))
    assert (r.status_code, r.data["message"]) == (200, "refunded")
    assert [(x["transaction_id"], x["amount"]["refund"]) for x in wechat.refunds] == [("4200race", 4000)]
    e = entry(api, entry_id, manage)
    assert (e["status"], e["amount_paid"]) == ("confirmed", 4000) and not alipay.refunds
    assert bootstrap.deps().repos.payments.get(first.id).state == "refunded"
    again = wx_notify(api, *wechat.notification(first.id, clock(), event_id="EV-RACE"))
    assert again.data["message"] == "duplicate" and len(wechat.refunds) == 1


def test_public_tournament_names_the_providers_that_can_take_money(api, wechat, moto_repos):
    tid = api.post("/tournaments", tournament_body(payments=CHINA)).data["id"]
    got = api.get(f"/public/tournaments/{tid}", token=None).data
    assert got["payment_providers"] == ["wechat_pay", "offline"]   # Alipay has no keys on this platform


def test_stripe_only_where_the_tournament_chose_it(api, eid, fake_stripe, wechat):
    # a platform with Stripe keys: this tournament chose WeChat Pay, Alipay and the desk, so no Stripe session
    entry_id, manage = registered(api, eid)
    assert not fake_stripe.sessions
    assert entry(api, entry_id, manage)["hold_expires_at"] is not None   # held for online payment all the same
    r = checkout(api, entry_id, manage)   # no body: Stripe, as before v1.2
    assert (r.status_code, r.data["code"]) == (409, "online_payment_off")
    assert checkout(api, entry_id, manage, provider="wechat_pay", channel="native").status_code == 200


@pytest.fixture
def wechat_local(local_repos):
    fake = FakeWeChatPay()
    bootstrap.deps().providers["wechat_pay"] = fake.gateway()
    with fake.mock():
        yield fake


def test_wechat_pay_once_on_dynamodb_local(local_api, wechat_local, clock):
    """The same flow on the real store: conditional writes and the seen-notification item in one transaction."""
    tid = local_api.post("/tournaments", tournament_body(payments=CHINA)).data["id"]
    eid = make_event(local_api, tid)
    entry_id, manage = registered(local_api, eid)
    assert checkout(local_api, entry_id, manage, provider="wechat_pay", channel="native").status_code == 200
    payment = payment_of(entry_id, eid)
    wechat_local.pay(payment.id)
    for _ in range(2):
        r = wx_notify(local_api, *wechat_local.notification(payment.id, clock(), event_id="EV-LOCAL"))
        assert (r.status_code, r.data["code"]) == (200, "SUCCESS")
    assert r.data["message"] == "duplicate"
    e = entry(local_api, entry_id, manage)
    assert (e["status"], e["amount_paid"]) == ("confirmed", 4000)


# --------------------------------------------------------------------------- a day's registration
def test_a_days_checkout_by_channel_switched_and_refused_without_writing(api, wechat, alipay, clock):
    """The channels on a day's one checkout: a refused choice writes nothing; JSAPI's signed bridge parameters;
    the QR given up for H5 (the Native order closed at WeChat first); an item's own checkout answers the day's;
    then Alipay instead, paid once for both items."""
    tid = api.post("/tournaments", tournament_body(payments=CHINA)).data["id"]
    a, b = make_event(api, tid, name="掼蛋积分赛"), make_event(api, tid, name="掼蛋团体赛")
    items = [{"event_id": e, "name": "河池一队", "members": [{"name": "张三", "phone": "13800000001"}, {"name": "李四"}]}
             for e in (a, b)]

    def day(checkout, key):
        return api.post(f"/tournaments/{tid}/registrations", {"contact": {"name": "张三", "phone": "13800000001"},
                        "items": items, "checkout": checkout}, token=None, headers={"Idempotency-Key": key})

    for bad, code in (({"provider": "wechat_pay", "channel": "jsapi"}, "invalid_request"),
                      ({"provider": "wechat_pay", "channel": "page"}, "invalid_request"),
                      ({"provider": "stripe"}, "online_payment_off")):
        r = day(bad, f"day-bad-{code}-{bad.get('channel')}")
        assert (r.status_code, r.data["code"]) == ((400 if code == "invalid_request" else 409), code), r.data
    assert api.get(f"/events/{a}/entries").data["entries"] == [] and not wechat.requests
    r = day({"provider": "wechat_pay", "channel": "jsapi", "openid": "oUpF8uMuAJO_M2pxb1Q9zNjWeS6o"}, "day-registration-jsapi-0001")
    assert r.status_code == 201, r.data
    reg_id, manage = r.data["registration"]["id"], {"X-Manage-Token": r.data["manage_token"]}
    js = r.data["checkout"]["jsapi"]
    signed = f"{js['appId']}\n{js['timeStamp']}\n{js['nonceStr']}\n{js['package']}\n"
    assert rsa_verify(wechat.merchant_key.public_key(), signed, js["paySign"])
    order = wechat.requests[-1]
    assert order["path"] == "/v3/pay/transactions/jsapi" and order["body"]["amount"]["total"] == 8000
    assert r.data["checkout_url"] is None and len(r.data["checkout"]["entry_ids"]) == 2
    # the same request again: the same registration and the same order
    again = day({"provider": "wechat_pay", "channel": "jsapi", "openid": "oUpF8uMuAJO_M2pxb1Q9zNjWeS6o"}, "day-registration-jsapi-0001")
    assert again.data["checkout"] == r.data["checkout"] and len(wechat.orders) == 1
    first_order = order["body"]["out_trade_no"]
    # a phone outside WeChat: H5 instead; the JSAPI order is closed at WeChat before the new one opens
    h5 = api.post(f"/registrations/{reg_id}/checkout", {"provider": "wechat_pay", "channel": "h5"}, token=None,
                  headers=manage)
    assert h5.status_code == 200 and "redirect_url=" in h5.data["h5_url"], h5.data
    assert wechat.closed == [first_order] and bootstrap.deps().repos.payments.get(first_order).state == "cancelled"
    # an item's own checkout link answers the registration's (one order for both), not an order of its own
    item_entry = r.data["registration"]["items"][1]["entry"]["id"]
    own = api.post(f"/entries/{item_entry}/checkout", {"provider": "wechat_pay", "channel": "h5"}, token=None,
                   headers=manage)
    assert own.data == h5.data
    # then Alipay after all: one trade for both, paid once
    ali = api.post(f"/registrations/{reg_id}/checkout", {"provider": "alipay", "channel": "page"}, token=None,
                   headers=manage)
    assert ali.status_code == 200 and ali.data["amount"] == 8000, ali.data
    trade = alipay.open_trade(ali.data["pay_url"])
    assert trade["method"] == "alipay.trade.page.pay" and trade["biz"]["total_amount"] == "80.00"
    alipay.pay(trade["biz"]["out_trade_no"])
    assert ali_notify(api, alipay.notification(trade["biz"]["out_trade_no"], clock())).body == b"success"
    seen = api.get(f"/registrations/{reg_id}", token=None, headers=manage).data
    assert [i["entry"]["status"] for i in seen["items"]] == ["confirmed", "confirmed"]
    assert (seen["amount_paid"], seen["payment_state"]) == (8000, "paid")
    # nothing left to pay: 409 not_holding_place
    done = api.post(f"/registrations/{reg_id}/checkout", {"provider": "alipay", "channel": "page"}, token=None,
                    headers=manage)
    assert (done.status_code, done.data["code"]) == (409, "not_holding_place")


def test_a_wechat_only_day_holds_its_places_until_the_payer_picks_a_channel(api, wechat, clock):
    from chalicelib.services.payments import sweep_expired_holds
    tid = api.post("/tournaments", tournament_body(payments={"providers": ["wechat_pay"]})).data["id"]
    a = make_event(api, tid, capacity=1)
    body = {"contact": {"name": "张三", "phone": "13800000001"},
            "items": [{"event_id": a, "name": "河池一队", "members": [{"name": "张三", "phone": "13800000001"}, {"name": "李四"}]}]}
    r = api.post(f"/tournaments/{tid}/registrations", body, token=None)
    assert r.status_code == 201 and r.data["checkout"] is None, r.data
    assert r.data["registration"]["items"][0]["entry"]["hold_expires_at"] is not None and not wechat.requests
    clock.advance(minutes=40)   # nobody paid: the place comes free as with Stripe
    assert sweep_expired_holds(bootstrap.deps())["released"] == 1
    assert api.get(f"/events/{a}").data["counters"]["taken"] == 0


def test_a_days_checkout_switched_and_paid_once_on_dynamodb_local(local_api, wechat_local, clock):
    """The day's checkout on the real store: the registration's payment in its create transaction, the switch's
    entry transitions and the registration record's update, then one notification confirming both items."""
    tid = local_api.post("/tournaments", tournament_body(payments=CHINA)).data["id"]
    a, b = make_event(local_api, tid, name="掼蛋积分赛"), make_event(local_api, tid, name="掼蛋团体赛")
    items = [{"event_id": e, "name": "河池一队", "members": [{"name": "张三", "phone": "13800000001"}, {"name": "李四"}]}
             for e in (a, b)]
    r = local_api.post(f"/tournaments/{tid}/registrations", {"contact": {"name": "张三", "phone": "13800000001"},
                       "items": items, "checkout": {"provider": "wechat_pay", "channel": "native"}}, token=None)
    assert r.status_code == 201 and r.data["checkout"]["code_url"], r.data
    reg_id, manage = r.data["registration"]["id"], {"X-Manage-Token": r.data["manage_token"]}
    h5 = local_api.post(f"/registrations/{reg_id}/checkout", {"provider": "wechat_pay", "channel": "h5"}, token=None,
                        headers=manage)
    assert h5.status_code == 200 and h5.data["h5_url"], h5.data
    repos = bootstrap.deps().repos
    payment = repos.payments.get(repos.entries.registration(reg_id)["payment_id"])
    assert (payment.channel, payment.amount, len(payment.items)) == ("h5", 8000, 2)
    assert len(wechat_local.closed) == 1   # the Native order, closed at WeChat first
    wechat_local.pay(payment.id)
    for _ in range(2):
        note = wx_notify(local_api, *wechat_local.notification(payment.id, clock(), event_id="EV-DAY-LOCAL"))
        assert (note.status_code, note.data["code"]) == (200, "SUCCESS")
    seen = local_api.get(f"/registrations/{reg_id}", token=None, headers=manage).data
    assert [i["entry"]["status"] for i in seen["items"]] == ["confirmed", "confirmed"] and seen["amount_paid"] == 8000


def test_a_days_items_move_to_a_new_order_together_or_not_at_all(api, wechat, clock, monkeypatch):
    """One item changed meanwhile (its copy read here is stale): the checkout fails whole — no item on an order
    the other is not on — and the next one puts both on one order."""
    from chalicelib.store.entries import EntryRepo
    tid = api.post("/tournaments", tournament_body(payments={"providers": ["wechat_pay"]})).data["id"]
    a, b = make_event(api, tid, name="掼蛋积分赛"), make_event(api, tid, name="掼蛋团体赛")
    body = {"contact": {"name": "张三", "phone": "13800000001"},
            "items": [{"event_id": e, "name": "河池一队", "members": [{"name": "张三", "phone": "13800000001"},
                                                                  {"name": "李四"}]} for e in (a, b)]}
    r = api.post(f"/tournaments/{tid}/registrations", body, token=None)
    reg_id, manage = r.data["registration"]["id"], {"X-Manage-Token": r.data["manage_token"]}
    second = r.data["registration"]["items"][1]["entry"]["id"]
    real, stale = EntryRepo.get, []

    def get(self, eid, entry_id):
        found = real(self, eid, entry_id)
        if entry_id == second and found and not stale:   # read before a concurrent write moved its version
            stale.append(1)
            return found.model_copy(update={"version": found.version - 1})
        return found
    monkeypatch.setattr(EntryRepo, "get", get)
    failed = api.post(f"/registrations/{reg_id}/checkout", {"provider": "wechat_pay", "channel": "h5"}, token=None,
                      headers=manage)
    assert failed.status_code == 409, failed.data
    repos = bootstrap.deps().repos
    ids = [(i["event_id"], i["entry"]["id"]) for i in r.data["registration"]["items"]]
    assert [real(repos.entries, e, x).payment_id for e, x in ids] == [None, None]   # neither moved alone
    ok = api.post(f"/registrations/{reg_id}/checkout", {"provider": "wechat_pay", "channel": "h5"}, token=None,
                  headers=manage)
    assert ok.status_code == 200, ok.data
    moved = {real(repos.entries, e, x).payment_id for e, x in ids}
    assert len(moved) == 1 and None not in moved and len(ok.data["entry_ids"]) == 2
