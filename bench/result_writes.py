"""Results written at once (issue 43 item 3): what one result costs in write units, and how the twenty results of
one table pack's tables fare when they come in the same moment, beside the store's raw rate in the same run.

For each store (the embedded one, DynamoDB Local):
- units: a round of PACKS × 20 tables drawn, then one result (RoundRepo.save_table with its audit record, as a
  table's result is written) metered by AWS's billing rules (bench/cost.py's Meter): write units, and by item;
- at once: for each pack, its 20 tables' results from 20 threads at the same moment; results/s, p95, and the
  transaction attempts the store made per result (a cancelled attempt — another transaction held an item — is
  tried again: attempts − results = conflicts);
- reference, same store, same threads: raw two-item transactions (a new item + ADD on an item of its own: nothing
  shared), and the same with every transaction adding to ONE item (what serialising on one item costs).

    .venv/bin/python -m bench.result_writes          (BENCH_PACKS=10 packs of 20 by default)
"""
from __future__ import annotations

import os
import sys
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import ROOT  # noqa: E402

PACKS = int(os.environ.get("BENCH_PACKS", "10"))
AT_ONCE = 20   # keys.TABLES_PER_ITEM when this was written: one pack's tables


class Attempts:
    """The store's client, counting transaction attempts and their cancellations (thread-safe)."""

    def __init__(self, inner):
        self.inner, self.lock, self.counts = inner, threading.Lock(), Counter()

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def transact_write_items(self, **kw):
        with self.lock:
            self.counts["attempts"] += 1
        try:
            return self.inner.transact_write_items(**kw)
        except Exception as exc:
            with self.lock:
                reasons = [r.get("Code") for r in getattr(exc, "response", {}).get("CancellationReasons", [])]
                self.counts["conflict" if "TransactionConflict" in reasons else "cancelled"] += 1
            raise


def _tables(count: int) -> list[dict]:
    return [{"number": k, "home": f"a{k}", "status": "pending", "version": 0, "points": {}, "code_hashes": [],
             "sides": [{"entry_id": f"a{k:05d}", "seats": ["N", "S"], "name": "选手甲" * 3},
                       {"entry_id": f"b{k:05d}", "seats": ["E", "W"], "name": "选手乙" * 3}]}
            for k in range(1, count + 1)]


def _result(table: dict) -> dict:
    a, b = (s["entry_id"] for s in table["sides"])
    return {**table, "status": "entered", "version": table["version"] + 1,
            "points": {a: {"level_points": 3, "match_points": 2}, b: {"level_points": 0, "match_points": 0}},
            "result": {"final": {"levels": {a: 14, b: 9}}, "deals": [{"winner": a, "levels": 2}] * 12}}


def _audit(eid: str, t: int) -> dict:
    from chalicelib.ids import new_id
    return {"id": new_id(), "action": "result_entered", "who": f"table {t} side 1", "at": "2026-12-05T10:00:00+00:00",
            "round": 1, "table": t, "before": {"status": "pending", "version": 0}, "after": {"status": "entered", "version": 1}}


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def _burst(jobs, threads: int) -> tuple[float, float]:
    lat: list[float] = []
    lock = threading.Lock()

    def one(job):
        t0 = time.perf_counter()
        job()
        with lock:
            lat.append(time.perf_counter() - t0)
    t0 = time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(one, jobs))
    return time.perf_counter() - t0, pct(lat, 95)


