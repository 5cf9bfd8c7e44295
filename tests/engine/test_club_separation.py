"""Issue 23: related-entry separation in round 1 for every game, Dou Dizhu included — two players of one club
share a table of three only when no seating avoids it, and then as few pairs as possible (checked against every
seating of the field, enumerated here)."""
from __future__ import annotations

from itertools import combinations

import pytest

from chalicelib.engine.formats import Contestant, draw_round


def players(clubs: list[str]) -> list[Contestant]:
    return [Contestant(id=f"p{i}", number=i + 1, club=club) for i, club in enumerate(clubs)]


def same_club_pairs(tables, club_of) -> int:
    return sum(1 for t in tables for a, b in combinations(t.sides, 2) if club_of[a] and club_of[a] == club_of[b])


def least_possible(cs: list[Contestant]) -> int:
    """The fewest same-club pairs over every partition of the field into tables of three (small fields)."""
    ids = [c.id for c in cs]
    club_of = {c.id: c.club for c in cs}

    def best(rest):
        if not rest:
            return 0
        first, others = rest[0], rest[1:]
        return min(sum(1 for a, b in combinations((first, x, y), 2) if club_of[a] and club_of[a] == club_of[b])
                   + best([z for z in others if z not in (x, y)]) for x, y in combinations(others, 2))
    return best(ids)


@pytest.mark.parametrize("clubs", [
    ["河池"] * 3 + ["宜州"] * 3 + ["东兰"] * 3,            # avoidable: one of each club at every table
    ["河池"] * 5 + ["宜州"] * 2 + ["东兰"] * 2,            # five of one club at three tables: two pairs at least
    ["河池"] * 3 + ["宜州"] * 3,                          # two clubs, two tables: unavoidable
    ["河池", "河池", "", "", "宜州", "宜州", "东兰", "", "东兰", "大化", "大化", "大化"],
])
def test_doudizhu_round_one_keeps_clubs_apart_unless_unavoidable(clubs):
    cs = players(clubs)
    club_of = {c.id: c.club for c in cs}
    draw = draw_round("swiss", cs, 1, seats_per_table=3, separate_related=True)
    assert same_club_pairs(draw.tables, club_of) == least_possible(cs)
    together = draw_round("swiss", cs, 1, seats_per_table=3, separate_related=False)
    # without separation round 1 goes by number only: the check above is not vacuous for the first field
    if clubs[:3] == ["河池"] * 3 and len(clubs) == 9 and clubs[3:6] == ["宜州"] * 3:
        assert same_club_pairs(together.tables, club_of) > 0


def test_the_reason_says_clubs_were_kept_apart():
    cs = players(["河池"] * 3 + ["宜州"] * 3 + ["东兰"] * 3)
    draw = draw_round("swiss", cs, 1, seats_per_table=3, separate_related=True)
    from chalicelib.glossary import reason_text
    assert all(t.why.get("same_club") == 0 for t in draw.tables)
    assert "同单位选手不同桌" in reason_text(draw.tables[0].why, "zh", {})


def test_from_round_two_clubs_no_longer_count():
    cs = [Contestant(id=f"p{i}", number=i + 1, club="河池", opponents=frozenset({f"p{(i + 1) % 6}"})) for i in range(6)]
    draw = draw_round("swiss", cs, 2, seats_per_table=3, separate_related=True)
    assert all("same_club" not in t.why for t in draw.tables)
