"""A payment's whole life on the pure domain (chalicelib/domain/payment.py): no store, no provider, no clock."""
from __future__ import annotations

import json
from datetime import datetime, timedelta, UTC

import pytest
from pydantic import ValidationError

from chalicelib import errors
from chalicelib.domain.events import PaymentConfirmed, PaymentFailed, PaymentRefunded
from chalicelib.domain.payment import Payment, PaymentState

T0 = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)


def at(minutes: int) -> datetime:
    return T0 + timedelta(minutes=minutes)


def new(**kw) -> Payment:
    return Payment(**{"id": "p1", "entry_id": "e1", "event_id": "ev1", "provider": "wechat_pay", "channel": "native",
                      "state": "created", "amount": 4000, "currency": "CNY", "created_at": T0, "updated_at": T0, **kw})


def test_start_fail_start_again_confirm_part_refund_then_the_rest():
    p = new()
    p, ev = p.start(reference="wx-1", answer={"code_url": "weixin://x"}, now=at(1))
    assert (p.state, p.session_id, p.version, p.updated_at, ev) == ("pending", "wx-1", 2, at(1), [])
    p, ev = p.fail("payment_unavailable", now=at(2))
    assert (p.state, p.failure, p.version) == ("failed", "payment_unavailable", 3)
    assert ev == [PaymentFailed("p1", "wechat_pay", "payment_unavailable", ("e1",), None)]
    p, ev = p.start(reference="wx-1", answer={"code_url": "weixin://y"}, now=at(3))   # the same order again
    assert (p.state, p.failure, p.checkout_answer, p.version, ev) == ("pending", None, {"code_url": "weixin://y"}, 4, [])
    p, ev = p.confirm("4200001", now=at(4))
    assert (p.state, p.payment_intent, p.version) == ("confirmed", "4200001", 5)
    assert ev == [PaymentConfirmed("p1", "wechat_pay", 4000, "CNY", ("e1",), None)]
    same, ev = p.confirm("4200001", now=at(5))   # told again: nothing changes (pretix's idempotent confirm)
    assert same is p and ev == []
    p, ev = p.refund(1500, now=at(6))
    assert (p.state, p.amount_refunded, p.refundable, p.version) == ("confirmed", 1500, 2500, 6)
    assert ev == [PaymentRefunded("p1", "wechat_pay", 1500, 1500, False, "CNY", ("e1",))]
    p, ev = p.refund(2500, now=at(7))
    assert (p.state, p.amount_refunded, p.refundable, p.version) == ("refunded", 4000, 0, 7)
    assert ev == [PaymentRefunded("p1", "wechat_pay", 2500, 4000, True, "CNY", ("e1",))]
    same, ev = p.confirm("4200001", now=at(8))   # a late resend of the payment notification: still counted once
    assert same is p and ev == []


@pytest.mark.parametrize("state, transition", [
    ("created", lambda p: p.refund(100, at(1))),                 # nothing taken yet
    ("pending", lambda p: p.refund(100, at(1))),
    ("cancelled", lambda p: p.refund(100, at(1))),
    ("refunded", lambda p: p.refund(100, at(1))),                # all of it went back already
    ("confirmed", lambda p: p.cancel(at(1))),                    # money taken: refunded, never cancelled
    ("refunded", lambda p: p.cancel(at(1))),
    ("confirmed", lambda p: p.fail("x", at(1))),
    ("cancelled", lambda p: p.fail("x", at(1))),
    ("confirmed", lambda p: p.start(reference="r2", answer={}, now=at(1))),
    ("cancelled", lambda p: p.start(reference="r2", answer={}, now=at(1))),
    ("pending", lambda p: p.start(reference="another", answer={}, now=at(1))),   # one open order per payment
    ("pending", lambda p: p.void("mistake", at(1))),              # only money the desk recorded
])
def test_refused_transitions_change_nothing(state, transition):
    p = new(session_id="r1", state=state)
    with pytest.raises(errors.PaymentStateRefused) as refused:
        transition(p)
    assert refused.value.details["state"] == state and refused.value.status == 409
    assert p.state == state and p.version == 1


def test_a_refund_never_exceeds_what_is_left():
    p, _ = new().confirm("t", at(1))
    p, _ = p.refund(3000, at(2))
    for amount in (1001, 0, -5):
        with pytest.raises(errors.InvalidRequest):
            p.refund(amount, at(3))
    assert (p.amount_refunded, p.state) == (3000, "confirmed")


def test_a_late_payment_confirms_a_cancelled_order_and_a_desk_mistake_is_voided():
    p, _ = new().cancel(at(1), "hold expired")
    assert (p.state, p.failure) == ("cancelled", "hold expired")
    assert p.cancel(at(2)) == (p, [])                          # a retried cancel changes nothing
    p, ev = p.confirm("late", at(3))                           # the money arrived anyway: the provider's word
    assert p.state == "confirmed" and len(ev) == 1
    cash = Payment(id="c1", entry_id="e1", event_id="ev1", provider="cash", state="confirmed", amount=4000,
                   currency="CNY", created_at=T0, updated_at=T0)
    voided, ev = cash.void("undone by 王", at(4))
    assert (voided.state, voided.failure, voided.version, ev) == ("cancelled", "undone by 王", 2, [])
    partly, _ = cash.refund(100, at(5))
    with pytest.raises(errors.PaymentStateRefused):
        partly.void("x", at(6))


def test_refunds_reported_by_the_provider_count_once():
    p, _ = new().confirm("t", at(1))
    p, ev = p.refund_reported(1000, False, at(2))
    assert (p.amount_refunded, p.state, ev[0].amount) == (1000, "confirmed", 1000)
    assert p.refund_reported(1000, False, at(3)) == (p, [])      # the same running total again
    p, ev = p.refund_reported(4000, True, at(4))
    assert (p.amount_refunded, p.state, ev[0].amount, ev[0].full) == (4000, "refunded", 3000, True)
    assert p.refund_reported(4000, True, at(5)) == (p, [])


def test_the_record_is_frozen_and_stored_as_before():
    p = new()
    with pytest.raises(ValidationError):   # frozen: a record is changed only by its transitions
        p.state = "confirmed"
    stored = json.loads(p.model_dump_json())
    assert stored["state"] == "created" and isinstance(stored["state"], str)
    back = Payment.model_validate_json(p.model_dump_json())
    assert back == p and back.state is PaymentState.CREATED and back.state == "created"
    # JSON written before the Enum (a plain string, fields of later versions ignored) still reads
    old = {**stored, "state": "refunded", "some_later_field": 1}
    assert Payment.model_validate(old).state is PaymentState.REFUNDED
