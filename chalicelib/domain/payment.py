"""A payment: its own record with states, changed only by its transitions (issue 37).

    created ──start──▶ pending ──confirm──▶ confirmed ──refund(part)──▶ confirmed ──refund(rest)──▶ refunded
       │ ▲               │  │                   │
       │ └──start──── failed◀┘ (the provider could not open the order: start again, the same order)
       └──cancel──▶ cancelled ◀──cancel── pending          confirmed ──void (the desk's mistake)──▶ cancelled

`confirm` is idempotent (pretix): the provider's word that money arrived is taken from any state but the ones
that already counted it, so a late payment after a released hold is still recorded. Each transition returns
the new record (version + 1, `now` as updated_at) and the events it raises; a refused one raises
`PaymentStateRefused` (409) and changes nothing. The stored JSON is the same as before the states were an Enum.
"""
from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from .. import errors
from .events import PaymentConfirmed, PaymentFailed, PaymentRefunded

ProviderName = Literal["stripe", "wechat_pay", "alipay", "cash", "transfer", "demo"]


class PaymentState(str, Enum):
    """str-valued, so a record compares and serialises as the plain strings stored before."""
    CREATED = "created"
    PENDING = "pending"
    CONFIRMED = "confirmed"
    FAILED = "failed"
    CANCELLED = "cancelled"
    REFUNDED = "refunded"

    def __str__(self) -> str:
        return self.value


OPEN = frozenset({PaymentState.CREATED, PaymentState.PENDING})
# Money taken and counted: a confirmation of these changes nothing.
COUNTED = frozenset({PaymentState.CONFIRMED, PaymentState.REFUNDED})
Events = list


