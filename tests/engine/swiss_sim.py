"""A seeded simulator of Swiss events with random results, shared by tests and benchmarks."""
from __future__ import annotations

import random
from dataclasses import replace

from chalicelib.engine.formats.common import Contestant


def field_of(n: int, clubs: int = 0) -> list[Contestant]:
    return [Contestant(id=f"E{i:05d}", number=i + 1, club=f"C{i % clubs}" if clubs else "") for i in range(n)]


def play(contestants: list[Contestant], draw, rng: random.Random) -> list[Contestant]:
    """Random results: win 2 / draw 1 / loss 0; a bye scores 2. Returns the updated field."""
    by_id = {c.id: c for c in contestants}
    for p in draw.tables:
        home, away = by_id[p.sides[0]], by_id[p.sides[1]]
        r = rng.random()
        sh, sa = (2, 0) if r < 0.45 else (0, 2) if r < 0.9 else (1, 1)
        by_id[home.id] = replace(home, score=home.score + sh, opponents=home.opponents | {away.id},
                                 home=home.home + 1, last_home=True, losses=home.losses + (sh == 0))
        by_id[away.id] = replace(away, score=away.score + sa, opponents=away.opponents | {home.id},
                                 away=away.away + 1, last_home=False, losses=away.losses + (sa == 0))
    for e, _ in draw.byes:
        c = by_id[e]
        by_id[e] = replace(c, score=c.score + 2, byes=c.byes + 1)
    return [by_id[c.id] for c in contestants]


def play_three(contestants: list[Contestant], draw, rng: random.Random) -> list[Contestant]:
    """Random table results for tables of three: 5 / 3 / 1; a bye scores 3."""
    by_id = {c.id: c for c in contestants}
    for p in draw.tables:
        pts = rng.sample([5, 3, 1], 3)
        for k, e in enumerate(p.sides):
            c = by_id[e]
            by_id[e] = replace(c, score=c.score + pts[k], opponents=c.opponents | (set(p.sides) - {e}))
    for e, _ in draw.byes:
        c = by_id[e]
        by_id[e] = replace(c, score=c.score + 3, byes=c.byes + 1)
    return [by_id[c.id] for c in contestants]
