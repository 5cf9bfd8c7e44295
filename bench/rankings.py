"""Rankings across events (issue 42): speed and size, each beside a reference measured in the same run.

1. The rating update after one confirmed table in a ranking of 100,000 rated players (target < 1 s): what the
   handler does for the ranking (services/rankings._count_table: the table's mark and players read, openskill,
   one transaction), on the embedded store (the venue's). Reference: one raw get and one conditional put of a
   player-sized item on the same store.
2. A rebuild of a ranking of 100,000 players from 1,000 events (target < 60 s): 1,000 pair events of 100 players
   (50 pairs, two Swiss rounds: 50,000 tables), replayed by the rebuild's own accumulator (RebuildState: openskill
   per table, points per final place) and written by RankingRepo.replace_all. Reference: the same 50,000
   openskill rate() calls alone.
3. No item over 100 KB: the largest player item and pack of table marks written, and a player with 1,000 results.

Run: .venv/bin/python bench/rankings.py   (RANKING_BENCH_PLAYERS / RANKING_BENCH_EVENTS for a smaller run)
"""
from __future__ import annotations

import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

PLAYERS = int(os.environ.get("RANKING_BENCH_PLAYERS", "100000"))
EVENTS = int(os.environ.get("RANKING_BENCH_EVENTS", "1000"))
PER_EVENT = 100          # players: 50 pairs
ROUNDS = 2


def _store():
    folder = tempfile.mkdtemp(prefix="bench-rankings-")
    os.environ.update(STORE="embedded", STORE_PATH=str(Path(folder) / "store.sqlite3"),
                      TABLE_CODE_SECRET=os.environ.get("TABLE_CODE_SECRET", "bench-secret"))
    from chalicelib.store import dynamo, schema
    from chalicelib.store.repositories import Repos
    dynamo.reset_client()
    schema.ensure_table(dynamo.client(), "bench_rankings")
    return Repos(dynamo.Table("bench_rankings"))


def _events(rng: random.Random):
    """Each event: 50 pairs drawn from the pool, two rounds of 25 tables (a random winner each), final places."""
    pool = [f"p{i:019d}" for i in range(PLAYERS)]
    order = pool[:]
    rng.shuffle(order)
    for k in range(EVENTS):
        # every player plays at least once: the pool is walked in slices, topped up at random
        start = (k * PER_EVENT) % PLAYERS
        players = order[start:start + PER_EVENT]
        players += rng.sample(pool, PER_EVENT - len(players))
        pairs = [players[i:i + 2] for i in range(0, PER_EVENT, 2)]
        tables = []
        for r in range(ROUNDS):
            rng.shuffle(pairs)
            for t in range(0, len(pairs), 2):
                a, b = f"E{k}-{pairs[t][0]}", f"E{k}-{pairs[t + 1][0]}"
                win = rng.random() < 0.5
                tables.append(((f"E{k}", 0, r + 1, t // 2 + 1), {
                    "status": "confirmed", "version": 2,
                    "sides": [{"entry_id": a, "seats": ["N", "S"]}, {"entry_id": b, "seats": ["E", "W"]}],
                    "outcome": {a: 1 if win else 0, b: 0 if win else 1}}, {a: pairs[t], b: pairs[t + 1]}))
        places = list(range(1, len(pairs) + 1))
        rng.shuffle(places)
        yield f"E{k}", tables, list(zip(pairs, places, strict=True))


def bench_rebuild(repos) -> tuple[float, float, float, int, dict]:
    from chalicelib.engine.rankings import PointsTable, event_points
    from chalicelib.engine.ratings import model
    from chalicelib.services.rankings import RebuildState
    rng = random.Random(42)
    events = list(_events(rng))
    tables = [(ref, t, players) for _, ts, _ in events for ref, t, players in ts]

    # reference: the same rate() calls alone (openskill objects made from the same numbers)
    m = model()
    t0 = time.perf_counter()
    ratings: dict[str, tuple[float, float]] = {}
    for _, t, players in tables:
        teams = [[m.rating(*ratings.get(p, (25.0, 25 / 3))) for p in players[s["entry_id"]]] for s in t["sides"]]
        ranks = [1 if t["outcome"][s["entry_id"]] else 2 for s in t["sides"]]
        for side, rated in zip(t["sides"], m.rate(teams, ranks=ranks), strict=True):
            for p, r in zip(players[side["entry_id"]], rated, strict=True):
                ratings[p] = (r.mu, r.sigma)
    reference = time.perf_counter() - t0

    table = PointsTable.from_config({"field_factor": {"min_entries": 8, "per_entry": 0.02}})
    from chalicelib.services.gc_pause import gc_paused
    pause = gc_paused()   # as services.rankings.rebuild runs
    pause.__enter__()
    t0 = time.perf_counter()
    state = RebuildState()
    for eid, ts, placed in events:
        for ref, t, players in ts:
            state.table(ref, t, players)
        pts = event_points(table, [p for _, p in placed])
        for (pair, place), pt in zip(placed, pts, strict=True):
            for pid in pair:
                state.result(pid, f"选手{pid[-5:]}", "商会", eid, place, pt)
    players = state.players()
    compute = time.perf_counter() - t0
    repos.rankings.create({"id": "BENCH", "organiser_id": "O", "name": "bench", "game": "guandan", "points": {},
                           "rating": True})
    t0 = time.perf_counter()
    repos.rankings.replace_all("BENCH", players, state.marks)
    write = time.perf_counter() - t0
    pause.__exit__(None, None, None)
    return reference, compute, write, len(players), state.marks


