"""The demo provider (演示支付) for the local stage: a cashier that moves no money, so a newcomer (or a chamber
rehearsing its day) can walk register → pay → withdraw → refund without a merchant account.

It speaks the payments port like the real providers and is told apart by nothing in the services. Its cashier
page (api/demo_pay.py) plays the provider: 确认支付 / 取消 sign a notification with the installation's secret
(HMAC-SHA256, a key of its own derived from the table-code secret) and hand it to the same notification path as
WeChat Pay's or Alipay's (services.payments.handle_provider_notification), which verifies it here. Orders live in
this process's memory: after a restart an order is unknown, reads as expired, and its hold runs out as usual.
Never built outside the local stage (payments/setup.demo_provider; tests/infra asserts the AWS stages' settings).
"""
from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import threading
import time
from datetime import datetime

from .. import errors
from .port import Checkout, Notification

TOLERANCE_SECONDS = 300
LABEL = "演示支付 · Demo payment — no money moves"


class DemoGateway:
    name = "demo"
    channels: tuple[str, ...] = ()   # one hosted page: the cashier
    online = True

    def __init__(self, *, secret, api_url: str):
        self._secret = secret            # bytes, or a callable answering them (read when first needed)
        self.api_url = api_url.rstrip("/")
        self.orders: dict[str, dict] = {}
        self._lock = threading.Lock()

    @classmethod
    def for_installation(cls, settings) -> DemoGateway:
        if settings.stage != "local":
            raise errors.Misconfigured("The demo provider exists on the local stage only.")

        def secret() -> bytes:
            from ..installation import table_secret
            return hmac.new(table_secret(), b"cardgames demo payments v1", hashlib.sha256).digest()
        return cls(secret=secret, api_url=settings.api_url)

    def key(self) -> bytes:
        return self._secret() if callable(self._secret) else self._secret

    # ----------------------------------------------------------------- the order's token (its cashier link)
    def token(self, payment_id: str) -> str:
        mac = hmac.new(self.key(), f"demo-order:{payment_id}".encode(), hashlib.sha256).hexdigest()[:24]
        return f"{payment_id}.{mac}"

    def order_of(self, token: str) -> tuple[str, dict | None]:
        """(payment id, its order or None) for a cashier link; a forged link is refused."""
        payment_id, _, _ = (token or "").partition(".")
        if not payment_id or not hmac.compare_digest(self.token(payment_id), token):
            raise errors.NotFound("没有这笔演示订单 · No such demo order.")
        with self._lock:
            return payment_id, self.orders.get(payment_id)

    # ----------------------------------------------------------------- the port
    def start(self, *, payment_id: str, amount: int, currency: str, description: str, channel: str | None,
              expires_at: datetime, return_url: str, cancel_url: str = "", now: datetime | None = None,
              entry_id: str = "", event_id: str = "", lines: list[tuple[str, int]] | None = None,
              openid: str | None = None, client_ip: str | None = None) -> Checkout:
        with self._lock:
            order = self.orders.get(payment_id)
            if order is None or order["status"] == "expired":   # the same order again, as the real ones
                order = self.orders[payment_id] = {
                    "amount": amount, "currency": currency, "description": description, "status": "open",
                    "expires_at": expires_at, "return_url": return_url, "cancel_url": cancel_url or return_url,
                    "transaction_id": None, "refunds": {}, "lines": list(lines or [(description, amount)])}
        url = f"{self.api_url}/demo-pay/{self.token(payment_id)}"
        return Checkout(f"demo_{payment_id}", {"checkout_url": url, "demo": True})

    def session_status(self, reference: str) -> tuple[str, str | None, int | None, str | None]:
        with self._lock:
            order = self.orders.get(reference.removeprefix("demo_"))
        if order is None:
            return "expired", None, None, None
        return order["status"], order["transaction_id"], order["amount"], order["currency"]

    def expire(self, reference: str) -> None:
        with self._lock:
            order = self.orders.get(reference.removeprefix("demo_"))
            if order is None or order["status"] == "expired":
                return
            if order["status"] == "complete":
                raise errors.PaymentError("The demo order was paid: it cannot be closed.")
            order["status"] = "expired"

    def refund(self, transaction_id: str | None, amount: int, payment_id: str, part: str = "", *,
               total: int, currency: str) -> str:
        """Recorded under its number: a retry of the same refund is the same refund."""
        number = f"r{payment_id}" + (f"-{part}" if part else "")
        with self._lock:
            order = self.orders.setdefault(payment_id, {"amount": total, "currency": currency, "status": "complete",
                                                        "transaction_id": transaction_id, "refunds": {}})
            refunds = order["refunds"]
            if number not in refunds and sum(refunds.values()) + amount > total:
                raise errors.PaymentError("The demo refund is more than was paid.")
            refunds.setdefault(number, amount)
        return number

    # ----------------------------------------------------------------- the cashier's side (the "provider")
    def pay(self, payment_id: str) -> None:
        with self._lock:
            order = self.orders[payment_id]
            if order["status"] == "expired":
                raise errors.Conflict("演示订单已关闭 · The demo order is closed.")
            if order["status"] == "open":
                order.update(status="complete", transaction_id=f"demo-tx-{secrets.token_hex(6)}")

    def cancel(self, payment_id: str) -> None:
        with self._lock:
            order = self.orders[payment_id]
            if order["status"] == "complete":
                raise errors.Conflict("演示订单已付款 · The demo order is paid.")
            order["status"] = "expired"

    def notification(self, payment_id: str, kind: str, at: float | None = None) -> tuple[dict, bytes]:
        """The signed notification the demo provider sends (the cashier's buttons, and tests): headers, body."""
        with self._lock:
            order = dict(self.orders[payment_id])
        body = json.dumps({"id": f"{payment_id}:{kind}:{secrets.token_hex(4)}", "kind": kind,
                           "payment_id": payment_id, "transaction_id": order.get("transaction_id"),
                           "amount": order["amount"], "currency": order["currency"],
                           "refunded": sum(order.get("refunds", {}).values())}, separators=(",", ":")).encode()
        return sign(self.key(), body, at), body

    def verify_notification(self, headers: dict, body: bytes, now: datetime) -> Notification:
        signature = next((v for k, v in (headers or {}).items() if k.lower() == "demo-signature"), "")
        parts = dict(p.split("=", 1) for p in signature.split(",") if "=" in p)
        stamp, given = parts.get("t", ""), parts.get("v1", "")
        if not stamp.isdigit() or not given:
            raise errors.InvalidSignature("The Demo-Signature header is missing.")
        expected = _mac(self.key(), stamp, body)
        if not hmac.compare_digest(expected, given):
            raise errors.InvalidSignature()
        if abs(int(stamp) - time.time()) > TOLERANCE_SECONDS:   # the real clock, as the signer's
            raise errors.StaleSignature()
        try:
            data = json.loads(body)
        except ValueError:
            raise errors.InvalidSignature("The notification is not JSON.") from None
        kind = data.get("kind") if data.get("kind") in ("paid", "closed", "refund") else "other"
        return Notification(id=f"demo:{data.get('id')}", kind=kind, payment_id=data.get("payment_id"),
                            transaction_id=data.get("transaction_id"), amount=data.get("amount"),
                            currency=data.get("currency"), refunded=data.get("refunded"), raw_type=kind)


def _mac(key: bytes, stamp: str, body: bytes) -> str:
    return hmac.new(key, stamp.encode() + b"." + body, hashlib.sha256).hexdigest()


def sign(key: bytes, body: bytes, at: float | None = None) -> dict:
    stamp = str(int(at if at is not None else time.time()))
    return {"Demo-Signature": f"t={stamp},v1={_mac(key, stamp, body)}"}
