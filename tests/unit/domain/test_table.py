"""The table's transitions on the pure domain: who may, the version, the events raised, and the stored JSON."""
from __future__ import annotations

import json
from datetime import datetime, timedelta, UTC

import pytest
from pydantic import ValidationError

from chalicelib import errors
from chalicelib.domain import events as ev
from chalicelib.domain.actor import Actor
from chalicelib.domain.table import Entering, Forfeit, Place, Table, TableStatus
from chalicelib.engine.types import MatchScore

NOW = datetime(2026, 12, 12, 2, 0, tzinfo=UTC)
PLACE = Place("T1", "E1", 0, 1)
NS, EW = Actor("side", "table 1 side 1", side=0), Actor("side", "table 1 side 2", side=1)
DIRECTOR = Actor("organiser", "staff:s1:王裁判:director")
SCORER = Actor("organiser", "staff:s2:李记分:scorer")
OWNER = Actor("organiser", "org-1")


def pair_table(**kw) -> Table:
    return Table.new(1, [("A", ["N", "S"]), ("B", ["E", "W"])], ["h1", "h2"], "swiss", {"kind": "swiss"}, **kw)


def score(a: float = 3, b: float = 0) -> MatchScore:
    return MatchScore(points={"A": {"match_points": a}, "B": {"match_points": b}}, outcome={"A": 1.0, "B": 0.0},
                      opponents={"A": ["B"], "B": ["A"]}, details={"levels": [14, 9]}, winner=None)


def entering(table: Table, actor: Actor, *, version=None, closed=False, window_open=True, override=False, reason=""):
    return table.entering(actor, round_closed=closed, sent_version=table.version if version is None else version,
                          result_entry="north_south", window_open=window_open, override=override, reason=reason,
                          deadline=NOW)


def enter(table: Table, actor: Actor, reason: str = "", **kw):
    how = entering(table, actor, reason=reason, **kw)
    return table.enter(actor, how, {"final": {"levels": {"A": 14, "B": 9}}}, score(), place=PLACE, reason=reason)


def test_a_drawn_table_is_stored_as_the_draw_always_stored_it():
    item = pair_table(fixed=["A"]).to_item()
    assert json.dumps(item) == json.dumps(
        {"number": 1, "home": "A", "reason": "swiss", "why": {"kind": "swiss"}, "status": "pending", "version": 0,
         "sides": [{"entry_id": "A", "seats": ["N", "S"]}, {"entry_id": "B", "seats": ["E", "W"]}],
         "code_hashes": ["h1", "h2"], "points": {}, "details": {}, "fixed": ["A"]})
    team = Table.new(2, [("A", ["N", "S"]), ("B", ["E", "W"])], ["h1", "h2"], "r", None, team_match=True,
                     starts_at=NOW).to_item()
    assert list(team)[-5:] == ["rooms", "seat_choice", "lineups", "fixed", "lineup_deadlines"]
    assert team["lineup_deadlines"] == {"A": (NOW - timedelta(minutes=5)).isoformat(),
                                        "B": (NOW - timedelta(minutes=15)).isoformat()}


def test_a_stored_table_round_trips_with_fields_this_code_does_not_name():
    item = {**pair_table().to_item(), "status": "confirmed", "version": 4, "some_future_field": {"x": [1]},
            "dispute": None, "confirmed_by": "org-1"}
    table = Table.load(item)
    assert table.status == TableStatus.CONFIRMED and table.is_settled
    assert table.to_item() == item
    assert isinstance(table.to_item()["status"], str) and json.dumps(table.to_item()["status"]) == '"confirmed"'
    with pytest.raises(ValidationError):
        table.version = 5   # frozen


