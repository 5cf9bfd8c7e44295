"""One contract, every provider (Stripe, WeChat Pay, Alipay, offline at the desk, the local stage's demo cashier):
the same assertions on the same steps — paid once, a repeated notification counted once, a cancellation refunded through whoever took the money,
a hold that runs out releasing the place and a late payment then restoring it. Each provider's driver only says
how its payer pays and how it tells us; the fakes sign as the providers do (tests/fakes.py, tests/fakes_china.py)."""
from __future__ import annotations

import pytest

from chalicelib import bootstrap
from tests.api.test_registration import make_event, pair, register, webhook
from tests.factories import tournament_body
from tests.fakes_china import FakeAlipay, FakeWeChatPay

DUE = 4000   # a pair at 20 CNY a person


class Stripe:
    providers = ["stripe", "offline"]
    online = True
    choice, answer_key = {"provider": "stripe"}, "checkout_url"

    def __init__(self, api, clock):
        from chalicelib.payments.stripe_gateway import StripeGateway
        from tests.api.conftest import WEBHOOK_SECRET
        from tests.fakes import FakeStripe
        self.api, self.fake = api, FakeStripe()
        bootstrap.deps().providers["stripe"] = StripeGateway("sk_test_123", WEBHOOK_SECRET, http_client=self.fake, max_retries=0)

    def start(self, entry_id, manage):
        r = self.api.post(f"/entries/{entry_id}/checkout", token=None, headers=manage)
        assert r.status_code == 200 and r.data["checkout_url"], r.data

    def _sid(self, payment):
        return payment.session_id

    def pay(self, payment, n=1):
        obj = self.fake.pay(self._sid(payment), f"pi_{payment.id}")
        return webhook(self.api, f"evt_{payment.id}_{n}", "checkout.session.completed", obj)

    def lose_session(self, payment):
        self.fake.sessions[self._sid(payment)]["status"] = "expired"

    def late_payment(self, payment):
        obj = dict(self.fake.sessions[self._sid(payment)], status="complete", payment_status="paid",
                   payment_intent=f"pi_late_{payment.id}")
        return webhook(self.api, f"evt_late_{payment.id}", "checkout.session.completed", obj)

    def refunded(self):
        return [r["amount"] for r in self.fake.refunds]

    def opened(self, answer):
        assert answer["checkout_url"].startswith("https://checkout.stripe.com/"), answer

    def refund_notice(self, payment, total, this):
        obj = {"id": f"ch_{payment.id}", "object": "charge", "metadata": {"payment_id": payment.id},
               "amount": payment.amount, "amount_refunded": total, "refunded": total >= payment.amount}
        return webhook(self.api, f"evt_refund_{payment.id}_{total}", "charge.refunded", obj)


class WeChatPay:
    providers = ["wechat_pay", "offline"]
    online = True
    choice, answer_key = {"provider": "wechat_pay", "channel": "native"}, "code_url"

    def __init__(self, api, clock):
        self.api, self.clock, self.fake = api, clock, FakeWeChatPay()
        bootstrap.deps().providers["wechat_pay"] = self.fake.gateway()
        self._mock = self.fake.mock()
        self._mock.__enter__()

    def close(self):
        self._mock.__exit__(None, None, None)

    def start(self, entry_id, manage):
        r = self.api.post(f"/entries/{entry_id}/checkout", {"provider": "wechat_pay", "channel": "native"}, token=None,
                          headers=manage)
        assert r.status_code == 200 and r.data["code_url"], r.data

    def _notify(self, payment, n=1):
        headers, body = self.fake.notification(payment.id, self.clock(), event_id=f"EV-{payment.id}-{n}")
        return self.api.post("/webhooks/wechat-pay", raw=body, token=None, headers=headers)

    def pay(self, payment, n=1):
        if n == 1:
            self.fake.pay(payment.id)
        return self._notify(payment, n)

    def lose_session(self, payment):
        pass   # WeChat closes the order when the sweeper asks

    def late_payment(self, payment):
        self.fake.orders[payment.id].update(trade_state="SUCCESS", transaction_id=f"4200{payment.id[-6:]}")
        return self._notify(payment, 9)

    def refunded(self):
        return [r["amount"]["refund"] for r in self.fake.refunds]

    def opened(self, answer):
        assert answer["code_url"].startswith("weixin://wxpay/"), answer

    def refund_notice(self, payment, total, this):   # WeChat tells each refund's own amount
        headers, body = self.fake.refund_notification(payment.id, self.clock(), this)
        return self.api.post("/webhooks/wechat-pay", raw=body, token=None, headers=headers)


