"""A checkout that cannot start never strands anyone (issue 40): the provider unreachable, the registration is
answered with its manage link and the reason; the place is held for the normal hold, then released; registering
again with the same people resumes the pending entry; and no provider call may keep a request past 10 s."""
from __future__ import annotations

from chalicelib import bootstrap
from tests.api.test_registration import counters, make_event, pair, register
from tests.factories import tournament_body


def _entry(api, r):
    return api.get(f"/entries/{r['entry']['id']}", token=None, headers={"X-Manage-Token": r["manage_token"]})


def test_an_unreachable_provider_answers_the_manage_link_and_the_same_people_resume(api, fake_stripe, clock):
    tid = api.post("/tournaments", tournament_body()).data["id"]   # Stripe and the desk
    eid = make_event(api, tid, capacity=2)
    fake_stripe.fail_next = 1                       # Stripe does not answer this once
    first = register(api, eid, pair(), key="k-unreachable-000001")
    assert first.status_code == 201, first.data     # not a 502 that loses the manage link
    assert first.data["checkout"] == {"error": "payment_unavailable", "provider": "stripe"}
    assert first.data["checkout_url"] is None
    seen = _entry(api, first.data)
    assert seen.status_code == 200 and seen.data["status"] == "pending_payment" and seen.data["online_payment"]
    assert counters(api, eid)["held"] == 1          # the place is held for the normal hold
    d = bootstrap.deps()
    payment = d.repos.payments.get(d.repos.entries.get(eid, seen.data["id"]).payment_id)
    assert (payment.state, payment.failure) == ("failed", "payment_unavailable")
    # The player never got the link: registering again with the same people finds that entry (not 已在本项目报名)
    again = register(api, eid, pair(), key="k-unreachable-000002")
    assert again.status_code == 201 and again.data["resumed"] is True, again.data
    assert again.data["entry"]["id"] == first.data["entry"]["id"]
    assert again.data["checkout_url"].startswith("https://checkout.stripe.com/")   # Stripe is back: the same order
    assert _entry(api, again.data).status_code == 200
    assert counters(api, eid)["taken"] == 1
    # Another roster with one of those phones is still refused: a phone alone hands no entry over
    other = pair(name="冒名队", phone="13800000000")
    other["members"][1]["name"] = "别人"
    refused = register(api, eid, other)
    assert (refused.status_code, refused.data["code"]) == (409, "duplicate_entry")


def test_a_failed_checkout_is_released_after_the_hold(api, fake_stripe, clock):
    from chalicelib.services.payments import sweep_expired_holds
    tid = api.post("/tournaments", tournament_body()).data["id"]
    eid = make_event(api, tid, capacity=1)
    fake_stripe.fail_next = 1
    r = register(api, eid, pair()).data
    assert r["checkout"]["error"] == "payment_unavailable"
    clock.advance(minutes=20)
    assert sweep_expired_holds(bootstrap.deps())["released"] == 0    # within the hold: kept
    clock.advance(minutes=20)
    assert sweep_expired_holds(bootstrap.deps())["released"] == 1
    assert _entry(api, r).data["status"] == "cancelled" and counters(api, eid)["taken"] == 0


