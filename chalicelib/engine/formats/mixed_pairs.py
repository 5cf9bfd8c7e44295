"""Mixed pairs seating (rules.md §8, seed 000): "由男运动员与女运动员组成伙伴参加的比赛。男运动员坐西或者北的方位，
女运动员坐东或者南的方位" — in a mixed pair the man sits N (or W), the woman S (or E)."""
from __future__ import annotations

from typing import Sequence

MAN_SEATS = ("N", "W")
WOMAN_SEATS = ("S", "E")


def member_seats(side_seats: Sequence[str], genders: Sequence[str | None]) -> list[str] | None:
    """The side's two seats in member order (member 0 first) for a pair of one man ("m") and one woman ("f"),
    or None when the roster does not say so (the seats then stay as drawn, and the draw names the pair)."""
    if len(side_seats) != 2 or sorted(g or "" for g in genders) != ["f", "m"]:
        return None
    man = next(s for s in side_seats if s in MAN_SEATS)
    woman = next(s for s in side_seats if s in WOMAN_SEATS)
    return [man if g == "m" else woman for g in genders]
