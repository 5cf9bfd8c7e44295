"""A team match's rooms on the pure domain: lineups, a room entered and confirmed, disputes, the scoring."""
from __future__ import annotations

from datetime import datetime, timedelta, UTC

import pytest

from chalicelib import errors
from chalicelib.domain import events as ev
from chalicelib.domain.actor import Actor
from chalicelib.domain.table import TIE_BREAK, Place, Table
from chalicelib.engine.types import MatchScore

START = datetime(2026, 12, 12, 2, 0, tzinfo=UTC)
PLACE = Place("T1", "E1", 0, 1)
HOME, AWAY = Actor("side", "table 1 side 1", side=0), Actor("side", "table 1 side 2", side=1)
DIRECTOR = Actor("organiser", "org-1")


def match() -> Table:
    return Table.new(1, [("H", ["N", "S"]), ("W", ["E", "W"])], ["h1", "h2"], "r", None, team_match=True,
                     starts_at=START)


def won(result: dict) -> MatchScore:
    return MatchScore(points={"H": {"mp": 2}, "W": {"mp": 0}}, outcome={"H": 1.0, "W": 0.0},
                      opponents={"H": ["W"], "W": ["H"]}, details={"rooms": sorted(result["rooms"])}, winner="H")


def test_lineups_before_the_deadline_and_the_directors_change_gives_seat_choice_away():
    table = match()
    early = START - timedelta(minutes=20)
    named, events, when = table.announce_lineup(AWAY, "W", {"open": [0, 1], "closed": [2, 3]}, now=early,
                                                starts_at=START, place=PLACE)
    assert named.version == 1 and when["late"] is False and events[0].action == "lineup_announced"
    with pytest.raises(errors.LineupClosed):   # announced once: a change is the director's
        named.announce_lineup(AWAY, "W", {"open": [2, 3], "closed": [0, 1]}, now=early, starts_at=START, place=PLACE)
    with pytest.raises(errors.LineupClosed):   # the home team (seat choice: 5 minutes before) is late at 4
        named.announce_lineup(HOME, "H", {"open": [0, 1], "closed": [2, 3]}, now=START - timedelta(minutes=4),
                              starts_at=START, place=PLACE)
    changed, events, _ = named.announce_lineup(DIRECTOR, "W", {"open": [2, 3], "closed": [0, 1]}, now=early,
                                               starts_at=START, place=PLACE)
    assert changed.seat_choice == "H" and events[0].action == "lineup_changed"   # the other team has it
    changed, _, _ = named.announce_lineup(DIRECTOR, "H", {"open": [0, 1], "closed": [2, 3]}, now=START,
                                          starts_at=START, place=PLACE)
    assert changed.seat_choice == "W" and changed.lineup_deadlines["W"] == (START - timedelta(minutes=5)).isoformat()


def test_rooms_entered_confirmed_then_the_match_is_scored():
    table = match()
    with pytest.raises(errors.NorthSouthEnters):   # in the open room the away team sits E–W: it confirms
        table.check_room_entry(AWAY, "open", "north_south")
    table.check_room_entry(HOME, "open", "north_south")
    opened, events = table.room_enter(HOME, "open", {"final": {}}, now=START, players={"H": [0, 1]}, place=PLACE)
    assert opened.version == 1 and opened.status == "pending" and events[0] == ev.RoomResultEntered(
        "T1", "E1", 0, 1, 1, 1, room="open")
    with pytest.raises(errors.Forbidden):
        opened.room_confirm(HOME, "open", place=PLACE, scorer=won)
    disputed, events = opened.room_dispute(AWAY, "open", "wrong", now=START, place=PLACE)
    assert disputed.room_status["open"].status == "disputed" and events[0].action == "room_result_disputed"
    with pytest.raises(errors.Disputed):
        disputed.room_confirm(AWAY, "open", place=PLACE, scorer=won)
    with pytest.raises(errors.Disputed):
        disputed.check_room_entry(HOME, "open", "north_south")
    one, events = opened.room_confirm(AWAY, "open", place=PLACE, scorer=won)
    assert one.status == "pending" and one.room_status["open"].status == "confirmed"
    assert isinstance(events[0], ev.RoomResultConfirmed)
    two, _ = one.room_enter(AWAY, "closed", {"final": {}}, now=START, players={"W": [2, 3]}, place=PLACE)
    done, events = two.room_confirm(DIRECTOR, "closed", place=PLACE, scorer=won)
    assert (done.status, done.winner, done.version) == ("confirmed", "H", 4)
    assert done.played == {"open": {"H": [0, 1]}, "closed": {"W": [2, 3]}}
    assert events == [ev.TeamMatchConfirmed("T1", "E1", 0, 1, 1, 4)]
    with pytest.raises(errors.AlreadyConfirmed):
        done.room_entry_is_a_correction(HOME)
    assert done.room_entry_is_a_correction(DIRECTOR) is True


def test_a_tied_knockout_match_asks_for_its_extra_deal():
    def tied(result):
        if "tie_break" not in result:
            raise errors.TieBreakRequired("tied")
        return won(result)
    table = match()
    for room, by, ok in (("open", HOME, AWAY), ("closed", AWAY, HOME)):
        table, _ = table.room_enter(by, room, {"final": {}}, now=START, place=PLACE)
        table, _ = table.room_confirm(ok, room, place=PLACE, scorer=tied)
    assert table.status == "pending" and table.tie_break_needed is True
    with pytest.raises(errors.InvalidResult):
        table.tie_break_result({"winner": "nobody"})
    table, _ = table.room_enter(HOME, TIE_BREAK, table.tie_break_result({"winner": "H", "x": 1}), now=START,
                                place=PLACE)
    table, events = table.room_confirm(AWAY, TIE_BREAK, place=PLACE, scorer=tied)
    assert table.status == "confirmed" and table.result["tie_break"] == {"winner": "H"}
    assert table.tie_break_needed is False and isinstance(events[0], ev.TeamMatchConfirmed)
