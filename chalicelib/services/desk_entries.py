"""The desk's own entries (api.md v1.3, "The desk and the table"): a walk-in registered on the day, paid at once.

A walk-in goes through the registration service itself (`registration.register(desk=True)`): the same places,
eligibility, roster and one-person-once rules as the public form, without its window (the form is closed on the
day) and without an online checkout. After the first draw it is taken only when the event takes late entries
(the write's own condition on the event's counters says so). The money handed over is then recorded at once, as
the desk's "收现金" does, so a walk-in never stays "未付款" behind the desk's back.
"""
from __future__ import annotations

from ..bootstrap import Deps
from ..ids import new_id
from ..models import DeskEntryIn, OfflinePaymentIn, RegistrationAnswer, RegistrationIn
from . import registration
from .principals import who_of


def walk_in(deps: Deps, eid: str, body: DeskEntryIn, idem_key: str | None, organiser) -> RegistrationAnswer:
    form = RegistrationIn(**body.model_dump(exclude={"payment"}))
    started = deps.clock()
    answer = registration.register(deps, eid, form, idem_key, fresh=True, desk=True)
    entry = deps.repos.entries.get(eid, answer.entry.id)
    owed = entry.amount_due - entry.amount_paid
    # A retry (same Idempotency-Key) finds the entry already paid: nothing is recorded twice.
    if body.payment is not None and entry.status == "pending_payment" and owed > 0:
        entry = registration._record_offline(deps, entry, OfflinePaymentIn(
            method=body.payment.method, amount=owed, reference=body.payment.reference))
    if answer.entry.created_at >= started:   # made now, not a retry's replay: the log says who added it
        deps.repos.rounds.add_audit(eid, {"id": new_id(), "at": deps.clock().isoformat(), "who": who_of(organiser),
                                          "action": "desk_entry", "after": {"entry_id": entry.id, "name": entry.name,
                                                                            "paid": entry.amount_paid}})
    return answer.model_copy(update={"entry": registration.view(deps, entry)})