class Alipay:
    providers = ["alipay", "offline"]
    online = True
    choice, answer_key = {"provider": "alipay", "channel": "wap"}, "pay_url"

    def __init__(self, api, clock):
        self.api, self.clock, self.fake = api, clock, FakeAlipay()
        bootstrap.deps().providers["alipay"] = self.fake.gateway()

    def start(self, entry_id, manage):
        r = self.api.post(f"/entries/{entry_id}/checkout", {"provider": "alipay", "channel": "wap"}, token=None,
                          headers=manage)
        assert r.status_code == 200 and r.data["pay_url"], r.data
        self.fake.open_trade(r.data["pay_url"])

    def _notify(self, payment):
        return self.api.post("/webhooks/alipay", raw=self.fake.notification(payment.id, self.clock()), token=None,
                             headers={"Content-Type": "application/x-www-form-urlencoded"})

    def pay(self, payment, n=1):
        if n == 1:
            self.fake.pay(payment.id)
        return self._notify(payment)

    def lose_session(self, payment):
        pass

    def late_payment(self, payment):
        self.fake.pay(payment.id)
        return self._notify(payment)

    def refunded(self):
        return [round(float(r["refund_amount"]) * 100) for r in self.fake.refunds]

    def opened(self, answer):
        self.fake.open_trade(answer["pay_url"])   # the payer's browser takes the signed URL to Alipay

    def refund_notice(self, payment, total, this):   # Alipay tells the running total (refund_fee)
        body = self.fake.notification(payment.id, self.clock(), refund_fee=f"{total / 100:.2f}",
                                      gmt_refund=self.clock().strftime("%Y-%m-%d %H:%M:%S"))
        return self.api.post("/webhooks/alipay", raw=body, token=None,
                             headers={"Content-Type": "application/x-www-form-urlencoded"})


class Demo:
    """The local stage's demo cashier (演示支付): the payer presses 确认支付 on its page (the demo provider records
    the order paid) and the provider's signed notification comes to /webhooks/demo (HMAC with the installation's
    key). Its own page is walked in test_the_demo_cashier_pays_and_cancels_through_the_notification_path."""
    providers = ["demo", "offline"]
    online = True
    choice, answer_key = {"provider": "demo"}, "checkout_url"

    def __init__(self, api, clock):
        from chalicelib.payments.demo import DemoGateway
        self.api, self.gw = api, DemoGateway(secret=b"contract-demo-key", api_url="http://api.test")
        bootstrap.deps().providers["demo"] = self.gw

    def start(self, entry_id, manage):
        r = self.api.post(f"/entries/{entry_id}/checkout", {"provider": "demo"}, token=None, headers=manage)
        assert r.status_code == 200 and "/demo-pay/" in r.data["checkout_url"], r.data

    def _notify(self, payment, kind, **fields):
        import json

        from chalicelib.payments.demo import sign
        headers, body = self.gw.notification(payment.id, kind)
        if fields:   # what the provider says differs from its own record (a refund made at its side)
            body = json.dumps({**json.loads(body), **fields}).encode()
            headers = sign(self.gw.key(), body)
        return self.api.post("/webhooks/demo", raw=body, token=None, headers=headers)

    def pay(self, payment, n=1):
        if n == 1:
            self.gw.pay(payment.id)   # the payer's 确认支付 at the cashier
        return self._notify(payment, "paid")

    def lose_session(self, payment):
        pass   # the sweeper closes the order

    def late_payment(self, payment):
        self.gw.orders[payment.id].update(status="complete", transaction_id=f"demo-late-{payment.id}")
        return self._notify(payment, "paid")

    def refunded(self):
        return [amount for order in self.gw.orders.values() for amount in order["refunds"].values()]

    def opened(self, answer):
        assert answer["checkout_url"].startswith("http://api.test/demo-pay/") and answer["demo"] is True, answer

    def refund_notice(self, payment, total, this):   # the demo tells the running total, as Alipay
        return self._notify(payment, "refund", refunded=total)


