"""Swiss pairing for two-sided tables (Guandan and Tractor pairs, Gouji teams), and special Swiss.

Entries are ordered by score (equal scores: odd rounds small number first, even rounds large number
first, rules.md §5). A draw minimises, in this order:

  1. rematches, and a second bye for one entry (a bye is a meeting with "nobody");
  2. related entries (same club) meeting in round 1;
  3. the bye's place: the lowest-placed entry without a bye whose removal leaves such a pairing;
  4. score differences across tables;
  5. home balance under the number rule (odd rounds the smaller number is home, even rounds the larger);
  6. distance in the order (1v2 and 3v4 rather than 1v3 and 2v4), a crossing near the top weighing a
     little more, so floaters leave a group from its bottom and the top groups stay whole.

The tiers are folded into one integer weight per pair, each tier's unit above the largest total the
tiers below it can reach, so a maximum-weight perfect matching (rustworkx, Edmonds' blossom) is the
lexicographic optimum. It runs on a band of the order (pairs at most `k` places apart) and the band is
widened until tiers 1–4 meet lower bounds that every draw must pay; if they are not met the whole
graph is solved, which is exact by construction. Very large fields try a windowed dynamic programme
first and keep its answer only when it meets the same bounds. A draw never fails for being hard: it
fails only when it is impossible (fewer than two entries, or rematches forbidden and unavoidable).
"""
from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Sequence

from ...errors import NoValidPairing
from .common import Contestant, Draw, Pairing, fmt, number_tables, number_tables_by

REMATCH = 1_000_000.0      # the float costs of `pair_cost`, kept for references and benchmarks
RELATED = 1_000.0
WINDOW = 16                # dynamic programme: partners at most this many places apart
BEAM = 32                  # dynamic programme: states kept per step
DP_ABOVE = 1_500           # fields larger than this try the dynamic programme first
BAND = 12                  # the matching's first band: pairs at most this many places apart
FULL_LIMIT = 300           # fields up to this size go to the whole graph when the band is not proven
SCALE = 100                # scores are compared in hundredths (carry-over rounds to 2 decimals)


def order_for_round(contestants: Sequence[Contestant], round_no: int) -> list[Contestant]:
    sign = 1 if round_no % 2 else -1
    return sorted(contestants, key=lambda c: (-c.score, sign * c.number))


def pair_cost(a: Contestant, b: Contestant, round_no: int, separate_related: bool) -> float:
    """Rematch and related penalties plus the score difference: the first tiers as one float."""
    return abs(a.score - b.score) + pair_penalty(a, b, round_no, separate_related)


def pair_penalty(a: Contestant, b: Contestant, round_no: int, separate_related: bool) -> float:
    cost = 0.0
    if b.id in a.opponents:
        cost += REMATCH
    if separate_related and round_no == 1 and a.club and a.club == b.club:
        cost += RELATED
    return cost


def choose_home(a: Contestant, b: Contestant, round_no: int) -> tuple[Contestant, Contestant]:
    """rules.md §5: the smaller pairing number is home in odd rounds, the larger in even rounds."""
    smaller, larger = (a, b) if a.number < b.number else (b, a)
    return (smaller, larger) if round_no % 2 else (larger, smaller)


# --------------------------------------------------------------------------- the problem and its bounds

@dataclass
class _Solution:
    pairs: list[tuple[int, int]]      # positions in the order; the bye is paired with position n
    tiers: tuple[int, ...]
    method: str
    exact: bool


