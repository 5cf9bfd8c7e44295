"""Mixed events (rules.md §8, §9; seed 000).

Mixed pairs: "由男运动员与女运动员组成伙伴参加的比赛。男运动员坐西或者北的方位，女运动员坐东或者南的方位" — a pair of
one man and one woman (a pair of two men or two women is refused at registration and at a substitution); the man
sits N (or W), the woman S (or E).

Mixed team: "上场阵容必须由一对男运动员和一对女运动员组成。男运动员坐东、西的方位，女运动员坐南、北的方位" — every
lineup is one men's pair and one women's pair; the men sit E–W and the women N–S, so in each room a team's pair is
the one its seats call for (a team sitting N–S there plays its women's pair)."""
from __future__ import annotations

from collections.abc import Mapping, Sequence

MAN_SEATS = ("N", "W")
WOMAN_SEATS = ("S", "E")
TEAM_MEN_SEATS = ("E", "W")       # mixed team: men E–W, women N–S
TEAM_WOMEN_SEATS = ("N", "S")


def member_seats(side_seats: Sequence[str], genders: Sequence[str | None]) -> list[str] | None:
    """The side's two seats in member order (member 0 first) for a pair of one man ("m") and one woman ("f"),
    or None when the roster does not say so (the seats then stay as drawn, and the draw names the pair)."""
    if len(side_seats) != 2 or sorted(g or "" for g in genders) != ["f", "m"]:
        return None
    man = next(s for s in side_seats if s in MAN_SEATS)
    woman = next(s for s in side_seats if s in WOMAN_SEATS)
    return [man if g == "m" else woman for g in genders]


def pair_problem(genders: Sequence[str | None], *, complete: bool = True) -> str | None:
    """Why a mixed pair's roster does not fit, or None: `gender_missing` (a member without m/f),
    `not_one_man_one_woman`. `complete` False: a player registering alone to be matched (one member)."""
    if any(g not in ("m", "f") for g in genders):
        return "gender_missing"
    if complete and sorted(genders) != ["f", "m"]:
        return "not_one_man_one_woman"
    return None


def team_problem(genders: Sequence[str | None]) -> str | None:
    """Why a mixed team's roster cannot field a lineup, or None: `gender_missing`, or `needs_two_men_two_women`
    (every lineup is a men's pair and a women's pair)."""
    if any(g not in ("m", "f") for g in genders):
        return "gender_missing"
    if sum(g == "m" for g in genders) < 2 or sum(g == "f" for g in genders) < 2:
        return "needs_two_men_two_women"
    return None


def lineup_problem(rooms: Mapping[str, Sequence[int]], room_seats: Mapping[str, Sequence[str]],
                   genders: Sequence[str | None]) -> dict | None:
    """A mixed team's lineup against its seats: `rooms` room → the two members (indices) playing there,
    `room_seats` room → the seats this team takes there. None when it fits, else {room, needs: "men" | "women",
    seats} for the first room that does not."""
    for room, members in rooms.items():
        seats = tuple(room_seats[room])
        needs = "men" if set(seats) <= set(TEAM_MEN_SEATS) else "women"
        want = "m" if needs == "men" else "f"
        if any(genders[i] != want for i in members):
            return {"room": room, "needs": needs, "seats": list(seats)}
    return None
