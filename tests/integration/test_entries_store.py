"""Entry, payment and idempotency storage on moto and on DynamoDB Local; concurrency on DynamoDB Local."""
from __future__ import annotations

import json
import threading
from collections import Counter
from datetime import date, timedelta

import pytest

from chalicelib import bootstrap, errors
from chalicelib.ids import new_id
from chalicelib.models import Entry, Event, EventConfig, Member, Payment, RegistrationIn, Tournament
from chalicelib.store.entries import IdempotentReplay


@pytest.fixture(params=["one_item", "sharded"])
def layout(request, monkeypatch):
    """The invariants below hold on both counter layouts: one item, and shards (store/counters.py) — here every
    event is sharded, three shards, some holding no place at all."""
    if request.param == "sharded":
        from chalicelib.store import counters
        monkeypatch.setattr(counters, "SHARD_THRESHOLD", 1)
        monkeypatch.setattr(counters, "SHARDS", 3)
    return request.param


def _setup(repos, clock, capacity=2, fee=0):
    t = Tournament(id=new_id(), organiser_id="o1", name="赛", timezone="Asia/Shanghai", currency="CNY",
                   starts_on=date(2026, 12, 12), ends_on=date(2026, 12, 12), created_at=clock())
    repos.tournaments.create(t)
    cfg = EventConfig.model_validate({"name": "掼蛋", "game": "guandan", "entry": "pair", "capacity": capacity,
                                      "fee": {"amount": fee}, "stages": [{"format": "swiss", "rounds": 3}]})
    e = Event(id=new_id(), tournament_id=t.id, organiser_id="o1", config=cfg, created_at=clock())
    repos.events.create(e)
    return e


def _entry(e, clock, status="confirmed", **kw):
    eid = new_id()
    return Entry(id=eid, event_id=e.id, tournament_id=e.tournament_id, name="队", members=[Member(name="甲", phone=f"138{abs(hash(eid)) % 10 ** 8:08d}"), Member(name="乙")],
                 status=status, created_at=clock(), waitlist_key=eid if status == "waitlisted" else None, **kw)


def test_create_transition_counters_and_lookups(any_repos, clock, layout):
    e = _setup(any_repos, clock, capacity=1)
    a = _entry(e, clock)
    any_repos.entries.create(a, idem={"PK": f"IDEM#{e.id}#k1", "SK": "META", "entry_id": a.id, "body_hash": "h"})
    assert any_repos.entries.find(a.id) == a and any_repos.entries.get(e.id, a.id) == a
    assert any_repos.entries.idempotency(e.id, "k1")["entry_id"] == a.id
    with pytest.raises(errors.EventFull):
        any_repos.entries.create(_entry(e, clock))
    with pytest.raises(IdempotentReplay):
        any_repos.entries.create(_entry(e, clock, status="waitlisted"), idem={"PK": f"IDEM#{e.id}#k1", "SK": "META"})
    w = _entry(e, clock, status="waitlisted")
    any_repos.entries.create(w)
    assert any_repos.entries.waitlist(e.id) == [w.id]
    assert any_repos.entries.counters(e.id) == {"taken": 1, "confirmed": 1, "held": 0, "waitlisted": 1, "cap": 1, "config_version": 1}
    cancelled = a.model_copy(update={"status": "cancelled", "version": 2})
    any_repos.entries.transition(a, cancelled)
    with pytest.raises(errors.VersionConflict):
        any_repos.entries.transition(a, cancelled)
    promoted = w.model_copy(update={"status": "pending_payment", "waitlist_key": None, "version": 2,
                                    "hold_expires_at": clock() + timedelta(minutes=5)})
    any_repos.entries.transition(w, promoted)
    assert any_repos.entries.waitlist(e.id) == []
    assert any_repos.entries.counters(e.id) == {"taken": 1, "confirmed": 0, "held": 1, "waitlisted": 0, "cap": 1, "config_version": 1}
    soon = (clock() + timedelta(minutes=10)).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert any_repos.entries.expired_holds(soon) == [(e.id, w.id)]
    assert any_repos.entries.expired_holds(clock().strftime("%Y-%m-%dT%H:%M:%SZ")) == []
    assert {x.id for x in any_repos.entries.list(e.id)} == {a.id, w.id}
    assert [x.id if x else None for x in any_repos.entries.get_many(e.id, [w.id, "nope", a.id])] == [w.id, None, a.id]
    assert any_repos.entries.get_many(e.id, []) == []