class Offline:
    """Cash at the desk: no checkout, no hold, no notification — the desk's record is the payment."""
    providers = ["offline"]
    online = False

    def __init__(self, api, clock):
        self.api = api
        self.handed_back: list[int] = []

    def start(self, entry_id, manage):
        pass

    def refunded(self):
        return self.handed_back

    def hand_back(self, eid, entry_id):
        """The desk pays back in cash what the entry is owed (应退)."""
        owed = desk_entry(self.api, eid, entry_id)["refund_owed"]
        r = self.api.post(f"/events/{eid}/entries/{entry_id}/refund", {"method": "cash", "amount": owed})
        assert r.status_code == 200 and r.data["payment_state"] == "refunded", r.data
        self.handed_back.append(owed)


DRIVERS = {"stripe": Stripe, "wechat_pay": WeChatPay, "alipay": Alipay, "offline": Offline, "demo": Demo}


@pytest.fixture(params=list(DRIVERS))
def provider(request, api, clock, moto_repos):
    driver = DRIVERS[request.param](api, clock)
    yield driver
    if hasattr(driver, "close"):
        driver.close()


def event(api, driver, **kw):
    tid = api.post("/tournaments", tournament_body(payments={"providers": driver.providers})).data["id"]
    return make_event(api, tid, **kw)


def desk_entry(api, eid, entry_id):
    """The entry as the desk sees it (what is owed back, 应退, included)."""
    return next(e for e in api.get(f"/events/{eid}/entries").data["entries"] if e["id"] == entry_id)


def entry(api, entry_id, manage):
    return api.get(f"/entries/{entry_id}", token=None, headers=manage).data


def payment(eid, entry_id):
    d = bootstrap.deps()
    return d.repos.payments.get(d.repos.entries.get(eid, entry_id).payment_id)


def registered(api, eid, name):
    r = register(api, eid, pair(name))
    assert r.status_code == 201, r.data
    return r.data["entry"]["id"], {"X-Manage-Token": r.data["manage_token"]}


def pay(api, driver, eid, entry_id, n=1):
    """The payer pays (online: at the provider, which tells us; offline: cash recorded at the desk)."""
    if not driver.online:
        r = api.post(f"/events/{eid}/entries/{entry_id}/payments", {"method": "cash", "amount": DUE})
        assert r.status_code == 201, r.data
        return r
    r = driver.pay(payment(eid, entry_id), n)
    assert r.status_code == 200, r.body
    return r


def test_paid_once_and_a_repeated_notification_counts_once(api, provider):
    eid = event(api, provider)
    entry_id, manage = registered(api, eid, "一队")
    provider.start(entry_id, manage)
    pay(api, provider, eid, entry_id)
    e = entry(api, entry_id, manage)
    assert (e["status"], e["payment_state"], e["amount_paid"]) == ("confirmed", "paid", DUE)
    if provider.online:
        pay(api, provider, eid, entry_id, n=2)       # the provider tells us again (a resend, or another id)
        assert payment(eid, entry_id).state == "confirmed"
    e = entry(api, entry_id, manage)
    assert (e["status"], e["amount_paid"]) == ("confirmed", DUE)
    c = api.get(f"/events/{eid}").data["counters"]
    assert (c["confirmed"], c["held"], c["taken"]) == (1, 0, 1)


