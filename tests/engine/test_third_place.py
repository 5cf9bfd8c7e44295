"""The 3rd-place match (三四名决赛) of a knockout stage, on brackets worked by hand."""
from __future__ import annotations

from chalicelib.engine.formats.knockout import first_round, knockout_reached, next_round, third_place_match


def test_eight_entries_semi_final_losers_meet():
    # seeds 1..8: quarter-finals 1v8, 4v5, 2v7, 3v6; say 1, 5, 2, 6 win; semis 1v5, 2v6; 5 and 2 win
    assert first_round(list("ABCDEFGH")) == [("A", "H"), ("D", "E"), ("B", "G"), ("C", "F")]
    semis = next_round(["A", "E", "B", "F"])
    assert semis == [("A", "E"), ("B", "F")]
    assert third_place_match(semis, ["E", "B"]) == ("A", "F")   # the losers of 1v5 (A) and 2v6 (F)
    assert next_round(["E", "B"]) == [("E", "B")]                # the final beside it


def test_no_third_place_match_before_the_semi_finals():
    quarters = first_round(list("ABCDEFGH"))
    assert third_place_match(quarters, ["A", "E", "B", "F"]) is None
    assert third_place_match([("A", "B")], ["A"]) is None           # a final sends nobody to a 3rd-place match


def test_a_semi_final_bye_leaves_one_loser_who_is_third_without_a_match():
    # three entries: bracket of 4, seed 1 has the bye, 2 v 3 plays; the final is 1 v the winner
    semis = first_round(["A", "B", "C"])
    assert semis == [("A", None), ("B", "C")]
    assert third_place_match(semis, ["A", "C"]) is None


def test_byes_in_round_one_then_a_full_semi_final():
    # five entries: bracket of 8 — 1, 2, 3 have byes, 4 v 5 plays; the semis 1 v (4|5) and 2 v 3 are both played
    r1 = first_round(list("ABCDE"))
    assert r1 == [("A", None), ("D", "E"), ("B", None), ("C", None)]
    semis = next_round(["A", "E", "B", "C"])
    assert semis == [("A", "E"), ("B", "C")]
    assert third_place_match(semis, ["A", "C"]) == ("E", "B")


def test_places_from_how_far_each_went():
    final_round = 3
    champion = knockout_reached(final_round, True)
    runner_up = knockout_reached(final_round, False)
    third = knockout_reached(final_round, True, third_place=True)
    fourth = knockout_reached(final_round, False, third_place=True)
    finalist_before_final = knockout_reached(final_round - 1, True)   # its semi-final win, the final still to play
    semi_loser = knockout_reached(final_round - 1, False)     # no 3rd-place match: both losers tie here
    quarter_winner = knockout_reached(final_round - 2, True)
    assert champion > runner_up > finalist_before_final > third > fourth > semi_loser > quarter_winner
    # an entry's place is the furthest it went: the 3rd-place match's loser is 4th, above the semi's loss
    assert max(semi_loser, fourth) == fourth