def test_merge_and_payments(any_repos, clock, layout):
    e = _setup(any_repos, clock, capacity=1)
    s1, s2 = _entry(e, clock, status="partner_wanted"), _entry(e, clock, status="partner_wanted")
    any_repos.entries.create(s1)
    any_repos.entries.create(s2)
    new = _entry(e, clock)
    merged = [s.model_copy(update={"status": "merged", "version": 2}) for s in (s1, s2)]
    any_repos.entries.merge([s1, s2], merged, new)
    assert any_repos.entries.counters(e.id)["taken"] == 1
    assert any_repos.entries.get(e.id, s1.id).status == "merged"
    p = Payment(id=new_id(), entry_id=new.id, event_id=e.id, provider="stripe", state="created", amount=100,
                currency="CNY", created_at=clock(), updated_at=clock())
    any_repos.payments.put_new(p)
    with pytest.raises(errors.DuplicateEntry):
        any_repos.payments.put_new(p)
    p2 = p.model_copy(update={"state": "pending", "version": 2})
    any_repos.payments.save(p, p2)
    with pytest.raises(errors.VersionConflict):
        any_repos.payments.save(p, p2)
    assert any_repos.payments.get(p.id).state == "pending"
    assert not any_repos.payments.stripe_event_seen("evt_1")
    p3 = p2.model_copy(update={"state": "confirmed", "version": 3})
    any_repos.payments.save(p2, p3, stripe_event=("evt_1", 1))
    assert any_repos.payments.stripe_event_seen("evt_1")
    with pytest.raises(errors.DuplicateEntry):  # the same event again: nothing is written
        any_repos.payments.save(p3, p3.model_copy(update={"version": 4}), stripe_event=("evt_1", 1))
    assert any_repos.payments.get(p.id).version == 3


def _recount(repos, eid):
    c = Counter(x.status for x in repos.entries.list(eid))
    return {"taken": c["confirmed"] + c["pending_payment"], "confirmed": c["confirmed"],
            "held": c["pending_payment"], "waitlisted": c["waitlisted"]}


def test_concurrent_registrations_never_oversell(local_repos, clock, layout, monkeypatch):
    from chalicelib.store import dynamo
    monkeypatch.setattr(dynamo, "READ_TIMEOUT_S", 30.0)   # 40 threads on a shared, loaded machine
    dynamo.reset_client()
    from chalicelib.services import registration
    e = _setup(local_repos, clock, capacity=5)
    d = bootstrap.deps()
    results, errs = [], []

    def one(i):
        try:
            body = RegistrationIn(name=f"队{i}", members=[{"name": "甲", "phone": f"1380000{i:04d}"}, {"name": "乙"}])
            results.append(registration.register(d, e.id, body, f"key-{i:04d}-abcdefghijklmnop"))
        except Exception as exc:  # noqa: BLE001 pragma: no cover - shown on failure
            errs.append(exc)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(40)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errs
    statuses = Counter(r.entry.status for r in results)
    assert statuses == {"confirmed": 5, "waitlisted": 35}
    counters = local_repos.entries.counters(e.id)
    assert {k: counters[k] for k in ("taken", "confirmed", "held", "waitlisted")} == _recount(local_repos, e.id)

    # cancellations race with the promotions they trigger
    confirmed = [r for r in results if r.entry.status == "confirmed"]
    waiting = [r for r in results if r.entry.status == "waitlisted"][:10]

    def cancel(r):
        entry = local_repos.entries.get(e.id, r.entry.id)
        try:
            registration.cancel_entry(d, entry)
        except errors.Conflict:
            registration.cancel_entry(d, local_repos.entries.get(e.id, r.entry.id))

    threads = [threading.Thread(target=cancel, args=(r,)) for r in confirmed + waiting]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    registration.promote_waitlist(d, e.id)
    recount = _recount(local_repos, e.id)
    counters = local_repos.entries.counters(e.id)
    assert {k: counters[k] for k in ("taken", "confirmed", "held", "waitlisted")} == recount
    assert recount["taken"] == 5 and recount["waitlisted"] == 40 - 5 - 5 - 10


