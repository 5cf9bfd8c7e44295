"""An appeal's transitions: lodged in the window by its own side, the fee paid, decided (refunded or kept)."""
from __future__ import annotations

from datetime import datetime, timedelta, UTC

import pytest

from chalicelib import errors
from chalicelib.domain import events as ev
from chalicelib.domain.actor import Actor
from chalicelib.domain.appeal import Appeal

NOW = datetime(2026, 12, 12, 2, 0, tzinfo=UTC)
SIDE_B = Actor("side", "table 3 side 2", side=1)
DIRECTOR = Actor("organiser", "org-1")


def lodge(fee: int = 200, actor: Actor = SIDE_B, entry: str = "B", now: datetime = NOW):
    return Appeal.lodge("AP1", "E1", 2, 3, entry, "对方违例", actor=actor, table_ids=["A", "B"], now=now,
                        deadline=NOW + timedelta(minutes=5), window_minutes=5, fee=fee, currency="CNY",
                        tournament_id="T1")


def test_lodged_by_its_own_side_within_the_window():
    appeal, events = lodge()
    assert (appeal.status, appeal.fee_status, appeal.version) == ("lodged", "due", 1)
    assert appeal.to_item()["fee"] == {"amount": 200, "currency": "CNY"} and "captain_consent" not in appeal.to_item()
    assert events == [ev.AppealLodged("T1", "E1", "AP1", 2, 3, 1)]
    with pytest.raises(errors.Forbidden):
        lodge(entry="A")
    with pytest.raises(errors.InvalidRequest):
        lodge(entry="Z", actor=DIRECTOR)
    with pytest.raises(errors.AppealWindowClosed):
        lodge(now=NOW + timedelta(minutes=6))
    assert lodge(fee=0)[0].fee_status == "none"


def test_the_fee_is_paid_before_the_decision_then_refunded_or_kept():
    appeal, _ = lodge()
    with pytest.raises(errors.Conflict):
        appeal.decide(DIRECTOR, "upheld", "r", refund_if_upheld=True, now=NOW, tournament_id="T1")
    paid, events = appeal.pay_fee("cash", tournament_id="T1")
    assert (paid.fee_status, paid.fee_method, paid.version) == ("paid", "cash", 2)
    assert isinstance(events[0], ev.AppealFeePaid)
    with pytest.raises(errors.Conflict):
        paid.pay_fee("cash", tournament_id="T1")
    upheld, events = paid.decide(DIRECTOR, "upheld", "成立", refund_if_upheld=True, now=NOW, tournament_id="T1")
    assert (upheld.status, upheld.fee_status, upheld.version, upheld.decided_by) == ("decided", "refunded", 3, "org-1")
    assert events == [ev.AppealDecided("T1", "E1", "AP1", 2, 3, 3, outcome="upheld", fee_status="refunded",
                                                entry_id="B", ruling="成立")]
    with pytest.raises(errors.Conflict):
        upheld.decide(DIRECTOR, "rejected", "x", refund_if_upheld=True, now=NOW, tournament_id="T1")
    rejected, _ = paid.decide(DIRECTOR, "rejected", "不成立", refund_if_upheld=True, now=NOW, tournament_id="T1")
    assert rejected.fee_status == "kept"
    kept, _ = paid.decide(DIRECTOR, "upheld", "成立", refund_if_upheld=False, now=NOW, tournament_id="T1")
    assert kept.fee_status == "kept"
    free, _ = lodge(fee=0)[0].decide(DIRECTOR, "upheld", "x", refund_if_upheld=True, now=NOW, tournament_id="T1")
    assert free.fee_status == "none"
