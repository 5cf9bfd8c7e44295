"""Pairing benchmarks, side by side in one run:
- Swiss round 7 for 100, 1,000 and 10,000 entries (target: 10,000 under 1 s), with the reference
  general maximum-weight matcher (networkx) where it finishes within its time limit, and rematches;
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
from chalicelib.engine.formats.swiss import pair_cost, pair_round  # noqa: E402
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


def main() -> None:
    print(f"{'entries':>8} | {'swiss round 7':>13} | {'cost':>8} | {'rematches':>9} | {'networkx reference':>28}")
    for n in (100, 1_000, 10_000):
        f = field_before_round(n, 7)
        t0 = time.perf_counter()
        d = pair_round(f, 7)
        ours = time.perf_counter() - t0
        rematches = sum(p.rematch for p in d.tables)
        byes = {b for b, _ in d.byes}
        ref = reference([c for c in f if c.id not in byes], 7) if n <= 1_000 else None
        ref_text = (f"{ref[0] * 1000:.0f} ms, cost {ref[1]:g}" + (" (equal)" if abs(ref[1] - d.cost) < 1e-9 else " (DIFFERS)")
                    if ref else ("not run: O(n³) on 50M edges" if n > 1_000 else f"did not finish in {REFERENCE_LIMIT_S} s"))
        print(f"{n:>8,} | {ours * 1000:>10.0f} ms | {d.cost:>8g} | {rematches:>9} | {ref_text:>28}")

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


if __name__ == "__main__":
    main()
