"""Entries (pair, team, player) and their registration forms."""
from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field, field_validator

from .base import Loose, Out, Strict


EntryStatus = Literal["confirmed", "pending_payment", "waitlisted", "partner_wanted", "cancelled", "withdrawn",
                      "merged", "disqualified"]
# Statuses that hold one of the event's places.
PLACE_STATUSES = ("confirmed", "pending_payment")


def normalise_phone(v: str | None) -> str | None:
    """One key form per number (chalicelib/phones.py): +86 / 0086 / 86, spaces and dashes folded."""
    from ..phones import normalise
    try:
        return normalise(v)
    except ValueError:
        raise ValueError("phone: not a valid phone number (a mainland mobile like 13800000000 or +countrycode…)") from None


class MemberIn(Strict):
    name: str = Field(min_length=1, max_length=40)
    phone: str | None = Field(default=None, max_length=30)
    member_code: str | None = Field(default=None, max_length=40)
    gender: Literal["m", "f"] | None = Field(default=None, description="mixed pairs seat the man N/W, the woman S/E (rules.md §8)")

    @field_validator("phone")
    @classmethod
    def _phone(cls, v):
        return normalise_phone(v)


class RegistrationIn(Strict):
    name: str | None = Field(default=None, max_length=60, description="team or pair name; a player's own name for individuals")
    club: str = Field(default="", max_length=100, description="chamber of commerce or club (related entries)")
    eligibility_code: str | None = Field(default=None, max_length=40)
    members: list[MemberIn] = Field(min_length=1, max_length=12)
    partner_wanted: bool = Field(default=False, description="register alone and ask the organiser for a partner")
    note: str = Field(default="", max_length=300)


class DisqualifyIn(Strict):
    """rules.md §8 (seeds 000, 003): "蓄意弃权者取消本次比赛资格", "取消作弊方的比赛资格，判对方获胜"."""
    kind: Literal["deliberate_forfeit", "cheating", "other"]
    reason: str = Field(min_length=1, max_length=300)


class SubstitutionIn(Strict):
    """rules.md §8 (seeds 000, 003): a player changed between rounds, with the chief referee's approval."""
    out: int = Field(ge=0, le=9, description="the index of the member who leaves (0 = the first)")
    in_: MemberIn = Field(alias="in", description="the player who comes in")
    from_round: int | None = Field(default=None, ge=1, le=60, description="the first round the new player plays "
                                   "(default: the next round not yet drawn)")
    reason: str = Field(min_length=1, max_length=300)


class Member(Loose):
    name: str
    phone: str | None = None
    gender: Literal["m", "f"] | None = None
    member_code: str | None = None


class Entry(Loose):
    id: str
    event_id: str
    tournament_id: str
    name: str
    club: str = ""
    members: list[Member]
    partner_wanted: bool = False
    status: EntryStatus
    amount_due: int = 0
    amount_paid: int = 0          # held now: what came in less what went back
    amount_refunded: int = 0      # what went back (Stripe refunds, full or partial)
    refund_owed: int = 0          # 应退: decided at the withdrawal, not yet handed back (cash/transfer)
    currency: str = "CNY"
    payment_state: Literal["none", "unpaid", "pending", "paid", "refund_due", "refunded"] = "none"
    payment_id: str | None = None
    checked_in: bool = False
    created_at: datetime
    updated_at: datetime | None = None
    hold_expires_at: datetime | None = None
    waitlist_key: str | None = None
    manage_token_hash: str = ""
    merged_into: str | None = None
    merged_from: list[str] = Field(default_factory=list)
    registration_id: str | None = None   # several events paid in one go (DayRegistration)
    note: str = ""
    notices: list[str] = Field(default_factory=list)
    joins_from_round: int | None = None   # checked in after a draw: drawn from this round on (late entry)
    roster_history: list[dict] = Field(default_factory=list)   # substitutions: out, in, from_round, reason, by
    version: int = 1
    shard: int = 0      # which of the event's counter items holds its counts (store/counters.py)
    # Never set (stored records may hold one, erased by retention): the WeChat channel is the openid a player bound
    # by signing in inside WeChat, looked up by phone (messages/outbox.bound_openid), not a field of the entry
    wechat_openid: str | None = None

    @property
    def holds_place(self) -> bool:
        return self.status in PLACE_STATUSES

    @property
    def owed(self) -> int:
        """What is still to be paid back (an entry withdrawn before refund_owed existed owes what it paid)."""
        if self.payment_state != "refund_due":
            return 0
        return self.refund_owed or self.amount_paid


class EntryView(Out):
    """An entry as its owner (manage link) or the organiser sees it: no secrets."""
    id: str
    event_id: str
    tournament_id: str
    name: str
    club: str
    members: list[Member]
    partner_wanted: bool
    status: EntryStatus
    amount_due: int
    amount_paid: int
    amount_refunded: int = 0
    refund_owed: int = Field(default=0, description="应退: owed back and not yet paid (shown until the desk pays it)")
    currency: str
    payment_state: str
    checked_in: bool
    created_at: datetime
    hold_expires_at: datetime | None
    waitlist_position: int | None = None
    notices: list[str] = []
    version: int
    can_edit_until: datetime | None = None
    online_payment: bool = False
    refund_rule: str | None = None


class RegistrationAnswer(Out):
    entry: EntryView
    manage_token: str
    checkout_url: str | None = None
    # The checkout opened at once (the tournament's hosted page), or why it could not be: {"error": code,
    # "provider"}; the place is held all the same and the manage page offers another try (issue 40).
    checkout: dict | None = None
    resumed: bool = False   # the same people's registration, pending payment, found again (not a new entry)


def refunded(entry: Entry, amount: int) -> dict:
    """The entry's money after `amount` went back: the paid amount is net of refunds, the refunds kept beside."""
    back = max(0, min(amount, entry.amount_paid))
    return {"amount_paid": entry.amount_paid - back, "amount_refunded": entry.amount_refunded + back}