def test_a_cancellation_is_refunded_by_whoever_took_the_money(api, provider):
    eid = event(api, provider)
    entry_id, manage = registered(api, eid, "一队")
    provider.start(entry_id, manage)
    pay(api, provider, eid, entry_id)
    r = api.delete(f"/entries/{entry_id}", token=None, headers=manage)
    assert r.status_code == 200 and r.data["status"] == "cancelled", r.data
    if provider.online:   # back through the provider, whole, once
        assert r.data["payment_state"] == "refunded" and provider.refunded() == [DUE]
    else:                 # cash: owed back at the desk
        assert r.data["payment_state"] == "refund_due" and provider.refunded() == []
    assert api.get(f"/events/{eid}").data["counters"]["taken"] == 0


def test_a_hold_that_runs_out_frees_the_place_and_a_late_payment_restores_it(api, provider, clock):
    from chalicelib.services.payments import sweep_expired_holds
    if not provider.online:
        pytest.skip("offline: no hold and no notification — the place is kept until the desk withdraws the entry")
    eid = event(api, provider, capacity=1, waitlist=True)
    entry_id, manage = registered(api, eid, "一队")
    provider.start(entry_id, manage)
    first = payment(eid, entry_id)
    provider.lose_session(first)
    clock.advance(minutes=40)
    assert sweep_expired_holds(bootstrap.deps())["released"] == 1
    assert entry(api, entry_id, manage)["status"] == "cancelled"
    assert api.get(f"/events/{eid}").data["counters"]["taken"] == 0
    r = provider.late_payment(first)     # out of order: paid just before the close; the place is still free
    assert r.status_code == 200, r.body
    e = entry(api, entry_id, manage)
    assert (e["status"], e["amount_paid"]) == ("confirmed", DUE) and provider.refunded() == []
    assert api.get(f"/events/{eid}").data["counters"]["confirmed"] == 1


def test_a_waitlisted_entry_pays_only_once_a_place_is_its(api, provider):
    eid = event(api, provider, capacity=1, waitlist=True)
    first_id, first_manage = registered(api, eid, "一队")
    second_id, second_manage = registered(api, eid, "二队")
    assert entry(api, second_id, second_manage)["status"] == "waitlisted"
    if provider.online:   # no checkout for a waiting entry
        r = api.post(f"/entries/{second_id}/checkout", {} if isinstance(provider, Stripe) else
                     {"provider": provider.providers[0], "channel": "native" if isinstance(provider, WeChatPay) else "wap"},
                     token=None, headers=second_manage)
        assert (r.status_code, r.data["code"]) == (409, "not_holding_place"), r.data
    assert api.delete(f"/entries/{first_id}", token=None, headers=first_manage).status_code == 200
    assert entry(api, second_id, second_manage)["status"] == "pending_payment"   # promoted
    provider.start(second_id, second_manage)
    pay(api, provider, eid, second_id)
    e = entry(api, second_id, second_manage)
    assert (e["status"], e["amount_paid"]) == ("confirmed", DUE)


# --------------------------------------------------------------------------- a day's registration (one checkout)

def day_event(api, tid, name, **kw):
    return make_event(api, tid, name=name, **kw)


def day(api, driver, tid, items, key, phone="13800000001"):
    """A day's registration; online, paid with the driver's provider chosen in the same request."""
    body = {"contact": {"name": "张三", "phone": phone}, "items": items}
    if driver.online:
        body["checkout"] = driver.choice
    r = api.post(f"/tournaments/{tid}/registrations", body, token=None, headers={"Idempotency-Key": key})
    assert r.status_code == 201, r.data
    return r.data


def item(eid, name, phone="13800000001"):
    return {"event_id": eid, "name": name, "members": [{"name": "张三", "phone": phone}, {"name": "李四"}]}


def seen(api, reg_id, manage):
    r = api.get(f"/registrations/{reg_id}", token=None, headers=manage)
    assert r.status_code == 200, r.data
    return r.data, {i["event_id"]: i["entry"] for i in r.data["items"]}


def day_payment(reg_id):
    d = bootstrap.deps()
    return d.repos.payments.get(d.repos.entries.registration(reg_id)["payment_id"])


