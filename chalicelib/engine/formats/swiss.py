"""Swiss pairing for two-sided tables (Guandan and Tractor pairs, Gouji teams), and special Swiss.

Entries are ordered by score (equal scores: odd rounds small number first, even rounds large number
first, rules.md §5). The pairing minimises, exactly over matchings whose partners lie within a window
of the order, the total cost = score differences + a rematch penalty far above any score difference
(+ a smaller penalty for related entries in round 1). A dynamic programme over the order with the set
of still-unpaired entries in the window as its state does this in linear time.
"""
from __future__ import annotations

from typing import Sequence

from ...errors import NoValidPairing
from .common import Contestant, Draw, Pairing, choose_home, fmt, number_tables

REMATCH = 1_000_000.0
RELATED = 1_000.0
WINDOW = 16
BEAM = 32


def order_for_round(contestants: Sequence[Contestant], round_no: int) -> list[Contestant]:
    sign = 1 if round_no % 2 else -1
    return sorted(contestants, key=lambda c: (-c.score, sign * c.number))


def pick_bye(ordered: list[Contestant]) -> tuple[Contestant, str]:
    """The lowest-placed entry that has not had a bye (one bye per entry)."""
    for c in reversed(ordered):
        if c.byes == 0:
            return c, "bye: lowest without bye"
    return ordered[-1], "bye: lowest (everyone has had one)"


def pair_cost(a: Contestant, b: Contestant, round_no: int, separate_related: bool) -> float:
    return abs(a.score - b.score) + pair_penalty(a, b, round_no, separate_related)


def pair_penalty(a: Contestant, b: Contestant, round_no: int, separate_related: bool) -> float:
    cost = 0.0
    if b.id in a.opponents:
        cost += REMATCH
    if separate_related and round_no == 1 and a.club and a.club == b.club:
        cost += RELATED
    return cost


def min_cost_pairs(order: Sequence[Contestant], round_no: int, separate_related: bool = False,
                   window: int = WINDOW, beam: int = BEAM) -> tuple[list[tuple[int, int]], float]:
    """Pairs (indexes into `order`) of least total cost among pairings whose partners are within
    `window` places of each other. Raises NoValidPairing for an odd count."""
    n = len(order)
    if n % 2:
        raise NoValidPairing("an odd number of entries cannot be paired (give one a bye first)")
    window = max(1, min(window, n - 1)) if n else 1
    limit = 1 << window
    ids = [c.id for c in order]
    met = [c.opponents for c in order]
    clubs = [c.club if (separate_related and round_no == 1) else "" for c in order]
    scores = [c.score for c in order]
    inf = float("inf")
    states: dict[int, float] = {0: 0.0}
    back: list[dict[int, tuple[int, int]]] = []
    for i in range(n):
        nxt: dict[int, float] = {}
        bp: dict[int, tuple[int, int]] = {}
        met_i, club_i = met[i], clubs[i]
        # Score differences are paid as gaps crossed: every entry still open after i pays the gap
        # to i+1. The total is the same, but a state that defers pairing carries its debt with it.
        # Equal totals: crossing a higher boundary costs a hair more, so the top groups stay intact and
        # floaters come from the bottom of a group (the Swiss convention). Never outweighs half a point.
        gap = (scores[i] - scores[i + 1]) * (1 + 1e-7 * (n - i) / n) if i + 1 < n else 0.0
        for mask, c in states.items():
            m = mask
            rest = mask.bit_count() - 1
            while m:  # pair i with an open entry j
                low = m & -m
                m ^= low
                nm = (mask ^ low) << 1
                if nm >= limit:
                    continue
                j = i - low.bit_length()
                nc = c + gap * rest
                if ids[j] in met_i:
                    nc += REMATCH
                if club_i and club_i == clubs[j]:
                    nc += RELATED
                if nc < nxt.get(nm, inf):
                    nxt[nm] = nc
                    bp[nm] = (mask, j)
            nm = (mask << 1) | 1  # or leave i open for a later partner
            if nm < limit:
                nc = c + gap * (rest + 2)
                if nc < nxt.get(nm, inf):
                    nxt[nm] = nc
                    bp[nm] = (mask, -1)
        if len(nxt) > beam:
            # Among equal costs, fewer open entries first: deferring is never cheaper in the end.
            keep = sorted(nxt, key=lambda k: (nxt[k], k.bit_count(), k))[:beam]
            nxt = {k: nxt[k] for k in keep}
        states = nxt
        back.append(bp)
    if 0 not in states:
        raise NoValidPairing("no pairing found within the window")
    pairs, mask = [], 0
    for i in range(n - 1, -1, -1):
        prev, j = back[i][mask]
        if j >= 0:
            pairs.append((j, i))
        mask = prev
    pairs.reverse()
    return pairs, sum(pair_cost(order[j], order[i], round_no, separate_related) for j, i in pairs)


