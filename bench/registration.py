"""Registration under contention on DynamoDB Local (started and stopped here).

Reference first, in the same run and with the same threads: the raw rate of DynamoDB Local's own two-item
transactions on one hot counter item (an item put plus a conditional counter update), which is what one
registration must at least cost. The registration rate is printed beside it as a share of it.

1,000 concurrent registrations (threads) for an event with 15 places → exactly 15 holding a place,
985 waitlisted, no duplicates, no lost entries, counters equal to a recount; then 200 cancellations
(each retried once, as a client would) racing with the promotions they trigger. Prints requests per
second and p50/p95 latency.

Then the rush (万人赛): RUSH_PLACES=10,000 places on the sharded layout (store/counters.py: an event of 2,000
places or more) and RUSH_ATTEMPTS=20,000 registrations from RUSH_WORKERS=64 threads → exactly the places taken,
the rest waitlisted, counters == recount, no shard over its share; its rate beside the raw hot-counter rate and
beside N × that rate (what N shards would allow where, as on AWS, items are not serialised with one another;
DynamoDB Local runs every transaction one at a time, so there the ratio to N × raw says little). RUSH_ATTEMPTS=0
skips it.
"""
from __future__ import annotations

import os
import sys
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import date, datetime, UTC
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import on_ddb_local, repos_on  # noqa: E402

N, PLACES, CANCELS, WORKERS = 1000, 15, 200, int(os.environ.get("BENCH_WORKERS", "32"))
RUSH_PLACES = int(os.environ.get("RUSH_PLACES", "10000"))
RUSH_ATTEMPTS = int(os.environ.get("RUSH_ATTEMPTS", "20000"))
RUSH_WORKERS = int(os.environ.get("RUSH_WORKERS", "64"))


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def main() -> None:
    on_ddb_local(run)


