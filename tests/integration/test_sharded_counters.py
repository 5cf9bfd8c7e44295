"""Sharded registration counters (store/counters.py) on moto and DynamoDB Local: the layout an event of
SHARD_THRESHOLD places or more gets, with the guarantees of the single counters item. The invariant tests of
tests/integration/test_entries_store.py run on both layouts too (its `layout` fixture)."""
from __future__ import annotations

import threading
from collections import Counter

import pytest

from chalicelib import bootstrap, errors
from chalicelib.models import RegistrationIn
from chalicelib.store import counters as layout
from tests.integration.test_entries_store import _edit, _entry, _recount, _setup


@pytest.fixture(autouse=True)
def _patient_store(monkeypatch):
    """Dozens of threads on a shared, loaded machine: wait for DynamoDB Local longer than a request would."""
    from chalicelib.store import dynamo
    monkeypatch.setattr(dynamo, "READ_TIMEOUT_S", 30.0)
    dynamo.reset_client()


@pytest.fixture
def sharded(monkeypatch):
    monkeypatch.setattr(layout, "SHARD_THRESHOLD", 4)
    monkeypatch.setattr(layout, "SHARDS", 3)


def _body(i):
    return RegistrationIn(name=f"队{i}", members=[{"name": "甲", "phone": f"1360000{i:04d}"}, {"name": "乙"}])


def test_places_spread_over_shards_and_summed(any_repos, clock, sharded):
    from chalicelib.services import registration
    e = _setup(any_repos, clock, capacity=7)
    items = any_repos.events.counter_items(e.id)
    assert [i.get("shard", 0) for i in items] == [0, 1, 2] and len({i["PK"] for i in items}) == 3
    assert [i["cap"] for i in items] == [3, 2, 2]
    d = bootstrap.deps()
    answers = [registration.register(d, e.id, _body(i), f"key-{i:04d}-abcdefghijklmnop") for i in range(10)]
    assert Counter(a.entry.status for a in answers) == {"confirmed": 7, "waitlisted": 3}
    assert {x.shard for x in any_repos.entries.list(e.id) if x.status == "confirmed"} == {0, 1, 2}
    assert any_repos.entries.counters(e.id) == {"taken": 7, "confirmed": 7, "held": 0, "waitlisted": 3, "cap": 7,
                                                    "config_version": 1}
    assert any_repos.events.get(e.id).counters.taken == 7
    # a retry with the same key is the first answer, never a second entry
    again = registration.register(d, e.id, _body(0), "key-0000-abcdefghijklmnop")
    assert again.entry.id == answers[0].entry.id and len(any_repos.entries.list(e.id)) == 10
    # a place freed on one shard goes to the first waiting entry (arrival order), whatever shard it waited on
    waiting = sorted((any_repos.entries.get(e.id, a.entry.id) for a in answers if a.entry.status == "waitlisted"),
                     key=lambda x: x.waitlist_key)
    registration.cancel_entry(d, any_repos.entries.get(e.id, answers[0].entry.id))
    assert any_repos.entries.get(e.id, waiting[0].id).status == "confirmed"
    assert any_repos.entries.get(e.id, waiting[1].id).status == "waitlisted"
    # capacity raised: the free places spread over the shards again, each shard's share at least what it holds
    _edit(any_repos, e.id, capacity=12)
    caps = [(i["taken"], i["cap"]) for i in any_repos.events.counter_items(e.id)]
    assert sum(c for _, c in caps) == 12 and all(t <= c for t, c in caps)
    registration.promote_waitlist(d, e.id)
    recount = _recount(any_repos, e.id)
    assert recount == {"taken": 9, "confirmed": 9, "held": 0, "waitlisted": 0}
    c = any_repos.entries.counters(e.id)
    assert {k: c[k] for k in recount} == recount and c["cap"] == 12
    with pytest.raises(errors.Conflict):            # below the places taken: refused, as with one item
        _edit(any_repos, e.id, capacity=8)


def test_a_full_shard_sends_the_registration_to_another(any_repos, clock, sharded):
    """Places left on one shard only: a registration that picks a full shard finds it, not the waitlist."""
    from chalicelib.services import registration
    e = _setup(any_repos, clock, capacity=6)
    d = bootstrap.deps()
    for shard in (0, 1, 0, 1):        # shards 0 and 1 filled elsewhere (two places each)
        any_repos.entries.create(_entry(e, clock).model_copy(update={"shard": shard}))
    got = [registration.register(d, e.id, _body(i), None).entry for i in range(3)]
    assert [x.status for x in got] == ["confirmed", "confirmed", "waitlisted"]
    assert [any_repos.entries.get(e.id, x.id).shard for x in got[:2]] == [2, 2]
    assert _recount(any_repos, e.id)["taken"] == 6 == any_repos.entries.counters(e.id)["taken"]


def test_a_rush_on_sharded_counters_never_oversells(local_repos, clock, sharded):
    from chalicelib.services import registration
    e = _setup(local_repos, clock, capacity=9)
    d = bootstrap.deps()
    results, errs = [], []

    def one(i):
        try:
            results.append(registration.register(d, e.id, _body(i), f"key-{i:04d}-abcdefghijklmnop"))
        except Exception as exc:  # noqa: BLE001 pragma: no cover - shown on failure
            errs.append(exc)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(48)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errs
    assert Counter(r.entry.status for r in results) == {"confirmed": 9, "waitlisted": 39}
    per_shard = Counter(x.shard for x in local_repos.entries.list(e.id) if x.status == "confirmed")
    caps = {i.get("shard", 0): (i["taken"], i["cap"])
            for i in local_repos.events.counter_items(e.id)}
    assert all(per_shard[k] == taken <= cap for k, (taken, cap) in caps.items())
    c = local_repos.entries.counters(e.id)
    assert {k: c[k] for k in ("taken", "confirmed", "held", "waitlisted")} == _recount(local_repos, e.id)
