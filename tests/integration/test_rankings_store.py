"""The rankings' records (store/rankings.py) on every store backend: a ranking and its events, players written on
the version read, a table counted once per version, a rebuild's replace (issue 42)."""
from __future__ import annotations

import pytest

from chalicelib import errors


def _player(pid, mu=25.0, version=0, **kw):
    return {"player_id": pid, "name": "张三", "club": "商会", "mu": mu, "sigma": 8.0, "tables": 1, "results": {},
            "version": version, **kw}


def test_ranking_events_players_and_table_marks(any_repos):
    repo = any_repos.rankings
    repo.create({"id": "R1", "organiser_id": "O1", "name": "联赛", "game": "guandan", "points": {}, "rating": True})
    with pytest.raises(errors.DuplicateEntry):
        repo.create({"id": "R1", "organiser_id": "O1", "name": "again", "game": "guandan", "points": {}})
    assert repo.get("R1")["name"] == "联赛" and repo.for_organiser("O1") == ["R1"]
    assert repo.add_event("R1", {"event_id": "E1", "date": "2026-01-01"}) is True
    assert repo.add_event("R1", {"event_id": "E1", "date": "2026-01-01"}) is False    # counted once
    with pytest.raises(errors.NotFound):
        repo.add_event("NOPE", {"event_id": "E1"})
    assert [e["event_id"] for e in repo.events("R1")] == ["E1"] and repo.rankings_of_event("E1") == ["R1"]

    # a table counted: the players and the mark together, on the mark as read
    ref = ("E1", 0, 1, 1)
    repo.count_table("R1", ref, 2, [_player("pa", 27.0), _player("pb", 23.0)], {"pa": 2.0, "pb": -2.0}, None)
    assert repo.table_mark("R1", *ref) == {"version": 2, "deltas": {"pa": 2.0, "pb": -2.0}}
    with pytest.raises(errors.VersionConflict):   # the same version again (a retried event): refused, nothing written
        repo.count_table("R1", ref, 2, [_player("pa", 29.0, version=1)], {"pa": 2.0}, None)
    assert repo.rankings_of_player("pb") == ["R1"]
    got = repo.players_by_id("R1", ["pa", "pb", "pc"])
    assert set(got) == {"pa", "pb"} and got["pa"]["mu"] == 27.0 and got["pa"]["version"] == 1
    assert repo.rankings_of_player("pa") == ["R1"]
    with pytest.raises(errors.VersionConflict):   # a player changed meanwhile (read at version 0 again)
        repo.save_players("R1", [_player("pa", 30.0, version=0)])
    repo.save_players("R1", [{**got["pa"], "results": {"E1": [1, 100.0]}}])
    again = repo.players_by_id("R1", ["pa"])["pa"]
    assert again["results"] == {"E1": [1, 100.0]} and again["version"] == 2 and again["mu"] == 27.0
    # a correction: counted on the mark's version
    repo.count_table("R1", ref, 4, [{**again, "mu": 24.0}], {"pa": -1.0}, {"version": 2})
    assert repo.table_mark("R1", *ref)["version"] == 4

    # a rebuild replaces players and marks; what is no longer there goes
    repo.replace_all("R1", [_player("pa", 26.0), _player("pd", 22.0)], {("E1", 0, 1, 2): (1, {"pa": 1.0})})
    assert sorted(p["player_id"] for p in repo.players("R1")) == ["pa", "pd"]
    assert repo.table_mark("R1", *ref) is None
    packed = repo.table_mark("R1", "E1", 0, 1, 2)
    assert packed == {"version": 1, "deltas": {"pa": 1.0}, "packed": True}
    assert repo.rankings_of_player("pd") == ["R1"]
    # a table of a pack counted again: its own item from then on, once (a second writer on the pack's word fails)
    pa = repo.players_by_id("R1", ["pa"])["pa"]
    repo.count_table("R1", ("E1", 0, 1, 2), 3, [{**pa, "mu": 27.0}], {"pa": 1.0}, packed)
    with pytest.raises(errors.VersionConflict):
        repo.count_table("R1", ("E1", 0, 1, 2), 3, [{**pa, "mu": 28.0}], {"pa": 2.0}, packed)
    assert repo.table_mark("R1", "E1", 0, 1, 2) == {"version": 3, "deltas": {"pa": 1.0}}
