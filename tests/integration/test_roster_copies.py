"""The entries' roster copies (issue 43: store/entries.py roster_copy_ops, keys.roster_chunk): what a draw reads of an
event's entries, kept in the entries' own transactions on every store, under concurrent writers, and read from the
entries for events created before them until store/migrations.copy_rosters has copied them."""
from __future__ import annotations

import json
import threading

import pytest

from chalicelib import errors
from chalicelib.ids import new_id
from chalicelib.models import Member
from chalicelib.store import keys
from tests.integration.test_entries_store import _entry, _setup
from tests.roster_copies import copied_and_own, forget_roster_copies


@pytest.fixture
def few_chunks(monkeypatch):
    """Three chunk items an event: entries of one transaction meet on a chunk (one update each chunk, as DynamoDB
    takes one operation an item), and writers of different entries meet on one."""
    monkeypatch.setattr(keys, "ROSTER_CHUNKS", 3)


def _same(repos, eid: str, n: int | None = None) -> None:
    copied, own = copied_and_own(repos, eid)
    assert copied == own
    if n is not None:
        assert len(copied) == n


def test_every_entry_write_keeps_its_roster_copy(any_repos, clock, few_chunks):
    repos = any_repos
    e = _setup(repos, clock, capacity=20)
    _same(repos, e.id, 0)                                         # an event without entries: an empty roster
    a = _entry(e, clock, club="甲商会")
    repos.entries.create(a)                                       # a registration
    _same(repos, e.id, 1)
    day = [_entry(e, clock) for _ in range(5)]
    other = _setup(repos, clock, capacity=20)
    elsewhere = _entry(other, clock)
    record = {"id": new_id(), "tournament_id": e.tournament_id, "contact": {"name": "张"}, "items": [],
              "payment_id": None, "manage_token_hash": "h", "created_at": clock().isoformat(), "currency": "CNY"}
    repos.entries.create_many([day[0], elsewhere], record)       # a day's registration: an entry in each of two events
    for x in day[1:]:
        repos.entries.create(x)
    _same(repos, e.id, 6)
    _same(repos, other.id, 1)
    checked = a.model_copy(update={"checked_in": True, "version": a.version + 1})
    repos.entries.transition(a, checked)                          # a check-in
    renamed = day[0].model_copy(update={"name": "改名队", "club": "乙商会", "version": day[0].version + 1})
    repos.entries.transition_many([(day[0], renamed)])            # an edit of the roster's fields, no place moved
    withdrawn = day[1].model_copy(update={"status": "withdrawn", "version": day[1].version + 1})
    repos.entries.transition(day[1], withdrawn)                   # a withdrawal
    _same(repos, e.id, 6)
    sub = renamed.model_copy(update={"members": [Member(name="替补", gender="f"), renamed.members[1]],
                                     "version": renamed.version + 1})
    repos.entries.transition(renamed, sub)                        # a substitution (a member's gender is in the row)
    dq = day[2].model_copy(update={"status": "disqualified", "version": day[2].version + 1})
    repos.entries.transition(day[2], dq)                          # a disqualification
    seekers = [_entry(e, clock, status="partner_wanted") for _ in range(2)]
    for s in seekers:
        repos.entries.create(s)
    merged = [s.model_copy(update={"status": "merged", "version": s.version + 1}) for s in seekers]
    joined = _entry(e, clock)
    repos.entries.merge(seekers, merged, joined)                  # partners joined: a new entry, two merged
    _same(repos, e.id, 9)
    erased = day[3].model_copy(update={"name": "已删除", "members": [m.model_copy(update={"phone": None})
                                                                    for m in day[3].members],
                                       "version": day[3].version + 1})
    repos.entries.erase_contacts(day[3], erased)                  # a player's erasure
    swept = day[4].model_copy(update={"name": "已清除", "version": day[4].version + 1})
    repos.retention.erase_entry(day[4], swept)                    # the retention sweep's
    rotated = checked.model_copy(update={"manage_token_hash": "new", "version": checked.version + 1})
    repos.manage_links.rotate([(checked, rotated)], None, "new", [])   # a manage link sent again: no row moves
    _same(repos, e.id, 9)
    rows = {r.id: r for r in repos.entries.roster(e.id)}          # the draw's read is the copies'
    assert (rows[a.id].checked_in, rows[day[1].id].status, rows[day[2].id].status) == (True, "withdrawn", "disqualified")
    assert (rows[day[0].id].name, rows[day[0].id].club, rows[day[0].id].members[0].gender) == ("改名队", "乙商会", "f")
    assert rows[seekers[0].id].status == "merged" and rows[joined.id].status == "confirmed"
    assert rows[day[3].id].name == "已删除" and rows[day[4].id].name == "已清除"
    # only these chunk items hold the event's roster, and a write that failed wrote no copy
    with pytest.raises(errors.VersionConflict):
        repos.entries.transition(a, a.model_copy(update={"name": "过期", "version": a.version + 1}))
    _same(repos, e.id, 9)


