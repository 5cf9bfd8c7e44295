"""A 10,000- or 100,000-entry Guandan day (万人赛) through the services on DynamoDB Local (started and stopped here).

Per round: the draw through the service (rounds.draw_next: reads, engine, 5,000 tables written) beside the engine
alone on the same contestants (the reference, measured in the same run), with its parts' wall times (the roster
read, the tables written, the answer built: the parts overlap, so they need not add up); a sample of results entered and confirmed
through the result service (both sides' codes), the rest of the 5,000 tables' results written in bulk; the close
through the service (its publish is asked for, as the queue would be in AWS, and measured on its own). The last
round is left open with one table to play: the full publish, then that table's result entered and confirmed through
the result service, each publish timed (the day's "publish after one result"), then the last close and its
publish, then one corrected result of the closed round (it ranks the whole field again: not the day's case), and
the largest item written and the largest page.

Targets (issue 43): at 10,000 entries draw < 2 s and close < 5 s; at 100,000 draw < 5 s, close < 10 s and the
publish after one result < 2 s; at any size no item over 100 KB (asserted at the end). Beside each wall time, the
CPU time this process spent in it (DynamoDB Local is another process): on a shared machine the steadier figure.

    BIG_N=10000 BIG_ROUNDS=9 .venv/bin/python bench/big_event.py      (fewer rounds: BIG_ROUNDS=3;
    BIG_PUBLISH=0 stops after the rounds, before the publishing figures; BIG_WARM=0 skips the warm-up draw of a
    400-entry event, so round 1 is a cold process's first draw; BIG_PROFILE=1 prints where each draw's and close's
    CPU went, by cProfile; BIG_ROSTER_REF=0 skips the roster's reads alone before round 1)
"""
from __future__ import annotations

import os
import sys
import time
from datetime import datetime, UTC
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import on_ddb_local, repos_on, scratch_dir  # noqa: E402

N = int(os.environ.get("BIG_N", "10000"))
ROUNDS = int(os.environ.get("BIG_ROUNDS", "9"))
SAMPLE = int(os.environ.get("BIG_SAMPLE", "50"))    # tables a round whose results go through the service
PUBLISH = os.environ.get("BIG_PUBLISH", "1") != "0"
WARM = os.environ.get("BIG_WARM", "1") != "0"   # a 400-entry event drawn before the timed rounds
# issue 43's targets (s): the draw, the close, the publish after one result — by the field's size
TARGETS = {"draw": 2.0, "close": 5.0, "publish": 1.0} if N <= 10_000 else {"draw": 5.0, "close": 10.0, "publish": 2.0}
PROFILE = os.environ.get("BIG_PROFILE") == "1"
ROSTER_REF = os.environ.get("BIG_ROSTER_REF", "1") != "0"   # the roster read alone, copies beside entries, first
ITEM_LIMIT = 100 * 1000   # bytes, as DynamoDB counts an item (ours; DynamoDB's own is 400 KB)


def main() -> None:
    on_ddb_local(run)


PARTS: dict[str, float] = {}   # wall time of each timed part in the call being measured
SIZES: list = [None]           # every item put, sized (tests.bigday.ItemSizes) after each timed part


def _timed(owner, name: str, label: str) -> None:
    """Times every call of owner.name (the bench's view of where a draw or close spends its time)."""
    import functools
    real = getattr(owner, name)

    @functools.wraps(real)
    def timed(*args, **kwargs):
        t0 = time.perf_counter()
        try:
            return real(*args, **kwargs)
        finally:
            PARTS[label] = PARTS.get(label, 0.0) + time.perf_counter() - t0
    setattr(owner, name, timed)


def _parts() -> str:
    out = ", ".join(f"{k} {v:.2f}" for k, v in PARTS.items())
    PARTS.clear()
    return out


def _profiled(label: str, call, *args, **kwargs):
    if not PROFILE:
        return call(*args, **kwargs)
    import cProfile
    import pstats
    profile = cProfile.Profile()
    try:
        return profile.runcall(call, *args, **kwargs)
    finally:
        print(f"--- {label}: where this process's CPU went (cProfile, by own time)")
        pstats.Stats(profile).sort_stats("tottime").print_stats(25)


