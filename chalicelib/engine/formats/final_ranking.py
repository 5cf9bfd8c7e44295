"""Every entry of a multi-stage event has a final place (rules.md §9, "Tractor final ranking", and for every game):
the last stage's places first (a knockout's: champion, runner-up, the 3rd-place match, then by the round reached),
then the entries that went out in the stage before it by their results there, then those out in the stage before
that, and so on; disqualified entries last, listed as such and not ranked (rules.md §8: "not ranked and takes no
prize")."""
from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Collection, Sequence

from ..standings import Row, lots_value

RELATIVE = ("head_to_head", "head_to_head_two")


@dataclass
class Placed:
    row: Row
    rank: int | None               # None: disqualified (unranked)
    out_in_stage: int | None       # 0-based stage it went out in; None: it played the last stage
    disqualified: bool = False


def outs_in_order(rows: Sequence[Row], groups: Sequence[Sequence[str]] | None, chain: Sequence[str],
                  seed: int | str = 0) -> list[Row]:
    """The rows of the entries out in one stage, best first. Without groups the stage's own order stands. With
    groups, entries are compared across groups by their place in their group first (every group's 3rd before any
    4th), then by the chain's point totals (a head-to-head means nothing across groups), then by the stage's lots."""
    if not groups:
        return sorted(rows, key=lambda r: r.rank)
    totals = [k for k in chain if k not in RELATIVE and k != "lots" and any(k in r.points for r in rows)]
    return sorted(rows, key=lambda r: (r.rank, *(-r.points.get(k, 0.0) for k in totals), -lots_value(seed, r.entry_id),
                                       r.entry_id))


def final_ranking(last: Sequence[Row], earlier: Sequence[tuple[int, Sequence[Row]]],
                  disqualified: Collection[str], disqualified_rows: Sequence[Row] = ()) -> list[Placed]:
    """`last`: the last stage's rows in order; `earlier`: (stage index, the rows of the entries that went out in
    that stage, best first), the latest stage first. Places run on without gaps; equal places of the last stage
    (a shared rank) are kept. Disqualified entries, wherever they went out, come last with no place."""
    out: list[Placed] = []
    seen: set[str] = set()
    for r in last:
        if r.entry_id not in disqualified and r.entry_id not in seen:
            out.append(Placed(r, r.rank, None))
            seen.add(r.entry_id)
    position = len(out) + 1          # after a shared last place too (ranks 1, 2, 3, 3 → 5)
    for stage, rows in earlier:
        for r in rows:
            if r.entry_id in disqualified or r.entry_id in seen:
                continue
            out.append(Placed(r, position, stage))
            seen.add(r.entry_id)
            position += 1
    for r in disqualified_rows:
        if r.entry_id not in seen:
            out.append(Placed(r, None, None, disqualified=True))
            seen.add(r.entry_id)
    return out
