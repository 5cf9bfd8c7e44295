"""Ranking points and ratings, pure (issue 42): numbers worked out by hand from the table, never by the code."""
from __future__ import annotations

from datetime import datetime, UTC

import pytest

from chalicelib.engine.rankings import FieldFactor, PointsTable, decay, event_points, positions, totals
from chalicelib.engine.ratings import Rating, games_of_table, rate

D = datetime(2026, 3, 1, tzinfo=UTC)


def test_points_by_place_and_shared_places():
    table = PointsTable(places=(100, 80, 65, 50, 40), decay_per_year=0.15)
    # two entries level 2nd share (80 + 65) / 2; a place past the table earns 0; a disqualified one (None) nothing
    assert event_points(table, [1, 2, 2, 4, 5, 6, None]) == [100, 72.5, 72.5, 50, 40, 0, 0]
    # three level 3rd: (65 + 50 + 40) / 3 = 51.666… → 51.67 (half-up, rules.md §8)
    assert event_points(table, [1, 2, 3, 3, 3]) == [100, 80, 51.67, 51.67, 51.67]


def test_field_factor():
    table = PointsTable(places=(100, 50), field_factor=FieldFactor(min_entries=8, per_entry=0.02))
    assert event_points(table, [1, 2], entries=8) == [100, 50]
    assert event_points(table, [1, 2], entries=18) == [120, 60]       # 1 + 0.02 × 10
    assert event_points(table, [1, 2], entries=4) == [50, 25]         # 4 / 8 of the table


def test_decay_after_a_year():
    table = PointsTable(decay_per_year=0.15)
    assert decay(table, D, datetime(2027, 2, 28, tzinfo=UTC)) == 1          # not yet a full year
    assert decay(table, D, datetime(2027, 3, 2, tzinfo=UTC)) == pytest.approx(0.85)
    assert decay(table, D, datetime(2028, 3, 2, tzinfo=UTC)) == pytest.approx(0.85 ** 2)
    rows = totals(table, [{"player_id": "a", "date": D, "points": 100, "event_id": "e1"},
                          {"player_id": "a", "date": datetime(2027, 1, 1, tzinfo=UTC), "points": 10,
                           "event_id": "e2"},
                          {"player_id": "b", "date": datetime(2027, 1, 1, tzinfo=UTC), "points": 90,
                           "event_id": "e2"}], now=datetime(2027, 6, 1, tzinfo=UTC))
    # a: 100 a year and more old → 85, plus 10 of this year = 95; b: 90
    assert [(r.player_id, r.points, r.events) for r in rows] == [("a", 95.0, 2), ("b", 90.0, 1)]
    assert positions(rows) == [1, 2]


def test_level_players_share_a_position():
    table = PointsTable()
    rows = totals(table, [{"player_id": p, "date": D, "points": v} for p, v in (("c", 5), ("a", 9), ("b", 9))], D)
    assert [r.player_id for r in rows] == ["a", "b", "c"]
    assert positions(rows) == [1, 1, 3]


def _table(sides, outcome=None, points=None, result=None, status="confirmed"):
    return {"status": status, "sides": sides, "outcome": outcome or {}, "points": points or {}, "result": result or {}}


def test_pair_winner_up_loser_down_both_partners():
    t = _table([{"entry_id": "A", "seats": ["N", "S"]}, {"entry_id": "B", "seats": ["E", "W"]}], {"A": 1, "B": 0})
    new = rate({}, games_of_table(t, {"A": ["a1", "a2"], "B": ["b1", "b2"]}))
    for p in ("a1", "a2"):
        assert new[p].mu > 25 and new[p].tables == 1
    for p in ("b1", "b2"):
        assert new[p].mu < 25
    assert new["a1"].sigma < 25 / 3   # more is known of everyone


def test_draw_moves_the_favourite_down():
    t = _table([{"entry_id": "A", "seats": ["N", "S"]}, {"entry_id": "B", "seats": ["E", "W"]}], {"A": 0.5, "B": 0.5})
    new = rate({"a": Rating(30, 3), "b": Rating(20, 3)}, games_of_table(t, {"A": ["a"], "B": ["b"]}))
    assert new["a"].mu < 30 and new["b"].mu > 20


def test_doudizhu_deals_landlord_against_two_farmers():
    sides = [{"entry_id": "X", "seats": ["W"]}, {"entry_id": "Y", "seats": ["S"]}, {"entry_id": "Z", "seats": ["E"]}]
    t = _table(sides, result={"deals": [{"landlord": "W", "winner": "landlord"}, {"landlord": "S", "winner": "farmers"}]})
    games = games_of_table(t, {"X": ["x"], "Y": ["y"], "Z": ["z"]})
    assert [g.teams for g in games] == [(("x",), ("y", "z")), (("y",), ("x", "z"))]
    assert [g.ranks for g in games] == [(1, 2), (2, 1)]
    new = rate({}, games)
    assert new["x"].mu > 25 and new["y"].mu < 25 and all(r.tables == 1 for r in new.values())


def test_doudizhu_totals_only_and_gouji_three_against_three():
    sides = [{"entry_id": "X", "seats": ["W"]}, {"entry_id": "Y", "seats": ["S"]}, {"entry_id": "Z", "seats": ["E"]}]
    t = _table(sides, points={"X": {"table_points": 4}, "Y": {"table_points": 4}, "Z": {"table_points": 1}})
    [g] = games_of_table(t, {"X": ["x"], "Y": ["y"], "Z": ["z"]})
    assert g.ranks == (1, 1, 3)
    gouji = _table([{"entry_id": "A", "seats": [1, 3, 5]}, {"entry_id": "B", "seats": [2, 4, 6]}], {"A": 0, "B": 1})
    new = rate({}, games_of_table(gouji, {"A": ["a1", "a2", "a3"], "B": ["b1", "b2", "b3"]}))
    assert all(new[p].mu < 25 for p in ("a1", "a2", "a3")) and all(new[p].mu > 25 for p in ("b1", "b2", "b3"))


def test_forfeit_and_unconfirmed_tables_rate_nothing():
    sides = [{"entry_id": "A", "seats": ["N", "S"]}, {"entry_id": "B", "seats": ["E", "W"]}]
    assert games_of_table(_table(sides, {"A": 1}, status="forfeit"), {"A": ["a"], "B": ["b"]}) == []
    assert games_of_table(_table(sides, {"A": 1}, status="entered"), {"A": ["a"], "B": ["b"]}) == []


def test_provisional_until_enough_tables():
    assert Rating(tables=4).provisional(5) and not Rating(tables=5).provisional(5)
    assert Rating().display == 1000