def run() -> None:
    from chalicelib import bootstrap, errors
    from chalicelib.ids import new_id
    from chalicelib.models import Event, EventConfig, RegistrationIn, Tournament
    from chalicelib.services import registration

    repos = repos_on("bench")
    clock = lambda: datetime(2026, 12, 1, tzinfo=UTC)  # noqa: E731
    d = bootstrap.Deps(repos=repos, clock=clock)
    bootstrap.override(d)
    t = Tournament(id=new_id(), organiser_id="bench", name="bench", timezone="Asia/Shanghai", currency="CNY",
                   starts_on=date(2026, 12, 12), ends_on=date(2026, 12, 12), created_at=clock())
    repos.tournaments.create(t)
    cfg = EventConfig.model_validate({"name": "二打一", "game": "doudizhu", "entry": "individual", "capacity": PLACES,
                                      "fee": {"amount": 0}, "stages": [{"format": "swiss", "rounds": 5}]})
    ev = Event(id=new_id(), tournament_id=t.id, organiser_id="bench", config=cfg, created_at=clock())
    repos.events.create(ev)

    latencies: list[float] = []
    lock = threading.Lock()
    raw_rate, raw_p95 = raw_transactions(repos.table, N)

    def timed(fn, *a):
        t0 = time.perf_counter()
        out = fn(*a)
        with lock:
            latencies.append(time.perf_counter() - t0)
        return out

    def register(i):
        body = RegistrationIn(members=[{"name": f"选手{i}", "phone": f"139{i:08d}"}])
        return timed(registration.register, d, ev.id, body, f"bench-key-{i:06d}-0123456789")

    t0 = time.perf_counter()
    with ThreadPoolExecutor(WORKERS) as pool:
        answers = list(pool.map(register, range(N)))
    elapsed = time.perf_counter() - t0
    statuses = Counter(a.entry.status for a in answers)
    ids = [a.entry.id for a in answers]
    stored = repos.entries.list(ev.id)
    check(statuses["confirmed"] == PLACES and statuses["waitlisted"] == N - PLACES, f"statuses {dict(statuses)}")
    check(len(set(ids)) == N and len(stored) == N, f"{len(set(ids))} ids, {len(stored)} stored")
    check_counters(repos, ev.id)
    print(f"reference: {N} raw two-item transactions on one hot counter, {WORKERS} threads → {raw_rate:.0f}/s, "
          f"p95 {raw_p95 * 1000:.0f} ms")
    print(f"registrations: {N} with {WORKERS} threads in {elapsed:.2f}s → {N / elapsed:.0f} req/s "
          f"({N / elapsed / raw_rate:.0%} of the raw rate; target 50%), "
          f"p50 {pct(latencies, 50) * 1000:.0f} ms, p95 {pct(latencies, 95) * 1000:.0f} ms; "
          f"{statuses['confirmed']} confirmed, {statuses['waitlisted']} waitlisted")

    # 200 cancellations: the 15 holders and 185 waiting entries, each cancel retried once, racing promotions.
    targets = [a for a in answers if a.entry.status == "confirmed"] + \
              [a for a in answers if a.entry.status == "waitlisted"][:CANCELS - PLACES]
    latencies.clear()

    def cancel(answer):
        for _ in range(5):
            entry = repos.entries.get(ev.id, answer.entry.id)
            try:
                timed(registration.cancel_entry, d, entry)
                timed(registration.cancel_entry, d, repos.entries.get(ev.id, answer.entry.id))  # the retry
                return
            except errors.Conflict:
                continue
        raise RuntimeError("cancel did not settle")

    t0 = time.perf_counter()
    with ThreadPoolExecutor(WORKERS) as pool:
        list(pool.map(cancel, targets))
    elapsed = time.perf_counter() - t0
    registration.promote_waitlist(d, ev.id)
    after = Counter(e.status for e in repos.entries.list(ev.id))
    check(after["cancelled"] == CANCELS, f"cancelled {after['cancelled']}")
    check(after["confirmed"] == PLACES, f"confirmed after promotions {after['confirmed']}")
    check(after["waitlisted"] == N - CANCELS - PLACES, f"waitlisted {after['waitlisted']}")
    check_counters(repos, ev.id)
    print(f"cancellations: {CANCELS} (+{CANCELS} retries) racing promotions in {elapsed:.2f}s → "
          f"{2 * CANCELS / elapsed:.0f} req/s, p50 {pct(latencies, 50) * 1000:.0f} ms, p95 {pct(latencies, 95) * 1000:.0f} ms; "
          f"now {after['confirmed']} confirmed, {after['waitlisted']} waitlisted, {after['cancelled']} cancelled")
    print("invariants: OK (no oversell, no duplicates, no lost entries, counters == recount)")
    if RUSH_ATTEMPTS:
        rush(repos, d, t, clock)


