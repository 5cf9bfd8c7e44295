"""Sign-in by phone and SMS code (api.md v1.3 "Players")."""
from __future__ import annotations

from datetime import date, datetime
from typing import Literal

from pydantic import Field, model_validator

from .base import Out, Strict


class CodeIn(Strict):
    phone: str = Field(min_length=1, max_length=30)
    lang: Literal["zh-CN", "en", "vi"] | None = Field(default=None, description="the SMS's language (default zh-CN)")


class CodeSent(Out):
    retry_after: int = Field(description="seconds before another code may be asked for this phone")


class PlayerSignInIn(Strict):
    """{"phone", "code"} (+ "binding_ticket": bind the WeChat sign-in that answered phone_required), or
    {"wechat_code"} alone (inside WeChat: the official account's web authorisation code)."""
    phone: str | None = Field(default=None, min_length=1, max_length=30)
    code: str | None = Field(default=None, pattern=r"^\s*\d{6}\s*$")
    binding_ticket: str | None = Field(default=None, min_length=1, max_length=100)
    wechat_code: str | None = Field(default=None, min_length=1, max_length=256)

    @model_validator(mode="after")
    def _one_way(self):
        if self.wechat_code is not None:
            if self.phone is not None or self.code is not None or self.binding_ticket is not None:
                raise ValueError("wechat_code comes alone")
        elif self.phone is None or self.code is None:
            raise ValueError("phone and code, or wechat_code")
        return self


class PlayerOut(Out):
    id: str
    phone_masked: str


class PlayerSession(Out):
    token: str = Field(description="send it as X-Player-Token")
    expires_at: datetime
    player: PlayerOut


class Notify(Strict):
    """The channels the player allows messages by. One turned off is not used while another they left on reaches
    them; with every one off, only what must not be missed (their table, their place's deadline, a result waiting
    for them, the director's notice) still comes by SMS. Codes they ask for always come."""
    sms: bool = True
    email: bool = True
    wechat: bool = True


class PlayerPatch(Strict):
    name: str | None = Field(default=None, min_length=1, max_length=40)
    email: str | None = Field(default=None, max_length=120, pattern=r"^$|^[^@\s]+@[^@\s]+\.[^@\s]+$",
                              description="an empty string removes it")
    lang: Literal["zh-CN", "en", "vi"] | None = Field(default=None, description="the language of messages and pages")
    notify: Notify | None = None


class PlayerActions(Out):
    pay: bool = Field(description="a place held waiting for payment, an online provider offered")
    withdraw: bool = Field(description="not already out (cancelled, withdrawn, merged): refunded by the event's rule")
    manage: bool = Field(description="its roster and contact can still change (before the event's change deadline)")


class PlayerRegistration(Out):
    entry_id: str
    registration_id: str | None = Field(default=None, description="a day's registration (several events, one payment)")
    tournament_id: str
    tournament: str
    organiser: str
    event_id: str
    event: str
    game: str
    date: date
    timezone: str = Field(default="Asia/Shanghai", description="the tournament's zone: its times are read there")
    name: str = Field(description="the entry's name (a pair's, a team's or the player's)")
    status: str
    payment_state: str
    amount_due: int
    amount_paid: int
    amount_refunded: int = 0
    currency: str
    created_at: datetime
    hold_expires_at: datetime | None = None
    can: PlayerActions


class HistoryRow(Out):
    tournament: str
    event: str
    date: date
    place: int | None = Field(description="the final place; None: listed, not ranked (disqualified)")
    of: int = Field(description="entries in the final standings")
    points: float | None = Field(description="the standings' first measure (the event's scoring)")
    entry_id: str
    event_id: str


class PlayerMe(Out):
    id: str
    phone_masked: str
    name: str
    email: str | None = None
    lang: str
    notify: Notify
    registrations: list[PlayerRegistration]
    history: list[HistoryRow]


class Erased(Out):
    erased: int = Field(description="entries and registrations whose contact data was erased")
