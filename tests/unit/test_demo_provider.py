"""The demo provider (payments/demo.py): only on the local stage, and its notifications are believed only when
signed with the installation's key — fresh, unaltered."""
from __future__ import annotations

import json
import time
from datetime import datetime, timedelta, UTC

import pytest

from chalicelib import errors
from chalicelib.config import Settings
from chalicelib.payments.demo import DemoGateway, sign
from chalicelib.payments.setup import demo_provider, payment_providers

NOW = datetime.now(UTC)


def gateway() -> DemoGateway:
    gw = DemoGateway(secret=b"k" * 32, api_url="http://127.0.0.1:8000/")
    gw.start(payment_id="P1", amount=4000, currency="CNY", description="恒全杯 · 一队", channel=None,
             expires_at=NOW + timedelta(minutes=30), return_url="http://site/entry.html?id=E1&paid=1")
    return gw


def test_only_the_local_stage_has_the_demo_provider(monkeypatch):
    monkeypatch.setenv("TABLE_CODE_SECRET", "s" * 32)
    assert isinstance(demo_provider(Settings(stage="local")), DemoGateway)
    for stage in ("dev", "prod", "staging"):
        assert demo_provider(Settings(stage=stage)) is None
        assert "demo" not in payment_providers(Settings(stage=stage))
        with pytest.raises(errors.Misconfigured):
            DemoGateway.for_installation(Settings(stage=stage))


def test_a_signed_notification_is_believed_and_a_forged_or_stale_one_is_not():
    gw = gateway()
    gw.pay("P1")
    headers, body = gw.notification("P1", "paid")
    note = gw.verify_notification(headers, body, NOW)
    assert (note.kind, note.payment_id, note.amount, note.currency) == ("paid", "P1", 4000, "CNY")
    assert note.transaction_id.startswith("demo-tx-")
    more = json.dumps({**json.loads(body), "amount": 1}).encode()          # altered after signing
    with pytest.raises(errors.InvalidSignature):
        gw.verify_notification(headers, more, NOW)
    with pytest.raises(errors.InvalidSignature):                            # signed with another key
        gw.verify_notification(sign(b"x" * 32, body), body, NOW)
    with pytest.raises(errors.StaleSignature):                              # replayed ten minutes on
        gw.verify_notification(sign(gw.key(), body, time.time() - 600), body, NOW)
    with pytest.raises(errors.InvalidSignature):
        gw.verify_notification({}, body, NOW)


def test_the_cashier_link_is_the_orders_own_and_refunds_never_exceed_the_payment():
    gw = gateway()
    token = gw.token("P1")
    assert gw.order_of(token)[0] == "P1"
    with pytest.raises(errors.NotFound):
        gw.order_of("P1." + "0" * 24)
    gw.pay("P1")
    assert gw.session_status("demo_P1")[0] == "complete"
    with pytest.raises(errors.PaymentError):
        gw.expire("demo_P1")                     # a paid order cannot be closed
    assert gw.refund("tx", 1000, "P1", total=4000, currency="CNY") == gw.refund("tx", 1000, "P1", total=4000,
                                                                                 currency="CNY")   # a retry: once
    with pytest.raises(errors.PaymentError):
        gw.refund("tx", 3001, "P1", "E2", total=4000, currency="CNY")
    assert gw.session_status("demo_unknown")[0] == "expired"