def _edit(repos, eid, **config_changes):
    """The organiser edits the event (as services/tournaments.update_event stores it): a new config version."""
    ev = repos.events.get(eid)
    config = EventConfig.model_validate(ev.config.model_dump(mode="json") | config_changes)
    repos.events.update(ev.model_copy(update={"config": config, "version": ev.version + 1}), ev.version)


def test_registration_without_a_read_checks_what_it_assumed(any_repos, clock):
    """Issue 16: with the event cached, a registration is one transaction whose conditions check the cache's
    assumptions; when another process moved the places or the organiser edited the event, the outcome is the
    one a fresh read would have given, and nothing is written twice."""
    from chalicelib.services import registration
    from chalicelib.store import dynamo
    e = _setup(any_repos, clock, capacity=3)
    d = bootstrap.deps()
    body = lambda i: RegistrationIn(name=f"队{i}", members=[{"name": "甲", "phone": f"1390000{i:04d}"}, {"name": "乙"}])  # noqa: E731
    calls: list[str] = []
    hook = lambda model, **_: calls.append(model.name)  # noqa: E731
    dynamo.client().meta.events.register("before-call.dynamodb", hook)
    try:
        first = registration.register(d, e.id, body(1), None)       # reads the event, then writes
        assert first.entry.status == "confirmed" and calls[-1] == "TransactWriteItems" and len(calls) > 1
        calls.clear()
        second = registration.register(d, e.id, body(2), None)      # cached: the write alone
        assert second.entry.status == "confirmed" and calls == ["TransactWriteItems"]
        any_repos.entries.create(_entry(e, clock))                  # another process takes the last place
        calls.clear()
        third = registration.register(d, e.id, body(3), None)       # the place write finds it full: waitlist
        assert third.entry.status == "waitlisted" and calls == ["TransactWriteItems"] * 2
        calls.clear()
        fourth = registration.register(d, e.id, body(4), None)      # now known full: the waitlist write alone
        assert fourth.entry.status == "waitlisted" and calls == ["TransactWriteItems"]
        for r in (first, second):                                   # two places freed elsewhere, nobody promoted
            before = any_repos.entries.get(e.id, r.entry.id)
            any_repos.entries.transition(before, before.model_copy(update={"status": "cancelled", "version": 2}))
        calls.clear()
        fifth = registration.register(d, e.id, body(5), None)       # the waitlist write finds a place free: takes it
        assert fifth.entry.status == "confirmed" and calls == ["TransactWriteItems"] * 2
    finally:
        dynamo.client().meta.events.unregister("before-call.dynamodb", hook)
    # the organiser charges a fee: the cached config's version no longer matches; decided again on the new one
    _edit(any_repos, e.id, fee={"amount": 3000, "per": "entry"})
    sixth = registration.register(d, e.id, body(6), None)
    assert sixth.entry.amount_due == 3000 and sixth.entry.status == "pending_payment"
    # and closes registration: refused, though this process's copy says open
    _edit(any_repos, e.id, registration={"closes_at": (clock() - timedelta(hours=1)).isoformat()})
    with pytest.raises(errors.RegistrationClosed):
        registration.register(d, e.id, body(7), None)
    counters = any_repos.entries.counters(e.id)
    recount = _recount(any_repos, e.id)
    assert {k: counters[k] for k in ("taken", "confirmed", "held", "waitlisted")} == recount
    assert recount == {"taken": 3, "confirmed": 2, "held": 1, "waitlisted": 2}
    assert len(any_repos.entries.list(e.id)) == 7   # seven asked (one elsewhere), one refused: none written twice


def test_full_without_waitlist_is_said_only_on_counters_the_write_saw(any_repos, clock, layout):
    from chalicelib.services import registration
    e = _setup(any_repos, clock, capacity=1)
    _edit(any_repos, e.id, waitlist=False)
    d = bootstrap.deps()
    body = lambda i: RegistrationIn(name=f"队{i}", members=[{"name": "甲", "phone": f"1370000{i:04d}"}, {"name": "乙"}])  # noqa: E731
    first = registration.register(d, e.id, body(1), None)
    with pytest.raises(errors.EventFull):
        registration.register(d, e.id, body(2), None)             # this process now knows the event is full
    before = any_repos.entries.get(e.id, first.entry.id)
    any_repos.entries.transition(before, before.model_copy(update={"status": "cancelled", "version": 2}))
    assert registration.register(d, e.id, body(3), None).entry.status == "confirmed"   # freed elsewhere: taken
    assert any_repos.entries.counters(e.id)["taken"] == 1


