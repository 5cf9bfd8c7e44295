"""The stores added with staff, sign-in limits, the day's registration and one-person-per-event, on moto and on
DynamoDB Local (every store behaviour runs on both)."""
from __future__ import annotations

import pytest

from chalicelib import errors
from chalicelib.ids import new_id
from chalicelib.models import Member
from chalicelib.store import keys
from chalicelib.store.entries import release_person_ops
from tests.integration.test_entries_store import _entry, _setup


def test_staff_members_and_their_tokens(any_repos, clock):
    e = _setup(any_repos, clock)
    member = {"id": new_id(), "tournament_id": e.tournament_id, "name": "李", "role": "scorer",
              "created_at": clock().isoformat()}
    any_repos.staff.create(member, "hash-1")
    assert any_repos.staff.by_token_hash("hash-1")["role"] == "scorer"
    assert [m["name"] for m in any_repos.staff.list(e.tournament_id)] == ["李"]
    assert "token_hash" not in any_repos.staff.list(e.tournament_id)[0]
    with pytest.raises(errors.DuplicateEntry):
        any_repos.staff.create({**member, "id": new_id()}, "hash-1")   # one token, one member
    any_repos.staff.delete(e.tournament_id, member["id"])
    assert any_repos.staff.by_token_hash("hash-1") is None and any_repos.staff.list(e.tournament_id) == []
    with pytest.raises(errors.NotFound):
        any_repos.staff.delete(e.tournament_id, member["id"])
    # the tournament's own reads are not confused by staff items in its partition
    tournament, events = any_repos.tournaments.get_with_events(e.tournament_id)
    assert tournament.id == e.tournament_id and [x.id for x in events] == [e.id]


def test_rate_counters_count_per_window(any_repos):
    assert any_repos.rates.hits("signin-account", "13800000000", 100) == 0
    assert [any_repos.rates.hit("signin-account", "13800000000", 100, 9_999_999_999) for _ in range(3)] == [1, 2, 3]
    assert any_repos.rates.hits("signin-account", "13800000000", 100) == 3
    assert any_repos.rates.hits("signin-account", "13800000000", 101) == 0   # the next window starts afresh


def test_one_person_once_per_event_and_freed_on_cancel(any_repos, clock):
    e = _setup(any_repos, clock, capacity=5)
    a = _entry(e, clock)
    any_repos.entries.create(a)
    twin = _entry(e, clock).model_copy(update={"members": [Member(name="甲", phone=a.members[0].phone), Member(name="丙")]})
    with pytest.raises(errors.DuplicateEntry) as exc:
        any_repos.entries.create(twin)
    assert exc.value.code == "duplicate_entry"
    assert any_repos.entries.find(twin.id) is None            # nothing half-written
    cancelled = a.model_copy(update={"status": "cancelled", "version": a.version + 1})
    any_repos.entries.transition(a, cancelled, extra=release_person_ops(a))
    any_repos.entries.create(twin)                             # the person may register again
    assert any_repos.entries.find(twin.id).id == twin.id


def test_a_days_registration_is_all_or_nothing(any_repos, clock):
    e1 = _setup(any_repos, clock, capacity=1)
    e2 = _setup(any_repos, clock, capacity=5)
    any_repos.entries.create(_entry(e1, clock))               # e1 is now full
    reg_id = new_id()
    x1, x2 = _entry(e1, clock), _entry(e2, clock)
    record = {"id": reg_id, "tournament_id": e2.tournament_id, "contact": {"name": "张"}, "items": [],
              "payment_id": None, "manage_token_hash": "h", "created_at": clock().isoformat(), "currency": "CNY"}
    with pytest.raises(errors.EventFull) as exc:
        any_repos.entries.create_many([x1, x2], record)
    assert exc.value.details == {"event_id": e1.id}
    assert any_repos.entries.find(x2.id) is None and any_repos.entries.registration(reg_id) is None
    waiting = x1.model_copy(update={"status": "waitlisted", "waitlist_key": x1.id})
    any_repos.entries.create_many([waiting, x2], record)
    assert any_repos.entries.registration(reg_id)["contact"] == {"name": "张"}
    assert any_repos.entries.counters(e1.id)["waitlisted"] == 1 and any_repos.entries.counters(e2.id)["taken"] == 1


def test_get_many_reads_in_one_round_trip_in_the_order_asked(any_repos, clock):
    e = _setup(any_repos, clock)
    got = any_repos.table.get_many([keys.tournament(e.tournament_id), keys.event_counters("missing"),
                                    keys.event_counters(e.id)])
    assert got[0]["SK"] == "META" and got[1] is None and got[2]["cap"] == 2
