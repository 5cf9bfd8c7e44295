"""Who played at a table, for the ratings (issue 42): a team match's rooms name the members who sat; otherwise the
whole roster of each side."""
from __future__ import annotations

from chalicelib.services.rankings import _who_played

MEMBERS = {"A": ["a0", "a1", "a2", "a3", "a4"], "B": ["b0", "b1", "b2", "b3"]}
SIDES = [{"entry_id": "A", "seats": []}, {"entry_id": "B", "seats": []}]


def test_a_team_match_rates_the_members_who_sat_in_its_rooms():
    table = {"sides": SIDES, "played": {"open": {"A": [0, 1], "B": [2, 3]}, "closed": {"A": [3, 4], "B": [0, 1]}}}
    assert _who_played(table, MEMBERS) == {"A": ["a0", "a1", "a3", "a4"], "B": ["b0", "b1", "b2", "b3"]}


def test_without_rooms_every_member_of_a_side_played():
    assert _who_played({"sides": SIDES}, MEMBERS) == MEMBERS
    # a room naming one side only: the other side's roster
    assert _who_played({"sides": SIDES, "played": {"open": {"A": [2, 4]}}}, MEMBERS)["B"] == MEMBERS["B"]
