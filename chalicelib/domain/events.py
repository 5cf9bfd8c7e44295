"""Domain events: what happened to the day's records, for the handlers that follow from it (publish a page,
queue a message, update a ranking). Frozen dataclasses: an event is a fact, never edited.

A table event names its table by place (tournament, event, stage, round, table) and carries the table's new
version, so a handler that reads the table again can tell whether it sees this change or a later one. `action`
is the audit log's word for the change (api.md's audit actions), written in the same transaction as the change."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime


@dataclass(frozen=True)
class Event:
    """The base of every domain event."""


# --------------------------------------------------------------------------- a table's result

@dataclass(frozen=True)
class TableEvent(Event):
    tournament_id: str
    event_id: str
    stage: int
    round_no: int
    table_no: int
    version: int
    action: str = ""


@dataclass(frozen=True)
class ResultEntered(TableEvent):
    """A side (or the director) entered a result; the other side confirms it."""
    action: str = "result_entered"


@dataclass(frozen=True)
class SideConfirmed(TableEvent):
    """One of several confirming sides agreed (a three-seat table); the table waits for the others."""
    action: str = "result_confirmed_by_one"


@dataclass(frozen=True)
class ResultConfirmed(TableEvent):
    """The table's result stands: every other side (or the director) confirmed it."""
    action: str = "result_confirmed"


@dataclass(frozen=True)
class TeamMatchConfirmed(ResultConfirmed):
    """Both rooms (and any extra deal) of a team match are confirmed: the engine scored the match."""


@dataclass(frozen=True)
class ResultCorrected(TableEvent):
    """The director changed a confirmed (or forfeited) result; `overridden`: past the correction window."""
    action: str = "result_corrected"
    overridden: bool = False
    redraw_offered: bool = False


@dataclass(frozen=True)
class ForfeitRecorded(TableEvent):
    """A forfeit (or a force-majeure draw): the table is settled without play."""
    action: str = "forfeit_recorded"


@dataclass(frozen=True)
class DisputeRaised(TableEvent):
    action: str = "result_disputed"


@dataclass(frozen=True)
class DisputeSettled(TableEvent):
    """The director's entry settles a dispute: the result is confirmed at once, with a published reason."""
    action: str = "dispute_settled"


@dataclass(frozen=True)
class RoomResultEntered(TableEvent):
    room: str = ""
    action: str = "room_result_entered"


@dataclass(frozen=True)
class RoomResultConfirmed(TableEvent):
    room: str = ""
    action: str = "room_result_confirmed"


@dataclass(frozen=True)
class RoomDisputed(TableEvent):
    room: str = ""
    action: str = "room_result_disputed"


@dataclass(frozen=True)
class LineupAnnounced(TableEvent):
    entry_id: str = ""
    late: bool = False
    action: str = "lineup_announced"


@dataclass(frozen=True)
class ArrivalRecorded(TableEvent):
    entry_id: str = ""
    action: str = "arrival_recorded"


# --------------------------------------------------------------------------- rounds

@dataclass(frozen=True)
class RoundEvent(Event):
    tournament_id: str
    event_id: str
    stage: int
    round_no: int


@dataclass(frozen=True)
class RoundDrawn(RoundEvent):
    pass


@dataclass(frozen=True)
class RoundClosed(RoundEvent):
    pass


@dataclass(frozen=True)
class RoundEdited(RoundEvent):
    """The chief referee's pairing edit of the open round."""


# --------------------------------------------------------------------------- appeals

@dataclass(frozen=True)
class AppealEvent(Event):
    tournament_id: str
    event_id: str
    appeal_id: str
    round_no: int
    table_no: int
    version: int


@dataclass(frozen=True)
class AppealLodged(AppealEvent):
    pass


@dataclass(frozen=True)
class AppealFeePaid(AppealEvent):
    pass


@dataclass(frozen=True)
class AppealDecided(AppealEvent):
    outcome: str = ""
    fee_status: str = ""
    entry_id: str = ""       # who lodged it: the one told the decision (issue 41's messages)
    ruling: str = ""


# --------------------------------------------------------------------------- the hall

@dataclass(frozen=True)
class HallChanged(Event):
    """The round clock or the announcements changed: the feeds and the board, no event's pages."""
    tournament_id: str


# --------------------------------------------------------------------------- payments and registration
# (lane "payments": raised by chalicelib/domain/payment.py and services/payments.py, registration.py)

@dataclass(frozen=True)
class PaymentConfirmed(Event):
    payment_id: str
    provider: str
    amount: int
    currency: str
    entry_ids: tuple[str, ...] = ()
    registration_id: str | None = None


@dataclass(frozen=True)
class PaymentFailed(Event):
    payment_id: str
    provider: str
    reason: str
    entry_ids: tuple[str, ...] = ()
    registration_id: str | None = None


@dataclass(frozen=True)
class PaymentRefunded(Event):
    payment_id: str
    provider: str
    amount: int              # this refund (minor units)
    total_refunded: int      # refunded so far
    full: bool               # the whole payment is back
    currency: str = ""
    entry_ids: tuple[str, ...] = ()   # whose money it was (a day's payment refunded in part: that entry only)


@dataclass(frozen=True)
class RegistrationConfirmed(Event):
    tournament_id: str
    registration_id: str     # a day's registration id, or the entry id of a single registration
    entry_ids: tuple[str, ...] = field(default=())


@dataclass(frozen=True)
class WaitlistPromoted(Event):
    event_id: str
    entry_id: str
    pay_by: datetime | None = None   # None: the place is confirmed (nothing to pay)
    tournament_id: str = ""


@dataclass(frozen=True)
class HoldExpiring(Event):
    event_id: str
    entry_id: str
    expires_at: datetime


@dataclass(frozen=True)
class HoldReleased(Event):
    """The time to pay ran out: the held place is freed (the entry cancelled; a late payment may restore it)."""
    tournament_id: str
    event_id: str
    entry_id: str
