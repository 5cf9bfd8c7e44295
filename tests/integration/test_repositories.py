"""Every repository method, on moto and on DynamoDB Local."""
from __future__ import annotations

from datetime import date

import pytest

from chalicelib import errors
from chalicelib.ids import hash_secret, new_id
from chalicelib.models import Event, EventConfig, Organiser, Tournament


def _token(token_hash, parent=""):
    return {"id": new_id(), "hash": token_hash, "label": "t", "parent": parent, "created_at": "2026-12-01T00:00:00"}


def _organiser(repos, clock, name="甲"):
    org = Organiser(id=new_id(), name=name, created_at=clock())
    token_hash = hash_secret(new_id())
    repos.organisers.create(org, _token(token_hash))
    return org, token_hash


def _tournament(repos, clock, org):
    t = Tournament(id=new_id(), organiser_id=org.id, name="赛事", timezone="Asia/Shanghai", currency="CNY",
                   starts_on=date(2026, 12, 12), ends_on=date(2026, 12, 12), created_at=clock())
    repos.tournaments.create(t)
    return t


def _event(repos, clock, t, capacity=10):
    cfg = EventConfig.model_validate({"name": "掼蛋", "game": "guandan", "entry": "pair", "capacity": capacity,
                                      "stages": [{"format": "swiss", "rounds": 3}]})
    e = Event(id=new_id(), tournament_id=t.id, organiser_id=t.organiser_id, config=cfg, created_at=clock())
    repos.events.create(e)
    return e


def test_organiser_create_lookup_token_and_revoke(any_repos, clock):
    org, token_hash = _organiser(any_repos, clock)
    assert any_repos.organisers.get(org.id).name == "甲"
    assert any_repos.organisers.by_token_hash(token_hash)[0].id == org.id
    assert any_repos.organisers.by_token_hash(hash_secret("wrong")) is None
    other = hash_secret("second")
    record = _token(other)
    any_repos.organisers.add_token(org.id, record)
    with pytest.raises(errors.DuplicateEntry):
        any_repos.organisers.add_token(org.id, _token(other))   # the same secret twice: refused whole
    assert len(any_repos.organisers.tokens(org.id)) == 2
    assert all("hash" not in t for t in any_repos.organisers.tokens(org.id))
    any_repos.organisers.revoke_tokens(org.id, [record["id"]])
    assert any_repos.organisers.by_token_hash(other) is None
    assert len(any_repos.organisers.tokens(org.id)) == 1
    any_repos.organisers.revoke(org.id)
    assert any_repos.organisers.by_token_hash(token_hash) is None
    with pytest.raises(errors.NotFound):
        any_repos.organisers.revoke("missing")


def test_organiser_create_is_all_or_nothing(any_repos, clock):
    org, token_hash = _organiser(any_repos, clock)
    clash = Organiser(id=new_id(), name="乙", created_at=clock())
    with pytest.raises(errors.DuplicateEntry):
        any_repos.organisers.create(clash, _token(token_hash))  # same token hash → the whole write is refused
    assert any_repos.organisers.get(clash.id) is None


def test_tournament_create_get_list_update(any_repos, clock):
    org, _ = _organiser(any_repos, clock)
    t = _tournament(any_repos, clock, org)
    assert any_repos.tournaments.get(t.id) == t
    assert [x.id for x in any_repos.tournaments.list_for_organiser(org.id)] == [t.id]
    with pytest.raises(errors.DuplicateEntry):
        any_repos.tournaments.create(t)
    changed = t.model_copy(update={"name": "改名", "version": 2})
    any_repos.tournaments.update(changed, 1)
    assert any_repos.tournaments.get(t.id).name == "改名"
    with pytest.raises(errors.VersionConflict):
        any_repos.tournaments.update(changed.model_copy(update={"version": 3}), 1)
    assert any_repos.tournaments.get("nope") is None


def test_event_create_get_list_update(any_repos, clock):
    org, _ = _organiser(any_repos, clock)
    t = _tournament(any_repos, clock, org)
    e = _event(any_repos, clock, t)
    got = any_repos.events.get(e.id)
    assert got.config == e.config and got.counters.confirmed == 0
    tournament, events = any_repos.tournaments.get_with_events(t.id)
    assert tournament.id == t.id and [x.id for x in events] == [e.id]
    assert [x.id for x in any_repos.events.list_for_tournament(t.id)] == [e.id]
    bigger = e.model_copy(update={"version": 2, "config": e.config.model_copy(update={"capacity": 20})})
    any_repos.events.update(bigger, 1)
    assert any_repos.events.get(e.id).config.capacity == 20
    with pytest.raises(errors.VersionConflict):
        any_repos.events.update(bigger, 1)
    assert any_repos.events.get("missing") is None


def test_event_for_missing_tournament_writes_nothing(any_repos, clock):
    org, _ = _organiser(any_repos, clock)
    ghost = Tournament(id=new_id(), organiser_id=org.id, name="无", timezone="Asia/Shanghai", currency="CNY",
                       starts_on=date(2026, 12, 12), ends_on=date(2026, 12, 12), created_at=clock())
    with pytest.raises(errors.NotFound):
        _event(any_repos, clock, ghost)
    from chalicelib.store import dynamo
    items = dynamo.client().scan(TableName=any_repos.table.name)["Items"]
    assert not any("EVENT#" in i["PK"]["S"] or "EVENT#" in i["SK"]["S"] for i in items)


def test_publishing_reads_a_closed_round_again_only_when_a_table_changed(any_repos, clock):
    eid = new_id()
    state = {"rounds": [{"n": 1, "stage": 0, "stage_round": 1}], "open_round": 0, "stage": 0, "plans": {}}
    doc = {"event_id": eid, "stage": 0, "number": 1, "stage_round": 1, "seed": 1, "status": "open", "format": "swiss",
           "byes": [], "notes": []}
    table = {"number": 1, "sides": [], "status": "confirmed", "version": 1, "points": {"a": {"level_points": 10}}}
    any_repos.rounds.create_round(eid, doc, [table], state, 0)
    any_repos.rounds.close_round(eid, {**doc, "status": "closed"}, state, 1)
    first = any_repos.rounds.rounds_for_publishing(eid, state)
    assert first[0][0]["status"] == "closed" and first[0][1][0]["points"]["a"]["level_points"] == 10
    again = any_repos.rounds.rounds_for_publishing(eid, state)
    assert again[0][1] is first[0][1]          # served from the cache: not read again
    changed = {**table, "version": 2, "points": {"a": {"level_points": 12}}}
    any_repos.rounds.save_table(eid, 0, 1, changed, 1, {"id": new_id(), "at": clock().isoformat(), "who": "t",
                                                       "action": "result_corrected"})
    fresh = any_repos.rounds.rounds_for_publishing(eid, state)
    assert fresh[0][1][0]["points"]["a"]["level_points"] == 12   # the table write moved the round's rev
