"""Plain data the engine passes around. Pure: no I/O, no clock, no randomness without a seed."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from collections.abc import Mapping, Sequence


@dataclass(frozen=True)
class Side:
    """One side of a table: an entry and the seats its players sit in."""
    entry_id: str
    seats: tuple[str, ...]


@dataclass
class MatchScore:
    """What one table produced, in the point names of api.md, plus what standings need."""
    points: dict[str, dict[str, float]]            # entry id → point name → value
    outcome: dict[str, float]                      # entry id → 1 win, 0.5 draw, 0 loss (head-to-head)
    opponents: dict[str, list[str]]                # entry id → the entries it played
    details: dict[str, Any] = field(default_factory=dict)   # per-game extras (levels by deal, bomb ledger …)
    winner: str | None = None                      # knockout winner when the match decides one


@dataclass(frozen=True)
class MatchRecord:
    """A scored match as standings see it (one round, one table, or a bye)."""
    round: int
    table: int
    entries: tuple[str, ...]
    points: Mapping[str, Mapping[str, float]]
    outcome: Mapping[str, float]
    bye: bool = False
    forfeit: Sequence[str] = ()