def pay_day(api, driver, reg_id, held, n=1):
    """Online: the payer pays the registration's one order and the provider tells us. Offline: cash at the desk
    for each item holding a place."""
    if not driver.online:
        for eid, entry_id in held:
            r = api.post(f"/events/{eid}/entries/{entry_id}/payments", {"method": "cash", "amount": DUE})
            assert r.status_code == 201, r.data
        return
    r = driver.pay(day_payment(reg_id), n)
    assert r.status_code == 200, r.body


def refund_settled(api, driver, eid, entry_id):
    """Offline refunds are owed until the desk hands them back; online ones went back through the provider."""
    if not driver.online:
        assert desk_entry(api, eid, entry_id)["payment_state"] == "refund_due"
        driver.hand_back(eid, entry_id)


def test_a_day_with_a_waitlisted_item_pays_once_for_the_places_it_holds(api, provider):
    tid = api.post("/tournaments", tournament_body(payments={"providers": provider.providers})).data["id"]
    open_eid = day_event(api, tid, "掼蛋积分赛")
    full_eid = day_event(api, tid, "掼蛋团体赛", capacity=1, waitlist=True)
    first = day(api, provider, tid, [item(full_eid, "先到", "13900000001")], "day-contract-first", "13900000001")
    if provider.online:
        provider.opened(first["checkout"])
    r = day(api, provider, tid, [item(open_eid, "河池一队"), item(full_eid, "河池一队")], "day-contract-0001")
    manage = {"X-Manage-Token": r["manage_token"]}
    reg_id = r["registration"]["id"]
    items = {i["event_id"]: i["entry"] for i in r["registration"]["items"]}
    assert (items[open_eid]["status"], items[full_eid]["status"]) == ("pending_payment", "waitlisted")
    assert r["registration"]["amount_due"] == DUE           # the waiting item is not charged
    if provider.online:                                      # one order, for the held item only
        checkout = r["checkout"]
        assert (checkout["provider"], checkout["amount"], checkout["entry_ids"]) == \
            (provider.choice["provider"], DUE, [items[open_eid]["id"]])
        provider.opened(checkout)
        assert day_payment(reg_id).items == [{"event_id": open_eid, "entry_id": items[open_eid]["id"], "amount": DUE}]
    else:
        assert r["checkout"] is None and r["checkout_url"] is None
    pay_day(api, provider, reg_id, [(open_eid, items[open_eid]["id"])])
    if provider.online:
        pay_day(api, provider, reg_id, [], n=2)             # told again: counted once
    view, items = seen(api, reg_id, manage)
    assert (items[open_eid]["status"], items[open_eid]["amount_paid"]) == ("confirmed", DUE)
    assert (items[full_eid]["status"], items[full_eid]["amount_paid"]) == ("waitlisted", 0)
    assert (view["amount_paid"], view["payment_state"]) == (DUE, "paid")
    # the place comes free: the waiting item is promoted and pays through the registration's own checkout
    holder = first["registration"]["items"][0]["entry"]["id"]
    assert api.delete(f"/registrations/{first['registration']['id']}/items/{holder}", token=None,
                      headers={"X-Manage-Token": first["manage_token"]}).status_code == 200
    _, items = seen(api, reg_id, manage)
    assert items[full_eid]["status"] == "pending_payment"
    c = api.post(f"/registrations/{reg_id}/checkout", provider.choice if provider.online else {"provider": "stripe"},
                 token=None, headers=manage)
    if provider.online:
        assert c.status_code == 200 and c.data[provider.answer_key], c.data
        assert (c.data["amount"], c.data["entry_ids"]) == (DUE, [items[full_eid]["id"]])
        provider.opened(c.data)
        again = api.post(f"/registrations/{reg_id}/checkout", provider.choice, token=None, headers=manage)
        assert again.data == c.data                          # asked again: the same order
    else:                                                    # nothing online here: pay at the desk
        assert (c.status_code, c.data["code"]) == (409, "online_payment_off"), c.data
    pay_day(api, provider, reg_id, [(full_eid, items[full_eid]["id"])])
    view, items = seen(api, reg_id, manage)
    assert [items[e]["status"] for e in (open_eid, full_eid)] == ["confirmed", "confirmed"]
    assert (view["amount_paid"], view["payment_state"]) == (2 * DUE, "paid") and provider.refunded() == []
    counters = api.get(f"/events/{full_eid}").data["counters"]
    assert (counters["confirmed"], counters["waitlisted"], counters["taken"]) == (1, 0, 1)


