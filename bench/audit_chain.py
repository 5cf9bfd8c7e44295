"""The audit chain's cost on DynamoDB Local (started and stopped here): records appended per second, one writer
and WORKERS writers at once on one event's chain, beside the reference measured in the same run — the same
records written the way they were before the chain (one unconditional put each, no head) with the same threads.
Then the chain is checked whole (every record, one seq each, no fork).

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


def record(k: int, i: int) -> dict:
    return {"id": f"01K{k:03d}{i:06d}".ljust(26, "Z"), "at": "2026-12-01T02:00:00+00:00", "who": f"table {i} side 2",
            "action": "result_confirmed", "round": 1, "table": i, "before": {"status": "entered", "version": 1},
            "after": {"status": "confirmed", "version": 2}, "reason": ""}


def rate(write, workers: int, k: int) -> float:
    t0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        list(pool.map(lambda i: write(record(k, i)), range(N)))
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
        got = rate(chained(f"C{workers}"), workers, workers + 500)
        items = repos.rounds.audit_items(f"C{workers}")
        assert audit_chain.check_items(f"C{workers}", items) == N == len(items)
        rows.append((workers, ref, got))
    print(f"audit records on DynamoDB Local, {N} a row, one event's chain")
    print(f"{'writers':>8} {'before (puts/s)':>16} {'chained (appends/s)':>20} {'share':>7}")
    for workers, ref, got in rows:
        print(f"{workers:>8} {ref:>16.0f} {got:>20.0f} {got / ref:>7.0%}")
    print("every chain whole: one record per seq, linked, private digests match")


if __name__ == "__main__":
    on_ddb_local(run)
