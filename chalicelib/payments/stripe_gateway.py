"""Stripe adapter behind the payments port (payments/port.py): Checkout Sessions, refunds and webhook verification.

Only this module imports stripe; no stripe exception leaves it. Tests plug a fake HTTP client into
the real library (`http_client=`), so requests are built and responses parsed by stripe itself.
A request waits at most 9.5 s on Stripe (issue 40): 1.5 s to connect, 3 s to read, one retry after 0.5 s (the
idempotency key makes it safe) — not the library's 80 s times three.

Stripe Connect (issue 40, payments/accounts.py): the installation's key is the platform's; an organiser's account
is a connected account `acct_…`. The adapter bound to it (`for_account`) sends every call with that account
(`stripe_account`: Stripe's Stripe-Account header), so the Checkout Session, its charge and its refund are the
chamber's own (a direct charge: the money settles to the chamber, never through the platform's balance).
"""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from datetime import datetime, timedelta

from .. import errors
from .port import Checkout, Notification

log = logging.getLogger("cardgames.payments")

# Currencies for which Stripe offers Alipay / WeChat Pay in Checkout.
ALIPAY = {"CNY", "HKD", "SGD", "MYR", "USD", "EUR", "GBP", "AUD", "CAD", "NZD", "JPY"}
WECHAT_PAY = {"CNY", "HKD", "SGD", "USD", "EUR", "GBP", "AUD", "CAD", "JPY"}
TOLERANCE_SECONDS = 300
TIMEOUT = (1.5, 3)          # (connect, read) seconds per try: 2 tries + a 0.5 s back-off stay under 10 s
SESSION_MIN = timedelta(minutes=31)   # Stripe takes expires_at from 30 minutes on
PAID_EVENTS = ("checkout.session.completed", "checkout.session.async_payment_succeeded")
CLOSED_EVENTS = ("checkout.session.expired", "checkout.session.async_payment_failed")


@dataclass
class WebhookEvent:
    id: str
    type: str
    obj: dict
    account: str | None = None   # Connect: the connected account the event happened on


def payment_methods(currency: str) -> list[str]:
    methods = ["card"]
    if currency in ALIPAY:
        methods.append("alipay")
    if currency in WECHAT_PAY:
        methods.append("wechat_pay")
    return methods


