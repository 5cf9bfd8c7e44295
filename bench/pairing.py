"""Pairing benchmarks, side by side in one run:
- Swiss round 7 for 100, 1,000 and 10,000 entries (target: 10,000 under 1 s on the common path), with
  the exact matching path forced on the same input (target: under 2 s up to 1,000 entries), the
  reference general maximum-weight matcher (networkx) where it finishes within its time limit, and
  rematches; late rounds of small fields (16 entries round 8, 10 entries round 8);
- three-seat grouping: 15 players over 5 rounds (target: no two players share a table twice) and
  3,000 players (target: under 1 s)."""
from __future__ import annotations

import multiprocessing as mp
import random
import sys
import time
from dataclasses import replace
from itertools import combinations
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from chalicelib.engine.formats.seating import group_round  # noqa: E402
from chalicelib.engine.formats import swiss  # noqa: E402
from chalicelib.engine.formats.swiss import pair_cost, pair_round  # noqa: E402
from tests.engine.exact_reference import min_two_sided_violations  # noqa: E402
from tests.engine.swiss_sim import field_of, play  # noqa: E402

REFERENCE_LIMIT_S = 60


def field_before_round(n: int, rnd: int, seed: int = 1):
    rng = random.Random(seed)
    f = field_of(n)
    for r in range(1, rnd):
        f = play(f, pair_round(f, r), rng)
    return f


def _reference(cs, rnd, out):
    import networkx as nx
    t0 = time.perf_counter()
    g = nx.Graph()
    for a, b in combinations(cs, 2):
        g.add_edge(a.id, b.id, weight=10 ** 9 - pair_cost(a, b, rnd, False))
    m = nx.max_weight_matching(g, maxcardinality=True)
    by = {c.id: c for c in cs}
    out.put((time.perf_counter() - t0, sum(pair_cost(by[a], by[b], rnd, False) for a, b in m)))


def reference(cs, rnd):
    q = mp.Queue()
    p = mp.Process(target=_reference, args=(cs, rnd, q))
    p.start()
    p.join(REFERENCE_LIMIT_S)
    if p.is_alive():
        p.terminate()
        return None
    return q.get()


def forced_matching(f, rnd):
    """The same draw with the fast path switched off: the exact matching path's own time."""
    saved = swiss.DP_ABOVE
    swiss.DP_ABOVE = 10 ** 9
    try:
        t0 = time.perf_counter()
        d = pair_round(f, rnd)
        return time.perf_counter() - t0, d
    finally:
        swiss.DP_ABOVE = saved


def main() -> None:
    print(f"{'entries':>8} | {'round':>5} | {'draw':>8} | {'path':>9} | {'proven':>6} | {'rematches':>9} | "
          f"{'exact path forced':>17} | {'networkx reference':>28}")
    rows = [(100, 7, 1), (1_000, 7, 1), (10_000, 7, 1), (16, 8, 8), (10, 8, 37)]
    for n, rnd, seed in rows:
        f = field_before_round(n, rnd, seed)
        t0 = time.perf_counter()
        d = pair_round(f, rnd)
        ours = time.perf_counter() - t0
        rematches = sum(p.rematch for p in d.tables)
        forced, fd = forced_matching(f, rnd)
        same = "" if abs(fd.cost - d.cost) < 1e-9 else " ≠"
        byes = {b for b, _ in d.byes}
        ref = reference([c for c in f if c.id not in byes], rnd) if n <= 1_000 else None
        if ref:
            least = min_two_sided_violations(f) if n <= 100 else None
            ref_text = f"{ref[0] * 1000:.0f} ms, cost {ref[1]:g}" + (" (equal)" if abs(ref[1] - d.cost) < 1e-9 else " (DIFFERS)")
            if least is not None and least != rematches:
                ref_text += f" least rematches {least} (DIFFERS)"
        else:
            ref_text = "not run: O(n³) on 50M edges" if n > 1_000 else f"did not finish in {REFERENCE_LIMIT_S} s"
        print(f"{n:>8,} | {rnd:>5} | {ours * 1000:>5.0f} ms | {d.method:>9} | {str(d.exact):>6} | {rematches:>9} | "
              f"{forced * 1000:>11.0f} ms{same:<3} | {ref_text:>28}")

    rng = random.Random(7)
    f = field_of(15)
    repeats, seen = 0, set()
    for rnd in range(1, 6):
        d = group_round(f, rnd, rounds_left=5 - rnd)
        by = {c.id: c for c in f}
        for p in d.tables:
            for pair in combinations(sorted(p.sides), 2):
                repeats += pair in seen
                seen.add(pair)
            pts = rng.sample([5, 3, 1], 3)
            for k, e in enumerate(p.sides):
                c = by[e]
                by[e] = replace(c, score=c.score + pts[k], opponents=c.opponents | (set(p.sides) - {e}))
        f = [by[c.id] for c in f]
    print(f"three-seat tables: 15 players × 5 rounds → {repeats} repeated table-mate pairs (target 0)")
    f = field_before_round(3_000, 1)
    f = [replace(c, score=float(random.Random(c.id).randint(0, 20))) for c in f]
    t0 = time.perf_counter()
    d = group_round(f, 3)
    print(f"three-seat tables: 3,000 players → {len(d.tables)} tables in {(time.perf_counter() - t0) * 1000:.0f} ms "
          f"(target < 1000 ms), {int(d.cost)} repeated pairs")
    # Larger Dou Dizhu fields to round 9 (above the whole-field programme's 45 players), beside the
    # whole-field programme forced on the last round's field: the slowest round and the repeats left.
    from tests.engine.swiss_sim import play_three
    from chalicelib.engine.formats.seating import _exact, _order, _repeats
    for n, seed in ((51, 1), (66, 0), (90, 2)):
        rng = random.Random(n * 100 + seed)
        f = field_of(n)
        slowest, left = 0.0, 0
        for rnd in range(1, 10):
            t0 = time.perf_counter()
            d = group_round(f, rnd)
            slowest = max(slowest, time.perf_counter() - t0)
            left += int(d.cost)
            if rnd < 9:
                f = play_three(f, d, rng)
        t0 = time.perf_counter()
        exact = sum(map(_repeats, _exact(_order(f), n % 3)[0])) if n <= 66 else None
        ref = f"{time.perf_counter() - t0:.1f} s, {exact} repeats" if exact is not None else "not run (too slow)"
        print(f"three-seat tables: {n} players × 9 rounds → slowest round {slowest * 1000:.0f} ms, {left} repeated "
              f"pairs in all (target 0); whole-field programme on round 9: {ref}")


if __name__ == "__main__":
    main()
