"""The pure parts of a draw and of a pairing edit (domain/round.py, domain/pairing.py)."""
from __future__ import annotations

from datetime import datetime, UTC
from types import SimpleNamespace

import pytest

from chalicelib import errors
from chalicelib.domain.pairing import BYE, apply_edit, changed_tables, edited_doc, rebuilt_tables, renumber
from chalicelib.domain.round import apply_choices, drawn_doc, drawn_state, knockout_round_name
from chalicelib.domain.table import Table

NOW = datetime(2026, 12, 12, 2, 0, tzinfo=UTC)


def edit(**kw):
    return SimpleNamespace(**{"swap": [], "tables": [], "byes": [], "fixed": [], "unfix": [], **kw})


def stored(k, a, b, status="pending", version=0):
    return {**Table.new(k, [(a, ["N", "S"]), (b, ["E", "W"])], ["x", "y"], "swiss", None).to_item(),
            "status": status, "version": version}


def test_a_swap_a_table_given_whole_and_the_bye():
    where = {"A": 1, "B": 1, "C": 2, "D": 2, "E": BYE}
    assert apply_edit(edit(swap=[["B", "C"]]), where, 2) == {1: ["A", "C"], 2: ["B", "D"], BYE: ["E"]}
    with pytest.raises(errors.InvalidRequest):   # E's table is short of a side
        apply_edit(edit(byes=["A"]), where, 2)
    with pytest.raises(errors.InvalidRequest):
        apply_edit(edit(swap=[["A", "Z"]]), where, 2)
    assert renumber({1: ["A", "C"], 2: ["B", "D"]}, {"B": 1}) == {1: ["B", "D"], 2: ["A", "C"]}


def test_changed_tables_refuse_a_started_one_and_rebuild_the_rest():
    old = {1: stored(1, "A", "B"), 2: stored(2, "C", "D", status="entered", version=1), 3: stored(3, "E", "F")}
    with pytest.raises(errors.TableStarted):
        changed_tables({1: ["A", "C"], 2: ["B", "D"], 3: ["E", "F"]}, old, 2)
    layout = {1: ["B", "A"], 2: ["C", "D"], 3: ["E", "F"]}
    changed, removed = changed_tables(layout, old, 2)
    assert (changed, removed) == ([1], [])   # the home side moved at table 1
    edited = {"reason": "同单位", "at": NOW.isoformat(), "by": "org-1"}
    tables, writes = rebuilt_tables(layout, changed, old, [("N", "S"), ("E", "W")], lambda k: [f"c{k}a", f"c{k}b"],
                                    "同单位", edited, {"E": 3})
    assert [t["number"] for t in tables] == [1, 2, 3]
    assert tables[0]["version"] == 1 and tables[0]["home"] == "B" and tables[0]["edited"] == edited
    assert tables[0]["code_hashes"] == ["c1a", "c1b"] and tables[0]["status"] == "pending"
    assert tables[2]["fixed"] == ["E"] and tables[1] is old[2]   # only the mark moved at 3; 2 untouched
    assert [(t["number"], v) for t, v in writes] == [(1, 0), (3, 0)]
    doc = {"byes": [["G", "bye"]], "bye_why": {"G": {"kind": "bye"}}, "edits": []}
    after = edited_doc(doc, ["G", "H"], {"G": BYE, "H": 1}, "同单位", edited, changed)
    assert after["byes"] == [["G", "bye"], ("H", "bye: pairing edited")]
    assert after["edits"] == [{**edited, "tables": [1], "byes": ["H"]}]


def test_a_round_document_and_the_state_after_the_draw():
    stage = SimpleNamespace(format="knockout", knockout_draw="choice", double_elimination=False)
    plan = {"format": "knockout", "entries": ["A", "B", "C", "D"], "bracket": [["A", "D"], ["B", "C"]]}
    with pytest.raises(errors.InvalidRequest):
        apply_choices(plan, stage, 2, [["A", "B"]])
    apply_choices(plan, stage, 1, [["A", "C"]])
    assert plan["choices"] == [["A", "C"]] and ["A", "C"] in plan["bracket"]
    tables = [{"sides": [1, 2]}, {"sides": [3, 4]}]
    doc = drawn_doc("E1", 1, 4, 1, 7, plan, stage, tables, [], {}, [], [], now=NOW, starts_at=None, ends_at=None)
    assert (doc["round_name"], doc["status"], doc["number"], doc["drawn_at"]) == ("semi_final", "open", 4, NOW.isoformat())
    assert knockout_round_name(3) == "semi_final" and knockout_round_name(2) == "final"
    state = drawn_state({"version": 3, "rounds": [{"n": 3, "stage": 0, "stage_round": 3}], "open_round": 0}, 1, 4, 1)
    assert state["open_round"] == 4 and state["rounds"][-1] == {"n": 4, "stage": 1, "stage_round": 1}
