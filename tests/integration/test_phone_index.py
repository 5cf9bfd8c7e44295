"""The phone index ("我的", api.md v1.3 "Players") on every store backend: an entry is indexed by each member's
phone in its own transaction (a refused write indexes nothing), a day's registration also by its contact's phone,
a roster edit moves the index, a merge indexes the joined entry, erasure and `forget` remove it, and the backfill
indexes what was stored before, once."""
from __future__ import annotations

from datetime import date

import pytest

from chalicelib import errors
from chalicelib.ids import new_id
from chalicelib.models import Entry, Event, EventConfig, Member, Tournament
from chalicelib.store import keys, migrations
from chalicelib.store.entries import phone_hash_of

A, B = "13812345678", "+84912345678"


def _event(repos, clock, capacity=4):
    t = Tournament(id=new_id(), organiser_id="o1", name="赛", timezone="Asia/Shanghai", currency="CNY",
                   starts_on=date(2026, 12, 12), ends_on=date(2026, 12, 12), created_at=clock())
    repos.tournaments.create(t)
    cfg = EventConfig.model_validate({"name": "掼蛋", "game": "guandan", "entry": "pair", "capacity": capacity,
                                      "stages": [{"format": "swiss", "rounds": 3}]})
    e = Event(id=new_id(), tournament_id=t.id, organiser_id="o1", config=cfg, created_at=clock())
    repos.events.create(e)
    return e


def _entry(e, clock, phones=(A, None), **kw):
    return Entry(id=new_id(), event_id=e.id, tournament_id=e.tournament_id, name="队", created_at=clock(),
                 members=[Member(name=f"甲{k}", phone=p) for k, p in enumerate(phones)],
                 **{"status": "confirmed", **kw})


def _entry_ids(repos, phone):
    return sorted(h["entry_id"] for h in repos.players.holdings(phone_hash_of(phone)) if h["kind"] == "phone_entry")


def test_entries_are_indexed_with_their_write_and_follow_roster_edits(any_repos, clock):
    e = _event(any_repos, clock, capacity=1)
    a = _entry(e, clock, phones=("138-1234-5678", B))
    any_repos.entries.create(a)
    assert _entry_ids(any_repos, A) == [a.id] == _entry_ids(any_repos, "+86 138 1234 5678")   # key form
    assert _entry_ids(any_repos, B) == [a.id]
    [held] = any_repos.players.holdings(phone_hash_of(A))
    assert (held["event_id"], held["tournament_id"]) == (e.id, e.tournament_id)
    with pytest.raises(errors.EventFull):                       # refused: nothing of it indexed
        any_repos.entries.create(_entry(e, clock, phones=("13900000001", None)))
    assert any_repos.players.holdings(phone_hash_of("13900000001")) == []
    # a roster edit: B leaves, C comes in
    edited = a.model_copy(update={"members": [a.members[0], Member(name="丙", phone="13700000000")], "version": 2})
    any_repos.entries.transition(a, edited)
    assert _entry_ids(any_repos, B) == [] and _entry_ids(any_repos, "13700000000") == [a.id]
    assert _entry_ids(any_repos, A) == [a.id]
    # a failed edit (stale version) moves nothing
    with pytest.raises(errors.VersionConflict):
        any_repos.entries.transition(a, a.model_copy(update={"members": [Member(name="丁", phone=B)], "version": 2}))
    assert _entry_ids(any_repos, B) == []


def test_a_days_registration_its_contact_and_a_merge(any_repos, clock):
    e1, e2 = _event(any_repos, clock), _event(any_repos, clock)
    reg_id = new_id()
    x, y = (_entry(ev, clock, phones=(A, None), registration_id=reg_id) for ev in (e1, e2))
    record = {"id": reg_id, "tournament_id": e1.tournament_id, "contact": {"name": "联系人", "phone": B},
              "items": [], "created_at": clock().isoformat(), "currency": "CNY"}
    any_repos.entries.create_many([x, y], record)
    assert _entry_ids(any_repos, A) == sorted([x.id, y.id])
    regs = [h for h in any_repos.players.holdings(phone_hash_of(B)) if h["kind"] == "phone_registration"]
    assert [r["registration_id"] for r in regs] == [reg_id]
    # partner seekers joined: the joined entry is indexed too
    s1 = _entry(e1, clock, phones=("13600000001",), status="partner_wanted")
    s2 = _entry(e1, clock, phones=("13600000002",), status="partner_wanted")
    any_repos.entries.create(s1), any_repos.entries.create(s2)
    joined = _entry(e1, clock, phones=("13600000001", "13600000002"))
    merged = [s.model_copy(update={"status": "merged", "version": 2}) for s in (s1, s2)]
    any_repos.entries.merge([s1, s2], merged, joined)
    assert _entry_ids(any_repos, "13600000002") == sorted([s2.id, joined.id])


