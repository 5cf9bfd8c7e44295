"""Issue 43: a publish lease per event and one for the tournament-wide pages, on every store backend — each scope
its own holder and ask count, all of a tournament's counts in one read, and the digest an event's holder notes of
what the tournament-wide pages show of it."""
from __future__ import annotations

from chalicelib.ids import new_id


def test_each_events_lease_is_its_own_and_the_counts_read_at_once(any_repos):
    leases, tid = any_repos.publish_leases, new_id()
    assert leases.ask(tid, ["table:A:0:1:1"], scope="A") == 1
    assert leases.ask(tid, ["*"], scope="B") == 1 and leases.ask(tid, ["hall"], scope="B") == 2
    assert leases.ask(tid) == 1                                              # the tournament-wide pages'
    assert leases.acquire(tid, "a", 1000, 60, scope="A")
    assert leases.acquire(tid, "b", 1000, 60, scope="B")                     # beside A's: not held by it
    assert leases.acquire(tid, "w", 1000, 60)
    assert not leases.acquire(tid, "b2", 1001, 60, scope="B")                # B's has one holder
    assert (leases.holder(tid, scope="A"), leases.holder(tid, scope="B"), leases.holder(tid)) == ("a", "b", "w")
    assert leases.take(tid, scope="B") == (2, ["*", "hall"]) and leases.take(tid, scope="A") == (1, ["table:A:0:1:1"])
    assert leases.take(tid, scope="B") == (2, [])                            # taken: the list starts again
    assert leases.asked_by_scope(tid) == {"A": 1, "B": 2, "": 1}
    leases.ask(tid, ["table:A:0:1:2"], scope="A")                            # an ask while a publishes
    assert not leases.release(tid, "a", 1, scope="A")                        # so a may not stop yet
    assert leases.release(tid, "b", 2, scope="B") and leases.holder(tid, scope="B") is None
    assert leases.holder(tid, scope="A") == "a" and leases.holder(tid) == "w"   # the others' untouched
    assert not leases.release(tid, "a", 2)                                   # a holds A's, not the wide one
    assert leases.asked_by_scope(new_id()) == {}


def test_the_holder_notes_what_the_wide_pages_show_and_hears_when_it_moved(any_repos):
    leases, tid = any_repos.publish_leases, new_id()
    leases.ask(tid, scope="A")
    assert leases.acquire(tid, "a", 1000, 60, scope="A")
    assert leases.show(tid, "A", "a", "d1")          # first noted: the wide pages are asked for
    assert not leases.show(tid, "A", "a", "d1")      # the same: not again
    assert not leases.show(tid, "A", "x", "d2")      # not the holder: its holder compares
    assert leases.show(tid, "A", "a", "d2") and not leases.show(tid, "A", "a", "d2")
    assert leases.release(tid, "a", 1, scope="A")
    assert leases.acquire(tid, "other container", 1001, 60, scope="A")
    assert not leases.show(tid, "A", "other container", "d2")   # what any holder noted last, not this process