def run() -> None:
    from chalicelib import bootstrap
    from chalicelib.engine.formats import draw_round
    from chalicelib.publish.sinks import LocalSink
    from chalicelib.services import publish_requests, results
    from chalicelib.services import rounds as svc
    from chalicelib.services import publishing
    from chalicelib.services.publishing import publish_tournament
    from chalicelib.services.reads import entries_read_once
    from chalicelib.store import dynamo
    from tests.bigday import ItemSizes, results_for_round, seed_event

    asked = []
    ask_publish = publish_requests.request_publish
    publish_requests.request_publish = lambda deps, tid, change=None: asked.append((tid, change))   # the queue's message, in AWS
    from chalicelib.store.entries import EntryRepo
    from chalicelib.store.rounds import RoundRepo
    _timed(EntryRepo, "roster", "roster")
    _timed(RoundRepo, "create_round", "tables written")
    _timed(RoundRepo, "get_round_stamped", "round read")
    _timed(svc, "round_out", "answer")
    repos = repos_on("bench_big_event")
    sizes = SIZES[0] = ItemSizes(defer=True).attach(dynamo.client())   # sized after each timed part: sizes.settle()
    clock = lambda: datetime(2026, 12, 12, 1, tzinfo=UTC)  # noqa: E731
    out_dir = scratch_dir("big-event-")
    d = bootstrap.Deps(repos=repos, clock=clock, publisher=LocalSink(out_dir))
    bootstrap.override(d)
    if WARM:   # a server that has drawn before: the first draw of a process pays ~0.5 s of first use (JVM, Python) once
        _, small, small_organiser = seed_event(repos, clock, 400, name="热身")
        svc.draw_next(d, small_organiser, small.id, seed=0)
    t0 = time.perf_counter()
    tournament, event, organiser = seed_event(repos, clock, N)
    sizes.settle()
    print(f"{N:,} entries written in bulk in {time.perf_counter() - t0:.1f} s; {ROUNDS} Swiss rounds follow; "
          + ("the store and the service warmed by a 400-entry draw first" if WARM else "a cold process (BIG_WARM=0)"))
    if ROSTER_REF:
        _roster_reads(repos, event.id)
    rows = []
    for n in range(1, ROUNDS + 1):
        with entries_read_once():   # the engine's input, built as the service builds it (not timed)
            state = repos.rounds.state(event.id)
            plan = state["plans"].get("0") or svc.start_stage(d, event, 0, state, n)
            cs = svc.contestants(d, event, 0, plan, state)
        t0, c0 = time.perf_counter(), time.process_time()
        draw_round("swiss", cs, n, rounds_left=ROUNDS - n)
        engine, engine_cpu = time.perf_counter() - t0, time.process_time() - c0
        PARTS.clear()
        t0, c0 = time.perf_counter(), time.process_time()
        out, _ = _profiled(f"round {n}'s draw", svc.draw_next, d, organiser, event.id, seed=n)
        drawn, draw_cpu = time.perf_counter() - t0, time.process_time() - c0
        draw_parts = _parts()
        sizes.settle()   # the bench's own bookkeeping, after the timed part
        print(f"round {n}: engine alone {engine:.2f} s ({engine_cpu:.2f} s CPU), draw through the service {drawn:.2f} s "
              f"({drawn / engine:.1f}× the engine; target < {TARGETS['draw']:g} s; {draw_cpu:.2f} s of this process's "
              f"CPU), {out.tables_total or len(out.tables):,} tables; load average {os.getloadavg()[0]:.1f}; draw's parts (s): {draw_parts}",
              flush=True)
        # a sample through the result service: one side enters, the other confirms (by their table codes)
        t0 = time.perf_counter()
        for table in out.tables[:SAMPLE]:
            a, b = (s.entry_id for s in table.sides)
            ra = results.submit_result(d, event.id, n, table.number, {"version": 0, "final": {"levels": {a: 14, b: 9}}},
                                       results.Actor("side", f"table {table.number} side 0", 0))
            results.confirm_result(d, event.id, n, table.number, results.Actor("side", f"table {table.number} side 1", 1))
            assert ra.status == "entered"
        per_result = (time.perf_counter() - t0) / max(1, min(SAMPLE, len(out.tables)))
        print(f"  result enter+confirm {per_result * 1000:.0f} ms a table through the service", flush=True)
        # the other tables' results, in bulk (confirmed ones are kept); with the publishing figures, the last round
        # is left open with one table still to play: its result is the day's "publish after one result"
        last_open = PUBLISH and n == ROUNDS
        open_table = out.tables[min(SAMPLE, len(out.tables) - 1)].number
        results_for_round(repos, event, n, leave=frozenset({open_table}) if last_open else frozenset())
        sizes.settle()
        if last_open:   # closed after the publish of its last result, below
            rows.append([n, engine, drawn, per_result, None])
        else:
            rows.append([n, engine, drawn, per_result, _close(d, organiser, event.id, n)])
    if not PUBLISH:
        _summary(rows)
        _largest_items(repos, sizes)
        return

    # the publisher's peak memory (issue 43): this process's PSS and its children's (a forked writer, say), sampled
    # through the publishing below, beside this process's PSS before it (the rounds' reading and the bench's own)
    from bench.publish import PssSampler
    from bench.common import STORE
    store = {STORE["proc"].pid} if STORE.get("proc") else set()   # DynamoDB Local, this process's child: not counted
    before_mib = PssSampler.tree_mib(os.getpid(), store)
    pss = PssSampler(os.getpid(), skip=store)
    t0, c0 = time.perf_counter(), time.process_time()
    stats = publish_tournament(d, tournament.id, force=True)
    full, full_cpu = time.perf_counter() - t0, time.process_time() - c0
    print(f"full publish: {stats['files']:,} files, {stats['bytes'] / 2**20:.1f} MiB in {full:.1f} s ({full_cpu:.1f} s "
          f"of this process's CPU; target < 10 s); largest page {stats['largest'][0]} {stats['largest'][1] / 1024:.0f} KiB")
    publishing.publish_latest(d, tournament.id)   # through the lease, as every publish of the day: its count is known

    def publish_asked(label: str, note: str) -> None:
        """The publish the last change asked for, as the publisher takes it from the queue, timed."""
        tid, change = asked[-1]
        t0, c0 = time.perf_counter(), time.process_time()
        _profiled(label, ask_publish, d, tid, change)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        sizes.settle()
        one = d.publish_cache.last_stats[tid]
        print(f"{label}: {wall:.2f} s ({cpu:.2f} s CPU), {one['written']:,} of {one['files']:,} files written, by "
              f"event {one.get('by_event')}; {note}", flush=True)

    # the day's publish after one result (issue 43's target): the last table of the open round entered by one side
    # and confirmed by the other through the result service, each change's publish as the queue would run it
    _, last = repos.rounds.get_round(event.id, 0, ROUNDS)
    table = next(t for t in last if t["number"] == open_table)
    a, b = (s["entry_id"] for s in table["sides"])
    results.submit_result(d, event.id, ROUNDS, open_table, {"version": table["version"],
                          "final": {"levels": {a: 14, b: 9}}}, results.Actor("side", f"table {open_table} side 0", 0))
    publish_asked(f"publish after one result entered in the open round {ROUNDS}",
                  f"target < {TARGETS['publish']:g} s")
    results.confirm_result(d, event.id, ROUNDS, open_table, results.Actor("side", f"table {open_table} side 1", 1))
    publish_asked("publish after that result confirmed by the other side", f"target < {TARGETS['publish']:g} s")
    rows[-1][4] = _close(d, organiser, event.id, ROUNDS)
    publish_asked(f"publish after round {ROUNDS}'s close", "the places and standings of every entry move")
    _summary(rows)
    _, last = repos.rounds.get_round(event.id, 0, ROUNDS)
    table = last[SAMPLE + 1]
    a, b = (s["entry_id"] for s in table["sides"])
    results.submit_result(d, event.id, ROUNDS, table["number"],
                          {"version": table["version"], "final": {"levels": {a: 2, b: 14}}, "reason": "bench"},
                          results.Actor("organiser", organiser.id))
    # the publish the correction asked for (by event: only its table is read again)
    publish_asked("publish after one corrected result of the closed last round",
                  f"not the day's case: the standings move, {N:,} entries ranked again")
    pss.stop()
    print(f"the publisher's peak memory: PSS {pss.peak_mib:,.0f} MiB (this process and its children, sampled every "
          f"0.2 s through the publishes above; target under 1,536 MiB); reference, same run: this process before "
          f"publishing {before_mib:,.0f} MiB")
    _largest_items(repos, sizes)