def test_concurrent_writers_of_one_chunk_lose_no_copy(any_repos, clock, monkeypatch):
    """Twelve check-ins at once, all on one chunk item: each transaction updates only its own entry's attribute, so
    none overwrites another's (transactions on one item take turns: a conflict is tried again)."""
    monkeypatch.setattr(keys, "ROSTER_CHUNKS", 1)
    repos = any_repos
    e = _setup(repos, clock, capacity=20)
    entries = [_entry(e, clock) for _ in range(12)]
    for x in entries:
        repos.entries.create(x)
    failures = []

    def check_in(x):
        for _ in range(20):
            try:
                repos.entries.transition(x, x.model_copy(update={"checked_in": True, "version": x.version + 1}))
                return
            except errors.Conflict as exc:   # the store's own retries ran out under the crowd: the desk tries again
                failures.append(exc)
        raise AssertionError("never written")
    threads = [threading.Thread(target=check_in, args=(x,)) for x in entries]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    _same(repos, e.id, 12)
    assert all(r.checked_in for r in repos.entries.roster(e.id))


def test_an_event_without_copies_reads_its_entries_until_the_migration_copies_them(any_repos, clock):
    from chalicelib.store import migrations
    from chalicelib.store.entries import ROSTER_ROW
    repos = any_repos
    e = _setup(repos, clock, capacity=20)
    entries = [_entry(e, clock) for _ in range(7)]
    for x in entries:
        repos.entries.create(x)
    forget_roster_copies(repos, e.id)                             # as created before the copies
    assert repos.entries._roster_copies(e.id) is None
    own = [(r.id, r.status, r.checked_in) for r in repos.entries.roster(e.id)]   # the fallback: the entries
    assert own == sorted((x.id, "confirmed", False) for x in entries)
    late = entries[0].model_copy(update={"status": "withdrawn", "version": entries[0].version + 1})
    repos.entries.transition(entries[0], late)                    # a write meanwhile writes its own copy
    newer = keys.roster_chunk(e.id, entries[1].id)                # …and one written since the migration's read:
    repos.table.update(newer, "SET #r = :r", names={"#r": ROSTER_ROW + entries[1].id},
                       values={":r": json.dumps([entries[1].id, "confirmed", True, "队", "", [None, None]])})
    assert migrations.copy_rosters(repos.table) == 1
    assert migrations.copy_rosters(repos.table) == 0              # once
    rows = {r.id: r for r in repos.entries.roster(e.id)}
    assert len(rows) == 7 and rows[entries[0].id].status == "withdrawn"
    assert rows[entries[1].id].checked_in is True                 # kept: the migration sets only rows not there
    for x in entries[2:]:
        assert rows[x.id].status == "confirmed" and rows[x.id].name == x.name