def test_erasure_and_forget_remove_the_index(any_repos, clock):
    e = _event(any_repos, clock)
    a = _entry(e, clock, phones=(A, B))
    any_repos.entries.create(a)
    any_repos.players.get_or_create(phone_hash_of(A), "P1", A, clock().isoformat())
    erased = a.model_copy(update={"members": [Member(name=m.name) for m in a.members], "version": 2})
    any_repos.entries.erase_contacts(a, erased)
    assert _entry_ids(any_repos, A) == [] == _entry_ids(any_repos, B)
    assert any_repos.entries.entry_of_person(e.id, A) is None     # the person item went with the phone
    assert any_repos.entries.get(e.id, a.id).members[0].phone is None
    later = _entry(e, clock, phones=(A, None))
    any_repos.entries.create(later)
    any_repos.entries.create(meanwhile := _entry(_event(any_repos, clock), clock, phones=(A, None)))
    any_repos.players.update_profile(phone_hash_of(A), {"lang": "vi", "notify": {"sms": True, "email": False}})
    player = any_repos.players.update_profile(phone_hash_of(A), {"email": "a@example.com", "name": None})
    assert (player["lang"], player["notify"], player["email"]) == ("vi", {"sms": True, "email": False}, "a@example.com")
    assert any_repos.players.by_phone_hash(phone_hash_of(A))["lang"] == "vi"
    any_repos.players.forget(phone_hash_of(A), None, [later.id], [])
    assert _entry_ids(any_repos, A) == [meanwhile.id]                   # made meanwhile: not forgotten
    assert any_repos.players.by_phone_hash(phone_hash_of(A)) is None
    with pytest.raises(errors.Unauthorized):                            # no player left to update
        any_repos.players.update_profile(phone_hash_of(A), {"lang": "en"})


def test_the_backfill_indexes_what_was_stored_before_once(any_repos, clock):
    e = _event(any_repos, clock)
    a, b = _entry(e, clock, phones=(A, B)), _entry(e, clock, phones=("13600000003", None))
    any_repos.entries.create(a), any_repos.entries.create(b)
    reg_id = new_id()
    any_repos.entries.create_many([], {"id": reg_id, "tournament_id": e.tournament_id, "items": [],
                                       "contact": {"name": "联系人", "phone": "13600000004"}})
    for phone, sk in ((A, f"ENTRY#{a.id}"), (B, f"ENTRY#{a.id}"), ("13600000004", f"REG#{reg_id}")):   # as before
        any_repos.table.delete({"PK": keys.phone_partition(phone_hash_of(phone)), "SK": sk})
    assert _entry_ids(any_repos, A) == []
    assert migrations.index_phones(any_repos.table) == 3
    assert _entry_ids(any_repos, A) == [a.id] == _entry_ids(any_repos, B)
    assert [h["registration_id"] for h in any_repos.players.holdings(phone_hash_of("13600000004"))] == [reg_id]
    assert migrations.index_phones(any_repos.table) == 0


def test_the_backfill_leaves_a_days_entry_to_its_registration_for_the_contacts_phone(any_repos, clock):
    """Follow-up: a day registration's entries get no index item for the contact's phone (create_many: the
    registration's own item finds them, services/players.py), but the backfill, run again, wrote one for each. It
    now skips it the same way (entries.phone_index_ops(entry, indexed=)), and still indexes the other members'."""
    e1, e2 = _event(any_repos, clock), _event(any_repos, clock)
    reg_id = new_id()
    x = _entry(e1, clock, phones=(A, B), registration_id=reg_id)               # the contact plays, with B
    y = _entry(e2, clock, phones=("13600000005", None), registration_id=reg_id)  # the contact does not play
    record = {"id": reg_id, "tournament_id": e1.tournament_id, "contact": {"name": "联系人", "phone": A},
              "items": [{"event_id": x.event_id, "entry_id": x.id}, {"event_id": y.event_id, "entry_id": y.id}],
              "created_at": clock().isoformat(), "currency": "CNY"}
    any_repos.entries.create_many([x, y], record)
    assert _entry_ids(any_repos, A) == [] and _entry_ids(any_repos, B) == [x.id]   # A: through the registration
    assert migrations.index_phones(any_repos.table) == 0                          # nothing missing: nothing added
    assert _entry_ids(any_repos, A) == []
    # what an earlier store lacked: the registration's item and the other members' are written back, A's is not
    for phone, sk in ((A, f"REG#{reg_id}"), (B, f"ENTRY#{x.id}"), ("13600000005", f"ENTRY#{y.id}")):
        any_repos.table.delete({"PK": keys.phone_partition(phone_hash_of(phone)), "SK": sk})
    assert migrations.index_phones(any_repos.table) == 3
    assert _entry_ids(any_repos, A) == [] and _entry_ids(any_repos, B) == [x.id]
    assert _entry_ids(any_repos, "13600000005") == [y.id]
    assert [h["registration_id"] for h in any_repos.players.holdings(phone_hash_of(A))] == [reg_id]
