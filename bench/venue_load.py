"""The venue's laptop under a hall's load, over HTTP (issue 16): the API served by waitress (scripts/api_server.py,
what `make run` / `make venue` start) on DynamoDB Local, both started and stopped here.

1. Registrations over HTTP, 1,000 from 32 threads, beside the raw rate of DynamoDB Local's own two-item
   transactions on one hot counter measured in the same run with the same threads (bench/registration.py).
2. A mixed hall: 1,000 requests from 64 concurrent clients — public tournament reads, table-page reads (with
   their ETag), registrations and result submissions. Target: 0 connection errors, 0 5xx.
3. The hall at its real rate (open loop): 64 phones each polling its table every 4 s, with registrations and
   results mixed in, for 20 s. Target: p95 < 100 ms.
4. 256 closed-loop clients: 2,000 mixed requests. Target: 0 connection errors.
5. Faults (issue 20): 64 phones for 30 s while the API is killed (-9) once and the store paused 10 s; the API is
   supervised as `make run` does it (its listening socket held by the runner, so connections wait across the
   restart; `python -m bench.venue_load faults` runs this row alone). Every acknowledged registration must be stored exactly once; a request
   that gets no answer within 10 s counts as hung (target 0 hung); the time to recover is printed.
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
from datetime import date, datetime, UTC
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import ROOT, on_ddb_local, repos_on  # noqa: E402
from bench.registration import WORKERS, pct, raw_transactions  # noqa: E402

CLIENTS, MIXED, REGISTRATIONS = 64, 1000, 1000
HUNG_S = 10.0


def main() -> None:
    on_ddb_local(run)


ONLY_FAULTS = sys.argv[1:] == ["faults"]   # `python -m bench.venue_load faults`: the set-up and the fault row only


def make_hall(table: str = "venue"):
    """A tournament with an open event (15 places) and a played one (200 pairs checked in, round 1 drawn):
    (repos, t, open_event, played, tables as (number, codes, entry ids))."""
    from chalicelib import bootstrap
    from chalicelib.models import EventConfig, RegistrationIn, TournamentIn
    from chalicelib.services import organisers, registration, rounds, tournaments

    repos = repos_on(table)
    d = bootstrap.Deps(repos=repos, clock=lambda: datetime.now(UTC))
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
    return repos, t, open_event, played, tables


def run() -> None:
    import requests

    from scripts import ddblocal

    table = "venue"
    repos, t, open_event, played, tables = make_hall(table)

    port = ddblocal.free_port()
    env = dict(os.environ, TABLE_NAME=table, STAGE="local", API_THREADS="64")
    # The API with the store timeouts `make run` gives it (1.5 s, two attempts, then the breaker's quick 503), not
    # the bench's own 30 s for its bulk set-up: with those a request sent as the store froze waited past 10 s
    # (every phone's one request then counted hung: the fault row's 45–64).
    for knob in ("DDB_READ_TIMEOUT_S", "DDB_MAX_ATTEMPTS"):
        env.pop(knob, None)
    log = open(ROOT / ".data" / "venue-bench-api.log", "ab")
    from scripts.dev import Supervised, api_command, listening_socket, wait_for_http
    held = listening_socket("127.0.0.1", port)   # as `make run` holds it: connections wait across a restart
    cmd = api_command(held)
    if os.environ.get("BENCH_GUNICORN"):
        cmd = [str(Path(sys.executable).parent / "gunicorn"), "-w", os.environ["BENCH_GUNICORN"], "-k", "gthread",
               "--threads", "32", "--backlog", "2048", "-b", f"fd://{held.fileno()}", "scripts.wsgi_app:application"]
    if os.environ.get("BENCH_PROFILE"):   # a py-spy profile of the API (sections 1–2 only), e.g. BENCH_PROFILE=/tmp/api.txt
        cmd = [str(Path(sys.executable).parent / "py-spy"), "record", "-r", "100", "-f", "raw", "-o",
               os.environ["BENCH_PROFILE"], "--", *cmd]
    server = Supervised("The API", lambda: subprocess.Popen(cmd, cwd=str(ROOT), env=env, stdout=log,
                                                            stderr=subprocess.STDOUT, pass_fds=(held.fileno(),),
                                                            start_new_session=True), port)
    server.start()
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for_http(f"{base}/health", 60)
        local = threading.local()

        def session():
            if not hasattr(local, "s"):
                local.s = requests.Session()
            return local.s

        if ONLY_FAULTS:
            faults(dict(base=base, session=session, t=t, played=played, open_event=open_event, tables=tables),
                   server, repos)
            return
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

        t0, cpu0 = time.perf_counter(), _cpu_seconds(server.proc.pid)
        with ThreadPoolExecutor(CLIENTS) as pool:
            list(pool.map(one, range(MIXED)))
        elapsed = time.perf_counter() - t0
        cpu = _cpu_seconds(server.proc.pid) - cpu0
        errors_ = sum(v for k, v in outcomes.items() if "connection error" in k)
        fives = sum(v for k, v in outcomes.items() if k.split()[-1].startswith("5"))
        print(f"hall: {MIXED} mixed requests from {CLIENTS} clients in {elapsed:.2f}s → {MIXED / elapsed:.0f} req/s, "
              f"p50 {pct(lat, 50) * 1000:.0f} ms, p95 {pct(lat, 95) * 1000:.0f} ms; connection errors {errors_}, "
              f"5xx {fives} (targets 0 and 0)")
        print("  answers: " + ", ".join(f"{k} ×{v}" for k, v in sorted(outcomes.items())))
        print(f"  the API's own CPU: {cpu * 1000 / MIXED:.1f} ms a request ({cpu / elapsed:.0%} of one core: one "
              f"process holds one interpreter lock, so {MIXED / cpu:.0f} req/s is its ceiling on this machine)")
        if os.environ.get("BENCH_PROFILE"):
            os.killpg(server.proc.pid, 2)   # py-spy writes its profile on SIGINT
            server.proc.wait(timeout=60)
            return
        hall = dict(base=base, session=session, t=t, played=played, open_event=open_event, tables=tables)
        real_rate(hall)
        many_clients(hall)
        faults(hall, server, repos)
    finally:
        server.stop()


def _cpu_seconds(pid: int) -> float:
    """User + system CPU of a process so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _mixed(hall, k: int, kind: str, timeout: float = 60):
    """One request of the hall's kinds; returns the response."""
    s, base, tables, played = hall["session"](), hall["base"], hall["tables"], hall["played"]
    if kind == "public":
        return s.get(f"{base}/public/tournaments/{hall['t'].id}", timeout=timeout)
    if kind == "table":
        number, codes, _ = tables[k % len(tables)]
        return s.get(f"{base}/events/{played.id}/rounds/1/tables/{number}", headers={"X-Table-Code": codes[k % 2]},
                     timeout=timeout)
    if kind == "register":
        return s.post(f"{base}/events/{hall['open_event'].id}/entries", timeout=timeout,
                      json={"members": [{"name": f"{hall.get('prefix', '场')}{k}", "phone": f"135{k:08d}"}]},
                      headers={"Idempotency-Key": f"venue-hall-{k:07d}-0123456789"})
    number, codes, sides = tables[k % len(tables)]
    return s.put(f"{base}/events/{played.id}/rounds/1/tables/{number}/result", timeout=timeout,
                 json={"version": 0, "final": {"levels": {sides[0]: 10, sides[1]: 8}}}, headers={"X-Table-Code": codes[0]})