def test_north_south_enters_east_west_confirms():
    table = pair_table()
    with pytest.raises(errors.NorthSouthEnters):
        entering(table, EW)
    entered, events = enter(table, NS)
    assert (entered.status, entered.version, entered.entered_side) == ("entered", 1, 0)
    assert events == [ev.ResultEntered("T1", "E1", 0, 1, 1, 1)]
    assert table.status == "pending" and table.version == 0   # the old record is untouched
    with pytest.raises(errors.Forbidden):
        entered.confirm(NS, place=PLACE)   # the entering side does not confirm its own result
    confirmed, events = entered.confirm(EW, place=PLACE)
    assert (confirmed.status, confirmed.version, confirmed.confirmed_by) == ("confirmed", 2, EW.ident)
    assert events == [ev.ResultConfirmed("T1", "E1", 0, 1, 1, 2)]
    with pytest.raises(errors.AlreadyConfirmed):
        confirmed.confirm(OWNER, place=PLACE)
    with pytest.raises(errors.AlreadyConfirmed):
        entering(confirmed, NS)   # a side never changes a confirmed result


def test_a_stale_version_and_a_closed_round_are_refused():
    table = pair_table()
    with pytest.raises(errors.VersionConflict):
        entering(table, NS, version=3)
    with pytest.raises(errors.AlreadyConfirmed):
        entering(table, NS, closed=True)
    entering(table, OWNER, closed=True)   # the organiser may


def test_a_change_before_confirmation_is_result_changed():
    entered, _ = enter(pair_table(), NS)
    again, events = enter(entered, NS)
    assert again.version == 2 and events[0].action == "result_changed"


def test_three_seat_table_needs_both_other_players():
    table = Table.new(1, [("A", ["1"]), ("B", ["2"]), ("C", ["3"])], ["h1", "h2", "h3"], "r", None)
    entered, _ = enter(table, Actor("side", "s1", side=0))
    one, events = entered.confirm(Actor("side", "s2", side=1), place=PLACE)
    assert (one.status, one.confirmed_sides, type(events[0])) == ("entered", [1], ev.SideConfirmed)
    with pytest.raises(errors.Conflict):
        one.confirm(Actor("side", "s2", side=1), place=PLACE)
    both, events = one.confirm(Actor("side", "s3", side=2), place=PLACE)
    assert (both.status, both.confirmed_sides, both.version, type(events[0])) == ("confirmed", [1, 2], 3,
                                                                                   ev.ResultConfirmed)


def test_the_whole_life_enter_dispute_settle_correct_after_close():
    entered, _ = enter(pair_table(), NS)
    with pytest.raises(errors.Forbidden):
        entered.raise_dispute(NS, "no", now=NOW, place=PLACE)   # not the side that entered
    disputed, events = entered.raise_dispute(EW, "第3副牌记错", now=NOW, place=PLACE)
    assert disputed.status == "disputed" and disputed.version == 2
    assert disputed.dispute.reason == "第3副牌记错" and disputed.dispute.side == 1
    assert events == [ev.DisputeRaised("T1", "E1", 0, 1, 1, 2)]
    with pytest.raises(errors.Disputed):
        disputed.confirm(NS, place=PLACE)
    with pytest.raises(errors.Disputed):
        entering(disputed, NS)
    # settling: the director's alone, with a published reason; confirmed at once
    how = entering(disputed, SCORER)
    assert how == Entering(correcting=False, overridden=False, settling=True)
    with pytest.raises(errors.Forbidden):
        disputed.enter(SCORER, how, {}, score(), place=PLACE, reason="ok")
    with pytest.raises(errors.InvalidRequest):
        disputed.enter(DIRECTOR, how, {}, score(), place=PLACE, reason=" ")
    settled, events = disputed.enter(DIRECTOR, how, {"final": {}}, score(2, 1), place=PLACE, reason="核对记分卡")
    assert (settled.status, settled.version, settled.confirmed_by) == ("confirmed", 3, DIRECTOR.ident)
    assert settled.dispute is None and settled.settled_dispute.reason == "第3副牌记错"
    assert events == [ev.DisputeSettled("T1", "E1", 0, 1, 1, 3)]
    # a correction within the window: any organiser, with a reason; the confirmer stays
    how = entering(settled, SCORER, reason="typo")
    assert how.correcting and not how.overridden
    with pytest.raises(errors.InvalidRequest):
        settled.enter(SCORER, how, {}, score(), place=PLACE, reason="")
    corrected, events = settled.enter(SCORER, how, {}, score(0, 3), place=PLACE, reason="typo")
    assert (corrected.status, corrected.version, corrected.confirmed_by) == ("confirmed", 4, DIRECTOR.ident)
    assert events == [ev.ResultCorrected("T1", "E1", 0, 1, 1, 4)]
    # after the window closed: only with override and a reason, and only the director
    with pytest.raises(errors.CorrectionWindowClosed):
        entering(corrected, DIRECTOR, window_open=False, reason="late")
    how = entering(corrected, SCORER, window_open=False, override=True, reason="late")
    with pytest.raises(errors.Forbidden):
        corrected.enter(SCORER, how, {}, score(), place=PLACE, reason="late")
    late, events = corrected.enter(DIRECTOR, how, {}, score(), place=PLACE, reason="late")
    assert late.overridden is True and late.version == 5
    assert events == [ev.ResultCorrected("T1", "E1", 0, 1, 1, 5, action="result_overridden", overridden=True)]


