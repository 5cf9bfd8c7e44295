"""Standings for 10,000 entries × 9 rounds (Guandan match points, full tie-break chain). Target: under 1 s."""
from __future__ import annotations

import random
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from chalicelib.engine.standings import compute  # noqa: E402
from chalicelib.engine.types import MatchRecord  # noqa: E402


def records_for(n: int, rounds: int, seed: int = 1) -> tuple[list[str], list[MatchRecord]]:
    rng = random.Random(seed)
    entries = [f"E{i:05d}" for i in range(n)]
    records = []
    for r in range(1, rounds + 1):
        order = entries[:]
        rng.shuffle(order)
        for t in range(0, n - 1, 2):
            a, b = order[t], order[t + 1]
            la, lb = rng.randint(2, 15), rng.randint(2, 15)
            if la == lb:
                pts = ({"match_points": 1.0, "level_diff_points": 13.0},) * 2
                out = (0.5, 0.5)
            else:
                d = min(13, abs(la - lb))
                win, lose = {"match_points": 2.0, "level_diff_points": 13.0 + d}, {"match_points": 0.0, "level_diff_points": 13.0 - d}
                pts, out = ((win, lose), (1.0, 0.0)) if la > lb else ((lose, win), (0.0, 1.0))
            records.append(MatchRecord(r, t // 2 + 1, (a, b), {a: pts[0], b: pts[1]}, {a: out[0], b: out[1]}))
    return entries, records


def main() -> None:
    n, rounds = 10_000, 9
    entries, records = records_for(n, rounds)
    chain = ["match_points", "level_diff_points", "head_to_head_two", "opponents_match_points", "lots"]
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        rows = compute(entries, records, chain, point_names=["match_points", "level_diff_points"], seed=42)
        best = min(best, time.perf_counter() - t0)
    tracemalloc.start()
    compute(entries, records, chain, point_names=["match_points", "level_diff_points"], seed=42)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert len(rows) == n
    print(f"standings: {n:,} entries × {rounds} rounds ({len(records):,} matches): best of 3 {best * 1000:.0f} ms "
          f"(target < 1000 ms), peak {peak / 2**20:.1f} MiB")


if __name__ == "__main__":
    main()