def test_a_day_refunded_item_by_item_partly_then_wholly(api, provider):
    tid = api.post("/tournaments", tournament_body(payments={"providers": provider.providers})).data["id"]
    a, b = day_event(api, tid, "掼蛋积分赛"), day_event(api, tid, "掼蛋团体赛")
    r = day(api, provider, tid, [item(a, "河池一队"), item(b, "河池一队")], "day-contract-0002")
    manage, reg_id = {"X-Manage-Token": r["manage_token"]}, r["registration"]["id"]
    ids = {i["event_id"]: i["entry"]["id"] for i in r["registration"]["items"]}
    if provider.online:
        provider.opened(r["checkout"])
        assert r["checkout"]["amount"] == 2 * DUE
    pay_day(api, provider, reg_id, [(a, ids[a]), (b, ids[b])])
    # one item cancelled: its part only goes back, through whoever took the money; the other keeps its place
    c = api.delete(f"/registrations/{reg_id}/items/{ids[a]}", token=None, headers=manage)
    assert c.status_code == 200, c.data
    refund_settled(api, provider, a, ids[a])
    view, items = seen(api, reg_id, manage)
    assert (items[a]["status"], items[a]["payment_state"], items[a]["amount_refunded"]) == ("cancelled", "refunded", DUE)
    assert (items[b]["status"], items[b]["amount_paid"]) == ("confirmed", DUE)
    assert (view["amount_paid"], view["amount_refunded"]) == (DUE, DUE) and provider.refunded() == [DUE]
    if provider.online:
        assert (day_payment(reg_id).state, day_payment(reg_id).amount_refunded) == ("confirmed", DUE)
        note = provider.refund_notice(day_payment(reg_id), DUE, DUE)   # the provider reports it: nothing more
        assert note.status_code == 200, note.body
        assert seen(api, reg_id, manage)[1][b]["status"] == "confirmed" and provider.refunded() == [DUE]
    # the other one too: the whole payment is back, each part once
    c = api.delete(f"/registrations/{reg_id}/items/{ids[b]}", token=None, headers=manage)
    assert c.status_code == 200, c.data
    refund_settled(api, provider, b, ids[b])
    view, items = seen(api, reg_id, manage)
    assert [items[e]["payment_state"] for e in (a, b)] == ["refunded", "refunded"]
    assert (view["amount_paid"], view["amount_refunded"]) == (0, 2 * DUE) and provider.refunded() == [DUE, DUE]
    if provider.online:
        assert (day_payment(reg_id).state, day_payment(reg_id).amount_refunded) == ("refunded", 2 * DUE)
        note = provider.refund_notice(day_payment(reg_id), 2 * DUE, DUE)
        assert note.status_code == 200, note.body
        assert provider.refunded() == [DUE, DUE] and seen(api, reg_id, manage)[0]["amount_refunded"] == 2 * DUE
    assert [api.get(f"/events/{e}").data["counters"]["taken"] for e in (a, b)] == [0, 0]


