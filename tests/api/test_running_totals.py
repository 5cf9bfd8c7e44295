"""A Swiss stage's running totals (services/running_totals.py), written at each close, against folding every
round's tables again (what a draw did before them): equal at every draw, used while current, and not used once
a closed round's result is corrected (the draw then folds the rounds itself; the next close writes them anew)."""
from __future__ import annotations

import json

import pytest

from chalicelib import bootstrap
from chalicelib.services import results
from chalicelib.services import rounds as svc
from chalicelib.services import running_totals
from chalicelib.services.reads import entries_read_once
from chalicelib.services.standings import stage_records
from tests.bigday import results_for_round, seed_event


@pytest.fixture(autouse=True)
def _no_publish(monkeypatch):
    from chalicelib.services import publish_requests
    monkeypatch.setattr(publish_requests, "request_publish", lambda deps, tid, change=None: None)


def folded(deps, event) -> dict:
    """The field folded from every stored round (the reference: not the code under test's stored copy)."""
    state = deps.repos.rounds.state(event.id)
    records, tables = stage_records(deps, event, 0, state)
    return running_totals.fold({}, records, tables, "match_points")


def reference_field(deps, event, plan, state) -> list:
    """The draw's field as the service built it before running totals (its loops, kept here as the reference)."""
    from chalicelib.engine.formats import Contestant
    records, tables = stage_records(deps, event, 0, state)
    alive = set(plan["entries"]) - {e.id for e in deps.repos.entries.list(event.id)
                                    if e.status in ("withdrawn", "cancelled", "disqualified")}
    score = {e: plan.get("carry", {}).get(e, {}).get("match_points", 0.0) for e in plan["entries"]}
    opponents = {e: set() for e in plan["entries"]}
    byes = {e: 0 for e in plan["entries"]}
    home = {e: [0, 0, None] for e in plan["entries"]}
    seats = {e: {} for e in plan["entries"]}
    losses = {e: 0 for e in plan["entries"]}
    for rec in records:
        for e, pts in rec.points.items():
            if e in score:
                score[e] += pts.get("match_points", 0.0)
        if rec.bye:
            for e in rec.entries:
                byes[e] = byes.get(e, 0) + 1
            continue
        for e in rec.entries:
            if e in opponents:
                opponents[e].update(o for o in rec.entries if o != e)
                if rec.outcome.get(e, 1) == 0:
                    losses[e] += 1
    for t in tables:
        for i, s in enumerate(t["sides"]):
            e = s["entry_id"]
            if e in home:
                if len(t["sides"]) == 2:
                    home[e][0 if i == 0 else 1] += 1
                    home[e][2] = i == 0
                seats[e][s["seats"][0]] = seats[e].get(s["seats"][0], 0) + 1
    clubs = {e.id: e.club for e in deps.repos.entries.list(event.id)}
    return [Contestant(id=e, number=plan["numbers"][e], score=score[e], opponents=frozenset(opponents[e]),
                       byes=byes[e], home=home[e][0], away=home[e][1], last_home=home[e][2], club=clubs.get(e, ""),
                       seat_counts=tuple(sorted(seats[e].items())), losses=losses[e])
            for e in plan["entries"] if e in alive]


def as_compared(field: dict) -> dict:
    """A field's rows comparable: opponents sorted, the points of each match played read (a draw's are read when asked)."""
    return {e: [t[0], sorted(t[1]), *t[2:running_totals.PLAYED], running_totals.played_of(t)] for e, t in field.items()}


def test_totals_stored_at_each_close_equal_every_round_folded(moto_repos, clock):
    deps = bootstrap.deps()
    # 11 entries (a bye each round) over 7 rounds, with early finish (Guandan Swiss's default)
    _, event, organiser = seed_event(moto_repos, clock, 11, stages=[{"format": "swiss", "rounds": 7,
                                                                      "scoring": {"method": "match_points"}}])
    assert svc.early_finish_applies(event, 0)
    used = []
    for n in range(1, 8):
        state = deps.repos.rounds.state(event.id)
        stored = running_totals.stored(deps, event.id, 0, state)
        used.append(stored is not None)
        if n > 1:
            assert stored is not None and as_compared(stored) == as_compared(folded(deps, event)), n
            with entries_read_once():
                plan = state["plans"]["0"]
                fast = svc.contestants(deps, event, 0, plan, state)
            assert fast == reference_field(deps, event, plan, state) and any(c.score for c in fast)
        if n == 4:   # a closed round's result corrected: the stored totals are no longer used
            _, tables = deps.repos.rounds.get_round(event.id, 0, 1)
            t = tables[0]
            a, b = (s["entry_id"] for s in t["sides"])
            results.submit_result(deps, event.id, 1, t["number"], {"version": t["version"], "reason": "typo",
                                                                    "final": {"levels": {a: 2, b: 14}}},
                                  results.Actor("organiser", organiser.id))
            assert running_totals.stored(deps, event.id, 0, deps.repos.rounds.state(event.id)) is None
        svc.draw_next(deps, organiser, event.id, seed=n)
        results_for_round(moto_repos, event, n)
        svc.close_round(deps, organiser, event.id, n)
    assert used == [True] * 7   # round 1: nothing to read; after the correction the close wrote them anew
    doc = deps.repos.rounds.totals(event.id, 0)
    assert doc["through"] == 7 and sorted(doc["round_stamps"]) == [str(n) for n in range(1, 8)]
    assert as_compared(running_totals.decode(doc["field"])) == as_compared(folded(deps, event))
    # the points of each match played are JSON of their own, parsed by a draw only when asked; code from before
    # them (it compared `stamps` and read a `played` column) finds such a document stale and folds the rounds
    assert doc["stamps"] is None and "played" not in doc["field"] and isinstance(doc["field"]["played_text"], str)
    lazy = running_totals.decode(doc["field"], played=False)
    assert all(type(t[running_totals.PLAYED]) is tuple for t in lazy.values())
    assert as_compared(lazy) == as_compared(folded(deps, event))
    # a document written before (its stamps as `stamps`, the column itself) is still read
    old = {**doc, "stamps": doc["round_stamps"], "field": {**{k: v for k, v in doc["field"].items() if k != "played_text"},
                                                           "played": json.loads(doc["field"]["played_text"])}}
    del old["round_stamps"]
    assert as_compared(running_totals.decode(old["field"], played=False)) == as_compared(folded(deps, event))
