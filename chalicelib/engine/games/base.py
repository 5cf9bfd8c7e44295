"""The one small protocol every game implements, and helpers they share."""
from __future__ import annotations

from typing import Any, Protocol
from collections.abc import Sequence

from ...errors import InvalidResult
from ..numbers import half_up
from ..types import MatchScore, Side


class Game(Protocol):
    name: str
    seats: tuple[str, ...]            # every seat at a table, in seating order
    sides_per_table: int              # 2 (partnerships / teams) or 3 (Dou Dizhu individuals)
    point_names: dict[str, tuple[str, ...]]   # scoring method → point names, primary first

    def side_seats(self, sides: int) -> list[tuple[str, ...]]:
        """Seats of each side at a table, side 0 first."""

    def score(self, result: dict, sides: Sequence[Side], options: Any, *, knockout: bool = False) -> MatchScore:
        """Validate a table's result (deals or a final summary) and score it. Raises InvalidResult."""

    def bye(self, entry_id: str, options: Any) -> dict[str, float]:
        """Points for a bye."""

    def max_round_points(self, options: Any) -> float:
        """The most of the primary point one entry can score in one round (early finish, rules.md §9)."""

    def min_round_points(self, options: Any) -> float:
        """The least of the primary point one entry can score in one round: a loss or a forfeit (rules.md §9)."""

    def forfeit(self, winner: str | None, loser: str, options: Any) -> MatchScore:
        """A match not played: `loser` forfeits (winner None: both absent)."""


def require(condition: bool, message: str, **details) -> None:
    if not condition:
        raise InvalidResult(message, details or None)


def apply_adjustments(points: dict[str, dict[str, float]], adjustments: list[dict] | None, point_name: str,
                      entries: Sequence[str]) -> None:
    """Organiser penalties/bonuses (e.g. 级差分 deductions): added to `point_name` of the entry."""
    for adj in adjustments or []:
        require(isinstance(adj, dict), "an adjustment must be an object")
        eid = adj.get("entry_id")
        require(eid in entries, "an adjustment names an entry that is not at this table", entry_id=eid)
        value = adj.get("points")
        require(isinstance(value, (int, float)) and not isinstance(value, bool) and abs(value) <= 1000,
                "an adjustment needs numeric 'points'", got=value)
        name = adj.get("point", point_name)
        require(name in points[eid], f"unknown point name {name!r} for this scoring method")
        points[eid][name] = half_up(points[eid][name] + value)
