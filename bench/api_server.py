"""The API server before and after issue 36 (scripts/guarded_waitress.py: poll() instead of select(), a cap per
client address, idle connections closed), on the same store in the same run: a hall's reads (table polls with
their code, the public tournament) from 64 clients, each server four times in turn (before, after, after, before …:
the machine is shared, so one pass each would compare the neighbours' load; the medians are compared). Beside them, the store's raw rate of the
read behind a table poll from the same 64 threads, and the new server again while one client holds 2,000 idle
connections from another address (the old one is shown dying of it).

    python -m bench.api_server          (DynamoDB Local started and stopped here; API_BENCH_REQUESTS=2000)"""
from __future__ import annotations

import os
import random
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import ROOT, on_ddb_local  # noqa: E402
from bench.registration import pct  # noqa: E402
from bench.venue_load import _cpu_seconds, make_hall  # noqa: E402

CLIENTS = 64
REQUESTS = int(os.environ.get("API_BENCH_REQUESTS", "2000"))
IDLE = 2000
PASSES = int(os.environ.get("API_BENCH_PASSES", "4"))


def main() -> None:
    on_ddb_local(run)


def _start(kind: str, table: str) -> tuple[subprocess.Popen, int]:
    from scripts import ddblocal
    from scripts.dev import wait_for_http
    port = ddblocal.free_port()
    env = dict(os.environ, TABLE_NAME=table, STAGE="local", API_THREADS="32")
    for knob in ("DDB_READ_TIMEOUT_S", "DDB_MAX_ATTEMPTS"):   # the store timeouts `make run` gives the API
        env.pop(knob, None)
    module = "bench.plain_waitress" if kind == "before" else "scripts.api_server"
    proc = subprocess.Popen([sys.executable, "-m", module, "--port", str(port)], cwd=str(ROOT), env=env,
                            stdout=subprocess.DEVNULL, stderr=open(ROOT / ".data" / f"api-bench-{kind}.log", "ab"),
                            start_new_session=True)
    wait_for_http(f"http://127.0.0.1:{port}/health", 60)
    return proc, port


def _hall_reads(base: str, hall, n: int) -> tuple[float, list[float], Counter]:
    """n requests from CLIENTS threads, each with its keep-alive session: 70 % table polls, 30 % the public
    tournament. Returns (requests a second, latencies, answers)."""
    import requests
    _, t, _, played, tables = hall
    local, lock = threading.local(), threading.Lock()
    lat, answers = [], Counter()
    plan = random.Random(7).choices(["table", "public"], weights=[70, 30], k=n)

    def one(k):
        if not hasattr(local, "s"):
            local.s = requests.Session()
        s = local.s
        t0 = time.perf_counter()
        try:
            if plan[k] == "table":
                number, codes, _ = tables[k % len(tables)]
                r = s.get(f"{base}/events/{played.id}/rounds/1/tables/{number}", timeout=30,
                          headers={"X-Table-Code": codes[k % 2]})
            else:
                r = s.get(f"{base}/public/tournaments/{t.id}", timeout=30)
            label = f"{r.status_code}"
        except requests.RequestException as exc:
            label = type(exc).__name__
        with lock:
            lat.append(time.perf_counter() - t0)
            answers[label] += 1
    t0 = time.perf_counter()
    with ThreadPoolExecutor(CLIENTS) as pool:
        list(pool.map(one, range(n)))
    return n / (time.perf_counter() - t0), lat, answers


def _store_raw(hall, n: int) -> tuple[float, list[float]]:
    """The read behind a table poll (round document and table in one batch read), straight on the store."""
    from chalicelib.services.rounds import round_ref
    repos, _, _, played, tables = hall
    stage = round_ref(repos.rounds.state_head(played.id), 1)["stage"]
    lat, lock = [], threading.Lock()

    def one(k):
        t0 = time.perf_counter()
        doc, table = repos.rounds.get_table(played.id, stage, 1, tables[k % len(tables)][0])
        assert doc is not None and table is not None
        with lock:
            lat.append(time.perf_counter() - t0)
    t0 = time.perf_counter()
    with ThreadPoolExecutor(CLIENTS) as pool:
        list(pool.map(one, range(n)))
    return n / (time.perf_counter() - t0), lat


