"""One contract, every provider (Stripe, WeChat Pay, Alipay, offline at the desk): the same assertions on the same
steps — paid once, a repeated notification counted once, a cancellation refunded through whoever took the money,
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

    def __init__(self, api, clock):
        from chalicelib.payments.stripe_gateway import StripeGateway
        from tests.api.conftest import WEBHOOK_SECRET
        from tests.fakes import FakeStripe
        self.api, self.fake = api, FakeStripe()
        bootstrap.deps().payments = StripeGateway("sk_test_123", WEBHOOK_SECRET, http_client=self.fake, max_retries=0)

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


class WeChatPay:
    providers = ["wechat_pay", "offline"]
    online = True

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


class Alipay:
    providers = ["alipay", "offline"]
    online = True

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


class Offline:
    """Cash at the desk: no checkout, no hold, no notification — the desk's record is the payment."""
    providers = ["offline"]
    online = False

    def __init__(self, api, clock):
        self.api = api
        self.eid = None

    def start(self, entry_id, manage):
        pass

    def refunded(self):
        return []


DRIVERS = {"stripe": Stripe, "wechat_pay": WeChatPay, "alipay": Alipay, "offline": Offline}


@pytest.fixture(params=list(DRIVERS))
def provider(request, api, clock, moto_repos):
    driver = DRIVERS[request.param](api, clock)
    yield driver
    if hasattr(driver, "close"):
        driver.close()


def event(api, driver, **kw):
    tid = api.post("/tournaments", tournament_body(payments={"providers": driver.providers})).data["id"]
    return make_event(api, tid, **kw)


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
