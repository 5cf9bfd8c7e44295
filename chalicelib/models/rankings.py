"""Rankings across events (api.md v1.3 "Rankings", issue 42): what an organiser sends."""
from __future__ import annotations

from pydantic import Field, field_validator

from .base import Game, Strict

__all__ = ["FieldFactorIn", "RankingPointsIn", "RankingIn", "CountEventIn"]


class FieldFactorIn(Strict):
    min_entries: int = Field(default=8, ge=1, le=100_000)
    per_entry: float = Field(default=0.02, ge=0, le=1)


class RankingPointsIn(Strict):
    places: list[float] | None = Field(default=None, min_length=1, max_length=500,
                                       description="points of the 1st, 2nd … final place (default: docs/rankings.md)")
    field_factor: FieldFactorIn | None = None

    @field_validator("places")
    @classmethod
    def _places(cls, v):
        if v is not None and (any(x < 0 for x in v) or any(a < b for a, b in zip(v, v[1:], strict=False))):
            raise ValueError("places: points may not grow with the place, nor be negative")
        return v

    decay_per_year: float | None = Field(default=None, ge=0, le=1, description="default 0.15 (the WBF's)")


class RankingIn(Strict):
    name: str = Field(min_length=1, max_length=200)
    game: Game
    points: RankingPointsIn = Field(default_factory=RankingPointsIn)
    rating: bool = True
    provisional_tables: int = Field(default=10, ge=0, le=1000,
                                    description="a rating is provisional until the player has this many tables")


class CountEventIn(Strict):
    event_id: str = Field(min_length=1, max_length=64)