def test_the_roster_a_draw_reads_is_the_entries_in_short(any_repos, clock, monkeypatch):
    """An event without roster copies (created before them: store/migrations.copy_rosters) reads one attribute of each
    entry item (what a draw needs); items written before that attribute read whole."""
    from chalicelib.store.entries import entry_item
    from tests.bigday import seed_event
    from tests.roster_copies import forget_roster_copies
    _, event, _ = seed_event(any_repos, clock, 6)
    forget_roster_copies(any_repos, event.id)
    whole = any_repos.entries.list(event.id)
    expected = [(e.id, e.status, e.checked_in, e.name, e.club, [m.gender for m in e.members]) for e in whole]

    def short(rows):
        return [(r.id, r.status, r.checked_in, r.name, r.club, [m.gender for m in r.members]) for r in rows]
    assert short(any_repos.entries.roster(event.id)) == expected and len(expected) == 6
    from chalicelib.store import entries as entries_store
    monkeypatch.setattr(entries_store, "ROSTER_SLICE", 2)      # the key range cut at known ids, read at once
    known = [e.id for e in whole if e.id != whole[3].id]        # an entry the caller does not know is read too
    assert short(any_repos.entries.roster(event.id, known)) == expected
    old = {k: v for k, v in entry_item(whole[2].model_copy(update={"club": "旧商会"})).items() if k != "roster"}
    any_repos.table.put(old)                      # an item as written before the roster attribute
    expected[2] = (*expected[2][:4], "旧商会", expected[2][5])
    assert short(any_repos.entries.roster(event.id)) == expected


def test_a_roster_longer_than_a_page_is_read_by_spans_at_once_each_entry_once(any_repos, clock, monkeypatch):
    """Pages of 3 items (DynamoDB's 1 MB page, made short): the first draw's read (no ids known) cuts what follows
    its first page into spans of ULID read at once, a span longer than a page is cut again; the same entries, in
    key order, each once, as one query reads them; with the ids known too, and an id that is not a ULID. (An event
    without roster copies; the publisher's read of whole entries is the same.)"""
    from chalicelib.store import dynamo, entries as entries_store, keys
    from chalicelib.store.entries import entry_item
    from tests.bigday import seed_event
    from tests.roster_copies import forget_roster_copies
    _, event, _ = seed_event(any_repos, clock, 40)
    forget_roster_copies(any_repos, event.id)
    odd = any_repos.entries.list(event.id)[5].model_copy(update={"id": "00-imported"})
    any_repos.table.put(entry_item(odd))                         # not a ULID; sorts before them all
    expected = [json.loads(i["roster"]["S"]) for i in any_repos.table.query(keys.event_partition(event.id),
                                                                             keys.ENTRY_PREFIX, raw=True)]
    assert len(expected) == 41
    pages = []
    real = any_repos.table.query_page
    monkeypatch.setattr(any_repos.table, "query_page", lambda *a, **k: pages.append(1) or real(*a, **k))
    monkeypatch.setattr(dynamo, "PAGE_ITEMS", 3)
    monkeypatch.setattr(entries_store, "ROSTER_SLICE", 7)
    for known in ([], [r.id for r in any_repos.entries.roster(event.id)][:30]):
        got = any_repos.entries.roster(event.id, known)
        assert [[r.id, r.status, r.checked_in, r.name, r.club, [m.gender for m in r.members]] for r in got] == expected
    assert len(pages) > 2 * 41 / 3                               # pages were short indeed
    whole = [Entry.model_validate_json(i["data"]["S"]) for i in any_repos.table.query(
        keys.event_partition(event.id), keys.ENTRY_PREFIX, raw=True)]
    assert any_repos.entries.list(event.id) == whole             # the publisher's read: whole entries, the same way
    monkeypatch.setattr(entries_store, "LIST_CHUNK", 4)          # parsed a few at a time: the same, in order
    assert any_repos.entries.list(event.id) == whole