class Payment(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True, defer_build=True)

    id: str
    entry_id: str
    event_id: str
    provider: ProviderName
    channel: str | None = None       # wechat_pay: native | jsapi | h5; alipay: page | wap
    state: PaymentState
    amount: int
    currency: str
    session_id: str | None = None    # the provider's order reference
    account: str | None = None       # the organiser's merchant account the order was opened on (issue 40; None: the
                                     # platform's own keys): its query, close, refund and notifications go there
    checkout_url: str | None = None
    checkout_answer: dict | None = None   # what the payer's page was given (asked again: the same)
    payment_intent: str | None = None     # the provider's transaction id
    failure: str | None = None
    reference: str = ""
    amount_refunded: int = 0         # refunded so far (a partial refund keeps the entry)
    items: list[dict] = Field(default_factory=list)   # one payment for several entries: event_id, entry_id, amount
    registration_id: str | None = None
    created_at: datetime
    updated_at: datetime
    version: int = 1

    # ----------------------------------------------------------------- reading
    @property
    def is_open(self) -> bool:
        """An order that may still take money (or has not reached the provider yet)."""
        return self.state in OPEN

    @property
    def entry_ids(self) -> tuple[str, ...]:
        return tuple(i["entry_id"] for i in self.items) or (self.entry_id,)

    @property
    def refundable(self) -> int:
        return self.amount - self.amount_refunded if self.state == PaymentState.CONFIRMED else 0

    # ----------------------------------------------------------------- transitions
    def _moved(self, now: datetime, **changes) -> Payment:
        return self.model_copy(update={**changes, "updated_at": now, "version": self.version + 1})

    def _refuse(self, what: str):
        raise errors.PaymentStateRefused(f"A {self.state} payment cannot {what}.",
                                         {"payment_id": self.id, "state": str(self.state), "transition": what})

    def start(self, *, reference: str, answer: dict | None, now: datetime, checkout_url: str | None = None,
              account: str | None = None) -> tuple[Payment, Events]:
        """The provider opened the order: the payer may pay now. A failed start is started again (the same order:
        the provider never took it)."""
        if self.state == PaymentState.PENDING and self.session_id == reference:
            return self, []   # a retry found the same order open
        if self.state not in (PaymentState.CREATED, PaymentState.FAILED):
            self._refuse("start")
        return self._moved(now, state=PaymentState.PENDING, session_id=reference, checkout_answer=answer,
                           checkout_url=checkout_url, failure=None, account=account), []

    def fail(self, reason: str, now: datetime) -> tuple[Payment, Events]:
        """The order could not be opened (provider unreachable, refused): the place stays held for the hold."""
        if self.state == PaymentState.FAILED:
            return self, []
        if self.state not in OPEN:
            self._refuse("fail")
        after = self._moved(now, state=PaymentState.FAILED, failure=reason)
        return after, [PaymentFailed(self.id, self.provider, reason, self.entry_ids, self.registration_id)]

    def confirm(self, transaction_id: str | None, now: datetime) -> tuple[Payment, Events]:
        """Money arrived. Idempotent: a confirmed (or since refunded) payment is answered unchanged."""
        if self.state in COUNTED:
            return self, []
        after = self._moved(now, state=PaymentState.CONFIRMED, payment_intent=transaction_id)
        return after, [PaymentConfirmed(self.id, self.provider, self.amount, self.currency, self.entry_ids,
                                        self.registration_id)]

    def cancel(self, now: datetime, reason: str | None = None) -> tuple[Payment, Events]:
        """The order is closed unpaid (hold ran out, another checkout, paid at the desk instead)."""
        if self.state == PaymentState.CANCELLED:
            return self, []
        if self.state not in (*OPEN, PaymentState.FAILED):
            self._refuse("be cancelled")
        return self._moved(now, state=PaymentState.CANCELLED, failure=reason or self.failure), []

    def void(self, reason: str, now: datetime) -> tuple[Payment, Events]:
        """The desk takes back money it recorded by mistake: only a confirmed payment nothing was refunded from."""
        if self.state == PaymentState.CANCELLED:
            return self, []
        if self.state != PaymentState.CONFIRMED or self.amount_refunded:
            self._refuse("be voided")
        return self._moved(now, state=PaymentState.CANCELLED, failure=reason), []

    def refund(self, amount: int, now: datetime, reason: str | None = None, part: str | None = None
               ) -> tuple[Payment, Events]:
        """We send `amount` back: part of it keeps the payment confirmed; the rest makes it refunded. `part`: the
        entry whose share of a day's payment this is (its event names only that entry)."""
        if self.state != PaymentState.CONFIRMED:
            self._refuse("be refunded")
        if not 0 < amount <= self.amount - self.amount_refunded:
            raise errors.InvalidRequest("退款不能多于已付 · The refund cannot be more than was paid.",
                                        {"field": "amount", "refundable": self.amount - self.amount_refunded})
        total = self.amount_refunded + amount
        full = total >= self.amount
        after = self._moved(now, amount_refunded=total, failure=reason or self.failure,
                            state=PaymentState.REFUNDED if full else self.state)
        return after, [PaymentRefunded(self.id, self.provider, amount, total, full, self.currency,
                                       (part,) if part else self.entry_ids)]

    def refund_reported(self, total_refunded: int, full: bool, now: datetime) -> tuple[Payment, Events]:
        """The provider reports money sent back (its running total so far), whoever asked for it: recorded once."""
        if full:
            if self.state == PaymentState.REFUNDED:
                return self, []
            total = max(self.amount_refunded, total_refunded)
            after = self._moved(now, state=PaymentState.REFUNDED, amount_refunded=total)
            return after, [PaymentRefunded(self.id, self.provider, total - self.amount_refunded, total, True,
                                           self.currency, self.entry_ids)]
        delta = total_refunded - self.amount_refunded
        if delta <= 0:
            return self, []
        after = self._moved(now, amount_refunded=total_refunded)
        return after, [PaymentRefunded(self.id, self.provider, delta, total_refunded, False, self.currency,
                                       self.entry_ids)]
