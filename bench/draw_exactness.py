"""Plays seeded random events to their last round and compares every draw with an exact reference it did
not write (networkx's blossom for two-sided rounds, CBC through PuLP for tables of three). Prints how many
rounds differed (target 0) and the slowest draw. `python bench/draw_exactness.py [ROUNDS]` (default 5,000)."""
from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from chalicelib.engine.formats.seating import group_round  # noqa: E402
from chalicelib.engine.formats.swiss import order_for_round, pair_round, pair_special_round  # noqa: E402
from tests.engine.exact_reference import min_three_seat_violations, min_two_sided_violations  # noqa: E402
from tests.engine.swiss_sim import field_of, play, play_three  # noqa: E402


def violations(field, d) -> int:
    by = {c.id: c for c in field}
    repeated = sum(1 for p in d.tables for k, a in enumerate(p.sides) for b in p.sides[k + 1:] if b in by[a].opponents)
    return repeated + sum(1 for b, _ in d.byes if by[b].byes)


def special_minimum(f, rnd) -> int:
    if rnd == 1:
        return min_two_sided_violations(f)
    ordered = order_for_round(f, rnd)
    winners = [c for c in ordered if c.losses == 0]
    losers = [c for c in ordered if c.losses > 0]
    if len(winners) % 2 and losers:
        winners.append(losers.pop(0))
    return (sum(min_two_sided_violations(z) for z in (winners, losers) if len(z) > 1)
            + sum(1 for z in (winners, losers) if len(z) == 1 and z[0].byes))


def main(target: int) -> None:
    rng = random.Random(2026)
    counts = {"two-sided": [0, 0], "special": [0, 0], "three-seat": [0, 0]}
    slowest = (0.0, "")
    done, events = 0, 0
    t_start = time.perf_counter()
    while done < target:
        kind = rng.choices(["two-sided", "special", "three-seat"], weights=[6, 1, 2])[0]
        events += 1
        if kind == "two-sided":
            n = rng.randint(6, 40)
            rounds, draw, minimum, advance = rng.randint(max(1, n // 2), n - 1), pair_round, min_two_sided_violations, play
        elif kind == "special":
            n = rng.choice([8, 16, 32])
            rounds, draw, advance = n.bit_length() + 1, pair_special_round, play
            minimum = None
        else:
            n = rng.randint(9, 30)
            rounds, advance, minimum = rng.randint(3, 7), play_three, min_three_seat_violations
            draw = None
        f = field_of(n)
        for rnd in range(1, rounds + 1):
            t0 = time.perf_counter()
            d = group_round(f, rnd, rounds_left=rounds - rnd) if kind == "three-seat" else draw(f, rnd)
            took = time.perf_counter() - t0
            if took > slowest[0]:
                slowest = (took, f"{kind}, {n} entries, round {rnd} ({d.method})")
            best = special_minimum(f, rnd) if kind == "special" else minimum(f)
            counts[kind][0] += 1
            counts[kind][1] += violations(f, d) != best
            f = advance(f, d, rng)
            done += 1
    total_diff = sum(v[1] for v in counts.values())
    print(f"{done:,} rounds in {events} events ({time.perf_counter() - t_start:.0f} s with the references)")
    for kind, (rounds, diff) in counts.items():
        print(f"  {kind:<10} {rounds:>6,} rounds, {diff} differed from the exact minimum")
    print(f"differed in all: {total_diff} (target 0); slowest draw {slowest[0] * 1000:.0f} ms: {slowest[1]}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5_000)
