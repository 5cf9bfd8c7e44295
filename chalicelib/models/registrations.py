"""One checkout for a day: several events, one form, one payment."""
from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import Field, field_validator, model_validator

from .base import Out, Strict
from .entries import EntryView, MemberIn, RegistrationIn, normalise_phone


class Contact(Strict):
    name: str = Field(min_length=1, max_length=40)
    phone: str = Field(min_length=1, max_length=30)

    @field_validator("phone")
    @classmethod
    def _phone(cls, v):
        return normalise_phone(v)


class DayItemIn(Strict):
    event_id: str = Field(min_length=1, max_length=64)
    name: str | None = Field(default=None, max_length=60)
    club: str = Field(default="", max_length=100)
    members: list[MemberIn] = Field(min_length=1, max_length=12)
    eligibility_code: str | None = Field(default=None, max_length=40)
    note: str = Field(default="", max_length=300)


class CheckoutIn(Strict):
    """How the payer pays online (v1.2). Without a provider: the tournament's hosted page (Stripe's Checkout, as
    before v1.2, or the local stage's demo cashier)."""
    provider: Literal["stripe", "wechat_pay", "alipay", "demo"] | None = None
    channel: Literal["native", "jsapi", "h5", "page", "wap"] | None = None
    openid: str | None = Field(default=None, min_length=1, max_length=128, description="JSAPI: the payer's openid")


class CheckoutAnswer(Out):
    """What the payer's page needs: one of checkout_url (Stripe), code_url (WeChat Native: the QR's content),
    jsapi (WeixinJSBridge chooseWXPay parameters), h5_url (WeChat H5) or pay_url (Alipay page / wap)."""
    checkout_url: str | None = None                 # Stripe
    provider: str = "stripe"
    channel: str | None = None
    code_url: str | None = None                     # WeChat Pay Native: the QR code's content
    code_svg: str | None = Field(default=None, description="WeChat Pay Native: code_url's QR code as an SVG data URI "
                                 "(drawn here with segno: the page ships no QR library)")
    jsapi: dict | None = None                       # WeChat Pay JSAPI: WeixinJSBridge's chooseWXPay parameters
    h5_url: str | None = None                       # WeChat Pay H5: send the phone there
    pay_url: str | None = None                      # Alipay page / wap
    error: str | None = Field(default=None, description="the checkout could not start (payment_unavailable …): "
                              "the registration stands, its place held; try again, another provider or the desk")
    demo: bool = Field(default=False, description="the local stage's demo cashier (演示支付): no money moves — "
                       "pages say so wherever they show this checkout")
    expires_at: str | None = None
    amount: int | None = Field(default=None, description="minor units: what this checkout takes")
    currency: str | None = None
    entry_ids: list[str] = Field(default_factory=list, description="a day's checkout: the entries it pays for")

    @model_validator(mode="after")
    def _qr(self):
        """Native's QR code for the desktop page, wherever the answer is made (an entry's, a day's checkout)."""
        if self.code_url and not self.code_svg:
            import segno
            self.code_svg = segno.make(self.code_url, error="m").svg_data_uri(scale=6, border=2)
        return self


class DayRegistrationIn(Strict):
    """Several events of one tournament, one form, one payment (api.md v1.1). `checkout` (v1.2) chooses the
    provider and channel now; without it Stripe's Checkout starts where the tournament offers Stripe."""
    contact: Contact
    # 16: a long day's events at once; the transaction bounds it too (EntryRepo.create_many: 100 actions, about
    # thirteen pair events whose two members give mainland phones), and the form warns before sending
    items: list[DayItemIn] = Field(min_length=1, max_length=16)
    checkout: CheckoutIn | None = None


class DayItemOut(Out):
    event_id: str
    event_name: str = ""
    entry: EntryView
    amount: int = 0
    refund_rule: str = ""
    now: dict | None = Field(default=None, description="once the day starts: the entry's table in the latest round")
    results: list[dict] = Field(default_factory=list, description="per round: table, opponents, status, points; "
                                "forfeit {mine, excused, force_majeure}; penalties [{kind, deal?, cards?}]")
    final: dict | None = Field(default=None, description="after the event: rank, of, points, prize and bomb_bonus "
                               "(Dou Dizhu) in minor units of currency, ranked")


class DayRegistration(Out):
    id: str
    tournament_id: str
    contact: dict
    items: list[DayItemOut]
    amount_due: int
    amount_paid: int = 0          # net of refunds
    amount_refunded: int = 0
    currency: str
    payment_state: str = "none"
    created_at: datetime


class DayRegistrationAnswer(Out):
    registration: DayRegistration
    manage_token: str
    checkout_url: str | None = None      # Stripe's, as before v1.2 (also in checkout)
    checkout: CheckoutAnswer | None = None
    resumed: bool = False   # the same people's registration, still waiting for payment, found again (issue 40)


class EntryPatch(Strict):
    name: str | None = Field(default=None, min_length=1, max_length=60)
    club: str | None = Field(default=None, max_length=100)
    members: list[MemberIn] | None = Field(default=None, min_length=1, max_length=12)
    version: int | None = None


class OfflinePaymentIn(Strict):
    method: Literal["cash", "transfer"]
    amount: int = Field(ge=1, le=10_000_000)
    reference: str = Field(default="", max_length=100)


class JoinIn(Strict):
    entry_ids: list[Annotated[str, Field(min_length=1, max_length=64)]] = Field(min_length=2, max_length=12)
    name: str | None = Field(default=None, max_length=60)


class WithdrawIn(Strict):
    reason: str = Field(default="", max_length=200)
    refund: bool | None = Field(default=None, description="override the event's refund rule")
    refund_amount: int | None = Field(default=None, ge=0, le=100_000_000,
                                      description="minor units owed back; another amount than the rule's needs refund_reason")
    refund_reason: str = Field(default="", max_length=200)


class RefundPaidIn(Strict):
    """The desk hands a refund back in cash (or by transfer): the whole amount owed."""
    method: Literal["cash", "transfer"] = "cash"
    amount: int = Field(ge=1, le=100_000_000, description="minor units; must be what is owed")
    note: str = Field(default="", max_length=200)


class DeskPaymentIn(Strict):
    """What a walk-in handed over at the desk: the whole fee, in cash or by transfer."""
    method: Literal["cash", "transfer"]
    reference: str = Field(default="", max_length=100)


class DeskEntryIn(RegistrationIn):
    """A walk-in at the desk (api.md v1.3): the registration body and, when paid on the spot, how."""
    payment: DeskPaymentIn | None = Field(default=None, description="recorded at once for the fee due; none: 未付款")
