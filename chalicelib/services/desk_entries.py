"""The desk's own entries (api.md v1.3, "The desk and the table"): a walk-in registered on the day, paid at once.

A walk-in goes through the registration service itself (`registration.register(desk=True)`): the same places,
eligibility, roster and one-person-once rules as the public form, without its window (the form is closed on the
day) and without an online checkout. After the first draw it is taken only when the event takes late entries
(the write's own condition on the event's counters says so). The money handed over is then recorded at once, as
the desk's "收现金" does, so a walk-in never stays "未付款" behind the desk's back.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .. import errors
from ..domain import entry as entry_status
from ..domain.entry import EntryStatus
if TYPE_CHECKING:   # the type only: the composition root (bootstrap) imports the services, not the reverse
    from ..bootstrap import Deps
from ..ids import new_id
from ..models import DeskEntryIn, Entry, OfflinePaymentIn, RegistrationAnswer, RegistrationIn
from . import gateways, registration
from .principals import who_of


def walk_in(deps: Deps, eid: str, body: DeskEntryIn, idem_key: str | None, organiser) -> RegistrationAnswer:
    form = RegistrationIn(**body.model_dump(exclude={"payment"}))

    def pays_now(entry: Entry) -> bool:
        return body.payment is not None and entry.status == EntryStatus.PENDING_PAYMENT and _owed(entry) > 0

    def record(entry: Entry, paid: int) -> dict:   # the log says who added it
        return {"id": new_id(), "at": deps.clock().isoformat(), "who": who_of(organiser), "action": "desk_entry",
                "after": {"entry_id": entry.id, "name": entry.name, "paid": paid}}

    # The record goes in the walk-in's last write, in its own transaction: the entry's (nothing to pay now), or
    # the payment's that follows it. A retry (same Idempotency-Key) is answered from the first entry and records
    # nothing, but pays what a crashed first attempt left unpaid, with the record.
    answer = registration.register(deps, eid, form, idem_key, fresh=True, desk=True,
                                   audit=lambda entry: None if pays_now(entry) else record(entry, 0))
    entry = deps.repos.entries.get(eid, answer.entry.id)
    if pays_now(entry):
        owed = _owed(entry)
        entry = registration.record_offline(deps, entry, OfflinePaymentIn(
            method=body.payment.method, amount=owed, reference=body.payment.reference), audit=record(entry, owed))
    return answer.model_copy(update={"entry": registration.view(deps, entry)})


def _owed(entry: Entry) -> int:
    return entry.amount_due - entry.amount_paid


# --------------------------------------------------------------------------- the desk's undo (issue 39)

def _drawn(deps: Deps, entry: Entry) -> bool:
    """Whether a draw has taken this entry (it plays in some stage's plan): its check-in is then part of a round."""
    plans = (deps.repos.rounds.state(entry.event_id) or {}).get("plans") or {}
    return any(entry.id in (p.get("entries") or ()) for p in plans.values())


def undo_check_in(deps: Deps, eid: str, entry_id: str, organiser) -> Entry:
    """A check-in tapped by mistake (or check-in-all taking someone not in the hall), undone before a draw takes
    the entry. Once drawn, the table is the record: a no-show is a forfeit, not an undone check-in."""
    entry = registration.own_entry(deps, eid, entry_id)
    if not entry.checked_in:
        return entry   # a retry after it was undone
    if _drawn(deps, entry):
        raise errors.Conflict("已抽签编排，不能撤销签到（缺席请按弃权处理）· Already drawn into a round: the check-in "
                              "cannot be undone (record a forfeit instead).", {"reason": "drawn"})
    now = deps.clock()
    after, _ = entry_status.undo_check_in(entry, now)
    audit = {"id": new_id(), "at": now.isoformat(), "who": who_of(organiser), "action": "check_in_undone",
             "after": {"entry_id": entry.id, "name": entry.name}}
    deps.repos.rounds.audited_write(eid, audit, lambda ops: deps.repos.entries.transition(entry, after, extra=ops))
    return after


def void_payment(deps: Deps, eid: str, entry_id: str, payment_id: str, organiser) -> Entry:
    """Cash or a transfer recorded by mistake (the wrong row, the wrong amount), taken back: the payment is
    cancelled and the entry owes its fee again, in one transaction. Only the entry's latest desk payment, and
    not once the entry is checked in (undo that first) or has had money back."""
    entry = registration.own_entry(deps, eid, entry_id)
    payment = deps.repos.payments.get(payment_id)
    if payment is None or payment.entry_id != entry.id:
        raise errors.NotFound("找不到这笔收款 · No such payment on this entry.")
    if payment.state == "cancelled":
        return entry   # a retry after it was undone
    at_desk = gateways.gateway(deps, payment.provider)
    if at_desk is None or at_desk.online or payment.state != "confirmed" or entry.payment_id != payment.id:
        raise errors.Conflict("只能撤销报到台最近一笔现金或转账收款 · Only the desk's latest cash or transfer payment "
                              "can be undone.", {"reason": "not_latest_desk_payment"})
    now = deps.clock()
    after, _ = entry_status.void_payment(entry, payment.amount, now)   # refused once checked in or refunded
    voided, _ = payment.void(f"撤销 · undone by {who_of(organiser)}", now)
    audit = {"id": new_id(), "at": now.isoformat(), "who": who_of(organiser), "action": "payment_voided",
             "after": {"entry_id": entry.id, "name": entry.name, "amount": payment.amount, "method": payment.provider}}
    voiding = deps.repos.payments.ops(payment, voided)
    deps.repos.rounds.audited_write(eid, audit, lambda ops: deps.repos.entries.transition(
        entry, after, extra=[*voiding, *ops]))
    return after
