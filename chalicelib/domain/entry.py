"""An entry's status and what may happen to it (issue 37).

    partner_wanted ──merge──▶ merged
    (new) ──▶ confirmed (nothing to pay) | pending_payment (a held place) | waitlisted (full)
    waitlisted ──promote──▶ pending_payment | confirmed
    pending_payment ──pay / record_offline──▶ confirmed ──void_payment──▶ pending_payment
    pending_payment ──release_hold──▶ cancelled (a late payment may restore it: pay)
    confirmed ──check_in / undo_check_in──▶ confirmed;  confirmed ──disqualify──▶ disqualified
    any open ──cancel──▶ cancelled | withdrawn          payment_state refund_due ──refund_paid──▶ refunded

The record stays `models.entries.Entry` (its JSON is stored and answered as it is); these functions are its
transitions: each checks the current status, moves the version, stamps `now` and returns the new entry and the
events it raises. Statuses are written as their plain strings, so the stored JSON is the same as before.
"""
from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from .. import errors
from ..models.entries import Entry, refunded
from .events import Event, HoldReleased, RegistrationConfirmed, WaitlistPromoted


class EntryStatus(StrEnum):
    CONFIRMED = "confirmed"
    PENDING_PAYMENT = "pending_payment"
    WAITLISTED = "waitlisted"
    PARTNER_WANTED = "partner_wanted"
    CANCELLED = "cancelled"
    WITHDRAWN = "withdrawn"
    MERGED = "merged"
    DISQUALIFIED = "disqualified"


class EntryPayment(StrEnum):
    """The entry's own word for its money (`payment_state`), beside the Payment record's state."""
    NONE = "none"
    UNPAID = "unpaid"
    PENDING = "pending"
    PAID = "paid"
    REFUND_DUE = "refund_due"
    REFUNDED = "refunded"


HOLDS_PLACE = frozenset({EntryStatus.CONFIRMED, EntryStatus.PENDING_PAYMENT})
# Gone for good: a retried cancel changes nothing, and nothing may be edited.
CLOSED = frozenset({EntryStatus.CANCELLED, EntryStatus.WITHDRAWN, EntryStatus.MERGED})
# Out of the event: no longer drawn, nor counted in its standings.
LEFT = frozenset({EntryStatus.WITHDRAWN, EntryStatus.CANCELLED, EntryStatus.DISQUALIFIED})
HOLD_RELEASED = "hold_released"   # the notice's prefix that lets a late payment restore the place

Result = tuple[Entry, list[Event]]


def _moved(entry: Entry, now: datetime | None, **changes: Any) -> Entry:
    """version + 1, `now` as updated_at (None: left as it was, as some writes always did); enums as their strings."""
    for key in ("status", "payment_state"):
        if key in changes:
            changes[key] = str(changes[key])
    stamp = {} if now is None else {"updated_at": now}
    return entry.model_copy(update={**changes, **stamp, "version": entry.version + 1})


def is_closed(entry: Entry) -> bool:
    return entry.status in CLOSED


def initial_status(due: int, partner_wanted: bool = False) -> EntryStatus:
    """A new entry: looking for a partner, confirmed when there is nothing to pay, else holding a place to pay."""
    if partner_wanted:
        return EntryStatus.PARTNER_WANTED
    return EntryStatus.CONFIRMED if due == 0 else EntryStatus.PENDING_PAYMENT


def initial_payment_state(due: int) -> EntryPayment:
    return EntryPayment.NONE if due == 0 else EntryPayment.UNPAID


def default_name(name: str | None, members: list) -> str:
    """A pair's or team's name when none was given: the player's own, or the first member's "队"."""
    return name or (members[0].name if len(members) == 1 else members[0].name + "队")


def new_entry(*, entry_id: str, event_id: str, tournament_id: str, name: str | None, members: list, due: int,
              currency: str, now: datetime, manage_token_hash: str, club: str = "", note: str = "",
              partner_wanted: bool = False, registration_id: str | None = None, hold_until: datetime | None = None
              ) -> Entry:
    """A registration's entry: its status from what it owes; a place to pay for is held until `hold_until`."""
    status = initial_status(due, partner_wanted)
    fields: dict[str, Any] = {}
    if status == EntryStatus.PENDING_PAYMENT and hold_until is not None:
        fields["hold_expires_at"] = hold_until
    if registration_id is not None:
        fields["registration_id"] = registration_id
    return Entry(id=entry_id, event_id=event_id, tournament_id=tournament_id, name=default_name(name, members),
                 club=club, members=members, partner_wanted=partner_wanted, status=str(status), amount_due=due,
                 currency=currency, payment_state=str(initial_payment_state(due)), created_at=now, updated_at=now,
                 manage_token_hash=manage_token_hash, note=note, **fields)


