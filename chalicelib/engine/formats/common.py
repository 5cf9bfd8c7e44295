"""What every pairing format takes and returns. The formats know nothing of card games: a table has
sides, a side has an entry; the game decides seats (seating.py)."""
from __future__ import annotations

import random
from dataclasses import dataclass, field, fields


@dataclass(frozen=True)
class Contestant:
    id: str
    number: int                      # pairing number: seed order (1 = top); also the tie order
    score: float = 0.0
    opponents: frozenset[str] = frozenset()   # entries already met (any table)
    byes: int = 0
    home: int = 0                    # times the home side (N–S / seats 1,3,5) so far
    away: int = 0
    last_home: bool | None = None    # side in the previous round, for alternation
    club: str = ""                   # related entries (same chamber/club/sponsor)
    seat_counts: tuple[tuple[str, int], ...] = ()   # Dou Dizhu: how often in each seat (bidding rotation)
    losses: int = 0


_CONTESTANT_FIELDS = tuple(f.name for f in fields(Contestant))


def contestant_of(*values) -> Contestant:
    """Contestant(*values), every field given in order, without the frozen dataclass's __init__ (a field at a time
    through object.__setattr__: a tenth of a second of a 100,000-entry draw): the same object, its fields in its
    __dict__ as __init__ puts them (tests/engine/test_formats.py holds the two equal)."""
    if len(values) != len(_CONTESTANT_FIELDS):
        raise TypeError(f"contestant_of takes all {len(_CONTESTANT_FIELDS)} fields of a Contestant")
    made = object.__new__(Contestant)
    made.__dict__.update(zip(_CONTESTANT_FIELDS, values))
    return made


@dataclass
class Pairing:
    sides: list[str]                 # entry ids; side 0 is the home side
    reason: str                      # the engine's short wording (English, with ids)
    rematch: bool = False
    table: int = 0
    why: dict = field(default_factory=dict)   # the same, structured: the pages word it (zh / en)


@dataclass
class Draw:
    tables: list[Pairing]
    byes: list[tuple[str, str]] = field(default_factory=list)   # (entry id, reason)
    notes: list[str] = field(default_factory=list)
    cost: float = 0.0
    bye_why: dict[str, dict] = field(default_factory=dict)   # entry id → structured reason of its bye
    exact: bool = True               # proven least under the format's criteria
    method: str = ""                 # which solver drew it (for notes and benchmarks)
    tiers: tuple[int, ...] = ()      # Swiss: the draw's cost per tier (swiss.py), for pairing edits to compare


def rng_for(seed: int | str, *salt) -> random.Random:
    return random.Random(f"{seed}:" + ":".join(map(str, salt)))


def fmt(score: float) -> str:
    return f"{score:g}"


def number_tables(draw: Draw, scores: dict[str, float], numbers: dict[str, int]) -> Draw:
    """Top boards first: by the best score at the table, then the best pairing number."""
    def board(p: Pairing) -> tuple:   # lists, not generators: a 100,000-entry round sorts 50,000 tables
        return -max([scores.get(e, 0) for e in p.sides]), min([numbers.get(e, 0) for e in p.sides])
    return number_tables_by(draw, [board(p) for p in draw.tables])


def number_tables_by(draw: Draw, boards: list[tuple]) -> Draw:
    """number_tables with each table's (−best score, best number) given, in the tables' order (a Swiss draw has
    its sides' scores and numbers at hand: no lookups by id for 50,000 tables)."""
    order = sorted(range(len(boards)), key=boards.__getitem__)   # stable, as list.sort: equal boards keep their order
    draw.tables = [draw.tables[k] for k in order]
    for i, p in enumerate(draw.tables, start=1):
        p.table = i
    return draw
