"""The audit chain's cost on DynamoDB Local (started and stopped here): records appended per second, one writer
and WORKERS writers at once on one event, beside the reference measured in the same run — the store's raw
transaction rate: the same records written the way they were before the chain (one unconditional put each, in a
transaction of their own, no head) with the same threads. The chained appends twice: every record in one lane
(as the one chain of format 1 took them, and as the records of no table still go), and each writer's records in
a lane of their own (tables of different packs: format 2's lanes, issue 43). Then every chain is checked whole
(every record, one seq each, no fork).

    python bench/audit_chain.py          # N=400 records, WORKERS=16
"""
from __future__ import annotations

import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import on_ddb_local, repos_on  # noqa: E402

N = int(os.environ.get("N", "400"))
WORKERS = int(os.environ.get("WORKERS", "16"))


def record(k: int, i: int, table: int | None) -> dict:
    return {"id": f"01K{k:03d}{i:06d}".ljust(26, "Z"), "at": "2026-12-01T02:00:00+00:00", "who": f"table {i} side 2",
            "action": "result_confirmed", "round": 1, "table": table, "before": {"status": "entered", "version": 1},
            "after": {"status": "confirmed", "version": 2}, "reason": ""}


def one_lane(i: int) -> int:
    return 1   # pack 0: lane 0


def own_lanes(i: int) -> int:
    from chalicelib.auditchain import LANES
    from chalicelib.store.keys import TABLES_PER_ITEM
    return (i % LANES) * TABLES_PER_ITEM + 1   # pack i mod LANES: the writers at once each on a lane of its own


def rate(write, workers: int, k: int, table=own_lanes) -> float:
    t0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        list(pool.map(lambda i: write(record(k, i, table(i))), range(N)))
    return N / (time.perf_counter() - t0)


def run() -> None:
    from chalicelib.store import audit_chain, keys
    from chalicelib.store.dynamo import Op
    import json
    repos = repos_on("bench_audit")
    t = repos.table

    def plain(eid):
        return lambda r: t.transact([Op.put({**keys.audit(eid, r["id"]), "kind": "audit", "data": json.dumps(r)})])

    def chained(eid):
        return lambda r: audit_chain.append(t, eid, r)
    rows = []
    for workers in (1, WORKERS):
        ref = rate(plain(f"P{workers}"), workers, workers)
        one = rate(chained(f"C{workers}"), workers, workers + 500, one_lane)
        lanes = rate(chained(f"L{workers}"), workers, workers + 700, own_lanes)
        for eid in (f"C{workers}", f"L{workers}"):
            items = repos.rounds.audit_items(eid)
            assert audit_chain.check_items(eid, items) == N == len(items)
        assert repos.rounds.audit_heads(f"C{workers}")[1][0][0] == N   # all in lane 0
        rows.append((workers, ref, one, lanes))
    print(f"audit records on DynamoDB Local, {N} a row, one event")
    print(f"{'writers':>8} {'raw (transactions/s)':>21} {'one lane (appends/s)':>21} {'lanes (appends/s)':>18}"
          f" {'one lane/raw':>13} {'lanes/raw':>10}")
    for workers, ref, one, lanes in rows:
        print(f"{workers:>8} {ref:>21.0f} {one:>21.0f} {lanes:>18.0f} {one / ref:>13.0%} {lanes / ref:>10.0%}")

    # As Lambda containers would: no lock shared, only the heads' conditions keep writers apart. A transaction
    # cancelled on a head is one more round trip for that result (on AWS 10-30 ms each).
    import threading
    import itertools
    cancelled = itertools.count()
    real_transact, real_lock = t.transact, audit_chain._lock

    def counted(ops):
        try:
            return real_transact(ops)
        except audit_chain.ChainMoved:
            next(cancelled)
            raise
    t.transact, audit_chain._lock = counted, (lambda key: threading.Lock())
    from chalicelib.store.dynamo import TransientConflict
    gave_up = itertools.count()

    def trying(eid):
        def write(r):
            try:
                audit_chain.append(t, eid, r)
            except TransientConflict:   # APPEND_ATTEMPTS cancelled in a row: the caller would get a 409
                next(gave_up)
        return write
    try:
        seen = []
        for name, table in (("one lane", one_lane), ("lanes", own_lanes)):
            before, lost = next(cancelled), next(gave_up)
            got = rate(trying(f"X{len(seen)}"), WORKERS, 900 + len(seen), table)
            failed = next(gave_up) - lost - 1
            seen.append((name, got, (next(cancelled) - before - 1) / N, failed))
            items = repos.rounds.audit_items(f"X{len(seen) - 1}")
            assert audit_chain.check_items(f"X{len(seen) - 1}", items) == N - failed == len(items)
    finally:
        t.transact, audit_chain._lock = real_transact, real_lock
    print(f"as {WORKERS} separate processes (no lock in common), {N} appends:")
    for name, got, c, failed in seen:
        print(f"  {name}: {got:.0f} appends/s, {c:.2f} transactions cancelled on a head per append, "
              f"{failed} given up after {audit_chain.APPEND_ATTEMPTS} attempts")
    print("every chain whole: one record per seq, linked, private digests match")


if __name__ == "__main__":
    on_ddb_local(run)
