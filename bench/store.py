"""The embedded store's raw rates beside DynamoDB Local's, on this machine in the same run (issue 36).

Through store/dynamo.py's Table as the application calls it, THREADS threads, N operations each kind:
- put: a new item, conditional (attribute_not_exists), as most of the platform's writes are;
- transact: a registration's least cost, a new item and ADD 1 on one hot counter item (bench/registration.py's raw);
- get: a strongly consistent read of one item;
- query: a partition of 25 items read whole.
Every embedded write is on disk before it answers (WAL, synchronous=FULL); DynamoDB Local's are not (see
docs/venue-store.md): the reference is the store the venue ran before, not an equal in durability.
"""
from __future__ import annotations

import os
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import ROOT  # noqa: E402

N = int(os.environ.get("STORE_BENCH_N", "2000"))
THREADS = int(os.environ.get("STORE_BENCH_THREADS", "16"))


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def measure(label: str) -> dict[str, tuple[float, float]]:
    from chalicelib.store import dynamo, schema
    from chalicelib.store.dynamo import Op, Table
    dynamo.reset_client()
    schema.ensure_table(dynamo.client(), "bench_store")
    t = Table("bench_store")
    tag = f"{label}{time.time_ns()}"
    t.put({"PK": f"HOT#{tag}", "SK": "COUNTER", "n": 0})
    for k in range(25):
        t.put({"PK": f"PART#{tag}", "SK": f"ITEM#{k:03d}", "name": "选手" * 10, "k": k})
    jobs = {
        "put": lambda i: t.put({"PK": f"P#{tag}#{i}", "SK": "META", "name": "选手", "i": i},
                               condition="attribute_not_exists(PK)"),
        "transact": lambda i: t.transact([Op.put({"PK": f"T#{tag}#{i}", "SK": "META", "i": i},
                                                 condition="attribute_not_exists(PK)"),
                                          Op.update({"PK": f"HOT#{tag}", "SK": "COUNTER"}, "ADD n :one",
                                                    values={":one": 1})]),
        "get": lambda i: t.get({"PK": f"P#{tag}#{i}", "SK": "META"}),
        "query": lambda i: t.query(f"PART#{tag}"),
    }
    out = {}
    for name, job in jobs.items():
        lat: list[float] = []
        lock = threading.Lock()

        def one(i, job=job, lock=lock, lat=lat):
            t0 = time.perf_counter()
            job(i)
            with lock:
                lat.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        with ThreadPoolExecutor(THREADS) as pool:
            list(pool.map(one, range(N)))
        out[name] = (N / (time.perf_counter() - t0), pct(lat, 95))
    assert t.get({"PK": f"HOT#{tag}", "SK": "COUNTER"})["n"] == N
    dynamo.reset_client()
    return out


def main() -> None:
    from scripts import ddblocal
    results = {}
    folder = tempfile.mkdtemp(prefix="bench-store-")
    os.environ.update(STORE="embedded", STORE_PATH=str(Path(folder) / "store.sqlite3"))
    results["embedded (SQLite, synchronous=FULL)"] = measure("e")
    os.environ.pop("STORE"), os.environ.pop("STORE_PATH")
    port = ddblocal.free_port()
    proc = ddblocal.start(port, db_path=tempfile.mkdtemp(prefix="bench-ddb-"),
                          log_path=str(ROOT / ".data" / "ddblocal-bench.log"))
    try:
        os.environ["AWS_ENDPOINT_URL_DYNAMODB"] = f"http://127.0.0.1:{port}"
        results["reference: DynamoDB Local (-dbPath)"] = measure("d")
    finally:
        ddblocal.stop(proc)
    print(f"store raw rates, {N} operations of each kind from {THREADS} threads (ops/s, p95 ms):")
    print(f"{'':38}" + "".join(f"{k:>20}" for k in ("put", "transact", "get", "query")))
    for label, figures in results.items():
        print(f"{label:38}" + "".join(f"{rate:>10.0f} {p95 * 1000:>6.2f} ms" for rate, p95 in figures.values()))
    emb, ref = results.values()
    print("embedded ÷ DynamoDB Local: " + ", ".join(f"{k} {emb[k][0] / ref[k][0]:.1f}×" for k in emb))


if __name__ == "__main__":
    main()