def rush(repos, d, t, clock) -> None:
    from chalicelib.ids import new_id
    from chalicelib.models import Event, EventConfig, RegistrationIn
    from chalicelib.services import registration
    cfg = EventConfig.model_validate({"name": "万人赛", "game": "doudizhu", "entry": "individual",
                                      "capacity": RUSH_PLACES, "fee": {"amount": 0},
                                      "stages": [{"format": "swiss", "rounds": 9}]})
    ev = Event(id=new_id(), tournament_id=t.id, organiser_id="bench", config=cfg, created_at=clock())
    repos.events.create(ev)
    shards = len(repos.events.counter_items(ev.id))
    global WORKERS
    WORKERS = RUSH_WORKERS
    raw_rate, raw_p95 = raw_transactions(repos.table, 2000, tag="rush")
    latencies: list[float] = []
    lock = threading.Lock()

    def register(i):
        body = RegistrationIn(members=[{"name": f"选手{i}", "phone": f"137{i:08d}"}])
        t0 = time.perf_counter()
        for attempt in range(5):   # as a phone would: the same key again after a "try again"
            try:
                out = registration.register(d, ev.id, body, f"rush-key-{i:06d}-0123456789")
                break
            except errors.Conflict:
                time.sleep(0.05 * (attempt + 1))
        else:
            raise RuntimeError("registration did not settle")
        with lock:
            latencies.append(time.perf_counter() - t0)
        return out

    from chalicelib import errors
    t0 = time.perf_counter()
    with ThreadPoolExecutor(RUSH_WORKERS) as pool:
        answers = list(pool.map(register, range(RUSH_ATTEMPTS)))
    elapsed = time.perf_counter() - t0
    statuses = Counter(a.entry.status for a in answers)
    stored = repos.entries.list(ev.id)
    want_places = min(RUSH_PLACES, RUSH_ATTEMPTS)
    check(statuses["confirmed"] == want_places and statuses["waitlisted"] == RUSH_ATTEMPTS - want_places,
          f"rush statuses {dict(statuses)}")
    check(len({a.entry.id for a in answers}) == RUSH_ATTEMPTS == len(stored), f"rush: {len(stored)} stored")
    check_counters(repos, ev.id)
    per_shard = Counter(e.shard for e in stored if e.status == "confirmed")
    for item in repos.events.counter_items(ev.id):
        k = item.get("shard", 0)
        check(per_shard[k] == item["taken"] <= item["cap"], f"shard {k}: {per_shard[k]} vs {item}")
    rate = RUSH_ATTEMPTS / elapsed
    print(f"reference: raw two-item transactions on one hot counter, {RUSH_WORKERS} threads → {raw_rate:.0f}/s, "
          f"p95 {raw_p95 * 1000:.0f} ms")
    print(f"rush: {RUSH_ATTEMPTS:,} registrations for {RUSH_PLACES:,} places on {shards} counter shards, "
          f"{RUSH_WORKERS} threads, in {elapsed:.1f} s → {rate:.0f} req/s = {rate / raw_rate:.0%} of the raw hot-counter "
          f"rate, {rate / (shards * raw_rate):.0%} of {shards} × it; p50 {pct(latencies, 50) * 1000:.0f} ms, "
          f"p95 {pct(latencies, 95) * 1000:.0f} ms; {statuses['confirmed']:,} confirmed, {statuses['waitlisted']:,} "
          f"waitlisted, 0 oversold (every shard within its share, counters == recount)")


def raw_transactions(table, n: int, tag: str = "raw") -> tuple[float, float]:
    """n transactions of [put a new item, ADD 1 to one counter item] from WORKERS threads: the store's own rate."""
    from chalicelib.store.dynamo import Op
    counter = {"PK": f"BENCH#{tag}", "SK": "COUNTER"}
    table.put({**counter, "n": 0})
    lat: list[float] = []
    lock = threading.Lock()

    def one(i):
        t0 = time.perf_counter()
        table.transact([Op.put({"PK": f"BENCH#{tag}#{i}", "SK": "ITEM", "i": i}, condition="attribute_not_exists(PK)"),
                        Op.update(counter, "ADD n :one", condition="n < :cap", values={":one": 1, ":cap": 10 ** 9})])
        with lock:
            lat.append(time.perf_counter() - t0)

    t0 = time.perf_counter()
    with ThreadPoolExecutor(WORKERS) as pool:
        list(pool.map(one, range(n)))
    return n / (time.perf_counter() - t0), pct(lat, 95)


def check_counters(repos, eid):
    c = Counter(e.status for e in repos.entries.list(eid))
    want = {"taken": c["confirmed"] + c["pending_payment"], "confirmed": c["confirmed"],
            "held": c["pending_payment"], "waitlisted": c["waitlisted"]}
    got = {k: v for k, v in repos.entries.counters(eid).items() if k in want}
    check(got == want, f"counters {got} != recount {want}")


def check(ok: bool, what: str) -> None:
    if not ok:
        raise SystemExit(f"INVARIANT BROKEN: {what}")


if __name__ == "__main__":
    main()
