"""The one payments port: what every provider adapter offers the services (design.md v1.2).

Services never import a provider's SDK; they call these operations on the adapter that took (or is taking)
the money, found by the payment record's `provider`. Stripe's adapter predates the port and keeps its own
names for the same operations (create_checkout, session_status, expire, refund, verify_webhook).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Literal, Protocol

from ..models.base import CURRENCY_EXPONENT

# What a provider's notification means for a payment, whatever its own vocabulary.
Kind = Literal["paid", "closed", "refund", "other"]


@dataclass
class Notification:
    id: str                       # the provider's notification id: dedupe key (prefixed by provider)
    kind: Kind
    payment_id: str | None        # our payment id (sent as out_trade_no)
    transaction_id: str | None = None
    amount: int | None = None     # minor units
    currency: str | None = None
    refunded: int | None = None   # refund notifications: the amount refunded (minor units)
    raw_type: str = ""


@dataclass
class Checkout:
    """What the payer's page needs: a QR payload, a JSAPI parameter set, or a URL to send the phone to."""
    reference: str                               # the provider's order reference (= out_trade_no)
    answer: dict = field(default_factory=dict)   # {"code_url"} | {"jsapi": {...}} | {"h5_url"} | {"pay_url"}


class Provider(Protocol):
    name: str
    channels: tuple[str, ...]

    def start(self, *, payment_id: str, amount: int, currency: str, description: str, channel: str,
              expires_at: datetime, return_url: str, openid: str | None = None,
              client_ip: str | None = None) -> Checkout: ...

    def session_status(self, reference: str) -> tuple[str, str | None, int | None, str | None]:
        """('open' | 'complete' | 'expired', transaction id, amount, currency), as Stripe's adapter answers."""

    def expire(self, reference: str) -> None: ...

    def refund(self, transaction_id: str | None, amount: int, payment_id: str, part: str = "", *,
               total: int, currency: str) -> str: ...

    def verify_notification(self, headers: dict, body: bytes, now: datetime) -> Notification: ...


def to_major(amount: int, currency: str) -> str:
    """4000 CNY fen → "40.00" (Alipay speaks yuan with two decimals)."""
    exp = CURRENCY_EXPONENT[currency]
    return f"{Decimal(amount).scaleb(-exp):.{exp}f}"


def to_minor(value: str, currency: str) -> int | None:
    """"40.00" → 4000; None when it is not a plain decimal amount."""
    try:
        d = Decimal(str(value)).scaleb(CURRENCY_EXPONENT[currency])
    except Exception:
        return None
    return int(d) if d == d.to_integral_value() else None
