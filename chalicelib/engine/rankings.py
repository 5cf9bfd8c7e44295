"""Ranking points across events (issue 42): points by final place, a field-size factor and a yearly decay, summed
per player. Pure: no I/O, no clock (`now` is passed in). The default table and where its numbers come from are in
docs/rankings.md.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from collections.abc import Iterable, Sequence

from .numbers import half_up, share

# The WBF's on-line master-point scale (200, 140, 100, 80 … for the first twenty of a field of 40 or more), halved
# so the winner earns 100: docs/rankings.md says where it comes from and what could not be verified.
DEFAULT_PLACES: tuple[float, ...] = (100, 70, 50, 40, 30, 20, 10, 9, 8, 7, 6, 5, 4.5, 4, 3.5, 3, 2.5, 2, 1.5, 1)
DEFAULT_DECAY = 0.15       # the WBF ranking's: points over a year old lose 15 % a year
DAYS_PER_YEAR = 365.25


@dataclass(frozen=True)
class FieldFactor:
    """Bigger fields earn more: 1 + per_entry × (entries − min_entries); a field below min_entries earns its share
    entries / min_entries of the table (a four-pair evening is not a 40-pair open)."""
    min_entries: int = 8
    per_entry: float = 0.02

    def of(self, entries: int) -> float:
        if entries < self.min_entries:
            return entries / self.min_entries
        return 1 + self.per_entry * (entries - self.min_entries)


@dataclass(frozen=True)
class PointsTable:
    places: tuple[float, ...] = DEFAULT_PLACES
    field_factor: FieldFactor | None = None
    decay_per_year: float = DEFAULT_DECAY

    @classmethod
    def from_config(cls, cfg: dict | None) -> PointsTable:
        cfg = cfg or {}
        ff = cfg.get("field_factor")
        return cls(places=tuple(cfg.get("places") or DEFAULT_PLACES),
                   field_factor=FieldFactor(**ff) if ff else None,
                   decay_per_year=DEFAULT_DECAY if cfg.get("decay_per_year") is None else cfg["decay_per_year"])

    def at(self, place: int) -> float:
        """The table's points of one place (0 beyond the table)."""
        return float(self.places[place - 1]) if 1 <= place <= len(self.places) else 0.0


def event_points(table: PointsTable, places: Sequence[int | None], entries: int | None = None) -> list[float]:
    """The points of each final place of one event, in the given order. Entries level on a place share the average
    of the places they fill (rules.md §2: "ties share the average of the tied places"): two entries 3rd = (3rd +
    4th) / 2 each. None (disqualified, not ranked) earns nothing. `entries`: the field size (default: the rows)."""
    counts: dict[int, int] = {}
    for p in places:
        if p is not None:
            counts[p] = counts.get(p, 0) + 1
    factor = table.field_factor.of(entries if entries is not None else len(places)) if table.field_factor else 1.0
    shared = {p: share([table.at(q) for q in range(p, p + k)], k) for p, k in counts.items()}
    return [0.0 if p is None else half_up(shared[p] * factor) for p in places]


def decay(table: PointsTable, played_on: datetime, now: datetime) -> float:
    """What is left of an event's points: points lose decay_per_year once a year, on each full year since the event
    (the WBF's steps: a whole year's points keep their value until the year is over)."""
    years = int((now - played_on).days // DAYS_PER_YEAR)
    return (1 - table.decay_per_year) ** max(0, years)


@dataclass
class PlayerTotal:
    player_id: str
    name: str = ""
    club: str = ""
    points: float = 0.0
    events: int = 0
    results: list[dict] = field(default_factory=list)


def totals(table: PointsTable, results: Iterable[dict], now: datetime) -> list[PlayerTotal]:
    """Each player's total over every counted result ({player_id, name, club, event_id, date (datetime), place,
    points (before decay)}), decayed to `now`, best first; level players in player-id order (stable pages). The name
    and club shown are those of the player's latest event."""
    by: dict[str, PlayerTotal] = {}
    latest: dict[str, datetime] = {}
    for r in results:
        pid = r["player_id"]
        tot = by.setdefault(pid, PlayerTotal(pid))
        pts = half_up(r["points"] * decay(table, r["date"], now))
        tot.points = half_up(tot.points + pts)
        tot.events += 1
        tot.results.append({**r, "points_now": pts})
        if pid not in latest or r["date"] >= latest[pid]:
            latest[pid] = r["date"]
            tot.name, tot.club = r.get("name", ""), r.get("club", "")
    return sorted(by.values(), key=lambda t: (-t.points, t.player_id))


def positions(rows: Sequence[PlayerTotal]) -> list[int]:
    """Competition ranking ("1, 2, 2, 4"): players level on points share the higher position."""
    out: list[int] = []
    for i, r in enumerate(rows):
        out.append(out[-1] if i and r.points == rows[i - 1].points else i + 1)
    return out
