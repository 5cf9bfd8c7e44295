"""Pairing edits by the chief referee (api.md v1.2): the warnings of a layout given by hand, from the draw's
own cost function (swiss._Problem.pair_tiers), so an edit is judged exactly as the draw judged its pairing.

Tiers (swiss.py): 1 rematch / second bye, 2 related entries in round 1, 3 the bye's place, 4 score difference,
5 home balance, 6 distance in the order. A warning names the tables of tiers 1, 2, 4 and 5; score gap and home
balance only warn when the edit is worse than the draw it changes (every draw pays some of those).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Sequence

from .common import Contestant
from .swiss import SCALE, _Problem, choose_home, order_for_round


@dataclass
class Costs:
    tables: dict[int, tuple[int, ...]] = field(default_factory=dict)   # table number → its six tiers
    byes: dict[str, tuple[int, ...]] = field(default_factory=dict)     # entry id → the tiers of its bye

    def totals(self) -> tuple[int, ...]:
        sums = [0] * 6
        for tiers in [*self.tables.values(), *self.byes.values()]:
            for k, v in enumerate(tiers):
                sums[k] += v
        return tuple(sums)


def layout_costs(contestants: Sequence[Contestant], round_no: int, tables: dict[int, Sequence[str]],
                 byes: Sequence[str], separate_related: bool = False) -> Costs:
    """The draw's tiers for each table of a two-sided layout {table number: [entry, entry]} and each bye."""
    ordered = order_for_round(contestants, round_no)
    p = _Problem(ordered, round_no, separate_related)
    pos = {c.id: i for i, c in enumerate(ordered)}
    out = Costs()
    for number, sides in tables.items():
        i, j = sorted(pos[e] for e in sides)
        out.tables[number] = p.pair_tiers(i, j)
    for e in byes:
        out.byes[e] = p.pair_tiers(pos[e], p.n)
    return out


def seat_home(contestants: Sequence[Contestant], round_no: int, a: str, b: str) -> list[str]:
    """An edited table's home side by the draw's number rule (rules.md §5)."""
    by = {c.id: c for c in contestants}
    home, away = choose_home(by[a], by[b], round_no)
    return [home.id, away.id]


def warnings(contestants: Sequence[Contestant], round_no: int, tables: dict[int, Sequence[str]], byes: Sequence[str],
             drawn: Costs | None = None, separate_related: bool = False) -> list[dict]:
    """[{code, tables, entries, message}] for the layout; `drawn`: the costs of the layout before the edit."""
    costs = layout_costs(contestants, round_no, tables, byes, separate_related)
    out: list[dict] = []
    rematch = sorted(k for k, t in costs.tables.items() if t[0])
    if rematch:
        out.append({"code": "rematch", "tables": rematch, "entries": [list(tables[k]) for k in rematch],
                    "message": "重复对阵 · These entries have met before."})
    second = sorted(e for e, t in costs.byes.items() if t[0])
    if second:
        out.append({"code": "second_bye", "tables": [], "entries": second,
                    "message": "第二次轮空 · These entries have had a bye already."})
    related = sorted(k for k, t in costs.tables.items() if t[1])
    if related:
        out.append({"code": "same_club", "tables": related, "entries": [list(tables[k]) for k in related],
                    "message": "同单位相遇 · Entries of the same club meet in round 1."})
    before = drawn.totals() if drawn else (0,) * 6
    after = costs.totals()
    if after[3] > before[3]:
        gaps = sorted(k for k, t in costs.tables.items() if t[3] and (not drawn or drawn.tables.get(k) != t))
        worst = max((costs.tables[k][3] for k in gaps), default=0) / SCALE
        out.append({"code": "score_gap", "tables": gaps, "entries": [list(tables[k]) for k in gaps],
                    "message": f"分差增大（最大 {worst:g}）· The score differences grow (largest {worst:g}).",
                    "before": before[3] / SCALE, "after": after[3] / SCALE})
    if after[4] > before[4]:
        uneven = sorted(k for k, t in costs.tables.items() if t[4] and (not drawn or drawn.tables.get(k) != t))
        out.append({"code": "seat_balance", "tables": uneven, "entries": [list(tables[k]) for k in uneven],
                    "message": "主客（方位）失衡 · The home/away balance gets worse."})
    return out


def group_warnings(contestants: Sequence[Contestant], tables: dict[int, Sequence[str]], byes: Sequence[str]) -> list[dict]:
    """Three-seat tables (Dou Dizhu): the draw's first tier, players who have met, and second byes."""
    by = {c.id: c for c in contestants}
    out: list[dict] = []
    met = sorted(k for k, es in tables.items() if any(b in by[a].opponents for a in es for b in es if a != b))
    if met:
        out.append({"code": "rematch", "tables": met, "entries": [list(tables[k]) for k in met],
                    "message": "重复对阵 · These entries have met before."})
    second = sorted(e for e in byes if by[e].byes)
    if second:
        out.append({"code": "second_bye", "tables": [], "entries": second,
                    "message": "第二次轮空 · These entries have had a bye already."})
    return out
