"""Stripe adapter: Checkout Sessions, refunds and webhook verification.

Only this module imports stripe; no stripe exception leaves it. Tests plug a fake HTTP client into
the real library (`http_client=`), so requests are built and responses parsed by stripe itself.
"""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from datetime import datetime

from .. import errors

log = logging.getLogger("cardgames.payments")

# Currencies for which Stripe offers Alipay / WeChat Pay in Checkout.
ALIPAY = {"CNY", "HKD", "SGD", "MYR", "USD", "EUR", "GBP", "AUD", "CAD", "NZD", "JPY"}
WECHAT_PAY = {"CNY", "HKD", "SGD", "USD", "EUR", "GBP", "AUD", "CAD", "JPY"}
TOLERANCE_SECONDS = 300


@dataclass
class WebhookEvent:
    id: str
    type: str
    obj: dict


def payment_methods(currency: str) -> list[str]:
    methods = ["card"]
    if currency in ALIPAY:
        methods.append("alipay")
    if currency in WECHAT_PAY:
        methods.append("wechat_pay")
    return methods


class StripeGateway:
    def __init__(self, api_key: str, webhook_secret: str | None, http_client=None, max_retries: int = 2):
        self._max_retries = max_retries
        self._api_key = api_key
        self._webhook_secret = webhook_secret
        self._http_client = http_client
        self._client = None

    def client(self):
        if self._client is None:
            import stripe
            self._client = stripe.StripeClient(self._api_key, http_client=self._http_client,
                                               max_network_retries=self._max_retries)
        return self._client

    def _call(self, what: str, fn):
        import stripe
        try:
            return fn()
        except stripe.StripeError as exc:
            log.error("stripe %s failed: %s", what, type(exc).__name__)
            raise errors.PaymentError(f"The payment provider refused or failed ({what}).") from None

    def create_checkout(self, *, payment_id: str, entry_id: str, event_id: str, amount: int, currency: str,
                        description: str, success_url: str, cancel_url: str, expires_at: datetime,
                        lines: list[tuple[str, int]] | None = None) -> tuple[str, str]:
        """One Checkout Session; `lines` (description, amount) gives one line item per event of a day's
        registration, else one line of `amount`."""
        methods = payment_methods(currency)
        lines = lines or [(description, amount)]
        params = {
            "mode": "payment",
            "payment_method_types": methods,
            "line_items": [{"quantity": 1, "price_data": {"currency": currency.lower(), "unit_amount": unit,
                                                          "product_data": {"name": text[:200]}}}
                           for text, unit in lines],
            "metadata": {"payment_id": payment_id, "entry_id": entry_id, "event_id": event_id},
            "payment_intent_data": {"metadata": {"payment_id": payment_id, "entry_id": entry_id}},
            "client_reference_id": entry_id,
            "success_url": success_url,
            "cancel_url": cancel_url,
            "expires_at": int(expires_at.timestamp()),
        }
        if "wechat_pay" in methods:
            params["payment_method_options"] = {"wechat_pay": {"client": "web"}}
        session = self._call("checkout", lambda: self.client().v1.checkout.sessions.create(
            params=params, options={"idempotency_key": f"checkout-{payment_id}"}))
        return session.id, session.url

    def session_status(self, session_id: str) -> tuple[str, str | None, int | None, str | None]:
        """(status, payment_intent, amount_total, currency) of a session: 'open' | 'complete' | 'expired'."""
        s = self._call("retrieve", lambda: self.client().v1.checkout.sessions.retrieve(session_id)).to_dict()
        return s.get("status"), s.get("payment_intent"), s.get("amount_total"), (s.get("currency") or "").upper()

    def expire(self, session_id: str) -> None:
        self._call("expire", lambda: self.client().v1.checkout.sessions.expire(session_id))

    def refund(self, payment_intent: str, amount: int, payment_id: str, part: str = "") -> str:
        """`part` names what is refunded when a payment covered several entries (one refund each)."""
        refund = self._call("refund", lambda: self.client().v1.refunds.create(
            params={"payment_intent": payment_intent, "amount": amount, "metadata": {"payment_id": payment_id}},
            options={"idempotency_key": f"refund-{payment_id}" + (f"-{part}" if part else "")}))
        return refund.id

    def verify_webhook(self, payload: bytes, signature: str | None, now: float | None = None) -> WebhookEvent:
        import stripe
        if not self._webhook_secret:
            raise errors.InvalidSignature("Webhooks are not configured (no signing secret).")
        if not signature:
            raise errors.InvalidSignature("The Stripe-Signature header is missing.")
        stamp = dict(part.split("=", 1) for part in signature.split(",") if "=" in part).get("t", "")
        if stamp.isdigit() and int(stamp) > (now if now is not None else time.time()) + TOLERANCE_SECONDS:
            # stripe checks only for old signatures; one dated ahead of the clock is as suspect
            raise errors.StaleSignature("The webhook signature is dated in the future.")
        try:
            event = self.client().construct_event(payload, signature, self._webhook_secret, tolerance=TOLERANCE_SECONDS)
        except stripe.SignatureVerificationError as exc:
            if "outside the tolerance" in str(exc) or "Timestamp outside" in str(exc):
                raise errors.StaleSignature() from None
            raise errors.InvalidSignature() from None
        except ValueError:
            raise errors.InvalidRequest("The webhook body is not valid JSON.") from None
        data = event.to_dict() if hasattr(event, "to_dict") else dict(event)
        obj = (data.get("data") or {}).get("object")
        if not isinstance(data.get("id"), str) or not isinstance(data.get("type"), str) or not isinstance(obj, dict):
            raise errors.InvalidRequest("The webhook event has no id, type or object.")
        return WebhookEvent(id=data["id"], type=data["type"], obj=obj)


def sign_payload(payload: bytes, secret: str, timestamp: int | None = None) -> str:
    """Stripe's signature scheme (v1 = HMAC-SHA256 of 't.payload'); used by tests and local tools."""
    import hashlib
    import hmac
    t = int(timestamp if timestamp is not None else time.time())
    mac = hmac.new(secret.encode(), f"{t}.".encode() + payload, hashlib.sha256).hexdigest()
    return f"t={t},v1={mac}"
