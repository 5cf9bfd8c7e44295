"""A 10,000-entry day through the services on DynamoDB Local: no item the store writes grows with the field.

Swiss rounds drawn, every table's result in, closed (the running totals written) and drawn again from them; a knockout stage of 10,000 (6,384 byes in its
first round) and 256 round-robin groups (every schedule in the plan) drawn too. Every item written is sized as
DynamoDB counts it, at write time (a client hook) and at the end (a scan). (moto takes minutes to query 10,000
entries, so this runs on DynamoDB Local only; publishing is left to its own test and bench/big_event.py.)"""
from __future__ import annotations

import pytest

from chalicelib import bootstrap
from chalicelib.services import rounds as svc
from chalicelib.services import running_totals
from chalicelib.store import dynamo, keys
from tests.bigday import ItemSizes, largest_stored, results_for_round, seed_event

N = 10_000
LIMIT = 100 * 1024


@pytest.fixture(autouse=True)
def _patient_store(monkeypatch):
    """Thousands of items a call on a shared, loaded machine: wait for DynamoDB Local longer than a request would."""
    from chalicelib.store import dynamo
    monkeypatch.setattr(dynamo, "READ_TIMEOUT_S", 30.0)
    dynamo.reset_client()


@pytest.fixture
def big(local_repos, monkeypatch):
    from chalicelib.services import publish_requests
    monkeypatch.setattr(publish_requests, "request_publish", lambda deps, tid, change=None: None)   # as with the queue in AWS
    return local_repos, ItemSizes().attach(dynamo.client())


def test_swiss_rounds_of_ten_thousand_in_small_items(big, clock):
    repos, sizes = big
    deps = bootstrap.deps()
    _, event, organiser = seed_event(repos, clock, N)
    out, _ = svc.draw_next(deps, organiser, event.id, seed=1)
    assert out.number == 1 and len(out.tables) == N // 2
    assert results_for_round(repos, event, 1) == N // 2
    assert svc.close_round(deps, organiser, event.id, 1).status == "closed"
    # the close wrote the stage's running totals (in parts): round 2 is drawn from them, not from round 1's tables
    assert running_totals.stored(deps, event.id, 0, repos.rounds.state(event.id)) is not None
    out, _ = svc.draw_next(deps, organiser, event.id, seed=2)
    assert out.number == 2 and len(out.tables) == N // 2
    state = repos.rounds.state(event.id)
    plan = state["plans"]["0"]
    assert len(plan["entries"]) == N and len(plan["numbers"]) == N
    # round 2 paired on round 1's scores: no rematch among 5,000 tables
    first = {frozenset(s["entry_id"] for s in t["sides"]) for t in repos.rounds.get_round(event.id, 0, 1)[1]}
    second = {frozenset(s["entry_id"] for s in t["sides"]) for t in repos.rounds.get_round(event.id, 0, 2)[1]}
    assert len(second) == N // 2 and not first & second
    # the recorder saw the entries, two draws' table packs and one round's results
    assert sizes.count > N + 3 * (N // 2) // keys.TABLES_PER_ITEM
    assert sizes.largest[0] < LIMIT, sizes.largest
    assert largest_stored(repos)[0] < LIMIT


def test_knockout_and_round_robin_stages_of_ten_thousand(big, clock):
    repos, sizes = big
    deps = bootstrap.deps()
    _, ko, organiser = seed_event(repos, clock, N, name="淘汰赛",
                                  stages=[{"format": "knockout", "scoring": {"method": "match_points"}}])
    out, _ = svc.draw_next(deps, organiser, ko.id, seed=3)
    assert len(out.tables) == N - 8192 and len(out.byes) == 16384 - N   # 1,808 matches, 6,384 byes
    assert len(repos.rounds.get_round(ko.id, 0, 1)[0]["bracket"]) == 8192
    # group play at its largest: 256 groups (the most a stage has) of 8, every Berger schedule in the plan
    _, rr, organiser = seed_event(repos, clock, 2048, name="循环赛",
                                  stages=[{"format": "round_robin", "groups": 256, "scoring": {"method": "match_points"}}])
    out, _ = svc.draw_next(deps, organiser, rr.id, seed=4)
    assert len(out.tables) == 1024
    plan = repos.rounds.state(rr.id)["plans"]["0"]
    assert len(plan["groups"]) == 256 and len(plan["schedules"]) == 256 and len(plan["schedules"][0]) == 7
    assert sizes.largest[0] < LIMIT, sizes.largest
    assert largest_stored(repos)[0] < LIMIT
