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


def test_rate_limits_count_and_decide_in_one_write(any_repos):
    rates = any_repos.rates
    # take: counts while under the limit, then refuses without counting; the next window starts afresh
    assert [rates.take("tablecode", "k", 100, 3, 9_999_999_999) for _ in range(5)] == [True, True, True, False, False]
    assert rates.hits("tablecode", "k", 100) == 3 and rates.hits("tablecode", "k", 101) == 0
    rates.give_back("tablecode", "k", 100)
    assert rates.hits("tablecode", "k", 100) == 2
    # pace: 2 free tries, then a wait that doubles (1 s, then 2 s); clear forgets it
    now = 1_000_000
    assert [rates.pace("signin-account", "a", 7, now, 2, 9_999_999_999) for _ in range(3)] == [0, 0, 1]
    assert rates.pace("signin-account", "a", 7, now + 1, 2, 9_999_999_999) == 0
    assert rates.pace("signin-account", "a", 7, now + 1, 2, 9_999_999_999) == 2
    rates.clear("signin-account", "a", 7)
    assert rates.pace("signin-account", "a", 7, now + 1, 2, 9_999_999_999) == 0


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


def test_a_days_registration_fails_whole_once_a_draw_closed_an_event_and_names_it(any_repos, clock):
    """The counters' conditions a single registration has (config version, not drawn) on a day's too: the draw's
    mark makes the whole write fail, with the event's counters as they are (services/day_registration)."""
    from chalicelib.store.entries import CountersMoved, Expect
    e1, e2 = _setup(any_repos, clock, capacity=5), _setup(any_repos, clock, capacity=5)
    any_repos.entries.t.update(keys.counter_shard(e2.id, 0), "SET drawn = :t", values={":t": True})   # as a draw
    reg_id = new_id()
    record = {"id": reg_id, "tournament_id": e2.tournament_id, "contact": {"name": "张"}, "items": [],
              "payment_id": None, "manage_token_hash": "h", "created_at": clock().isoformat(), "currency": "CNY"}
    x1, x2 = _entry(e1, clock), _entry(e2, clock)
    expect = {e.id: Expect(e.version, before_draw=True) for e in (e1, e2)}
    with pytest.raises(CountersMoved) as exc:
        any_repos.entries.create_many([x1, x2], record, expect=expect)
    assert exc.value.counters["event_id"] == e2.id and exc.value.counters["drawn"] is True
    assert any_repos.entries.find(x1.id) is None and any_repos.entries.registration(reg_id) is None
    assert any_repos.entries.counters(e1.id)["taken"] == 0
    any_repos.entries.create_many([x1], record, expect={e1.id: Expect(e1.version, before_draw=True)})
    assert any_repos.entries.counters(e1.id)["taken"] == 1


def test_several_entries_money_moves_together_or_not_at_all(any_repos, clock):
    """EntryRepo.transition_many (a day's payment partly refunded): every entry only if none changed meanwhile."""
    e = _setup(any_repos, clock, capacity=5)
    a, b = _entry(e, clock, amount_paid=4000), _entry(e, clock, amount_paid=4000)
    for x in (a, b):
        any_repos.entries.create(x)
    a2 = a.model_copy(update={"amount_paid": 0, "amount_refunded": 4000, "version": a.version + 1})
    b2 = b.model_copy(update={"amount_paid": 2000, "amount_refunded": 2000, "version": b.version + 1})
    any_repos.entries.transition(b, b.model_copy(update={"note": "desk", "version": b.version + 1}))   # b moved
    with pytest.raises(errors.VersionConflict):
        any_repos.entries.transition_many([(a, a2), (b, b2)])
    assert any_repos.entries.get(e.id, a.id).amount_paid == 4000                          # a untouched too
    fresh = any_repos.entries.get(e.id, b.id)
    any_repos.entries.transition_many([(a, a2), (fresh, b2.model_copy(update={"version": fresh.version + 1}))])
    assert [(x.amount_paid, x.amount_refunded) for x in (any_repos.entries.get(e.id, a.id), any_repos.entries.get(e.id, b.id))] \
        == [(0, 4000), (2000, 2000)]
    assert any_repos.entries.counters(e.id)["taken"] == 2


def test_get_many_reads_in_one_round_trip_in_the_order_asked(any_repos, clock):
    e = _setup(any_repos, clock)
    got = any_repos.table.get_many([keys.tournament(e.tournament_id), keys.event_counters("missing"),
                                    keys.event_counters(e.id)])
    assert got[0]["SK"] == "META" and got[1] is None and got[2]["cap"] == 2


def test_publish_lease_one_holder_and_no_ask_lost(any_repos):
    leases, tid = any_repos.publish_leases, new_id()
    assert leases.ask(tid) == 1 and leases.asked(tid) == 1
    assert leases.acquire(tid, "a", 1000, 60) and leases.holder(tid) == "a"
    assert not leases.acquire(tid, "b", 1001, 60)                  # held: b only asked
    seen = leases.asked(tid)
    leases.ask(tid)                                                # an ask arrives while a publishes
    assert not leases.release(tid, "a", seen)                      # so a may not stop yet
    assert not leases.release(tid, "b") and leases.holder(tid) == "a"
    assert leases.acquire_again(tid, "a", 1002, 60)
    assert leases.release(tid, "a", leases.asked(tid)) and leases.holder(tid) is None
    assert leases.acquire(tid, "b", 1003, 60)
    assert not leases.acquire_again(tid, "a", 1004, 60)            # not a's any more
    assert leases.acquire(tid, "c", 1003 + 61, 60)                 # b's lease ran out (b crashed): c takes it
    assert not leases.release(tid, "b") and leases.holder(tid) == "c"


