"""Every adapter the registry can hold is a payments port (payments/port.py) — Stripe, WeChat Pay, Alipay, the desk
and the demo — and refuses a notification that is not its provider's own before reading anything from it.
No store, no HTTP: the adapters as built, over the providers' signing fakes (tests/fakes*.py)."""
from __future__ import annotations

from datetime import datetime, UTC

import pytest

from chalicelib import errors
from chalicelib.payments.port import Provider

NOW = datetime.now(UTC)


def stripe():
    from chalicelib.payments.stripe_gateway import StripeGateway
    from tests.fakes import FakeStripe
    return StripeGateway("sk_test_port", "whsec_port", http_client=FakeStripe(), max_retries=0)


def wechat_pay():
    from tests.fakes_china import FakeWeChatPay
    fake = FakeWeChatPay()
    gw = fake.gateway()
    with fake.mock():   # its platform certificate, downloaded from the fake
        gw.client()
    return gw


def alipay():
    from tests.fakes_china import FakeAlipay
    return FakeAlipay().gateway()


def desk():
    from chalicelib.payments.offline import desk_gateways
    return desk_gateways()["offline"]


def demo():
    from chalicelib.payments.demo import DemoGateway
    return DemoGateway(secret=b"port-demo-key", api_url="http://api.test")


ADAPTERS = {"stripe": (stripe, True), "wechat_pay": (wechat_pay, True), "alipay": (alipay, True),
            "offline": (desk, False), "demo": (demo, True)}


@pytest.mark.parametrize("name", list(ADAPTERS))
def test_every_adapter_speaks_the_one_port(name):
    make, online = ADAPTERS[name]
    gw = make()
    assert isinstance(gw, Provider) and gw.name == name and gw.online is online
    assert isinstance(gw.channels, tuple)
    forged = b'{"id":"x","kind":"paid","payment_id":"p","amount":1,"currency":"CNY"}'
    headers = {"Stripe-Signature": f"t={int(NOW.timestamp())},v1=00", "Wechatpay-Signature": "AA==",
               "Wechatpay-Timestamp": str(int(NOW.timestamp())), "Wechatpay-Serial": "X", "Wechatpay-Nonce": "n",
               "Demo-Signature": f"t={int(NOW.timestamp())},v1=00"}
    with pytest.raises((errors.InvalidSignature, errors.InvalidRequest)):
        gw.verify_notification(headers, forged, NOW)


def test_the_desk_has_nothing_to_call():
    gw = desk()
    with pytest.raises(errors.PaymentsOff):
        gw.start(payment_id="p", amount=1, currency="CNY", description="", channel=None, expires_at=NOW, return_url="")
    with pytest.raises(errors.PaymentsOff):
        gw.refund(None, 1, "p", total=1, currency="CNY")
    assert gw.session_status("x")[0] == "open" and gw.expire("x") is None