def pair_round(contestants: Sequence[Contestant], round_no: int, *, separate_related: bool = False) -> Draw:
    """Draws one Swiss round. Never a rematch while a legal pairing exists; else the least bad one, said."""
    if len(contestants) < 2:
        raise NoValidPairing("at least two entries are needed to draw a round")
    ordered = order_for_round(contestants, round_no)
    draw = Draw(tables=[])
    if len(ordered) % 2:
        bye, reason = pick_bye(ordered)
        draw.byes.append((bye.id, reason))
        ordered = [c for c in ordered if c.id != bye.id]
    pairs, cost = min_cost_pairs(ordered, round_no, separate_related)
    if cost >= REMATCH and len(ordered) > WINDOW:
        # A wider search before accepting a rematch (rare: late rounds of small score groups).
        wide, wide_cost = min_cost_pairs(ordered, round_no, separate_related, window=min(len(ordered) - 1, 24), beam=8192)
        if wide_cost < cost:
            pairs, cost = wide, wide_cost
    draw.cost = cost
    natural = {}
    for k in range(0, len(ordered) - 1, 2):
        natural[ordered[k].id], natural[ordered[k + 1].id] = ordered[k + 1], ordered[k]
    for i, j in pairs:
        a, b = ordered[i], ordered[j]
        home, away, _ = choose_home(a, b, round_no)
        rematch = b.id in a.opponents
        if rematch:
            reason = "rematch: no pairing without one (met before)"
            draw.notes.append(f"rematch unavoidable: {a.id} v {b.id}")
        elif a.score == b.score:
            reason = f"same score {fmt(a.score)}"
        else:
            hi, lo = (a, b) if a.score > b.score else (b, a)
            reason = f"floated from {fmt(hi.score)} to {fmt(lo.score)}"
        for x in (a, b):
            nat = natural.get(x.id)
            if nat is not None and nat.id in x.opponents and nat.id not in (a.id, b.id):
                reason += f"; avoids rematch with {nat.id}"
                break
        if round_no == 1 and a.club and a.club == b.club:
            reason += "; related entries (could not be kept apart)"
        draw.tables.append(Pairing(sides=[home.id, away.id], reason=reason, rematch=rematch))
    return number_tables(draw, {c.id: c.score for c in contestants}, {c.id: c.number for c in contestants})


def pair_special_round(contestants: Sequence[Contestant], round_no: int) -> Draw:
    """Special Swiss (特别积分编排): from round 2 the winners' zone (no loss yet) and the losers' zone are
    paired apart; when the winners' zone is odd, the best entry of the losers' zone joins it."""
    if round_no == 1:
        return pair_round(contestants, 1)
    ordered = order_for_round(contestants, round_no)
    winners = [c for c in ordered if c.losses == 0]
    losers = [c for c in ordered if c.losses > 0]
    notes = []
    if len(winners) % 2 and losers:
        best = losers.pop(0)
        winners.append(best)
        notes.append(f"{best.id} joins the winners' zone (it was odd)")
    draw = Draw(tables=[], notes=notes)
    for zone, name in ((winners, "winners' zone"), (losers, "losers' zone")):
        if not zone:
            continue
        part = pair_round(zone, round_no) if len(zone) > 1 else Draw(tables=[], byes=[(zone[0].id, "bye: alone in zone")])
        for p in part.tables:
            p.reason = f"{name}: {p.reason}"
        draw.tables.extend(part.tables)
        draw.byes.extend(part.byes)
        draw.notes.extend(part.notes)
        draw.cost += part.cost
    return number_tables(draw, {c.id: c.score for c in contestants}, {c.id: c.number for c in contestants})