def waits_for_place(entry: Entry, *, taken: int, capacity: int, waitlist: bool, all_shards_full: bool = False) -> bool:
    """Known full a moment ago (or every counter shard seen full): straight to the waitlist, whose write checks
    that every place is still taken. Without a waitlist the place write is tried anyway: "full" is said only on
    counters a write saw."""
    return entry.holds_place and waitlist and (taken >= capacity or all_shards_full)


def closed_by_draw(counters: dict, late_entries: bool) -> bool:
    """The event's counters, as a write saw them, say a draw closed registration meanwhile: the first draw, or
    with late entries the last round they may join."""
    return bool((counters.get("drawn") and not late_entries) or counters.get("late_closed"))


def to_waitlist(entry: Entry) -> Entry:
    """A new entry the event had no place for waits in line (nothing held, nothing charged). Not a move of a
    stored record: the same version, as the entry is written for the first time."""
    if entry.status not in HOLDS_PLACE:
        raise errors.Conflict(f"Entry status is {entry.status}: only a new entry waits for a place.")
    return entry.model_copy(update={"status": str(EntryStatus.WAITLISTED), "waitlist_key": entry.id,
                                    "hold_expires_at": None, "payment_id": None,
                                    "payment_state": str(initial_payment_state(entry.amount_due))})


def promote(entry: Entry, now: datetime, *, hold: datetime | None, notice: str) -> Result:
    """A waiting entry gets a freed place: held until `hold` when it still owes its fee, else confirmed."""
    if entry.status != EntryStatus.WAITLISTED:
        raise errors.Conflict(f"Entry status is {entry.status}: only a waiting entry is promoted.")
    owes = entry.amount_due > 0 and entry.amount_paid < entry.amount_due
    after = _moved(entry, now, status=EntryStatus.PENDING_PAYMENT if owes else EntryStatus.CONFIRMED,
                   waitlist_key=None, hold_expires_at=hold, notices=[*entry.notices, notice])
    return after, [WaitlistPromoted(entry.event_id, entry.id, hold, entry.tournament_id)]


def pay(entry: Entry, amount: int, payment_id: str, now: datetime, *, registration_id: str | None = None) -> Result:
    """The provider's money for this entry arrived. Holding a place: confirmed (RegistrationConfirmed when it was
    waiting for this). Its hold released or waiting in line: the place is restored (the store refuses it when the
    event is full meanwhile: then `paid_too_late`). Otherwise refused: the money goes back."""
    update = {"amount_paid": entry.amount_paid + amount, "payment_state": EntryPayment.PAID, "payment_id": payment_id,
              "hold_expires_at": None, "status": EntryStatus.CONFIRMED}
    confirmed = [RegistrationConfirmed(entry.tournament_id, registration_id or entry.id, (entry.id,))]
    if entry.status in HOLDS_PLACE:
        after = _moved(entry, now, **update)
        return after, confirmed if entry.status == EntryStatus.PENDING_PAYMENT else []
    if restorable(entry):
        after = _moved(entry, now, **update, waitlist_key=None,
                       notices=[*entry.notices, "付款已到，名额已恢复 · Payment received: place restored"])
        return after, confirmed
    raise errors.Conflict(f"Entry status is {entry.status}: its place cannot be restored.")


def restorable(entry: Entry) -> bool:
    """A late payment may give back the place of a waiting entry or of one whose hold ran out (not a cancel)."""
    return entry.status == EntryStatus.WAITLISTED or (
        entry.status == EntryStatus.CANCELLED and any(n.startswith(HOLD_RELEASED) for n in entry.notices))


def paid_too_late(entry: Entry, amount: int, now: datetime) -> Result:
    """No place to give for money that came: kept only long enough to send it back (status unchanged)."""
    return _moved(entry, now, amount_paid=entry.amount_paid + amount, payment_state=EntryPayment.REFUND_DUE,
                  notices=[*entry.notices, "付款晚于名额释放，将全额退款 · Paid after the hold ended: refunded"]), []


def release_hold(entry: Entry, now: datetime, *, notice: str, payment_id: str | None = None,
                 mark_unpaid: bool = True) -> Result:
    """The time to pay ran out: the held place is freed (the entry is cancelled with a notice; a late payment may
    still restore it). `payment_id`: only the hold that payment was for."""
    if entry.status != EntryStatus.PENDING_PAYMENT or (payment_id is not None and entry.payment_id != payment_id):
        raise errors.Conflict(f"Entry status is {entry.status}: it holds no place waiting for this payment.")
    paid_state = {"payment_state": EntryPayment.UNPAID} if mark_unpaid else {}
    return _moved(entry, now, status=EntryStatus.CANCELLED, hold_expires_at=None, **paid_state,
                  notices=[*entry.notices, notice]), [HoldReleased(entry.tournament_id, entry.event_id, entry.id)]