def _line(label: str, rate: float, lat: list[float], answers: Counter | None = None, cpu: float | None = None) -> str:
    extra = "" if cpu is None else f"   the API's CPU {cpu:4.1f} ms a request"
    if answers is not None:
        bad = {k: v for k, v in answers.items() if k != "200"}
        extra += f"; answers other than 200: {bad or 0}"
    return f"  {label:<44} {rate:6.0f} req/s   p50 {pct(lat, 50) * 1000:5.0f} ms   p95 {pct(lat, 95) * 1000:5.0f} ms{extra}"


def run() -> None:
    from scripts import ddblocal
    hall = make_hall("apibench")
    print(f"The API at {CLIENTS} clients, {REQUESTS} hall reads a pass (70 % table polls, 30 % the public tournament):")
    rate, lat = _store_raw(hall, REQUESTS)
    print(_line("reference: the store's raw read of a poll", rate, lat))
    results: dict[str, list] = {"before": [], "after": []}
    cpus: dict[str, list] = {"before": [], "after": []}
    p95s: dict[str, list] = {"before": [], "after": []}
    # ABBA: each server goes first as often as second (the second of a pair ran slower here, whichever it was:
    # the store's own garbage from the pass before)
    order = [kind for i in range(PASSES) for kind in (("before", "after") if i % 2 == 0 else ("after", "before"))]
    for kind in order:
        proc, port = _start(kind, "apibench")
        try:
            base = f"http://127.0.0.1:{port}"
            _hall_reads(base, hall, 200)   # warm: connections, caches
            cpu0 = _cpu_seconds(proc.pid)
            rate, lat, answers = _hall_reads(base, hall, REQUESTS)
            cpu = (_cpu_seconds(proc.pid) - cpu0) * 1000 / REQUESTS
            results[kind].append(rate)
            cpus[kind].append(cpu)
            p95s[kind].append(pct(lat, 95) * 1000)
            print(_line(f"{kind} (pass {len(results[kind])})", rate, lat, answers, cpu))
        finally:
            ddblocal.stop(proc)
    for kind in ("before", "after"):
        proc, port = _start(kind, "apibench")
        held = []
        try:
            base = f"http://127.0.0.1:{port}"
            _hall_reads(base, hall, 200)
            for _ in range(IDLE):
                s = socket.socket()
                s.bind(("127.0.0.2", 0))
                s.connect(("127.0.0.1", port))
                held.append(s)
            time.sleep(0.5)
            if proc.poll() is not None:
                print(f"  {kind} with {IDLE} idle connections from another address: the server died "
                      f"(exit {proc.returncode}; select() cannot watch a descriptor ≥ 1024)")
                continue
            rate, lat, answers = _hall_reads(base, hall, REQUESTS)
            print(_line(f"{kind} with {IDLE} idle connections held", rate, lat, answers)
                  + ("" if proc.poll() is None else f"; the server died during the pass (exit {proc.returncode})"))
        finally:
            for s in held:
                s.close()
            ddblocal.stop(proc)
    b, a = (sorted(results[k])[len(results[k]) // 2] for k in ("before", "after"))
    cb, ca = (sorted(cpus[k])[len(cpus[k]) // 2] for k in ("before", "after"))
    pb, pa = (sorted(p95s[k])[len(p95s[k]) // 2] for k in ("before", "after"))
    print(f"  medians: before {b:.0f} req/s, p95 {pb:.0f} ms, {cb:.1f} ms of the API's CPU a request; after {a:.0f} req/s, "
          f"p95 {pa:.0f} ms, {ca:.1f} ms ({a / b - 1:+.0%} req/s, {ca / cb - 1:+.0%} CPU); the machine is shared: read "
          "the spread of the passes")


if __name__ == "__main__":
    main()
