"""What the public pages and the registration form read."""
from __future__ import annotations

from datetime import date, datetime
from typing import Any, Literal

from pydantic import Field

from .base import Game, Out
from .events import EntryKind, Fee, Prize


class PublicEvent(Out):
    id: str
    name: str
    game: Game
    entry: EntryKind
    capacity: int
    places_left: int
    waitlist: bool
    waitlisted: int
    fee: Fee
    currency: str
    registration_state: Literal["not_yet_open", "open", "closed"]
    opens_at: datetime | None
    closes_at: datetime | None
    opens_at_local: str | None
    closes_at_local: str | None
    eligibility: Literal["open", "codes"]
    stages: list[dict]
    prizes: list[Prize]
    mixed: Literal["pairs", "team"] | None = Field(default=None, description="a mixed event (rules.md §9): the form "
                                                   "asks every member's gender; 'pairs' one man and one woman, 'team' at "
                                                   "least two men and two women")
    started: bool = Field(default=False, description="its first round is drawn: pages and link cards show its "
                                                     "results, not the registration poster")


class PublicTournament(Out):
    id: str
    name: str
    venue: str
    timezone: str
    currency: str
    starts_on: date
    ends_on: date
    events: list[PublicEvent]
    online_payment: bool = Field(default=False, description="pages offer online payment only when it is on")
    payment_providers: list[str] = Field(default_factory=list, description="v1.2: what the registration page "
                                         "offers (wechat_pay, alipay, stripe, offline), configured and chosen")
    retention_days: int = Field(default=180, description="v1.3: days after the end that contact data is kept "
                                "(the privacy notice says it)")


class ErrorBody(Out):
    code: str
    message: str
    details: Any = None
