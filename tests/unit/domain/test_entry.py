"""An entry's transitions: each allowed one (status, version, events) and each refused one, pure and fast."""
from __future__ import annotations

import json
import typing
from datetime import UTC, datetime, timedelta

import pytest

from chalicelib import errors
from chalicelib.domain import entry as en
from chalicelib.domain.entry import EntryPayment, EntryStatus
from chalicelib.domain.events import HoldReleased, RegistrationConfirmed, WaitlistPromoted
from chalicelib.models.entries import Entry
from chalicelib.models.entries import EntryStatus as StoredStatus

NOW = datetime(2026, 12, 12, 2, 0, tzinfo=UTC)
LATER = NOW + timedelta(minutes=5)


def entry(status: str = "pending_payment", **kw) -> Entry:
    fields = {"id": "N1", "event_id": "E1", "tournament_id": "T1", "name": "张三", "members": [{"name": "张三"}],
              "status": status, "amount_due": 5000, "payment_state": "unpaid", "created_at": NOW, "version": 3}
    return Entry.model_validate({**fields, **kw})


def stored(e: Entry) -> dict:
    """The JSON the store writes: statuses as plain strings, exactly."""
    return json.loads(e.model_dump_json())


def test_the_enum_names_every_stored_status_and_only_those():
    assert {s.value for s in EntryStatus} == set(typing.get_args(StoredStatus))


def test_initial_status():
    assert en.initial_status(0) == "confirmed" and en.initial_status(100) == "pending_payment"
    assert en.initial_status(100, partner_wanted=True) == "partner_wanted"
    assert (en.initial_payment_state(0), en.initial_payment_state(1)) == ("none", "unpaid")


def test_to_waitlist_holds_nothing():
    e = entry(payment_id="P1", payment_state="pending", hold_expires_at=LATER)
    w = en.to_waitlist(e)
    assert (w.status, w.waitlist_key, w.hold_expires_at, w.payment_id, w.payment_state, w.version) == \
        ("waitlisted", "N1", None, None, "unpaid", 3)
    assert type(w.status) is str
    with pytest.raises(errors.Conflict):
        en.to_waitlist(entry("waitlisted"))


def test_promote_holds_for_payment_or_confirms():
    after, events = en.promote(entry("waitlisted", waitlist_key="N1"), NOW, hold=LATER, notice="转正")
    assert (after.status, after.waitlist_key, after.hold_expires_at, after.version, after.updated_at) == \
        ("pending_payment", None, LATER, 4, NOW)
    assert after.notices == ["转正"] and events == [WaitlistPromoted("E1", "N1", LATER, "T1")]
    free, events = en.promote(entry("waitlisted", amount_due=0), NOW, hold=None, notice="转正")
    assert free.status == "confirmed" and events == [WaitlistPromoted("E1", "N1", None, "T1")]
    with pytest.raises(errors.Conflict):
        en.promote(entry("confirmed"), NOW, hold=None, notice="")


def test_pay_confirms_a_held_place_once():
    after, events = en.pay(entry(hold_expires_at=LATER), 5000, "P1", NOW, registration_id="R1")
    assert (after.status, after.amount_paid, after.payment_state, after.payment_id, after.hold_expires_at,
            after.version) == ("confirmed", 5000, "paid", "P1", None, 4)
    assert events == [RegistrationConfirmed("T1", "R1", ("N1",))]
    again, events = en.pay(entry("confirmed"), 100, "P2", NOW)
    assert again.status == "confirmed" and events == []


def test_pay_restores_a_released_hold_or_a_waiting_entry_but_not_a_cancel():
    released = entry("cancelled", notices=["hold_released: 超时"])
    after, events = en.pay(released, 5000, "P1", NOW)
    assert after.status == "confirmed" and after.notices[-1].startswith("付款已到")
    assert events == [RegistrationConfirmed("T1", "N1", ("N1",))]
    assert en.pay(entry("waitlisted", waitlist_key="N1"), 5000, "P1", NOW)[0].waitlist_key is None
    for status in ("cancelled", "withdrawn", "disqualified", "merged"):
        assert not en.restorable(entry(status))
        with pytest.raises(errors.Conflict):
            en.pay(entry(status), 5000, "P1", NOW)