def real_rate(hall, seconds: float = 20.0) -> None:
    """Open loop: each of 64 phones polls its table every 4 s (with its ETag); one registration a second and a
    result every two seconds besides. Latency is what a phone waits, not throughput."""
    import requests
    lat: dict[str, list[float]] = {"table": [], "register": [], "result": []}
    lock, stop = threading.Lock(), time.monotonic() + seconds
    errors_ = Counter()

    def phone(i):
        etag, s = None, hall["session"]()
        number, codes, _ = hall["tables"][i % len(hall["tables"])]
        time.sleep(random.uniform(0, 4))
        while time.monotonic() < stop:
            t0 = time.perf_counter()
            try:
                h = {"X-Table-Code": codes[i % 2], **({"If-None-Match": etag} if etag else {})}
                r = s.get(f"{hall['base']}/events/{hall['played'].id}/rounds/1/tables/{number}", headers=h, timeout=30)
                etag = r.headers.get("ETag") or etag
                if r.status_code >= 500:
                    errors_["5xx"] += 1
            except requests.RequestException:
                errors_["connection"] += 1
            with lock:
                lat["table"].append(time.perf_counter() - t0)
            time.sleep(max(0.0, 4.0 - (time.perf_counter() - t0)))

    def writer(kind, every, offset):
        k = offset
        while time.monotonic() < stop:
            t0 = time.perf_counter()
            try:
                r = _mixed({**hall, "prefix": "实"}, k, kind, timeout=30)
                if r.status_code >= 500:
                    errors_["5xx"] += 1
            except requests.RequestException:
                errors_["connection"] += 1
            with lock:
                lat[kind].append(time.perf_counter() - t0)
            k += 1
            time.sleep(max(0.0, every - (time.perf_counter() - t0)))
    threads = [threading.Thread(target=phone, args=(i,)) for i in range(64)]
    threads += [threading.Thread(target=writer, args=("register", 1.0, 500_000)),
                threading.Thread(target=writer, args=("result", 2.0, 7))]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    every = [x for v in lat.values() for x in v]
    print(f"hall at its real rate: 64 phones polling every 4 s + 1 registration/s + 1 result/2 s for {seconds:.0f} s "
          f"→ {len(every)} requests, p50 {pct(every, 50) * 1000:.0f} ms, p95 {pct(every, 95) * 1000:.0f} ms "
          f"(target < 100 ms), p99 {pct(every, 99) * 1000:.0f} ms; table polls p95 {pct(lat['table'], 95) * 1000:.0f} ms, "
          f"registrations p95 {pct(lat['register'], 95) * 1000:.0f} ms; errors {dict(errors_) or 0}")