def bench_update(repos) -> tuple[float, float, int]:
    from chalicelib.services.rankings import _count_table
    from chalicelib.store import keys
    deps = type("D", (), {"repos": repos})()
    total = len(repos.rankings.players("BENCH")) if PLAYERS <= 20000 else PLAYERS
    # reference: one raw get and one conditional put of a player-sized item
    item = repos.table.get(keys.ranking_player("BENCH", "p0000000000000000007"))
    t0 = time.perf_counter()
    repos.table.get(keys.ranking_player("BENCH", "p0000000000000000008"))
    repos.table.put({**item, "SK": "P#bench-raw"}, condition="attribute_not_exists(PK)")
    raw = time.perf_counter() - t0
    a, b = "EX-a", "EX-b"
    table = {"status": "confirmed", "version": 2, "sides": [{"entry_id": a, "seats": ["N", "S"]},
                                                           {"entry_id": b, "seats": ["E", "W"]}],
             "outcome": {a: 1, b: 0}}
    members = {a: ["p0000000000000000001", "p0000000000000000002"], b: ["p0000000000000000003", "p0000000000000000004"]}
    people = {p: ("选手", "商会") for ps in members.values() for p in ps}
    t0 = time.perf_counter()
    repos.rankings.rankings_of_event("EX")          # the handler's first read
    repos.rankings.get("BENCH")
    changed = _count_table(deps, "BENCH", ("EX", 0, 1, 1), table, members, people)
    update = time.perf_counter() - t0
    assert changed
    assert not _count_table(deps, "BENCH", ("EX", 0, 1, 1), table, members, people)   # once per version
    return raw, update, total


def sizes(repos, marks) -> tuple[int, int, int]:
    from chalicelib.store.rankings import _player_item
    largest_player = max(len(json.dumps(i, ensure_ascii=False).encode()) for i in
                         (repos.table.query("RANKING#BENCH", "P#", limit=2000)))
    largest_mark = max(len(json.dumps(i, ensure_ascii=False).encode()) for i in
                       repos.table.query("RANKING#BENCH", "TABLES#", limit=2000))
    heavy = {"player_id": "p" + "9" * 19, "name": "司马长风特别长的名字", "club": "广西壮族自治区南宁市潮汕商会", "mu": 25.0,
             "sigma": 8.3, "tables": 5000, "results": {f"01J{k:023d}": [k % 200 + 1, 12.34] for k in range(1000)}}
    heavy_size = len(json.dumps(_player_item("BENCH", heavy), ensure_ascii=False).encode())
    return largest_player, largest_mark, heavy_size


def main() -> None:
    repos = _store()
    reference, compute, write, n, marks = bench_rebuild(repos)
    raw, update, total = bench_update(repos)
    player_kb, mark_kb, heavy_kb = (s / 1024 for s in sizes(repos, marks))
    tables = EVENTS * PER_EVENT // 4 * ROUNDS
    print(f"rankings: {n:,} players from {EVENTS:,} events ({tables:,} tables), embedded store")
    print(f"  rebuild: {compute + write:6.1f} s  (compute {compute:.1f} s + write {write:.1f} s; target < 60 s)"
          f"   reference: {tables:,} openskill rate() calls alone {reference:.1f} s")
    print(f"  one confirmed table, {total:,} rated players: {update * 1000:6.1f} ms (target < 1 s)"
          f"   reference: one raw get + put {raw * 1000:.1f} ms")
    print(f"  largest items: player {player_kb:.1f} KB, a pack of table marks {mark_kb:.1f} KB, a player with 1,000 results "
          f"{heavy_kb:.1f} KB (limit 100 KB)")
    ok = compute + write < 60 and update < 1 and max(player_kb, heavy_kb, mark_kb) < 100
    print("  within targets" if ok else "  OVER A TARGET")
    if not ok:
        sys.exit(1)


if __name__ == "__main__":
    main()
