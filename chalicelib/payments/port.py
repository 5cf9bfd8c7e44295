"""The one payments port: what every provider adapter offers the services (design.md v1.2, issue 37).

Services never import a provider's SDK and never ask which provider it is: they call these operations on the
adapter that took (or is taking) the money, found in the registry (`Deps.providers`, built in bootstrap) by the
payment record's `provider`. Stripe, WeChat Pay, Alipay, the desk (cash and transfer) and the local stage's demo
provider all speak it; tests/api/test_provider_contract.py runs one contract over each of them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal, InvalidOperation
from typing import Literal, Protocol, runtime_checkable

from ..models.base import CURRENCY_EXPONENT

# What a provider's notification means for a payment, whatever its own vocabulary.
Kind = Literal["paid", "closed", "refund", "other"]
# What a query answers about an order (its states, in the port's words)
Status = Literal["open", "complete", "expired"]


@dataclass
class Notification:
    id: str                       # the provider's notification id: dedupe key (prefixed by provider)
    kind: Kind
    payment_id: str | None        # our payment id (sent as out_trade_no / metadata)
    transaction_id: str | None = None
    amount: int | None = None     # minor units
    currency: str | None = None
    refunded: int | None = None   # refund notifications: the amount refunded (minor units)
    raw_type: str = ""
    reference: str | None = None  # the provider's order reference, when it says (a notification for another
                                  # order of the same payment is refused)
    whole: bool = False           # the provider says all of it went back (whatever `refunded` reads)
    running_total: bool = True    # `refunded` is the total so far (Stripe, Alipay, demo) or this refund's own
                                  # amount (WeChat Pay: a part refund made in its merchant platform is only logged)
    account: str | None = None    # the organiser's account the provider says it is for (sub_mchid, auth_app_id,
                                  # Stripe's `account`); None: the platform's own (payments/accounts.py)


@dataclass
class Checkout:
    """What the payer's page needs: a QR payload, a JSAPI parameter set, or a URL to send the phone to."""
    reference: str                               # the provider's order reference (= out_trade_no, or a session id)
    answer: dict = field(default_factory=dict)   # {"code_url"} | {"jsapi": {...}} | {"h5_url"} | {"pay_url"} |
                                                 # {"checkout_url"} (and "expires_at" when the provider moved it)


@runtime_checkable
class Provider(Protocol):
    name: str
    # The payer's choices of how to pay at this provider (WeChat: native | jsapi | h5); empty: one hosted page
    # (Stripe, the demo cashier), which is opened as soon as an entry holds a place.
    channels: tuple[str, ...]
    online: bool        # False: the desk takes and hands back the money (cash, transfer) — nothing to call

    def start(self, *, payment_id: str, amount: int, currency: str, description: str, channel: str | None,
              expires_at: datetime, return_url: str, cancel_url: str = "", now: datetime | None = None,
              entry_id: str = "", event_id: str = "", lines: list[tuple[str, int]] | None = None,
              openid: str | None = None, client_ip: str | None = None) -> Checkout:
        """Opens the order; raises errors.PaymentError when the provider cannot be reached (bounded: ≤ 10 s)."""

    def session_status(self, reference: str) -> tuple[Status, str | None, int | None, str | None]:
        """The query: (status, transaction id, amount, currency) of an order."""

    def expire(self, reference: str) -> None:
        """Closes an open order so that it can take no money (PaymentError when it cannot say so)."""

    def refund(self, transaction_id: str | None, amount: int, payment_id: str, part: str = "", *,
               total: int, currency: str) -> str:
        """Sends `amount` back; the same (payment_id, part) is the same refund at the provider on a retry."""

    def verify_notification(self, headers: dict, body: bytes, now: datetime) -> Notification:
        """A notification whose signature holds (errors.InvalidSignature / StaleSignature otherwise)."""


def to_major(amount: int, currency: str) -> str:
    """4000 CNY fen → "40.00" (Alipay speaks yuan with two decimals)."""
    exp = CURRENCY_EXPONENT[currency]
    return f"{Decimal(amount).scaleb(-exp):.{exp}f}"


def to_minor(value: str, currency: str) -> int | None:
    """"40.00" → 4000; None when it is not a plain decimal amount."""
    try:
        d = Decimal(str(value)).scaleb(CURRENCY_EXPONENT[currency])
    except (InvalidOperation, ValueError):
        return None
    return int(d) if d == d.to_integral_value() else None