class StripeGateway:
    name = "stripe"
    channels: tuple[str, ...] = ()   # one hosted page: opened as soon as an entry holds a place
    online = True

    def __init__(self, api_key: str, webhook_secret: str | None, http_client=None, max_retries: int = 1,
                 api_base: str | None = None):
        self._max_retries = max_retries
        self._api_base = api_base
        self._api_key = api_key
        self._webhook_secret = webhook_secret
        self._http_client = http_client
        self._client = None
        self.account: str | None = None    # the connected account this adapter speaks for (None: the platform)

    # -- Connect: the port, per organiser (payments/accounts.py AccountAware)
    def for_account(self, account) -> StripeGateway:
        """The same adapter (and HTTP client) speaking for the connected account `account.id`."""
        self.client()   # made once, shared by every account's adapter
        bound = StripeGateway.__new__(StripeGateway)
        bound.__dict__.update(self.__dict__)
        bound.account = account.id
        return bound

    def _options(self, **extra) -> dict:
        return {**extra, "stripe_account": self.account} if self.account else extra

    def check_account(self, account):
        """The connected account as Stripe knows it: found, linked to this platform, and able to take charges."""
        import stripe
        from .accounts import AccountCheck
        try:
            found = self.client().v1.accounts.retrieve(account.id).to_dict()
        except (stripe.InvalidRequestError, stripe.PermissionError, stripe.AuthenticationError) as exc:
            log.info("stripe account check: %s", type(exc).__name__)
            return AccountCheck("failed", "account_not_found",
                                f"Stripe 找不到账户 {account.id}，或它没有连接到本平台：请在 Stripe 后台确认账户 ID（acct_…）"
                                "并完成 Connect 授权 · Stripe has no account by this ID connected to the platform.")
        except stripe.StripeError as exc:
            log.info("stripe account check failed: %s", type(exc).__name__)
            return AccountCheck("failed", "provider_unreachable",
                                "暂时连不上 Stripe，请稍后再检查 · Stripe cannot be reached now: check again later.")
        if not found.get("charges_enabled"):
            return AccountCheck("failed", "charges_not_enabled",
                                "这个 Stripe 账户还不能收款（charges_enabled 为 false）：请在 Stripe 后台补全商户资料 · "
                                "This Stripe account cannot take charges yet: complete its details in Stripe.")
        return AccountCheck("ok", None, "Stripe 账户可以收款 · The Stripe account can take charges.")

    def account_of(self, notification: Notification) -> str | None:
        """A Connect event names its connected account (`account`); the platform's own events name none."""
        return notification.account

    def client(self):
        if self._client is None:
            import stripe
            http = self._http_client or stripe.new_default_http_client(timeout=TIMEOUT)
            base = {"base_addresses": {"api": self._api_base}} if self._api_base else {}
            self._client = stripe.StripeClient(self._api_key, http_client=http, max_network_retries=self._max_retries,
                                               **base)
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
            params=params, options=self._options(idempotency_key=f"checkout-{payment_id}")))
        return session.id, session.url

    def start(self, *, payment_id: str, amount: int, currency: str, description: str, channel: str | None,
              expires_at: datetime, return_url: str, cancel_url: str = "", now: datetime | None = None,
              entry_id: str = "", event_id: str = "", lines: list[tuple[str, int]] | None = None,
              openid: str | None = None, client_ip: str | None = None) -> Checkout:
        """The port's start: a Checkout Session (living at least Stripe's 30 minutes) and its URL."""
        if now is not None:
            expires_at = max(expires_at, now + SESSION_MIN)
        session_id, url = self.create_checkout(
            payment_id=payment_id, entry_id=entry_id, event_id=event_id, amount=amount, currency=currency,
            description=description, lines=lines, success_url=return_url, cancel_url=cancel_url or return_url,
            expires_at=expires_at)
        return Checkout(session_id, {"checkout_url": url, "expires_at": expires_at.isoformat()})

    def session_status(self, session_id: str) -> tuple[str, str | None, int | None, str | None]:
        """(status, payment_intent, amount_total, currency) of a session: 'open' | 'complete' | 'expired'."""
        s = self._call("retrieve", lambda: self.client().v1.checkout.sessions.retrieve(
            session_id, options=self._options())).to_dict()
        return s.get("status"), s.get("payment_intent"), s.get("amount_total"), (s.get("currency") or "").upper()

    def expire(self, session_id: str) -> None:
        self._call("expire", lambda: self.client().v1.checkout.sessions.expire(session_id,
                                                                                       options=self._options()))

    def refund(self, payment_intent: str | None, amount: int, payment_id: str, part: str = "", *,
               total: int | None = None, currency: str | None = None) -> str:
        """`part` names what is refunded when a payment covered several entries (one refund each)."""
        refund = self._call("refund", lambda: self.client().v1.refunds.create(
            params={"payment_intent": payment_intent, "amount": amount, "metadata": {"payment_id": payment_id}},
            options=self._options(idempotency_key=f"refund-{payment_id}" + (f"-{part}" if part else ""))))
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
        account = data.get("account") if isinstance(data.get("account"), str) else None
        return WebhookEvent(id=data["id"], type=data["type"], obj=obj, account=account)


    def verify_notification(self, headers: dict, body: bytes, now: datetime) -> Notification:
        """The port's notification, from a Stripe event. Checked against the real time, not `now`: the stripe
        library checks the signature's age against it anyway."""
        signature = next((v for k, v in (headers or {}).items() if k.lower() == "stripe-signature"), None)
        event = self.verify_webhook(body, signature)
        obj = event.obj
        payment_id = (obj.get("metadata") or {}).get("payment_id")
        note = self._notification(event, obj, payment_id)
        note.account = event.account
        return note

    @staticmethod
    def _notification(event: WebhookEvent, obj: dict, payment_id: str | None) -> Notification:
        if event.type in PAID_EVENTS:
            if obj.get("payment_status") not in ("paid", "no_payment_required"):
                # async methods: wait for async_payment_succeeded
                return Notification(event.id, "other", payment_id, raw_type="not paid yet")
            return Notification(event.id, "paid", payment_id, transaction_id=obj.get("payment_intent"),
                                amount=obj.get("amount_total"), currency=(obj.get("currency") or "").upper(),
                                raw_type=event.type, reference=obj.get("id"))
        if event.type in CLOSED_EVENTS:
            return Notification(event.id, "closed", payment_id, raw_type=event.type, reference=obj.get("id"))
        if event.type == "charge.refunded":
            back = obj.get("amount_refunded")
            return Notification(event.id, "refund", payment_id, refunded=back if isinstance(back, int) else 0,
                                whole=bool(obj.get("refunded")), raw_type=event.type)
        return Notification(event.id, "other", payment_id, raw_type=event.type)


def sign_payload(payload: bytes, secret: str, timestamp: int | None = None) -> str:
    """Stripe's signature scheme (v1 = HMAC-SHA256 of 't.payload'); used by tests and local tools."""
    import hashlib
    import hmac
    t = int(timestamp if timestamp is not None else time.time())
    mac = hmac.new(secret.encode(), f"{t}.".encode() + payload, hashlib.sha256).hexdigest()
    return f"t={t},v1={mac}"