def cancel(entry: Entry, now: datetime, *, status: EntryStatus = EntryStatus.CANCELLED,
           notices: list[str], owed: int) -> Result:
    """Cancelled by its people or withdrawn by the organiser; `owed` is what goes back (应退). Idempotent: a
    closed entry is answered unchanged."""
    if status not in (EntryStatus.CANCELLED, EntryStatus.WITHDRAWN):
        raise ValueError(f"not a way to leave: {status}")
    if is_closed(entry):
        return entry, []
    refund_due = owed > 0
    return _moved(entry, now, status=status, hold_expires_at=None, waitlist_key=None, notices=notices,
                  refund_owed=owed if refund_due else 0,
                  payment_state=EntryPayment.REFUND_DUE if refund_due else entry.payment_state), []


def refund_sent(entry: Entry, now: datetime | None, *, notice: str | None = None, settles_owed: bool = True
                ) -> Result:
    """The money owed (or taken too late) went back: 应退 → 已退. `entry` already carries the refunded amounts.
    `settles_owed=False`: a late payment sent back leaves what a withdrawal owed as it was."""
    extra = {} if notice is None else {"notices": [*entry.notices, notice]}
    if settles_owed:
        extra["refund_owed"] = 0
    return _moved(entry, now, payment_state=EntryPayment.REFUNDED, **extra), []


def refund_paid(entry: Entry, now: datetime, *, amount: int, notice: str) -> Result:
    """The desk hands back what a withdrawal owes (cash or transfer)."""
    if entry.payment_state != EntryPayment.REFUND_DUE:
        raise errors.Conflict("这个报名没有应退款 · Nothing is owed back on this entry.", {"owed": 0})
    return refund_sent(entry.model_copy(update=refunded(entry, amount)), now, notice=notice)


def record_offline(entry: Entry, amount: int, payment_id: str, now: datetime) -> Result:
    """Cash or a transfer recorded at the desk: confirmed once all the fee is in."""
    if entry.status not in HOLDS_PLACE:
        raise errors.NotHoldingPlace(f"Entry status is {entry.status}: it holds no place to pay for.")
    paid = entry.amount_paid + amount
    full = paid >= entry.amount_due
    return _moved(entry, now, amount_paid=paid, payment_state=EntryPayment.PAID if full else EntryPayment.UNPAID,
                  status=EntryStatus.CONFIRMED if full else entry.status,
                  hold_expires_at=None if full else entry.hold_expires_at, payment_id=payment_id), []


def void_payment(entry: Entry, amount: int, now: datetime) -> Result:
    """The desk takes back a payment it recorded by mistake: the entry owes its fee again."""
    if entry.checked_in or entry.amount_refunded:
        raise errors.Conflict("已签到或已退款：请先撤销签到 · Checked in or refunded: undo the check-in first.",
                              {"reason": "checked_in" if entry.checked_in else "refunded"})
    paid = entry.amount_paid - amount
    owes = paid < entry.amount_due
    status = EntryStatus.PENDING_PAYMENT if entry.status == EntryStatus.CONFIRMED and owes else entry.status
    return _moved(entry, now, amount_paid=paid, payment_state=EntryPayment.UNPAID if owes else EntryPayment.PAID,
                  status=status), []


def check_in(entry: Entry, now: datetime, *, joins_from_round: int | None) -> Result:
    """Only a confirmed entry checks in; a retry answers it unchanged."""
    if entry.status != EntryStatus.CONFIRMED:
        raise errors.NotConfirmed(f"Entry status is {entry.status}: only confirmed entries check in.")
    if entry.checked_in:
        return entry, []
    return _moved(entry, now, checked_in=True, joins_from_round=joins_from_round), []


def undo_check_in(entry: Entry, now: datetime) -> Result:
    if not entry.checked_in:
        return entry, []   # a retry after it was undone
    return _moved(entry, now, checked_in=False, joins_from_round=None), []


def disqualify(entry: Entry, now: datetime, *, reason: str) -> Result:
    """rules.md §8: only a confirmed entry is disqualified; a retry answers it unchanged."""
    if entry.status == EntryStatus.DISQUALIFIED:
        return entry, []
    if entry.status != EntryStatus.CONFIRMED:
        raise errors.Conflict(f"只能取消已确认参赛者的资格 · Only a confirmed entry can be disqualified (this one is "
                              f"{entry.status}).")
    return _moved(entry, now, status=EntryStatus.DISQUALIFIED, notices=[*entry.notices, reason]), []


def merge(entry: Entry, into: Entry, now: datetime) -> Result:
    """A partner seeker joined into a new pair/team entry by the organiser."""
    if entry.status != EntryStatus.PARTNER_WANTED:
        raise errors.Conflict("Only entries looking for a partner can be joined.")
    return _moved(entry, now, status=EntryStatus.MERGED, merged_into=into.id,
                  notices=[*entry.notices, f"已组队 · Joined into {into.name}"]), []


def check_substitutable(entry: Entry) -> None:
    if entry.status != EntryStatus.CONFIRMED:
        raise errors.Conflict(f"只有已确认的参赛者可以换人 · Only a confirmed entry can change a player (this one is "
                              f"{entry.status}).")