def _close(d, organiser, eid: str, n: int) -> float:
    """Round n's close through the service (its publish asked for, not run), timed and printed; its wall time."""
    from chalicelib.services import rounds as svc
    PARTS.clear()
    t0, c0 = time.perf_counter(), time.process_time()
    _profiled(f"round {n}'s close", svc.close_round, d, organiser, eid, n)
    closed, close_cpu = time.perf_counter() - t0, time.process_time() - c0
    SIZES[0].settle()
    print(f"  round {n}'s close {closed:.2f} s (target < {TARGETS['close']:g} s; {close_cpu:.2f} s CPU); load average "
          f"{os.getloadavg()[0]:.1f}; close's parts (s): {_parts()}", flush=True)
    return closed


def _summary(rows: list) -> None:
    worst = max(rows, key=lambda r: r[2])
    print(f"draws: worst {worst[2]:.2f} s (round {worst[0]}), engine alone then {worst[1]:.2f} s; "
          f"mean ratio service/engine {sum(r[2] / r[1] for r in rows) / len(rows):.1f}; closes worst {max(r[4] for r in rows):.2f} s")
    print(f"ranges: engine alone {min(r[1] for r in rows):.2f}–{max(r[1] for r in rows):.2f} s, draw "
          f"{min(r[2] for r in rows):.2f}–{max(r[2] for r in rows):.2f} s, close {min(r[4] for r in rows):.2f}–"
          f"{max(r[4] for r in rows):.2f} s, result {min(r[3] for r in rows) * 1000:.0f}–{max(r[3] for r in rows) * 1000:.0f} ms"
          f"; load average {os.getloadavg()[0]:.1f}")


