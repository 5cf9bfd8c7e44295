"""Payments: their own records with states."""
from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field

from .base import Loose


PaymentState = Literal["created", "pending", "confirmed", "failed", "cancelled", "refunded"]


class Payment(Loose):
    id: str
    entry_id: str
    event_id: str
    provider: Literal["stripe", "wechat_pay", "alipay", "cash", "transfer"]
    channel: str | None = None       # wechat_pay: native | jsapi | h5; alipay: page | wap
    state: PaymentState
    amount: int
    currency: str
    session_id: str | None = None
    checkout_url: str | None = None
    checkout_answer: dict | None = None   # v1.2 providers: what the payer's page was given (asked again: the same)
    payment_intent: str | None = None
    failure: str | None = None
    reference: str = ""
    amount_refunded: int = 0         # refunded so far (a partial refund keeps the entry)
    items: list[dict] = Field(default_factory=list)   # one payment for several entries: event_id, entry_id, amount
    registration_id: str | None = None
    created_at: datetime
    updated_at: datetime
    version: int = 1