def test_paid_too_late_keeps_the_money_to_send_back():
    after, _ = en.paid_too_late(entry("cancelled"), 5000, NOW)
    assert (after.status, after.amount_paid, after.payment_state, after.version) == ("cancelled", 5000, "refund_due", 4)


def test_release_hold():
    after, events = en.release_hold(entry(payment_id="P1", payment_state="pending", hold_expires_at=LATER), NOW,
                                    notice="hold_released: x", payment_id="P1")
    assert (after.status, after.hold_expires_at, after.payment_state, after.version) == ("cancelled", None, "unpaid", 4)
    assert events == [HoldReleased(after.tournament_id, after.event_id, after.id)] and after.event_id
    assert en.restorable(after)
    kept, _ = en.release_hold(entry(payment_state="none"), NOW, notice="hold_released: x", mark_unpaid=False)
    assert kept.payment_state == "none"
    with pytest.raises(errors.Conflict):
        en.release_hold(entry(payment_id="P2"), NOW, notice="", payment_id="P1")
    with pytest.raises(errors.Conflict):
        en.release_hold(entry("confirmed"), NOW, notice="")


def test_cancel_and_withdraw_owing_or_not_and_idempotent():
    after, _ = en.cancel(entry("confirmed", amount_paid=5000, payment_state="paid", waitlist_key="x"), NOW,
                         status=EntryStatus.WITHDRAWN, notices=["退赛"], owed=5000)
    assert (after.status, after.payment_state, after.refund_owed, after.waitlist_key, after.version) == \
        ("withdrawn", "refund_due", 5000, None, 4)
    assert stored(after)["status"] == "withdrawn"
    nothing, _ = en.cancel(entry(), NOW, notices=[], owed=0)
    assert (nothing.status, nothing.payment_state, nothing.refund_owed) == ("cancelled", "unpaid", 0)
    closed = entry("merged")
    assert en.cancel(closed, NOW, notices=[], owed=0) == (closed, [])
    with pytest.raises(ValueError):
        en.cancel(entry(), NOW, status=EntryStatus.DISQUALIFIED, notices=[], owed=0)


def test_refund_paid_only_when_owed():
    owing = entry("withdrawn", amount_paid=5000, payment_state="refund_due", refund_owed=3000)
    after, _ = en.refund_paid(owing, NOW, amount=3000, notice="已现金退款")
    assert (after.payment_state, after.refund_owed, after.amount_paid, after.amount_refunded, after.version) == \
        ("refunded", 0, 2000, 3000, 4)
    with pytest.raises(errors.Conflict):
        en.refund_paid(entry("withdrawn", payment_state="refunded"), NOW, amount=1, notice="")


def test_record_offline_confirms_when_all_is_in():
    part, _ = en.record_offline(entry(hold_expires_at=LATER), 2000, "P1", NOW)
    assert (part.status, part.payment_state, part.hold_expires_at) == ("pending_payment", "unpaid", LATER)
    full, _ = en.record_offline(part, 3000, "P2", NOW)
    assert (full.status, full.payment_state, full.hold_expires_at, full.amount_paid, full.version) == \
        ("confirmed", "paid", None, 5000, 5)
    with pytest.raises(errors.NotHoldingPlace):
        en.record_offline(entry("waitlisted"), 5000, "P1", NOW)


def test_void_payment_owes_the_fee_again():
    after, _ = en.void_payment(entry("confirmed", amount_paid=5000, payment_state="paid"), 5000, NOW)
    assert (after.status, after.amount_paid, after.payment_state, after.version) == ("pending_payment", 0, "unpaid", 4)
    with pytest.raises(errors.Conflict):
        en.void_payment(entry("confirmed", amount_paid=5000, checked_in=True), 5000, NOW)
    with pytest.raises(errors.Conflict):
        en.void_payment(entry("confirmed", amount_paid=5000, amount_refunded=100), 5000, NOW)