def measure(label: str) -> dict:
    from bench.cost import Meter
    from chalicelib.store import dynamo, schema
    from chalicelib.store.dynamo import Op, Table
    from chalicelib.store.rounds import RoundRepo
    dynamo.reset_client()
    schema.ensure_table(dynamo.client(), "bench_results")
    t = Table("bench_results")
    repo = RoundRepo(t)
    tag = f"{label}{time.time_ns()}"
    state = {"rounds": [{"n": 1, "stage": 0, "stage_round": 1}], "open_round": 1, "stage": 0, "plans": {}}
    doc = {"event_id": tag, "stage": 0, "number": 1, "stage_round": 1, "status": "open", "format": "swiss", "byes": []}
    n_tables = AT_ONCE * (PACKS + 1)
    tables = _tables(n_tables)
    repo.create_round(tag, doc, tables, state, 0)
    out: dict = {}

    # one result, metered (the client wrapped for this call only)
    meter = Meter(dynamo.client())
    dynamo._client, plain = meter, dynamo._client
    meter.phase = "result"
    repo.save_table(tag, 0, 1, _result(tables[0]), 0, _audit(tag, 1))
    dynamo._client = plain
    out["wcu"] = sum(w for _, w in meter.units["result"].values())

    # the twenty results of each pack at once (pack 0 had its metered result: packs 1…), first as one process
    # (the audit chain's lock makes a process's writers of one event take turns), then as separate containers
    # would (a lock of their own each: only the store's conditions and transactions keep them apart)
    from chalicelib.store import audit_chain
    half = PACKS // 2
    for name, packs, own_lock in (("results", range(half), False), ("containers", range(half, PACKS), True)):
        counting = Attempts(plain)
        dynamo._client = counting
        real_lock = audit_chain._lock
        if own_lock:
            audit_chain._lock = lambda eid: threading.Lock()
        secs, p95, done = 0.0, [], 0
        try:
            for k in packs:
                burst = tables[AT_ONCE * (k + 1) - 1:AT_ONCE * (k + 2) - 1]
                s, p = _burst([lambda tb=tb: repo.save_table(tag, 0, 1, _result(tb), 0, _audit(tag, tb["number"]))
                               for tb in burst], AT_ONCE)
                secs += s
                p95.append(p)
                done += AT_ONCE
        finally:
            audit_chain._lock = real_lock
            dynamo._client = plain
        out[name] = (done / secs, max(p95), counting.counts["attempts"] / done, counting.counts["conflict"],
                     counting.counts["cancelled"])
    _, stored = repo.get_round(tag, 0, 1)
    assert sum(1 for x in stored if x["status"] == "entered") == AT_ONCE * PACKS + 1, "a result was lost"
    done = AT_ONCE * half

    # the references: raw two-item transactions, nothing shared / all on one item
    t.put({"PK": f"HOT#{tag}", "SK": "COUNTER", "n": 0})
    for name, hot in (("raw", False), ("one_item", True)):
        def raw(i, hot=hot, name=name):
            t.transact([Op.put({"PK": f"R#{tag}#{name}#{i}", "SK": "META", "i": i}, condition="attribute_not_exists(PK)"),
                        Op.update({"PK": f"HOT#{tag}", "SK": "COUNTER"} if hot else {"PK": f"C#{tag}#{name}#{i}", "SK": "C"},
                                  "ADD n :one", values={":one": 1})])
        s, p = _burst([lambda i=i: raw(i) for i in range(done)], AT_ONCE)
        out[name] = (done / s, p)
    dynamo.reset_client()
    return out


def main() -> None:
    from scripts import ddblocal
    results = {}
    folder = tempfile.mkdtemp(prefix="bench-results-")
    os.environ.update(STORE="embedded", STORE_PATH=str(Path(folder) / "store.sqlite3"))
    results["embedded"] = measure("e")
    os.environ.pop("STORE"), os.environ.pop("STORE_PATH")
    port = ddblocal.free_port()
    proc = ddblocal.start(port, db_path=tempfile.mkdtemp(prefix="bench-ddb-"),
                          log_path=str(ROOT / ".data" / "ddblocal-bench.log"))
    try:
        os.environ["AWS_ENDPOINT_URL_DYNAMODB"] = f"http://127.0.0.1:{port}"
        results["DynamoDB Local"] = measure("d")
    finally:
        ddblocal.stop(proc)
    print(f"results written {AT_ONCE} at once (one pack's tables), {PACKS} bursts, load {os.getloadavg()[0]:.1f}:")
    print(f"{'store, writers':30}{'WRU a result':>13}{'results/s':>10}{'p95 ms':>8}{'attempts/result':>16}"
          f"{'tx conflicts':>13}{'cond. refused':>14}{'ref raw tx/s':>13}{'ref one-item tx/s':>18}")
    for label, r in results.items():
        for name, how in (("results", "one process"), ("containers", "a lock each")):
            rate, p95, attempts, conflicts, refused = r[name]
            print(f"{label + ', ' + how:30}{r['wcu']:>13.0f}{rate:>10.0f}{p95 * 1000:>8.0f}{attempts:>16.2f}"
                  f"{conflicts:>13}{refused:>14}{r['raw'][0]:>13.0f}{r['one_item'][0]:>18.0f}")
    print("results/s ÷ raw tx/s: " + ", ".join(f"{k} {r['results'][0] / r['raw'][0]:.2f} (one process), "
                                             f"{r['containers'][0] / r['raw'][0]:.2f} (a lock each)"
                                             for k, r in results.items()))


if __name__ == "__main__":
    main()