def test_a_day_registration_is_answered_when_its_checkout_cannot_start(api, fake_stripe):
    tid = api.post("/tournaments", tournament_body()).data["id"]
    eid = make_event(api, tid)
    fake_stripe.fail_next = 1
    body = {"contact": {"name": "张三", "phone": "13800000001"},
            "items": [{"event_id": eid, "name": "河池一队", "members": [{"name": "张三", "phone": "13800000001"},
                                                                     {"name": "李四"}]}]}
    r = api.post(f"/tournaments/{tid}/registrations", body, token=None, headers={"Idempotency-Key": "day-unreachable-01"})
    assert r.status_code == 201 and r.data["manage_token"], r.data
    assert r.data["checkout"]["error"] == "payment_unavailable" and r.data["checkout_url"] is None
    fake_stripe.fail_next = 1
    again = api.post(f"/tournaments/{tid}/registrations", body, token=None,
                     headers={"Idempotency-Key": "day-unreachable-01"})   # 再试一次 (a retry): still down
    assert again.status_code == 201 and again.data["checkout"]["error"] == "payment_unavailable", again.data
    # the answer never reached them: the same people register again (a fresh form, a new key) and resume it
    resumed = api.post(f"/tournaments/{tid}/registrations", body, token=None,
                       headers={"Idempotency-Key": "day-unreachable-02"})
    assert resumed.status_code == 201 and resumed.data["resumed"] is True, resumed.data
    assert resumed.data["registration"]["id"] == r.data["registration"]["id"]
    assert resumed.data["checkout_url"].startswith("https://checkout.stripe.com/")   # the same order, opened now
    seen = api.get(f"/registrations/{r.data['registration']['id']}", token=None,
                   headers={"X-Manage-Token": resumed.data["manage_token"]})
    assert seen.status_code == 200 and seen.data["items"][0]["entry"]["status"] == "pending_payment"
    other = {**body, "contact": {"name": "王五", "phone": "13800000001"}}   # the same phone, someone else
    refused = api.post(f"/tournaments/{tid}/registrations", other, token=None,
                       headers={"Idempotency-Key": "day-unreachable-03"})
    assert (refused.status_code, refused.data["code"]) == (409, "duplicate_entry")


def test_no_provider_keeps_a_request_past_ten_seconds():
    """Each adapter's own bound: (connect + read) per try × tries (+ Stripe's back-off) stays under 10 s."""
    import stripe

    from chalicelib.payments import alipay, stripe_gateway, wechat_pay
    gw = stripe_gateway.StripeGateway("sk_test_bound", None)
    connect, read = gw.client()._requestor._client._timeout   # the library's own client, as built in production
    retries = gw._max_retries
    # stripe sleeps max(INITIAL_DELAY, jittered back-off) before a retry: 0.5 s before the first
    assert (retries + 1) * (connect + read) + retries * stripe.HTTPClient.INITIAL_DELAY <= 10
    wx = wechat_pay.WeChatPayGateway(mchid="1", appid="a", private_key="k", cert_serial_no="s", apiv3_key="v" * 32,
                                     notify_url="https://x")
    assert sum(wx._args["timeout"]) <= 10       # no retries in the SDK
    ali = alipay.AlipayGateway(appid="a", app_private_key="k", alipay_public_key="p", notify_url="https://x")
    assert ali._timeout <= 10


def test_the_payments_transitions_events_reach_their_one_dispatch(api, fake_stripe, monkeypatch):
    """What the transitions raise is dispatched once after each write (services/payment_events.py, the place the
    message bus takes over): a failed start, then the payment and the registration confirmed, then a refund."""
    from chalicelib import bootstrap
    from chalicelib.domain import events as ev
    from chalicelib.domain.bus import RecordingBus
    from tests.api.test_registration import webhook
    bus = RecordingBus()
    monkeypatch.setattr(bootstrap.deps(), "bus", bus)
    money = (ev.PaymentFailed, ev.PaymentConfirmed, ev.RegistrationConfirmed, ev.PaymentRefunded, ev.WaitlistPromoted)
    tid = api.post("/tournaments", tournament_body()).data["id"]
    eid = make_event(api, tid)
    fake_stripe.fail_next = 1
    r = register(api, eid, pair()).data
    entry_id, manage = r["entry"]["id"], {"X-Manage-Token": r["manage_token"]}
    url = api.post(f"/entries/{entry_id}/checkout", token=None, headers=manage).data["checkout_url"]   # 再试一次
    assert url.startswith("https://checkout.stripe.com/")
    sid = list(fake_stripe.sessions)[0]
    assert webhook(api, "evt_events_paid", "checkout.session.completed", fake_stripe.pay(sid)).status_code == 200
    assert api.delete(f"/entries/{entry_id}", token=None, headers=manage).status_code == 200
    seen = [e for e in bus.events if isinstance(e, money)]
    assert [type(e).__name__ for e in seen] == ["PaymentFailed", "PaymentConfirmed", "RegistrationConfirmed",
                                                "PaymentRefunded"]
    assert (seen[1].amount, seen[2].entry_ids, seen[3].amount, seen[3].full) == (4000, (entry_id,), 4000, True)