class _Problem:
    def __init__(self, ordered: list[Contestant], round_no: int, separate_related: bool):
        self.order = ordered
        self.round_no = round_no
        self.n = n = len(ordered)
        self.odd = n % 2 == 1
        self.related = separate_related and round_no == 1
        self.scores = [round(c.score * SCALE) for c in ordered]
        self.max_met = max((len(c.opponents) for c in ordered), default=0)
        edges = n // 2 + 1
        span = (max(self.scores) - min(self.scores)) if n else 0
        # units of tiers 6..1: each above the most that all lower tiers together can add up to
        self.u6 = 1
        self.u5 = self.u6 * (edges * 2 * n * n + 1)
        self.u4 = self.u5 * (edges * 2 + 1)
        self.u3 = self.u4 * (edges * span + 1)
        self.u2 = self.u3 * (n + 1)
        self.u1 = self.u2 * (edges + 1)
        self.top = self.u1 * (edges + 2)
        if self.top >= 1 << 120:   # rustworkx weighs in i128: beyond ~10^5 entries drop the cosmetic tiers 5-6
            self.u4, self.u5, self.u6 = 1, 0, 0
            self.u3 = edges * span + 1
            self.u2 = self.u3 * (n + 1)
            self.u1 = self.u2 * (edges + 1)
            self.top = self.u1 * (edges + 2)
        self.bounds = self._bounds()

    # tier values ---------------------------------------------------------------------------
    def pair_tiers(self, i: int, j: int) -> tuple[int, int, int, int, int, int]:
        if j == self.n:           # i takes the bye
            c = self.order[i]
            return (1 if c.byes else 0, 0, self.n - 1 - i, 0, 0, 0)
        a, b = self.order[i], self.order[j]
        home, away = choose_home(a, b, self.round_no)
        balance = (home.home > home.away) + (away.away > away.home)
        return (1 if b.id in a.opponents else 0,
                1 if self.related and a.club and a.club == b.club else 0,
                0,
                abs(self.scores[i] - self.scores[j]),
                balance,
                (j - i) * 2 * self.n - (i + j - 1) * (j - i) // 2)   # Σ over boundaries crossed of (2n - k)

    def weight(self, i: int, j: int) -> int:
        t1, t2, t3, t4, t5, t6 = self.pair_tiers(i, j)
        return self.top - (t1 * self.u1 + t2 * self.u2 + t3 * self.u3 + t4 * self.u4 + t5 * self.u5 + t6 * self.u6)

    def totals(self, pairs: list[tuple[int, int]]) -> tuple[int, ...]:
        """Each tier's sum of pair_tiers over `pairs`, its terms made inline (50,000 pairs at 100,000 entries)."""
        n, order, scores, related, odd_round = self.n, self.order, self.scores, self.related, self.round_no % 2 == 1
        t1 = t2 = t3 = t4 = t5 = t6 = 0
        for i, j in pairs:
            if j == n:   # i takes the bye
                t1 += 1 if order[i].byes else 0
                t3 += n - 1 - i
                continue
            a, b = order[i], order[j]
            if b.id in a.opponents:
                t1 += 1
            if related and a.club and a.club == b.club:
                t2 += 1
            t4 += abs(scores[i] - scores[j])
            small, large = (a, b) if a.number < b.number else (b, a)
            home, away = (small, large) if odd_round else (large, small)
            t5 += (home.home > home.away) + (away.away > away.home)
            t6 += (j - i) * 2 * n - (i + j - 1) * (j - i) // 2
        return t1, t2, t3, t4, t5, t6

    def _bounds(self) -> tuple[int, int, int]:
        """Lower bounds of tiers 1–3 that hold for every draw of this field."""
        n = self.n
        eligible = [i for i, c in enumerate(self.order) if not c.byes]
        bye_at = (eligible[-1] if eligible else n - 1) if self.odd else None
        t1 = 1 if self.odd and not eligible else 0
        t2 = 0
        if self.related:
            sizes: dict[str, int] = {}
            for c in self.order:
                if c.club:
                    sizes[c.club] = sizes.get(c.club, 0) + 1
            biggest = max(sizes.values(), default=0)
            t2 = max(0, biggest - (n + 1) // 2)   # a club larger than half the field must meet itself
        t3 = (n - 1 - bye_at) if bye_at is not None else 0
        return t1, t2, t3

    def score_bound(self, bye: int | None) -> int:
        """Tier 4 cannot be below pairing neighbours in score order (with the bye taken out)."""
        rest = [s for k, s in enumerate(self.scores) if k != bye]
        return sum(rest[k] - rest[k + 1] for k in range(0, len(rest) - 1, 2))

    def proven(self, pairs: list[tuple[int, int]], tiers: tuple[int, ...]) -> bool:
        bye = next((i for i, j in pairs if j == self.n), None)
        return tiers[:3] == self.bounds and tiers[3] == self.score_bound(bye)


# --------------------------------------------------------------------------- solvers

def _matching(p: _Problem, band: int) -> list[tuple[int, int]] | None:
    """A maximum-weight perfect matching over pairs at most `band` places apart (None: no perfect one)."""
    import rustworkx as rx   # imported here: cold starts that never draw do not pay for it

    n = p.n
    vertices = n + (1 if p.odd else 0)
    g = rx.PyGraph(multigraph=False)
    g.add_nodes_from(range(vertices))
    edges = [(i, j, p.weight(i, j)) for i in range(n) for j in range(i + 1, min(n, i + band + 1))]
    if p.odd:
        edges.extend((i, n, p.weight(i, n)) for i in range(n))
    g.add_edges_from(edges)
    mates = rx.max_weight_matching(g, max_cardinality=True, weight_fn=lambda w: w)
    if 2 * len(mates) < vertices:
        return None
    return sorted(tuple(sorted(m)) for m in mates)


def _solve(p: _Problem) -> _Solution:
    n = p.n
    if n > DP_ABOVE:
        pairs = _repaired_natural_pairs(p)
        if pairs is not None:
            tiers = p.totals(pairs)
            if p.proven(pairs, tiers):
                return _Solution(pairs, tiers, "dp", True)
        pairs = _dp_pairs(p)
        if pairs is not None:
            tiers = p.totals(pairs)
            if p.proven(pairs, tiers):
                return _Solution(pairs, tiers, "dp", True)
    band = min(n - 1, max(BAND, 2 * p.max_met + 4))
    while True:
        pairs = _matching(p, band)
        whole = band >= n - 1
        if pairs is not None:
            tiers = p.totals(pairs)
            if whole or p.proven(pairs, tiers):
                return _Solution(pairs, tiers, "matching" if not whole or n <= BAND + 1 else "matching (all pairs)", True)
        band = n - 1 if n <= FULL_LIMIT else min(n - 1, band * 2)


def _repaired_natural_pairs(p: _Problem) -> list[tuple[int, int]] | None:
    """The windowed programme's answer without running it over the whole field: neighbours in the order
    (1v2, 3v4 …, the bye taken out as in `_dp_pairs`) meet the score bound by construction, so only small
    blocks around a natural pair that is a rematch (or related in round 1) go to the programme, a block
    widened while it misses its own bound. Blocks start and end at even places of the order, where no
    natural pair crosses, so the blocks' bounds add up to the field's; the caller keeps the answer only
    when proven. At 10,000 entries: tens of milliseconds instead of seconds."""
    order = list(range(p.n))
    bye = None
    if p.odd:
        eligible = [i for i, c in enumerate(p.order) if not c.byes]
        bye = eligible[-1] if eligible else p.n - 1
        order.remove(bye)
    m, cs, scores = len(order), p.order, [p.scores[i] for i in order]

    def bad(a: int, b: int) -> bool:
        x, y = cs[order[a]], cs[order[b]]
        return y.id in x.opponents or (p.related and bool(x.club) and x.club == y.club)

    # bad natural pair → places taken each side (bad() inline: 50,000 natural pairs at 100,000 entries)
    related, pairs_of = p.related, [(cs[order[k]], cs[order[k + 1]]) for k in range(0, m, 2)]
    margins = {2 * h: 2 for h, (x, y) in enumerate(pairs_of)
               if y.id in x.opponents or (related and bool(x.club) and x.club == y.club)}
    rung = 0   # the first pass runs a narrow programme; the passes after it (wider blocks) the usual one
    # A block that met its bound keeps its answer in the passes after it (only failed blocks widen): running every
    # block again with the wider programme because one failed was most of a late round's draw at 100,000 entries.
    passed: dict[tuple[int, int], list[tuple[int, int]]] = {}
    # Blocks alike are mended alike: the programme's answer depends only on a block's scores and on which of its
    # pairs within the window have met or are related (_block_kind), and a late round at 100,000 entries has ~1,600
    # blocks of a few dozen kinds — each kind is drawn once (the same pairs as drawing every block).
    mended: dict[tuple, list[tuple[int, int]]] = {}
    while True:
        blocks: list[list[int]] = []
        for k in sorted(margins):
            lo, hi = max(0, k - margins[k]), min(m, k + 2 + margins[k])
            if blocks and lo <= blocks[-1][1]:
                blocks[-1][1] = max(blocks[-1][1], hi)
                blocks[-1][0] = min(blocks[-1][0], lo)
            else:
                blocks.append([lo, hi])
        local, at, failed = [], 0, []
        for lo, hi in blocks:
            local.extend((k, k + 1) for k in range(at, lo, 2))
            if (lo, hi) in passed:
                local.extend(passed[lo, hi])
                at = hi
                continue
            members = [cs[order[a]] for a in range(lo, hi)]
            window, beam = (6, 8) if rung == 0 else (WINDOW, BEAM)
            kind = (window, beam, *_block_kind(members, window, p.related))
            drawn = mended.get(kind)
            if drawn is None:
                try:
                    drawn = min_cost_pairs(members, p.round_no, p.related, window=window, beam=beam)
                except NoValidPairing:
                    drawn = []
                mended[kind] = drawn
            block = [(lo + a, lo + b) for a, b in drawn]
            bound = sum(scores[k] - scores[k + 1] for k in range(lo, hi, 2))
            if not block or any(bad(a, b) for a, b in block) or \
                    sum(abs(scores[a] - scores[b]) for a, b in block) > bound:
                failed.append((lo, hi))
            else:
                passed[lo, hi] = block
            local.extend(block)
            at = hi
        if not failed:
            break
        rung += 1
        for lo, hi in failed:   # widen the failed blocks' pairs (a whole-field block that fails: give up)
            if hi - lo >= m:
                return None
            for k in margins:
                if lo <= k < hi:
                    margins[k] = margins[k] * 4
            if any(margins[k] > 1024 for k in margins if lo <= k < hi):
                return None
    local.extend((k, k + 1) for k in range(at, m, 2))
    pairs = sorted((order[a], order[b]) for a, b in local)
    if bye is not None:
        pairs.append((bye, p.n))
    return pairs


def _block_kind(members: list[Contestant], window: int, related: bool) -> tuple:
    """What min_cost_pairs(members, …, window) reads of a block: its scores, and which pairs within the window
    (j before i, at most `window` places apart) have met (j's id among i's opponents) or share a club (when
    related entries are kept apart). Two blocks of one kind get the same pairs."""
    ids = [c.id for c in members]
    met, clubs = [], []
    for i, c in enumerate(members):
        opponents, club = c.opponents, c.club
        for j in range(max(0, i - window), i):
            if ids[j] in opponents:
                met.append((i, j))
            if related and club and club == members[j].club:
                clubs.append((i, j))
    return tuple(c.score for c in members), tuple(met), tuple(clubs)


def _dp_pairs(p: _Problem) -> list[tuple[int, int]] | None:
    """The fast path for very large fields: bye to the lowest eligible entry, then the windowed programme."""
    order = list(range(p.n))
    bye = None
    if p.odd:
        eligible = [i for i, c in enumerate(p.order) if not c.byes]
        bye = eligible[-1] if eligible else p.n - 1
        order.remove(bye)
    try:
        local = min_cost_pairs([p.order[i] for i in order], p.round_no, p.related)
    except NoValidPairing:
        return None
    pairs = sorted((order[a], order[b]) for a, b in local)
    if bye is not None:
        pairs.append((bye, p.n))
    return pairs


def min_cost_pairs(order: Sequence[Contestant], round_no: int, separate_related: bool = False,
                   window: int = WINDOW, beam: int = BEAM) -> list[tuple[int, int]]:
    """Pairs (indexes into `order`) of least rematch/related/score cost among pairings whose partners lie
    within `window` places, keeping `beam` states a step (so not always the least: callers check it).
    Raises NoValidPairing when the beam loses every complete pairing."""
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
        # Score differences are paid as gaps crossed: every entry still open after i pays the gap to i+1,
        # so a state that defers pairing carries its debt with it. Crossing a higher boundary costs a hair
        # more, so floaters leave a group from its bottom.
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
        if len(nxt) > beam:   # the `beam` least (cost, open entries, mask): tuples sort without a key function
            nxt = {k: c for c, _, k in sorted([(c, k.bit_count(), k) for k, c in nxt.items()])[:beam]}
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
    return pairs


# --------------------------------------------------------------------------- drawing a round

def pair_round(contestants: Sequence[Contestant], round_no: int, *, separate_related: bool = False,
               forbid_rematches: bool = False) -> Draw:
    """Draws one Swiss round: the least draw in the order of the module's docstring. With rematches,
    each is named; with `forbid_rematches`, a round that needs one raises NoValidPairing."""
    if len(contestants) < 2:
        raise NoValidPairing("参赛单位不足两个，无法编排 · At least two entries are needed to draw a round.")
    ordered = order_for_round(contestants, round_no)
    p = _Problem(ordered, round_no, separate_related)
    sol = _solve(p)
    n = p.n
    rematches = [(ordered[i], ordered[j]) for i, j in sol.pairs if j < n and ordered[j].id in ordered[i].opponents]
    if forbid_rematches and rematches:
        names = "; ".join(f"{a.id} v {b.id}" for a, b in rematches)
        raise NoValidPairing("本轮无法避免重复对阵，而本项目不允许重复对阵 · Every possible draw of this round repeats "
                             f"a match ({names}) and this event forbids rematches.",
                             {"rematches": [[a.id, b.id] for a, b in rematches]})
    draw = Draw(tables=[], exact=sol.exact, method=sol.method, tiers=sol.tiers)
    bye_pos = next((i for i, j in sol.pairs if j == n), None)
    if bye_pos is not None:
        c = ordered[bye_pos]
        lower_eligible = [x for x in ordered[bye_pos + 1:] if not x.byes]
        if c.byes:
            why = {"kind": "bye", "rule": "second_bye"}
            draw.notes.append(f"second bye unavoidable: {c.id}")
        elif lower_eligible:
            why = {"kind": "bye", "rule": "lowest_leaving_good_pairing", "passed_over": [x.id for x in lower_eligible]}
        else:
            why = {"kind": "bye", "rule": "lowest_without_bye"}
        draw.byes.append((c.id, _bye_text(why)))
        draw.bye_why[c.id] = why
    # each entry's natural partner (1v2, 3v4 … of the order with the bye taken out), by place in `ordered`
    skip = n if bye_pos is None else bye_pos
    even = (n - (bye_pos is not None)) // 2 * 2

    def natural(i: int) -> int:
        q = i if i < skip else i - 1
        if q >= even:
            return -1
        q ^= 1
        return q if q < skip else q + 1

    # The loop of 50,000 tables at 100,000 entries: what every table repeats is made once (a wording per score,
    # the home rule inline) and the cost is added up here, in the order and by the sums pair_cost makes.
    tables, boards, notes = draw.tables, [], draw.notes
    same_text: dict[float, str] = {}
    related, odd_round = p.related, round_no % 2 == 1
    penalise_related = separate_related and round_no == 1
    cost = 0
    for i, j in sol.pairs:
        if j == n:
            continue
        a, b = ordered[i], ordered[j]
        (small, large) = (a, b) if a.number < b.number else (b, a)
        home, away = (small, large) if odd_round else (large, small)
        a_score, b_score = a.score, b.score
        rematch = b.id in a.opponents
        if rematch:
            why: dict = {"kind": "rematch"}
            notes.append(f"rematch unavoidable: {a.id} v {b.id}")
        elif a_score == b_score:
            why = {"kind": "same_score", "score": a_score}
        elif a_score > b_score:
            why = {"kind": "float", "high": a_score, "low": b_score}
        else:
            why = {"kind": "float", "high": b_score, "low": a_score}
        for x, at in ((a, i), (b, j)):
            nat = natural(at)
            if nat >= 0 and nat != i and nat != j and ordered[nat].id in x.opponents:
                why["avoids"] = [x.id, ordered[nat].id]
                break
        if related and a.club and a.club == b.club:
            why["related"] = True
        if len(why) == 2 and why["kind"] == "same_score" and a_score:   # (0.0 and -0.0 are one key, not one text)
            reason = same_text.get(a_score)
            if reason is None:
                reason = same_text[a_score] = _pair_text(why)
        else:
            reason = _pair_text(why)
        tables.append(Pairing(sides=[home.id, away.id], reason=reason, rematch=rematch, why=why))
        boards.append((-(a_score if a_score > b_score else b_score), small.number))   # number_tables' order
        penalty = 0.0   # pair_cost's sum, term by term
        if rematch:
            penalty += REMATCH
        if penalise_related and a.club and a.club == b.club:
            penalty += RELATED
        cost += abs(a_score - b_score) + penalty
    if rematches:
        notes.append(f"fewest rematches possible: {len(rematches)}")
    draw.cost = cost
    return number_tables_by(draw, boards)


def _pair_text(why: dict) -> str:
    """The engine's own short wording (English, ids); the pages word `why` in Chinese and English."""
    if why["kind"] == "rematch":
        text = "rematch: no pairing without one (met before)"
    elif why["kind"] == "same_score":
        text = f"same score {fmt(why['score'])}"
    else:
        text = f"floated from {fmt(why['high'])} to {fmt(why['low'])}"
    if "avoids" in why:
        text += f"; avoids rematch with {why['avoids'][1]}"
    if why.get("related"):
        text += "; related entries (could not be kept apart)"
    return text


def _bye_text(why: dict) -> str:
    return {"second_bye": "bye: everyone has had one",
            "lowest_leaving_good_pairing": "bye: lowest whose bye leaves a pairing without rematches",
            "lowest_without_bye": "bye: lowest without bye",
            "alone_in_zone": "bye: alone in zone"}[why["rule"]]


def pair_special_round(contestants: Sequence[Contestant], round_no: int, *, forbid_rematches: bool = False) -> Draw:
    """Special Swiss (特别积分编排): from round 2 the winners' zone (no loss yet) and the losers' zone are
    paired apart; when the winners' zone is odd, the best entry of the losers' zone joins it."""
    if round_no == 1:
        return pair_round(contestants, 1, forbid_rematches=forbid_rematches)
    ordered = order_for_round(contestants, round_no)
    winners = [c for c in ordered if c.losses == 0]
    losers = [c for c in ordered if c.losses > 0]
    notes = []
    if len(winners) % 2 and losers:
        best = losers.pop(0)
        winners.append(best)
        notes.append(f"{best.id} joins the winners' zone (it was odd)")
    draw = Draw(tables=[], notes=notes)
    for zone, name in ((winners, "winners"), (losers, "losers")):
        if not zone:
            continue
        if len(zone) == 1:
            why = {"kind": "bye", "rule": "alone_in_zone", "zone": name}
            part = Draw(tables=[], byes=[(zone[0].id, _bye_text(why))], bye_why={zone[0].id: why})
        else:
            part = pair_round(zone, round_no, forbid_rematches=forbid_rematches)
        for t in part.tables:
            t.reason = f"{name}' zone: {t.reason}"
            t.why["zone"] = name
        for w in part.bye_why.values():
            w["zone"] = name
        draw.tables.extend(part.tables)
        draw.byes.extend(part.byes)
        draw.bye_why.update(part.bye_why)
        draw.notes.extend(part.notes)
        draw.cost += part.cost
        draw.exact = draw.exact and part.exact
    draw.method = "matching per zone"
    return number_tables(draw, {c.id: c.score for c in contestants}, {c.id: c.number for c in contestants})