def test_a_forfeit_settles_whatever_the_table_held():
    entered, _ = enter(pair_table(), NS)
    forfeited, events = entered.record_forfeit(
        DIRECTOR, points={"A": {"match_points": 0}}, outcome={"A": 0.0, "B": 1.0}, winner="B",
        forfeit=Forfeit(entry_id="A", reason="迟到"), result={"forfeit": "A"}, force_majeure=False, place=PLACE)
    assert (forfeited.status, forfeited.version, forfeited.winner) == ("forfeit", 2, "B")
    assert forfeited.to_item()["forfeit"] == {"entry_id": "A", "reason": "迟到"}
    assert events[0].action == "forfeit_recorded" and isinstance(events[0], ev.ForfeitRecorded)
    how = entering(forfeited, OWNER, reason="played after all")
    corrected, _ = forfeited.enter(OWNER, how, {}, score(), place=PLACE, reason="played after all")
    assert corrected.forfeit is None and corrected.status == "confirmed"


def test_an_arrival_moves_the_version_only_when_it_changes_the_scoring():
    table = pair_table()
    same, events = table.record_arrival("A", NOW, 3, {}, place=PLACE)
    assert same.version == 0 and same.arrivals == {"A": {"at": NOW.isoformat(), "late_minutes": 3}}
    levelled, _ = same.record_arrival("B", NOW, 12, {"A": 3}, place=PLACE)
    assert levelled.version == 1 and levelled.start_levels == {"A": 3}
    assert levelled.scored_result({"version": 1, "final": {}, "reason": "x"}) == {"final": {}, "start_levels": {"A": 3}}
    with pytest.raises(errors.InvalidRequest):
        table.record_arrival("Z", NOW, 0, {}, place=PLACE)
    assert events[0].entry_id == "A"


def test_a_saved_table_is_the_json_the_hand_written_rebuild_wrote():
    """The stored item's keys keep their order and a new key goes last, as `{**table, …, "version": v + 1}` did:
    the round packs' JSON does not move (issue 37)."""
    stored = {"status": "pending", "number": 1, "home": "A", "sides": [{"entry_id": "A", "seats": ["N", "S"]},
              {"entry_id": "B", "seats": ["E", "W"]}], "version": 0, "points": {}, "details": {}, "why": None,
              "reason": "swiss", "code_hashes": ["h1", "h2"], "fixed": None}   # any order a store may hold
    table = Table.load(stored)
    assert json.dumps(table.to_item()) == json.dumps(stored)
    entered, _ = enter(table, NS)
    rebuilt = {**stored, "result": {"final": {"levels": {"A": 14, "B": 9}}}, "points": score().points,
               "outcome": score().outcome, "winner": None, "details": score().details, "version": 1,
               "entered_by": NS.ident, "entered_side": 0, "confirmed_sides": [], "dispute": None, "forfeit": None,
               "status": "entered", "confirmed_by": None}
    assert json.dumps(entered.to_item()) == json.dumps(rebuilt)
    disputed, _ = entered.raise_dispute(EW, "x", now=NOW, place=PLACE)
    rebuilt = {**rebuilt, "status": "disputed", "version": 2,
               "dispute": {"reason": "x", "by": EW.ident, "side": 1, "at": NOW.isoformat()}}
    assert json.dumps(disputed.to_item()) == json.dumps(rebuilt)
