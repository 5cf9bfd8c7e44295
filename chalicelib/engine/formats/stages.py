"""Multi-stage events: who advances, their seeding from the earlier stage, and carried-over points."""
from __future__ import annotations

from collections.abc import Sequence

from ..numbers import share


def advancing(standings_by_group: Sequence[Sequence[str]], per_group: int | None = None,
              total: int | None = None) -> list[str]:
    """Entries in seeding order for the next stage: the group winners first (in group order), then the
    runners-up, and so on (so group winners are seeded apart); or the top `total` of one standings list."""
    if per_group:
        out = []
        for place in range(per_group):
            for group in standings_by_group:
                if place < len(group):
                    out.append(group[place])
        return out
    merged = [e for group in standings_by_group for e in group]
    return merged[:total] if total else merged


def carry_over(points: dict[str, float], mode: str) -> dict[str, float]:
    """none / full / half; half rounds half-up to 2 decimals (rules.md §5)."""
    if mode == "none":
        return {k: 0.0 for k in points}
    if mode == "full":
        return dict(points)
    return {k: share([v], 2) for k, v in points.items()}
