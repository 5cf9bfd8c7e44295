"""RoundRepo on moto and on DynamoDB Local: state under a version, rounds with many tables, results, audit."""
from __future__ import annotations

import pytest

from chalicelib import errors


def _round(n, stage=0):
    return {"event_id": "E1", "stage": stage, "number": n, "stage_round": n, "seed": 7, "status": "open",
            "format": "swiss", "byes": [], "notes": []}


def _tables(count):
    return [{"number": k, "home": f"a{k}", "status": "pending", "version": 0, "points": {},
             "sides": [{"entry_id": f"a{k}", "seats": ["N", "S"]}, {"entry_id": f"b{k}", "seats": ["E", "W"]}]}
            for k in range(1, count + 1)]


def test_round_state_tables_results_and_audit(any_repos):
    repo = any_repos.rounds
    assert repo.state("E1") == {"rounds": [], "open_round": 0, "stage": 0, "plans": {}, "version": 0}
    state = {"rounds": [{"n": 1, "stage": 0, "stage_round": 1}], "open_round": 1, "stage": 0, "plans": {"0": {"rounds": 3}}}
    repo.create_round("E1", _round(1), _tables(60), state, 0)  # more tables than one transaction can hold
    with pytest.raises(errors.RoundOpen):
        repo.create_round("E1", _round(1), _tables(1), state, 0)  # a second draw at the same moment
    got = repo.state("E1")
    assert got["open_round"] == 1 and got["version"] == 1
    doc, tables = repo.get_round("E1", 0, 1)
    assert doc["seed"] == 7 and len(tables) == 60 and tables[0]["number"] == 1
    table = dict(tables[0], status="entered", version=1, points={"a1": {"level_points": 10}})
    repo.save_table("E1", 0, 1, table, 0, {"id": "01A", "action": "result_entered", "who": "x", "at": "t"})
    with pytest.raises(errors.VersionConflict):
        repo.save_table("E1", 0, 1, table, 0, {"id": "01C", "action": "result_changed", "who": "x", "at": "t"})
    assert repo.get_round("E1", 0, 1)[1][0]["status"] == "entered"
    one_doc, one = repo.get_table("E1", 0, 1, 1)                  # a phone's poll: the round and one table
    assert one_doc == doc and one == table and repo.get_table("E1", 0, 1, 61) == (doc, None)
    assert repo.get_table("E1", 0, 2, 1) == (None, None)
    repo.add_audit("E1", {"id": "01B", "action": "rejected_stale_version", "who": "y", "at": "t"})
    assert [a["action"] for a in repo.audit("E1")] == ["result_entered", "rejected_stale_version"]
    doc["status"] = "closed"
    repo.close_round("E1", doc, {**got, "open_round": 0}, got["version"])
    rounds = repo.all_rounds("E1")
    assert len(rounds) == 1 and rounds[0][0]["status"] == "closed" and len(rounds[0][1]) == 60
    after = repo.state("E1")
    repo.delete_round("E1", 0, 1, rounds[0][1], {**after, "rounds": []}, after["version"])
    assert repo.get_round("E1", 0, 1) == (None, []) and repo.state("E1")["rounds"] == []