def many_clients(hall, clients: int = 256, n: int = 2000) -> None:
    import requests
    rng = random.Random(11)
    plan = rng.choices(["public", "table", "register", "result"], weights=[45, 40, 10, 5], k=n)
    outcomes, lat, lock = Counter(), [], threading.Lock()

    def one(k):
        t0 = time.perf_counter()
        try:
            label = f"{_mixed({**hall, 'prefix': '多'}, 200_000 + k, plan[k]).status_code // 100}xx"
        except requests.RequestException as exc:
            label = f"connection error ({type(exc).__name__})"
        with lock:
            lat.append(time.perf_counter() - t0)
            outcomes[label] += 1
    t0 = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        list(pool.map(one, range(n)))
    elapsed = time.perf_counter() - t0
    errors_ = sum(v for k, v in outcomes.items() if "connection" in k)
    print(f"{clients} clients: {n} mixed requests in {elapsed:.2f}s → {n / elapsed:.0f} req/s, p95 "
          f"{pct(lat, 95) * 1000:.0f} ms; connection errors {errors_} (target 0); answers {dict(outcomes)}")


def faults(hall, server, repos, seconds: float = 30.0) -> None:
    """64 phones (a request, then a quarter second) while the API is killed at 5 s and the store paused from
    12 s to 22 s; the API is supervised (restarted as `make run` restarts it)."""
    import signal

    import requests

    from bench.common import STORE
    events: dict[str, float] = {}
    outcomes, acked, lock = Counter(), [], threading.Lock()
    hung_sent: list[tuple[float, str]] = []   # when each request that got no answer was sent, and its kind
    first_ok_after: dict[str, float] = {}
    start = time.monotonic()
    stop = start + seconds

    def note_ok(sent, now):
        """The first answer to a request sent after the event: the time to recover."""
        for what, at in events.items():
            if what != "store paused" and sent > at and what not in first_ok_after:
                first_ok_after[what] = now - at

    def phone(i):
        k = i
        while time.monotonic() < stop:
            kind = ("register", "table", "public", "table")[k % 4]
            t0 = time.monotonic()
            try:
                r = _mixed({**hall, "prefix": "障"}, 300_000 + k, kind, timeout=HUNG_S)
                label = "2xx/3xx/4xx" if r.status_code < 500 else f"{r.status_code}"
                if kind == "register" and r.status_code == 201:
                    with lock:
                        acked.append(300_000 + k)
                if r.status_code < 500:
                    with lock:
                        note_ok(t0, time.monotonic())
            except requests.Timeout:
                label = "hung (no answer in 10 s)"
                with lock:
                    hung_sent.append((t0 - start, kind))
            except (requests.ConnectionError, requests.exceptions.ChunkedEncodingError):
                # refused, or cut mid-answer by the kill (a phone's thread ended on the latter before)
                label = "refused or reset (API restarting)"
            with lock:
                outcomes[label] += 1
            k += 64
            time.sleep(max(0.0, 0.25 - (time.monotonic() - t0)))

    def director():
        time.sleep(5)
        os.kill(server.proc.pid, signal.SIGKILL)
        events["API killed"] = time.monotonic()
        while time.monotonic() < start + 12:
            server.check()
            time.sleep(0.1)
        os.kill(STORE["proc"].pid, signal.SIGSTOP)
        events["store paused"] = time.monotonic()
        time.sleep(10)
        os.kill(STORE["proc"].pid, signal.SIGCONT)
        events["store back"] = time.monotonic()
        while time.monotonic() < stop:
            server.check()
            time.sleep(0.1)
    threads = [threading.Thread(target=phone, args=(i,)) for i in range(64)] + [threading.Thread(target=director)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    stored = [e.name for e in repos.entries.list(hall["open_event"].id) if e.name.startswith("障")]
    missing = [k for k in acked if f"障{k}" not in stored]
    doubled = sum(1 for name in set(stored) if stored.count(name) > 1)
    total = sum(outcomes.values())
    print(f"faults: 64 phones for {seconds:.0f} s, API killed at 5 s, store paused 12–22 s → {total} requests: "
          + ", ".join(f"{k} {v} ({v / total:.0%})" for k, v in sorted(outcomes.items())))
    print(f"  acknowledged registrations {len(acked)}: missing {len(missing)}, stored twice {doubled} (targets 0, 0); "
          "first answer after " + ", ".join(f"{k} {v:.1f} s" for k, v in first_ok_after.items()))
    if hung_sent:
        by_second = Counter(f"{int(at)}–{int(at) + 1} s" for at, _ in sorted(hung_sent))
        print("  hung requests were sent at: " + ", ".join(f"{k} ×{v}" for k, v in by_second.items())
              + "; kinds " + str(dict(Counter(kind for _, kind in hung_sent))))


if __name__ == "__main__":
    main()