@pytest.mark.parametrize("in_background", [False, True])
def test_publishes_asked_at_once_run_one_at_a_time_and_the_last_reads_after_the_last_ask(local_repos, clock,
                                                                                          monkeypatch, in_background):
    """A hall of phones confirming together: while one publish runs, 11 more asks arrive from 11 threads. They
    do not publish beside it (an older publish could write its pages over a newer one's); the running one
    publishes once more, starting after the last ask, so the pages end up with everything. Inline (the local
    server) that further publish runs in a thread, so the first phone's request does not wait for it.
    Since issue 43 each ask ("*": anything) asks the event's lease and the tournament-wide pages' one: each scope
    has one publisher at a time, and each scope's last publish starts after its last ask."""
    import threading
    import time

    from chalicelib import bootstrap
    from chalicelib.services import publishing
    e = _setup(local_repos, clock)
    d = bootstrap.deps()
    events, lock, running = [], threading.Lock(), {}
    first_running, others_back = threading.Event(), threading.Event()
    real_ask = local_repos.publish_leases.ask

    def ask(tid, changes=("*",), scope=""):
        n = real_ask(tid, changes, scope=scope)
        with lock:
            events.append(("ask", scope, time.monotonic()))
        return n

    def slow_publish(deps, tid, force=False, asked=None, scope=None, **_):
        with lock:
            running[scope] = running.get(scope, 0) + 1
            events.append(("start", scope, time.monotonic(), running[scope]))
        if scope == e.id:
            first_running.set()
            # The first publish lasts until each other request has asked and given up on the lease: a request
            # whose lease attempt a loaded machine delayed past this publish and the next would rightly publish a
            # third time.
            others_back.wait(60)
        with lock:
            running[scope] -= 1
        return {"files": 0, "written": 0, "bytes": 0, "largest": ["", 0]}

    monkeypatch.setattr(local_repos.publish_leases, "ask", ask)
    monkeypatch.setattr(publishing, "publish_tournament", slow_publish)
    results, first_result = [], []

    def other():
        out = publishing.publish_latest(d, e.tournament_id, then_in_background=in_background)
        with lock:
            results.append(out)
            if len(results) == 11:
                others_back.set()

    first = threading.Thread(target=lambda: first_result.append(
        publishing.publish_latest(d, e.tournament_id, then_in_background=in_background)))
    first.start()
    assert first_running.wait(60)
    others = [threading.Thread(target=other) for _ in range(11)]
    for t in others:
        t.start()
    for t in [first, *others]:
        t.join(60)
    for t in threading.enumerate():
        if t.name.startswith(f"publish-{e.tournament_id}"):
            t.join(60)
    for scope in (e.id, publishing.WIDE):
        starts = [x for x in events if x[0] == "start" and x[1] == scope]
        asks = [x for x in events if x[0] == "ask" and x[1] == scope]
        assert len(asks) == 12 and max(x[3] for x in starts) == 1, scope   # one publisher of a scope at a time
        assert starts[-1][2] > asks[-1][2], scope                          # its last publish after its last ask
    # the event's: one more publish after the first; the others left their asks to it
    assert len([x for x in events if x[0] == "start" and x[1] == e.id]) == 2
    assert len(results) == 11 and len(first_result) == 1
    assert local_repos.publish_leases.holder(e.tournament_id) is None
    assert local_repos.publish_leases.holder(e.tournament_id, scope=e.id) is None


def test_a_failed_publish_gives_the_lease_back(local_repos, clock, monkeypatch):
    from chalicelib import bootstrap
    from chalicelib.services import publishing
    e = _setup(local_repos, clock)

    def broken(deps, tid, force=False, asked=None, **_):
        raise RuntimeError("sink down")

    monkeypatch.setattr(publishing, "publish_tournament", broken)
    with pytest.raises(RuntimeError):
        publishing.publish_latest(bootstrap.deps(), e.tournament_id)
    assert local_repos.publish_leases.holder(e.tournament_id, scope=e.id) is None   # the next ask publishes at once
    assert local_repos.publish_leases.holder(e.tournament_id) is None


def test_a_token_bucket_passes_a_burst_then_one_each_interval(any_repos, request):
    """RateRepo.bucket (issue 36's registration limits): 3 at once, then one a second; idle, it fills again; a
    token given back is there for the next call; concurrent calls never pass more than the bucket holds."""
    rates, now = any_repos.rates, 1_000_000_000
    assert [rates.bucket("reg-address", "a", now, 3, 1000) for _ in range(4)] == [0, 0, 0, 1000]
    assert rates.bucket("reg-address", "a", now + 500, 3, 1000) == 500
    assert rates.bucket("reg-address", "a", now + 1000, 3, 1000) == 0
    assert rates.bucket("reg-address", "a", now + 1000, 3, 1000) == 1000
    rates.bucket_give_back("reg-address", "a", 1000)
    assert rates.bucket("reg-address", "a", now + 1000, 3, 1000) == 0
    assert rates.bucket("reg-address", "b", now + 1000, 3, 1000) == 0            # another key, its own bucket
    assert [rates.bucket("reg-address", "a", now + 60_000, 3, 1000) for _ in range(4)] == [0, 0, 0, 1000]   # idle: full again
    if request.node.callspec.params["any_repos"] == "moto":
        return   # moto's conditional writes are not atomic across threads (a fresh clone let 6 of 5 through there)
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(8) as pool:
        waits = list(pool.map(lambda _: rates.bucket("reg-address", "c", now, 5, 1000), range(16)))
    assert 1 <= waits.count(0) <= 5   # never more than the bucket holds (a call losing every race is refused)
