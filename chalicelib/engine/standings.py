"""Standings: totals over the event, ranked by a configurable tie-break chain.

Keys (rules.md): point totals by name; `net_points` (own minus opponents' primary points);
`head_to_head` (a mini-league among exactly the tied entries, used when every pair of them met);
`head_to_head_two` (only when exactly two are tied and they met); `opponents_match_points` /
`opponents_points` (sum of opponents' totals); `lots` (a seeded draw: reproducible, published).
Tied groups are split key by key, and relative keys are recomputed inside each remaining group.
"""
from __future__ import annotations

import hashlib
from collections import defaultdict
from dataclasses import dataclass, field
from collections.abc import Iterable, Sequence

from .numbers import half_up
from .types import MatchRecord


@dataclass
class Row:
    rank: int
    entry_id: str
    points: dict[str, float]
    tiebreaks: dict[str, float] = field(default_factory=dict)
    played: int = 0
    byes: int = 0


def lots_value(seed: int | str, entry_id: str) -> float:
    """A draw of lots that depends only on the seed and the entry: stable under input order."""
    digest = hashlib.sha256(f"{seed}:{entry_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2 ** 64


def compute(entries: Iterable[str], records: Sequence[MatchRecord], chain: Sequence[str], *,
            point_names: Sequence[str], primary: str | None = None, seed: int | str = 0,
            carry: dict[str, dict[str, float]] | None = None) -> list[Row]:
    entries = list(dict.fromkeys(entries))
    primary = primary or point_names[0]
    totals: dict[str, dict[str, float]] = {e: {n: 0.0 for n in point_names} for e in entries}
    for e, pts in (carry or {}).items():
        if e in totals:
            for n, v in pts.items():
                totals[e][n] = totals[e].get(n, 0.0) + v
    opponents: dict[str, list[str]] = defaultdict(list)
    net: dict[str, float] = defaultdict(float)
    played: dict[str, int] = defaultdict(int)
    byes: dict[str, int] = defaultdict(int)
    meetings: dict[frozenset, list[MatchRecord]] = defaultdict(list)
    for rec in records:
        for e, pts in rec.points.items():
            if e not in totals:
                continue
            t = totals[e]
            for n, v in pts.items():
                t[n] = t.get(n, 0.0) + v
            if rec.bye:
                byes[e] += 1
                continue
            played[e] += 1
            others = [o for o in rec.entries if o != e]
            opponents[e].extend(others)
            net[e] += pts.get(primary, 0.0) - sum(rec.points.get(o, {}).get(primary, 0.0) for o in others)
        if not rec.bye and len(rec.entries) == 2:
            meetings[frozenset(rec.entries)].append(rec)

    def global_value(key: str, e: str) -> float:
        if key in totals[e]:
            return totals[e][key]
        if key == "net_points":
            return net[e]
        if key == "opponents_match_points":
            return sum(totals[o].get("match_points", 0.0) for o in opponents[e] if o in totals)
        if key == "opponents_points":
            return sum(totals[o].get(primary, 0.0) for o in opponents[e] if o in totals)
        if key == "lots":
            return lots_value(seed, e)
        return 0.0

    def h2h(group: list[str], only_two: bool) -> dict[str, float] | None:
        if len(group) < 2 or (only_two and len(group) != 2):
            return None
        score = {e: 0.0 for e in group}
        for i, a in enumerate(group):
            for b in group[i + 1:]:
                met = meetings.get(frozenset((a, b)))
                if not met:
                    return None  # not every tied entry met the others: the key does not apply
                for rec in met:
                    score[a] += rec.outcome.get(a, 0.0)
                    score[b] += rec.outcome.get(b, 0.0)
        return score

    shown: dict[str, dict[str, float]] = {e: {} for e in entries}
    relative = {"head_to_head", "head_to_head_two"}
    cache: dict[str, dict[str, float]] = {}

    def values_for(key: str, group: list[str]) -> dict[str, float] | None:
        if key in relative:
            return h2h(group, key == "head_to_head_two")
        if key not in cache:
            cache[key] = {}
        col = cache[key]
        out = {}
        for e in group:
            if e not in col:
                col[e] = global_value(key, e)
            out[e] = col[e]
        return out

    ordered: list[list[str]] = []
    # rules.md §1: when a step leaves a smaller group still level, the chain starts again for exactly that
    # group from its first relative key (head-to-head among just those entries), before going on.
    first_relative = next((i for i, k in enumerate(chain) if k in relative), None)

    def split(group: list[str], depth: int) -> None:
        if len(group) == 1 or depth == len(chain):
            ordered.append(sorted(group))
            return
        key = chain[depth]
        vals = values_for(key, group)
        if vals is None:
            split(group, depth + 1)
            return
        for e in group:
            shown[e][key] = round(vals[e], 6) if key == "lots" else vals[e]
        group = sorted(group, key=lambda e: (-vals[e], e))
        i = 0
        while i < len(group):
            j = i
            while j + 1 < len(group) and vals[group[j + 1]] == vals[group[i]]:
                j += 1
            sub = group[i:j + 1]
            restart = (first_relative is not None and first_relative <= depth and 1 < len(sub) < len(group))
            split(sub, first_relative if restart else depth + 1)
            i = j + 1

    # The first key splits everyone: do it with one sort instead of recursion (10k entries).
    split(entries, 0)
    # `split` calls itself, so it and its closure's cells are a cycle holding every table above (totals, meetings,
    # opponents): freed only by the cyclic collector, which a publish pauses (services/gc_pause.py) — each standings
    # worked out was kept to the publish's end (issue 43: hundreds of MB at 100,000 entries). Broken here.
    split = None  # noqa: F841
    rows: list[Row] = []
    position = 1
    for tied in ordered:
        for e in tied:
            rows.append(Row(rank=position, entry_id=e, points={k: half_up(v) for k, v in totals[e].items()},
                            tiebreaks=shown[e], played=played[e], byes=byes[e]))
        position += len(tied)
    return rows


def allocate_prizes(rows: Sequence[Row], prizes: Sequence) -> list[dict]:
    """Prize per final place (seed 001: 1st 5000, 2nd 3000, 3rd 2000, 4th–8th 1000 each)."""
    out = []
    for row in rows:
        if row.rank is None:    # disqualified: listed, not ranked, no prize (rules.md §8)
            continue
        for prize in prizes:
            if prize.place_from <= row.rank <= prize.place_to:
                out.append({"entry_id": row.entry_id, "place": row.rank, "amount": prize.amount, "label": prize.label})
                break
    return out


def last_if_forfeited(rows: list[Row], forfeited: set) -> list[Row]:
    """Seed 000 "无故弃权者的名次降为本阶段比赛最后一位": entries with an unexcused forfeit drop to the last places of
    the stage, whatever their points (Guandan's rule; the event config says whether it applies, rules.md §5)."""
    if not forfeited or not any(r.entry_id in forfeited for r in rows):
        return rows
    ordered = [r for r in rows if r.entry_id not in forfeited] + [r for r in rows if r.entry_id in forfeited]
    for k, r in enumerate(ordered, start=1):
        r.rank = k
    return ordered


def unbeaten(records: Sequence[MatchRecord]) -> dict[str, bool]:
    """Entry → no match lost so far (a bye or a draw is not a loss)."""
    out: dict[str, bool] = {}
    for rec in records:
        if rec.bye:
            continue
        for e in rec.entries:
            out[e] = out.get(e, True) and rec.outcome.get(e, 1.0) != 0.0
    return out


def unbeaten_first(rows: list[Row], records: Sequence[MatchRecord]) -> list[Row]:
    """Special Swiss (seed 000): "胜区最后一支胜队获得冠军，其后名次则按最后积分确定" — the one entry left unbeaten
    is first whatever the scoring method; the others keep their order by points. While two or more are still
    unbeaten nothing moves."""
    clean = [r for r in rows if unbeaten(records).get(r.entry_id)]
    if len(clean) != 1 or rows[0].entry_id == clean[0].entry_id:
        return rows
    ordered = clean + [r for r in rows if r is not clean[0]]
    for k, r in enumerate(ordered, start=1):
        r.rank = k
    return ordered


def without_entries(rows: list[Row], removed: set) -> list[Row]:
    """Disqualified entries (rules.md §8: "取消比赛资格") are not ranked: the others close up, so places and
    prizes go to the next entries."""
    if not removed:
        return rows
    kept = [r for r in rows if r.entry_id not in removed]
    for k, r in enumerate(kept, start=1):
        r.rank = k
    return kept
