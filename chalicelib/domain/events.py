"""Domain events: what happened, as frozen records, for the handlers that follow from it (publish, messages,
rankings, the audit row). Raised by the domain's transitions; dispatched by the services after the write."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime


# --------------------------------------------------------------------------- payments and registration
# (lane "payments": raised by chalicelib/domain/payment.py and services/payments.py, registration.py)

@dataclass(frozen=True)
class PaymentConfirmed:
    payment_id: str
    provider: str
    amount: int
    currency: str
    entry_ids: tuple[str, ...] = ()
    registration_id: str | None = None


@dataclass(frozen=True)
class PaymentFailed:
    payment_id: str
    provider: str
    reason: str
    entry_ids: tuple[str, ...] = ()
    registration_id: str | None = None


@dataclass(frozen=True)
class PaymentRefunded:
    payment_id: str
    provider: str
    amount: int              # this refund (minor units)
    total_refunded: int      # refunded so far
    full: bool               # the whole payment is back
    currency: str = ""


@dataclass(frozen=True)
class RegistrationConfirmed:
    tournament_id: str
    registration_id: str     # a day's registration id, or the entry id of a single registration
    entry_ids: tuple[str, ...] = field(default=())


@dataclass(frozen=True)
class WaitlistPromoted:
    event_id: str
    entry_id: str
    pay_by: datetime | None = None   # None: the place is confirmed (nothing to pay)


@dataclass(frozen=True)
class HoldExpiring:
    event_id: str
    entry_id: str
    expires_at: datetime
