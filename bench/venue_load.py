"""The venue's laptop under a hall's load, over HTTP (issue 16): the API served by waitress (scripts/api_server.py,
what `make run` / `make venue` start) on DynamoDB Local, both started and stopped here.

1. Registrations over HTTP, 1,000 from 32 threads, beside the raw rate of DynamoDB Local's own two-item
   transactions on one hot counter measured in the same run with the same threads (bench/registration.py).
2. A mixed hall: 1,000 requests from 64 concurrent clients — public tournament reads, table-page reads (with
   their ETag), registrations and result submissions. Target: 0 connection errors, 0 5xx.
Prints errors, p50/p95 and the rate of each."""
from __future__ import annotations

import os
import random
import subprocess
import sys
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import date, datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import ROOT, on_ddb_local, repos_on  # noqa: E402
from bench.registration import WORKERS, pct, raw_transactions  # noqa: E402

CLIENTS, MIXED, REGISTRATIONS = 64, 1000, 1000


def main() -> None:
    on_ddb_local(run)


def run() -> None:
    import requests

    from chalicelib import bootstrap
    from chalicelib.models import EventConfig, RegistrationIn, TournamentIn
    from chalicelib.services import organisers, registration, rounds, tournaments
    from scripts import ddblocal

    table = "venue"
    repos = repos_on(table)
    d = bootstrap.Deps(repos=repos, clock=lambda: datetime.now(timezone.utc))
    bootstrap.override(d)
    org, token = organisers.create_organiser(d, "场馆压测")
    t = tournaments.create_tournament(d, org, TournamentIn(name="场馆压测杯", starts_on=date(2026, 12, 12)))
    open_event = tournaments.create_event(d, org, t.id, EventConfig.model_validate(
        {"name": "报名压测", "game": "doudizhu", "entry": "individual", "capacity": 15, "fee": {"amount": 0},
         "stages": [{"format": "swiss", "rounds": 5}]}))
    played = tournaments.create_event(d, org, t.id, EventConfig.model_validate(
        {"name": "成绩压测", "game": "guandan", "entry": "pair", "capacity": 400, "fee": {"amount": 0},
         "stages": [{"format": "swiss", "rounds": 3, "scoring": {"method": "level_points"}}]}))
    for i in range(200):
        r = registration.register(d, played.id, RegistrationIn(name=f"队{i}", members=[
            {"name": f"甲{i}", "phone": f"137{i:08d}"}, {"name": f"乙{i}"}]), None)
        registration.check_in(d, played.id, r.entry.id)
    rnd, _ = rounds.draw_next(d, org, played.id, 7)
    tables = [(tb.number, tb.codes, [s.entry_id for s in tb.sides]) for tb in rnd.tables]

    port = ddblocal.free_port()
    env = dict(os.environ, TABLE_NAME=table, STAGE="local", API_THREADS="64")
    log = open(ROOT / ".data" / "venue-bench-api.log", "ab")
    cmd = [sys.executable, "-m", "scripts.api_server", "--host", "127.0.0.1", "--port", str(port)]
    if os.environ.get("BENCH_GUNICORN"):
        cmd = [str(Path(sys.executable).parent / "gunicorn"), "-w", os.environ["BENCH_GUNICORN"], "-k", "gthread",
               "--threads", "32", "--backlog", "2048", "-b", f"127.0.0.1:{port}", "scripts.wsgi_app:application"]
    server = subprocess.Popen(cmd, cwd=str(ROOT), env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        ddblocal.wait_for_port(port, 60)
        local = threading.local()

        def session():
            if not hasattr(local, "s"):
                local.s = requests.Session()
            return local.s

        # ------------------------------------------------------------ 1. registrations over HTTP
        raw_rate, raw_p95 = raw_transactions(repos.table, REGISTRATIONS)
        lat, outcomes, lock = [], Counter(), threading.Lock()

        def register(i):
            body = {"members": [{"name": f"选手{i}", "phone": f"139{i:08d}"}]}
            t0 = time.perf_counter()
            try:
                r = session().post(f"{base}/events/{open_event.id}/entries", json=body, timeout=60,
                                   headers={"Idempotency-Key": f"venue-reg-{i:06d}-0123456789"})
                kind = f"{r.status_code // 100}xx"
            except requests.RequestException as exc:
                kind = f"connection error ({type(exc).__name__})"
            with lock:
                lat.append(time.perf_counter() - t0)
                outcomes[kind] += 1

        t0 = time.perf_counter()
        with ThreadPoolExecutor(WORKERS) as pool:
            list(pool.map(register, range(REGISTRATIONS)))
        elapsed = time.perf_counter() - t0
        counters = repos.entries.counters(open_event.id)
        print(f"reference: {REGISTRATIONS} raw two-item transactions on one hot counter, {WORKERS} threads → "
              f"{raw_rate:.0f}/s, p95 {raw_p95 * 1000:.0f} ms")
        print(f"registrations over HTTP: {REGISTRATIONS} from {WORKERS} threads → {REGISTRATIONS / elapsed:.0f} req/s "
              f"({REGISTRATIONS / elapsed / raw_rate:.0%} of the raw rate; target 50%), p50 {pct(lat, 50) * 1000:.0f} ms, "
              f"p95 {pct(lat, 95) * 1000:.0f} ms; answers {dict(outcomes)}; "
              f"{counters['confirmed']} confirmed, {counters['waitlisted']} waitlisted")

        # ------------------------------------------------------------ 2. the hall: mixed load
        rng = random.Random(5)
        plan = rng.choices(["public", "table", "register", "result"], weights=[45, 30, 15, 10], k=MIXED)
        lat.clear()
        outcomes.clear()
        etags: dict = {}

        def one(k):
            kind = plan[k]
            t0 = time.perf_counter()
            try:
                s = session()
                if kind == "public":
                    r = s.get(f"{base}/public/tournaments/{t.id}", timeout=60)
                elif kind == "table":
                    number, codes, _ = tables[k % len(tables)]
                    h = {"X-Table-Code": codes[k % 2]}
                    if etags.get(number):
                        h["If-None-Match"] = etags[number]
                    r = s.get(f"{base}/events/{played.id}/rounds/1/tables/{number}", headers=h, timeout=60)
                    etags[number] = r.headers.get("ETag")
                elif kind == "register":
                    r = s.post(f"{base}/events/{open_event.id}/entries", timeout=60,
                               json={"members": [{"name": f"现场{k}", "phone": f"136{k:08d}"}]},
                               headers={"Idempotency-Key": f"venue-mix-{k:06d}-0123456789"})
                else:
                    number, codes, sides = tables[k % len(tables)]
                    r = s.put(f"{base}/events/{played.id}/rounds/1/tables/{number}/result", timeout=60,
                              json={"version": 0, "final": {"levels": {sides[0]: 10, sides[1]: 8}}},
                              headers={"X-Table-Code": codes[0]})
                label = f"{kind} {r.status_code}"
            except requests.RequestException as exc:
                label = f"{kind} connection error ({type(exc).__name__})"
            with lock:
                lat.append(time.perf_counter() - t0)
                outcomes[label] += 1

        t0 = time.perf_counter()
        with ThreadPoolExecutor(CLIENTS) as pool:
            list(pool.map(one, range(MIXED)))
        elapsed = time.perf_counter() - t0
        errors_ = sum(v for k, v in outcomes.items() if "connection error" in k)
        fives = sum(v for k, v in outcomes.items() if k.split()[-1].startswith("5"))
        print(f"hall: {MIXED} mixed requests from {CLIENTS} clients in {elapsed:.2f}s → {MIXED / elapsed:.0f} req/s, "
              f"p50 {pct(lat, 50) * 1000:.0f} ms, p95 {pct(lat, 95) * 1000:.0f} ms; connection errors {errors_}, "
              f"5xx {fives} (targets 0 and 0)")
        print("  answers: " + ", ".join(f"{k} ×{v}" for k, v in sorted(outcomes.items())))
    finally:
        ddblocal.stop(server)


if __name__ == "__main__":
    main()