def _roster_reads(repos, eid: str) -> None:
    """The roster as a draw and a close read it (its copies: keys.roster_chunk) beside the same read from the entry
    items, as both read it before the copies (the reference, same run): the first draw's by ULID spans, the close's
    cut at the plan's ids. Each twice, the second printed (the first warms the store's pages)."""
    entries = repos.entries
    ids = [r.id for r in entries.roster_of_entries(eid)]
    reads = {"copies": lambda: entries.roster(eid), "entries, by spans (the first draw's before)":
             lambda: entries.roster_of_entries(eid), "entries, cut at the plan's ids (the close's before)":
             lambda: entries.roster_of_entries(eid, ids)}
    figures = []
    for label, read in reads.items():
        for _ in range(2):
            t0, c0 = time.perf_counter(), time.process_time()
            got = read()
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        assert [r.id for r in got] == ids, label
        figures.append(f"{label} {wall:.2f} s ({cpu:.2f} s CPU)")
    print(f"the roster of {len(ids):,} entries read alone: " + "; ".join(figures) + f"; load average "
          f"{os.getloadavg()[0]:.1f}", flush=True)


def _largest_items(repos, sizes) -> None:
    """The largest item put and the largest in the table at the end (updates grow items too): under 100 KB."""
    from tests.bigday import largest_stored
    stored = largest_stored(repos)
    print(f"largest item written: {sizes.largest[0] / 1024:.1f} KiB ({sizes.largest[1]}), of {sizes.count:,} items put; "
          f"largest stored now {stored[0] / 1024:.1f} KiB ({stored[1]}); DynamoDB's limit 400 KB, ours 100 KB")
    assert sizes.largest[0] <= ITEM_LIMIT and stored[0] <= ITEM_LIMIT, (sizes.largest, stored)


if __name__ == "__main__":
    main()