def test_a_days_payment_partly_refunded_at_the_provider_is_shared_by_its_items_in_order(api, provider):
    """A part of a day's one payment sent back from the provider's own dashboard (no one asked here): the first
    item takes what it paid, the next the rest — none of it lost by capping all of it on the first item. WeChat
    Pay reports each refund's own amount (not a running total): such a refund is only logged (docs/payments.md)."""
    if provider.providers[0] not in ("stripe", "alipay", "demo"):
        pytest.skip("a dashboard part refund is recorded from Stripe's, Alipay's and the demo's running totals")
    tid = api.post("/tournaments", tournament_body(payments={"providers": provider.providers})).data["id"]
    a, b = day_event(api, tid, "掼蛋积分赛"), day_event(api, tid, "掼蛋团体赛")
    r = day(api, provider, tid, [item(a, "河池一队"), item(b, "河池一队")], "day-contract-0003")
    manage, reg_id = {"X-Manage-Token": r["manage_token"]}, r["registration"]["id"]
    ids = {i["event_id"]: i["entry"]["id"] for i in r["registration"]["items"]}
    provider.opened(r["checkout"])
    pay_day(api, provider, reg_id, [(a, ids[a]), (b, ids[b])])
    back = DUE + DUE // 2
    note = provider.refund_notice(day_payment(reg_id), back, back)
    assert note.status_code == 200, note.body
    assert provider.refund_notice(day_payment(reg_id), back, back).status_code == 200   # told again: once
    view, items = seen(api, reg_id, manage)
    assert [(items[e]["amount_paid"], items[e]["amount_refunded"]) for e in (a, b)] == [(0, DUE), (DUE // 2, DUE // 2)]
    assert (view["amount_paid"], view["amount_refunded"]) == (DUE // 2, back)
    assert [items[e]["status"] for e in (a, b)] == ["confirmed", "confirmed"]   # a part refund keeps the places
    assert day_payment(reg_id).amount_refunded == back


def test_a_partial_refund_by_the_director_keeps_the_rest(api, provider):
    eid = event(api, provider)
    entry_id, manage = registered(api, eid, "一队")
    provider.start(entry_id, manage)
    pay(api, provider, eid, entry_id)
    r = api.post(f"/events/{eid}/entries/{entry_id}/withdraw",
                 {"reason": "家中有事", "refund_amount": 1000, "refund_reason": "已开赛，退一半报名费"})
    assert r.status_code == 200, r.data
    refund_settled(api, provider, eid, entry_id)
    e = desk_entry(api, eid, entry_id)
    assert (e["status"], e["payment_state"], e["amount_refunded"], e["refund_owed"]) == ("withdrawn", "refunded", 1000, 0)
    assert provider.refunded() == [1000]
    if provider.online:
        assert (payment(eid, entry_id).state, payment(eid, entry_id).amount_refunded) == ("confirmed", 1000)


def test_a_days_hold_that_runs_out_frees_every_place_and_a_late_payment_restores_them(api, provider, clock):
    from chalicelib.services.payments import sweep_expired_holds
    if not provider.online:
        pytest.skip("offline: no hold and no notification — the places are kept until the desk withdraws them")
    tid = api.post("/tournaments", tournament_body(payments={"providers": provider.providers})).data["id"]
    a, b = day_event(api, tid, "掼蛋积分赛"), day_event(api, tid, "掼蛋团体赛", capacity=1, waitlist=True)
    r = day(api, provider, tid, [item(a, "河池一队"), item(b, "河池一队")], "day-contract-0003")
    provider.opened(r["checkout"])
    manage, reg_id = {"X-Manage-Token": r["manage_token"]}, r["registration"]["id"]
    first = day_payment(reg_id)
    provider.lose_session(first)
    clock.advance(minutes=40)
    assert sweep_expired_holds(bootstrap.deps())["released"] >= 1
    _, items = seen(api, reg_id, manage)
    assert [items[e]["status"] for e in (a, b)] == ["cancelled", "cancelled"]
    assert [api.get(f"/events/{e}").data["counters"]["taken"] for e in (a, b)] == [0, 0]
    late = provider.late_payment(first)     # paid just before the order closed: both places are still free
    assert late.status_code == 200, late.body
    view, items = seen(api, reg_id, manage)
    assert [items[e]["status"] for e in (a, b)] == ["confirmed", "confirmed"]
    assert view["amount_paid"] == 2 * DUE and provider.refunded() == []