def test_check_in_and_its_undo():
    after, _ = en.check_in(entry("confirmed"), NOW, joins_from_round=3)
    assert (after.checked_in, after.joins_from_round, after.version) == (True, 3, 4)
    assert en.check_in(after, LATER, joins_from_round=None) == (after, [])
    with pytest.raises(errors.NotConfirmed):
        en.check_in(entry(), NOW, joins_from_round=None)
    undone, _ = en.undo_check_in(after, LATER)
    assert (undone.checked_in, undone.joins_from_round, undone.version) == (False, None, 5)
    assert en.undo_check_in(undone, LATER) == (undone, [])


def test_disqualify_only_a_confirmed_entry():
    after, _ = en.disqualify(entry("confirmed"), NOW, reason="取消比赛资格")
    assert (after.status, after.notices, after.version) == ("disqualified", ["取消比赛资格"], 4)
    assert en.disqualify(after, NOW, reason="again") == (after, [])
    with pytest.raises(errors.Conflict):
        en.disqualify(entry("waitlisted"), NOW, reason="x")


def test_merge_only_partner_seekers_and_substitution_only_confirmed():
    new = entry("confirmed", id="N9", name="张三、李四")
    after, _ = en.merge(entry("partner_wanted"), new, NOW)
    assert (after.status, after.merged_into, after.version) == ("merged", "N9", 4)
    assert en.is_closed(after)
    with pytest.raises(errors.Conflict):
        en.merge(entry("confirmed"), new, NOW)
    en.check_substitutable(entry("confirmed"))
    with pytest.raises(errors.Conflict):
        en.check_substitutable(entry("disqualified"))


def test_payment_state_enum_matches_the_model():
    field = Entry.model_fields["payment_state"].annotation
    assert {p.value for p in EntryPayment} == set(typing.get_args(field))


def test_new_entry_holds_a_place_to_pay_and_not_a_free_one():
    members = [{"name": "张三"}, {"name": "李四"}]
    owing = en.new_entry(entry_id="N1", event_id="E1", tournament_id="T1", name=None, members=entry(
        members=members).members, due=5000, currency="CNY", now=NOW, manage_token_hash="h", hold_until=LATER)
    assert (owing.name, owing.status, owing.payment_state, owing.hold_expires_at, owing.version) == \
        ("张三队", "pending_payment", "unpaid", LATER, 1)
    free = en.new_entry(entry_id="N2", event_id="E1", tournament_id="T1", name="一队", members=owing.members, due=0,
                        currency="CNY", now=NOW, manage_token_hash="h", hold_until=LATER, registration_id="R1")
    assert (free.name, free.status, free.payment_state, free.hold_expires_at, free.registration_id) == \
        ("一队", "confirmed", "none", None, "R1")
    seeker = en.new_entry(entry_id="N3", event_id="E1", tournament_id="T1", name=None, members=owing.members[:1],
                          due=0, currency="CNY", now=NOW, manage_token_hash="h", partner_wanted=True)
    assert (seeker.name, seeker.status) == ("张三", "partner_wanted")
    assert type(owing.status) is str and stored(owing)["status"] == "pending_payment"


def test_closed_by_draw():
    assert en.closed_by_draw({"drawn": True}, late_entries=False)
    assert not en.closed_by_draw({"drawn": True, "late_closed": False}, late_entries=True)
    assert en.closed_by_draw({"drawn": True, "late_closed": True}, late_entries=True)
    assert not en.closed_by_draw({"drawn": False}, late_entries=False)


def test_waits_for_place_only_with_a_waitlist_and_no_place():
    held = entry()
    assert en.waits_for_place(held, taken=10, capacity=10, waitlist=True)
    assert not en.waits_for_place(held, taken=10, capacity=10, waitlist=False)
    assert not en.waits_for_place(held, taken=9, capacity=10, waitlist=True)
    assert en.waits_for_place(held, taken=9, capacity=10, waitlist=True, all_shards_full=True)
    assert not en.waits_for_place(entry("partner_wanted"), taken=10, capacity=10, waitlist=True)
