"""Publish a 10,000-entry Guandan event with 9 rounds (DynamoDB Local, local folder sink), issue 29.

Targets: full publish < 10 s, publish after one result < 1 s. Prints, beside references measured in the same run
(the raw render rate of one entry page, the local store's raw write rate), the cold full publish (a new publisher
process: no cached rounds, places or manifests), the warm full rewrite, the publish after one result (as the
result service asks for it), where the time went (reading and working out, rendering, writing), the largest page
and the largest item the store was given.

Issue 43: the objects a round's close writes (target ≤ 2 × tables + 100) and a cold full publish writes, beside the
same number of raw writes to the same sink, and the publisher's peak memory (a cold publisher process's ru_maxrss).

    PUBLISH_N=10000 PUBLISH_ROUNDS=9 .venv/bin/python bench/publish.py      (smaller: PUBLISH_N=1000)
    .venv/bin/python bench/publish.py --entries 100000 --rounds 3           (the arguments override the variables)

Issue 43, publishing by event: two events of one tournament (PUBLISH_PAIR_N entries each) published at once against
one after the other, same run (`--pair`: only that; PUBLISH_PAIR=0: not that).
"""
from __future__ import annotations

import os
import random
import sys
import threading
import time
from datetime import date, datetime, UTC
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import on_ddb_local, repos_on, scratch_dir  # noqa: E402

N = int(os.environ.get("PUBLISH_N", "10000"))
ROUNDS = int(os.environ.get("PUBLISH_ROUNDS", "9"))
REPEAT = int(os.environ.get("PUBLISH_REPEAT", "3"))
if "--entries" in sys.argv:
    N = int(sys.argv[sys.argv.index("--entries") + 1])
if "--rounds" in sys.argv:
    ROUNDS = int(sys.argv[sys.argv.index("--rounds") + 1])
if "--repeat" in sys.argv:
    REPEAT = int(sys.argv[sys.argv.index("--repeat") + 1])


def _files(root: str) -> dict[str, tuple[int, int]]:
    """Every file under `root` with what a rewrite changes (its inode: the sink renames a new file in)."""
    out = {}
    for dirpath, _, names in os.walk(root):
        for name in names:
            st = os.stat(f"{dirpath}/{name}")
            out[f"{dirpath}/{name}"] = (st.st_ino, st.st_mtime_ns)
    return out


def _written_since(before: dict, root: str, kinds: dict | None = None) -> int:
    """The objects written since `before` (new or replaced files: what the PUTs to S3 would be); `kinds` gets
    them counted by kind of file."""
    written = [k for k, v in _files(root).items() if before.get(k) != v]
    if kinds is not None:
        for k in written:
            kinds[_kind(k)] = kinds.get(_kind(k), 0) + 1
    return len(written)


def _kind(path: str) -> str:
    import re
    if "/live/" in path:
        return "live JSON"
    if "/.manifest" in path:
        return "manifest"
    return re.sub(r"[0-9A-Z]{26}|\d+", "N", path.rsplit("/", 1)[-1])


def main() -> None:
    on_ddb_local(run)


def _span(xs: list[float]) -> str:
    return f"{min(xs):.2f}–{max(xs):.2f} s" if len(xs) > 1 else f"{xs[0]:.2f} s"


def run() -> None:
    from chalicelib import bootstrap
    from chalicelib.engine.types import Side
    from chalicelib.ids import new_id
    from chalicelib.publish.render import render
    from chalicelib.publish.sinks import LocalSink
    from chalicelib.services import publishing
    from chalicelib.services.publish_requests import request_publish, table_change
    from chalicelib.store import dynamo
    from tests.bigday import ItemSizes

    repos = repos_on("bench_publish")
    sizes = ItemSizes().attach(dynamo.client())
    clock = lambda: datetime(2026, 12, 12, 10, tzinfo=UTC)  # noqa: E731
    out_dir = scratch_dir("publish-bench-")
    d = bootstrap.Deps(repos=repos, clock=clock, publisher=LocalSink(out_dir))
    bootstrap.override(d)
    t0 = time.perf_counter()
    t, ev, cfg, ids, rules = seed(repos, clock, N, ROUNDS, new_id)
    print(f"seeded {N:,} entries × {ROUNDS} rounds ({ROUNDS * (N // 2):,} tables, the last round open) in "
          f"{time.perf_counter() - t0:.0f} s; load average {os.getloadavg()[0]:.1f} (2 cores shared)")

    if N >= LEAN_FROM:   # a big field: only a cold publisher process of its own, its peak memory and time
        _lean(t.id, N)
        return
    # References, same run: one template's raw render rate, and the local store's raw write rate
    page = {"name": "第1对", "club": "商会1", "members": ["甲1", "乙1"]}
    history = [{"round": k, "bye": False, "status": "confirmed", "opponents": [{"entry_id": ids[1], "name": "第2对"}],
                "points": {"match_points": 2.0}, "point_names": ["match_points"], "levels": None} for k in range(1, ROUNDS + 1)]
    ctx = {"tournament": t, "updated": None, "share": None, "root": "../", "css": "../style.css", "feed_url": "feed.json",
           "feed_version": "x", "event": {"id": ev.id, "name": "掼蛋公开赛", "game": "guandan"},
           "places_chunks": 1, "other_lang": []}
    t0 = time.perf_counter()
    bodies = [render("entry.html", "zh", **ctx, entry=page, history=history, entry_id=ids[0]).encode() for _ in range(500)]
    render_rate = 500 / (time.perf_counter() - t0)
    from chalicelib.publish.entry_page import EntryPages
    pages = EntryPages("zh", {k: v for k, v in ctx.items() if k != "other_lang"}, f"{ev.id}/", lambda page: [])
    t0 = time.perf_counter()
    for _ in range(2000):
        pages.render(page, history, ids[0])
    fast_rate = 2000 / (time.perf_counter() - t0)
    ref_sink = LocalSink(scratch_dir("publish-ref-"))
    t0 = time.perf_counter()
    for k in range(2000):
        ref_sink.write(f"x/{k % 100}/p{k}.html", bodies[k % 500])
    write_rate = 2000 / (time.perf_counter() - t0)
    print(f"reference: one entry page renders through Jinja (templates/entry.html) at {render_rate:,.0f} pages/s; "
          f"the local store writes {write_rate:,.0f} files/s ({len(bodies[0]) / 1024:.1f} KiB each); "
          f"the publisher's entry pages (publish/entry_page.py) render at {fast_rate:,.0f} pages/s")

    def cold():   # a new publisher process: nothing cached
        from chalicelib.store import rounds as store_rounds
        publishing.forget_warm(d)
        store_rounds._ROUND_CACHE.clear()

    # The first publish of the seeded event: no places stored yet, so the standings after each of the 8 closed
    # rounds are worked out (on the day each close's publish stores its round's places: this happens once).
    t0 = time.perf_counter()
    first = publishing.publish_tournament(d, t.id, force=True)
    print(f"first publish (the places after each closed round worked out, not stored before): "
          f"{time.perf_counter() - t0:.2f} s; {_timing(first)}")
    if os.environ.get("PUBLISH_PROFILE") in ("full", "warm"):   # a cold (or warm) full publish in one process
        import cProfile
        import pstats
        if os.environ["PUBLISH_PROFILE"] == "full":
            cold()
        prof = cProfile.Profile()
        prof.enable()
        publishing.publish_tournament(d, t.id, force=True, fork_over=10**9)
        prof.disable()
        if os.environ.get("PUBLISH_PROFILE_OUT"):   # for a closer look: python -m pstats FILE
            prof.dump_stats(os.environ["PUBLISH_PROFILE_OUT"])
        pstats.Stats(prof).sort_stats("cumulative").print_stats(45)
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)
    cold_times, cold_stats = [], None
    for _ in range(REPEAT):
        cold()
        before = _files(out_dir)
        t0 = time.perf_counter()
        cold_stats = publishing.publish_tournament(d, t.id, force=True)
        cold_times.append(time.perf_counter() - t0)
    cold_objects = _written_since(before, out_dir)
    files = cold_stats["files"]
    print(f"full publish, cold publisher (force: every page written): {_span(cold_times)} (target < 10 s) → "
          f"{files:,} files, {cold_objects:,} objects written (the manifest's parts included), "
          f"{cold_stats['bytes'] / 2**20:.0f} MiB; {_timing(cold_stats)}; "
          f"reference: {cold_objects:,} raw writes to the same sink {_raw_writes(ref_sink, bodies, cold_objects):.2f} s")
    warm_times = []
    for _ in range(REPEAT if not os.environ.get("PUBLISH_SKIP_WARM") else 0):
        t0 = time.perf_counter()
        warm = publishing.publish_tournament(d, t.id, force=True)
        warm_times.append(time.perf_counter() - t0)
    if warm_times:
        print(f"full publish, warm publisher (force): {_span(warm_times)}; {_timing(warm)}; as a rate "
              f"{files / min(warm_times):,.0f} files/s beside the reference's raw render rate {render_rate:,.0f}/s")
    t0 = time.perf_counter()
    again = publishing.publish_latest(d, t.id)   # through the lease, as every publish of the day: its count is known
    print(f"publish again with nothing new: {time.perf_counter() - t0:.2f} s, {again['written']} of {again['files']:,} "
          "files written")
    # The day's case: one result of the open round corrected through the store, and the publish the result service
    # asks for (inline here, one publisher: the lease as in AWS).
    _, last_tables = repos.rounds.get_round(ev.id, 0, ROUNDS)
    one_times, one = [], None
    for k in range(REPEAT + 2):
        table = dict(last_tables[(37 * k) % len(last_tables)])
        a, b = (s["entry_id"] for s in table["sides"])
        score = rules.score({"final": {"levels": {a: 14, b: 2 + k}}}, [Side(a, ("N", "S")), Side(b, ("E", "W"))],
                            cfg.stages[0].scoring)
        after = {**table, "points": score.points, "outcome": score.outcome, "winner": score.winner,
                 "version": table["version"] + 1}
        repos.rounds.save_table(ev.id, 0, ROUNDS, after, table["version"],
                                {"id": new_id(), "at": clock().isoformat(), "who": "bench", "action": "result_corrected",
                                 "round": ROUNDS, "table": table["number"]})
        t0 = time.perf_counter()
        request_publish(d, t.id, table_change(ev.id, 0, ROUNDS, table["number"]))
        one_times.append(time.perf_counter() - t0)
        one = d.publish_cache.last_stats.get(t.id)
    if os.environ.get("PUBLISH_PROFILE") == "1":   # where one result's publish spends its time
        import cProfile
        import pstats
        table = dict(last_tables[1])
        repos.rounds.save_table(ev.id, 0, ROUNDS, {**table, "version": table["version"] + 1}, table["version"],
                                {"id": new_id(), "at": clock().isoformat(), "who": "bench", "action": "result_corrected",
                                 "round": ROUNDS, "table": table["number"]})
        prof = cProfile.Profile()
        prof.enable()
        request_publish(d, t.id, table_change(ev.id, 0, ROUNDS, table["number"]))
        prof.disable()
        pstats.Stats(prof).sort_stats("cumulative").print_stats(40)
    print(f"publish after one result ({N:,} entries): {_span(one_times)} (target < 1 s); "
          f"{one['written'] if one else '?'} files written; by event: {one.get('by_event') if one else '?'}; "
          f"{_timing(one) if one else ''}")
    _close(d, t, ev, out_dir, ref_sink, bodies)
    largest = cold_stats["largest"]
    print(f"largest page: {largest[0].rsplit('/', 1)[-1]} {largest[1] / 1024:.0f} KiB; largest item the store was "
          f"given: {sizes.largest[0] / 1024:.1f} KiB ({sizes.largest[1]})")
    # A publisher process of its own, as a cold Lambda container is: its time from the interpreter's start, and
    # the memory the publisher function's size must hold (infra/stack.py)
    import json
    import subprocess
    t0 = time.perf_counter()
    # A new folder holding what the publishes before left beside the pages (the charts' places), as the bucket
    # does for a new container: without them a cold process works out the standings after every closed round.
    import shutil
    alone_dir = scratch_dir("alone-")
    kept = [p.relative_to(out_dir) for p in Path(out_dir).rglob(".places.json")]
    for rel in kept:
        (Path(alone_dir) / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(Path(out_dir) / rel, Path(alone_dir) / rel)
    alone = subprocess.run([sys.executable, __file__, "alone", "bench_publish", t.id, alone_dir],
                           capture_output=True, text=True, check=True)
    got = json.loads(alone.stdout.strip().splitlines()[-1])
    print(f"a publisher process of its own (start, imports, a cold full publish with force, exit): {time.perf_counter() - t0:.2f} s "
          f"(its publish {got['seconds']:.2f} s, {got['cpu']:.1f} s of CPU); peak memory {got['self_mib']:.0f} MiB, its "
          f"largest child {got['child_mib']:.0f} MiB (a language or the standings beside, pages shared with the parent "
          f"until written)")
    if os.environ.get("PUBLISH_S3", "1") != "0":
        _to_s3(t.id, {str(rel): (Path(out_dir) / rel).read_bytes() for rel in kept})
    if os.environ.get("PUBLISH_PAIR", "1") != "0":
        two_events(repos, clock)


LEAN_FROM = int(os.environ.get("PUBLISH_LEAN_FROM", "50000"))   # entries from which only the lean figures are made
GUARD_GB = float(os.environ.get("PUBLISH_GUARD_GB", "6"))   # a child's address space at most (a shared machine)


def _lean(tid: str, n: int) -> None:
    """Issue 43 at 100,000 entries: a cold publisher process of its own (nothing stored beside the pages before, as
    after a deploy), its wall time, CPU and peak memory (ru_maxrss: its own and its largest child's), beside the
    target of 1.5 GB; its languages one after the other in the one process. The child's address space is capped at PUBLISH_GUARD_GB so that a publisher that would not
    fit fails here instead of starving the machine's other work."""
    import json
    import resource
    import subprocess
    guard = int(GUARD_GB * 2**30)

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (guard, guard))
    folder = scratch_dir("publish-lean-")
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, __file__, "alone", "bench_publish", tid, folder], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=cap,
                            env={**os.environ, "PUBLISH_ALONE_ONE_PROCESS": "1"})
    sampler = PssSampler(proc.pid)
    out, err = proc.communicate()
    sampler.stop()
    done = subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
    if os.environ.get("PUBLISH_TRACEMALLOC") == "top":
        print(done.stderr)
    if done.returncode != 0:
        print(f"a cold publisher process at {n:,} entries failed after {time.perf_counter() - t0:.0f} s under a "
              f"{GUARD_GB:g} GiB address-space cap (target: peak < 1.5 GB): {done.stderr.strip().splitlines()[-1:]}")
        return
    got = json.loads(done.stdout.strip().splitlines()[-1])
    ref = subprocess.run([sys.executable, __file__, "items", "bench_publish", tid], capture_output=True, text=True,
                         preexec_fn=cap, check=True)
    items = json.loads(ref.stdout.strip().splitlines()[-1])
    got.update(items_mib=items["items_mib"], items_rss_mib=items["rss_mib"])
    print(f"a cold publisher process at {n:,} entries: its publish {got['seconds']:.1f} s, {got['files']:,} files, "
          f"{got['cpu']:.1f} s of CPU; peak memory {got['self_mib']:,.0f} MiB, its largest child "
          f"{got['child_mib']:,.0f} MiB (target: under 1,536 MiB)")
    print(f"  sampled every 0.2 s: peak PSS of the publisher and its children together {sampler.peak_mib:,.0f} MiB "
          f"(pages shared with a forked child counted once); "
          + (f"the publisher's tracemalloc peak {got['traced_mib']:,.0f} MiB of Python objects; " if got.get("traced_mib")
             else "") + f"reference, same run: the event's items read and "
          f"parsed alone {got.get('items_mib', 0):,.0f} MiB (tracemalloc; that process's ru_maxrss "
          f"{got.get('items_rss_mib', 0):,.0f} MiB, tracing included)")


class PssSampler:
    """The proportional set size of a process and its descendants summed, sampled on a thread from
    /proc/<pid>/smaps_rollup: what they hold together (a forked child's copy-on-write pages shared with its
    parent counted once between them, unlike two ru_maxrss)."""

    def __init__(self, pid: int, every: float = 0.2, skip: set[int] | None = None):
        self.pid, self.every, self.peak_mib, self.skip = pid, every, 0.0, skip or set()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    @staticmethod
    def _tree(pid: int, skip: set[int] = frozenset()) -> list[int]:
        out, todo = [], [pid]
        while todo:
            p = todo.pop()
            if p in skip:
                continue
            out.append(p)
            try:
                for task in os.listdir(f"/proc/{p}/task"):
                    todo.extend(int(c) for c in open(f"/proc/{p}/task/{task}/children").read().split())
            except OSError:
                pass
        return out

    @staticmethod
    def _pss_kib(pid: int) -> int:
        try:
            for line in open(f"/proc/{pid}/smaps_rollup"):
                if line.startswith("Pss:"):
                    return int(line.split()[1])
        except OSError:
            pass
        return 0

    @classmethod
    def tree_mib(cls, pid: int, skip: set[int] = frozenset()) -> float:
        """`skip`: processes (and theirs) not counted (a bench's DynamoDB Local, say)."""
        return sum(cls._pss_kib(p) for p in cls._tree(pid, skip)) / 1024

    def _run(self) -> None:
        while not self._done.wait(self.every):
            self.peak_mib = max(self.peak_mib, self.tree_mib(self.pid, self.skip))

    def stop(self) -> None:
        self._done.set()
        self._thread.join()


def _raw_writes(sink, bodies: list[bytes], n: int) -> float:
    """The reference: `n` files of an entry page's size written straight to the sink, one after the other."""
    t0 = time.perf_counter()
    for k in range(n):
        sink.write(f"raw/{k % 100}/p{k}.html", bodies[k % len(bodies)])
    return time.perf_counter() - t0


def _close(d, t, ev, out_dir: str, ref_sink, bodies: list[bytes]) -> None:
    """Issue 43: the open round closed through the round service, and the publish its RoundClosed asks for (inline,
    as the queue's worker does it in AWS): the objects it writes (the pages, the manifest's parts, the tables' live
    JSON), beside the target 2 × tables + 100 and the same number of raw writes to the same sink."""
    from chalicelib.models.organisers import Organiser
    from chalicelib.services import publishing
    from chalicelib.services import rounds as round_svc
    publishing.publish_latest(d, t.id)   # anything asked before is out: the close's own writes are counted
    tables = len(d.repos.rounds.get_round(ev.id, 0, ROUNDS)[1])
    before = _files(out_dir)
    t0 = time.perf_counter()
    round_svc.close_round(d, Organiser(id="bench", name="bench", created_at=d.clock()), ev.id, ROUNDS)
    for th in threading.enumerate():   # any further publish it left to a thread
        if th.name.startswith("publish-"):
            th.join()
    seconds = time.perf_counter() - t0
    kinds: dict[str, int] = {}
    written = _written_since(before, out_dir, kinds)
    stats = d.publish_cache.last_stats.get(t.id) or {}
    print(f"round close ({N:,} entries, {tables:,} tables): {written:,} objects written (target ≤ 2 × tables + 100 = "
          f"{2 * tables + 100:,}), {seconds:.2f} s with its publish ({_timing(stats)}); reference: {written:,} raw "
          f"writes to the same sink {_raw_writes(ref_sink, bodies, written):.2f} s")
    print("  by kind: " + ", ".join(f"{k} {v:,}" for k, v in sorted(kinds.items(), key=lambda kv: -kv[1])))


def _to_s3(tid: str, kept: dict[str, bytes]) -> None:
    """The same cold full publish as the publisher function does it in AWS: every file a PUT through botocore, to
    bench/s3_stub.py answering after S3_DELAY_MS (S3's own latency; the default 20 ms is an assumption, not a
    measurement). Beside it, the reference: the same PUTs made raw (http.client, 8 threads) to the same stub."""
    import http.client
    import json
    import subprocess
    from concurrent.futures import ThreadPoolExecutor
    from scripts.ddblocal import free_port
    delay = os.environ.get("S3_DELAY_MS", "20")
    port = free_port()
    stub = subprocess.Popen([sys.executable, str(Path(__file__).parent / "s3_stub.py"), str(port), delay],
                            stdout=subprocess.PIPE, text=True)
    try:
        stub.stdout.readline()   # "ready"
        body = os.urandom(8000)
        local = threading.local()

        def raw_put(i: int) -> None:
            if not hasattr(local, "c"):
                local.c = http.client.HTTPConnection("127.0.0.1", port)
            local.c.request("PUT", f"/ref/r{i}.html", body=body)
            local.c.getresponse().read()

        for key, body_ in kept.items():   # what earlier publishes left in the bucket (the charts' places)
            conn = http.client.HTTPConnection("127.0.0.1", port)
            conn.request("PUT", f"/bench-site/{key}", body=body_)
            conn.getresponse().read()
            conn.close()
        n = 3000
        t0, c0 = time.perf_counter(), time.process_time()
        with ThreadPoolExecutor(8) as pool:
            list(pool.map(raw_put, range(n)))
        raw_s, raw_cpu = time.perf_counter() - t0, time.process_time() - c0
        env = {**os.environ, "AWS_ENDPOINT_URL_S3": f"http://127.0.0.1:{port}"}
        alone = subprocess.run([sys.executable, __file__, "alone", "bench_publish", tid, "s3:bench-site"],
                               capture_output=True, text=True, check=True, env=env)
        got = json.loads(alone.stdout.strip().splitlines()[-1])
        print(f"reference: raw PUTs of 8 KB to the S3 stand-in ({delay} ms an answer), 8 threads: {n / raw_s:,.0f}/s, "
              f"{raw_cpu / n * 1000:.2f} ms of CPU each")
        print(f"to S3 (the publisher function's way): a cold full publish with force {got['seconds']:.1f} s, "
              f"{got['files']:,} PUTs through botocore, {got['cpu']:.1f} s of CPU in the publisher's processes "
              f"({got['cpu'] / max(got['files'], 1) * 1000:.2f} ms a file, everything included); peak memory "
              f"{got['self_mib']:.0f} MiB + largest child {got['child_mib']:.0f} MiB")
    finally:
        stub.kill()
        stub.wait()


def _top_at_languages() -> None:
    """PUBLISH_TRACEMALLOC=top: as each language's pages start, the largest holders of memory (to stderr)."""
    import tracemalloc
    from chalicelib.publish import site_pages
    render_language = site_pages.render_event_language

    def traced(lang, out, run, *args):
        top = tracemalloc.take_snapshot().statistics("traceback")[:30]
        print(f"== {lang}: {tracemalloc.get_traced_memory()[0] / 2**20:.0f} MiB traced", file=sys.stderr)
        for st in top:
            where = " < ".join(f"{f.filename.rsplit('/', 1)[-1]}:{f.lineno}" for f in st.traceback)
            print(f"{st.size / 2**20:7.1f} MiB {where}", file=sys.stderr)
        return render_language(lang, out, run, *args)
    site_pages.render_event_language = traced


def items_alone(table: str, tid: str) -> None:
    """The reference: the event's items read and parsed as the publisher reads them (its entries, state and
    rounds), nothing else; the Python objects they hold (tracemalloc) and the process's ru_maxrss, as one JSON line."""
    import json
    import resource
    import tracemalloc
    repos = repos_on(table)
    _, events = repos.tournaments.get_with_events(tid)
    tracemalloc.start()
    held = []
    for event in events:
        state = repos.rounds.state(event.id)
        held.append((repos.entries.list(event.id), repos.rounds.rounds_for_publishing(event.id, state)))
    current, _ = tracemalloc.get_traced_memory()
    print(json.dumps({"items_mib": current / 2**20,
                      "rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


def alone(table: str, tid: str, target: str) -> None:
    """A cold publisher in this process: the figures as one JSON line. `target`: a folder, or s3:BUCKET."""
    import json
    import resource
    from chalicelib import bootstrap
    from chalicelib.publish.sinks import LocalSink, S3Sink
    from chalicelib.services import publishing
    sink = S3Sink(target[3:]) if target.startswith("s3:") else LocalSink(target)
    d = bootstrap.Deps(repos=repos_on(table), publisher=sink,
                       clock=lambda: datetime(2026, 12, 12, 10, tzinfo=UTC))
    bootstrap.override(d)
    prof = None
    if os.environ.get("PUBLISH_ALONE_PROFILE"):   # a file for python -m pstats: where a cold process's time goes
        import cProfile
        prof = cProfile.Profile()
        prof.enable()
    traced = os.environ.get("PUBLISH_TRACEMALLOC") == "1"   # Python's own objects at the peak (slower: ~2×)
    if traced or os.environ.get("PUBLISH_TRACEMALLOC") == "top":   # top: where the memory is as each language starts
        import tracemalloc
        tracemalloc.start(6 if not traced else 1)
        traced = True
        if os.environ["PUBLISH_TRACEMALLOC"] == "top":
            _top_at_languages()
    t0 = time.perf_counter()
    # PUBLISH_ALONE_ONE_PROCESS: every language in this process, one after the other (the lean run at 100,000
    # entries: a child per language under the same address-space cap would hold three times the guard)
    one = os.environ.get("PUBLISH_ALONE_ONE_PROCESS") == "1"
    stats = publishing.publish_tournament(d, tid, force=True, **({"fork_over": 10**12} if one else {}))
    if prof is not None:
        prof.disable()
        prof.dump_stats(os.environ["PUBLISH_ALONE_PROFILE"])
    seconds = time.perf_counter() - t0
    traced_mib = tracemalloc.get_traced_memory()[1] / 2**20 if traced else 0.0
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    print(json.dumps({"seconds": seconds, "files": stats["written"], "traced_mib": traced_mib,
                      "cpu": me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime,
                      "self_mib": me.ru_maxrss / 1024, "child_mib": kids.ru_maxrss / 1024}))


def seed(repos, clock, n_entries: int, rounds: int, new_id, tournament=None, name: str = "掼蛋公开赛"):
    """A Guandan pairs event of `n_entries` confirmed entries and `rounds` Swiss rounds of results, the last one
    still open (seeded through the repositories; `new_id` makes the ids: tests/publish_golden.py passes a counter).
    `tournament`: another event of that tournament (a new tournament otherwise)."""
    from chalicelib.engine.games import game
    from chalicelib.engine.types import Side
    from chalicelib.models import Entry, Event, EventConfig, Member, Tournament
    from chalicelib.store.entries import entry_item, roster_copy_items
    N, ROUNDS = n_entries, rounds  # noqa: N806
    t = tournament
    if t is None:
        t = Tournament(id=new_id(), organiser_id="bench", name="联合会年度掼蛋大赛", venue="南宁", timezone="Asia/Shanghai",
                       currency="CNY", starts_on=date(2026, 12, 12), ends_on=date(2026, 12, 13), created_at=clock())
        repos.tournaments.create(t)
    cfg = EventConfig.model_validate({"name": name, "game": "guandan", "entry": "pair", "capacity": N,
                                      "stages": [{"format": "swiss", "rounds": ROUNDS, "scoring": {"method": "match_points"}}]})
    ev = Event(id=new_id(), tournament_id=t.id, organiser_id="bench", config=cfg, created_at=clock())
    repos.events.create(ev)
    ids = [new_id() for _ in range(N)]
    entries = [Entry(id=e, event_id=ev.id, tournament_id=t.id, name=f"第{i + 1}对", club=f"商会{i % 97}",
                     members=[Member(name=f"甲{i}", phone=f"139{i:08d}"), Member(name=f"乙{i}")],
                     status="confirmed", checked_in=True, created_at=clock()) for i, e in enumerate(ids)]
    repos.rounds._batch_put([*map(entry_item, entries), *roster_copy_items(entries)])
    rng = random.Random(1)
    rules = game("guandan")
    state = {"rounds": [], "open_round": 0, "stage": 0, "version": 0,
             "plans": {"0": {"stage": 0, "format": "swiss", "entries": ids, "numbers": {e: i + 1 for i, e in enumerate(ids)},
                             "carry": {}, "seed": 1, "rounds": ROUNDS}}}
    score_of = dict.fromkeys(ids, 0.0)
    for n in range(1, ROUNDS + 1):
        # Score groups paired top down (the publisher does not care how good the draw is, only how big)
        order = sorted(ids, key=lambda e: (-score_of[e], rng.random()))
        tables = []
        for k in range(len(order) // 2):
            a, b = order[2 * k], order[2 * k + 1]
            la, lb = rng.randint(2, 14), rng.randint(2, 14)
            score = rules.score({"final": {"levels": {a: la, b: lb}}}, [Side(a, ("N", "S")), Side(b, ("E", "W"))],
                                cfg.stages[0].scoring)
            tables.append({"number": k + 1, "home": a, "reason": "", "status": "confirmed", "version": 2,
                           "sides": [{"entry_id": a, "seats": ["N", "S"]}, {"entry_id": b, "seats": ["E", "W"]}],
                           "points": score.points, "outcome": score.outcome, "winner": score.winner, "details": {}})
            score_of[a] += score.points[a]["match_points"]
            score_of[b] += score.points[b]["match_points"]
        last = n == ROUNDS   # the last round is still being played: results come in
        doc = {"event_id": ev.id, "stage": 0, "number": n, "stage_round": n, "seed": n,
               "status": "open" if last else "closed", "format": "swiss", "byes": [], "notes": [],
               "drawn_at": clock().isoformat()}
        new_state = {**state, "rounds": [*state["rounds"], {"n": n, "stage": 0, "stage_round": n}],
                     "open_round": n if last else 0}
        repos.rounds.create_round(ev.id, doc, tables, new_state, state["version"])
        state = {**new_state, "version": state["version"] + 1}
    return t, ev, cfg, ids, rules


PAIR_N = int(os.environ.get("PUBLISH_PAIR_N", "3000"))   # each of the two events' entries (issue 43's pair)


def two_events(repos, clock) -> None:
    """Issue 43: two events of one tournament, each published with force through its own lease, at once against
    one after the other, in the same run on the same seeded store: as two publisher processes (two containers:
    a process each, interpreter and imports included) and as two threads of one process (the venue's server)."""
    import json
    import subprocess
    from chalicelib import bootstrap
    from chalicelib.ids import new_id
    from chalicelib.publish.sinks import LocalSink
    from chalicelib.services import publishing
    from chalicelib.services.publish_requests import event_change
    t0 = time.perf_counter()
    t, ev_a, *_ = seed(repos, clock, PAIR_N, ROUNDS, new_id, name="掼蛋甲组")
    _, ev_b, *_ = seed(repos, clock, PAIR_N, ROUNDS, new_id, tournament=t, name="掼蛋乙组")
    eids = (ev_a.id, ev_b.id)
    folder = scratch_dir("publish-pair-")
    print(f"two events of {PAIR_N:,} entries × {ROUNDS} rounds seeded in one tournament in "
          f"{time.perf_counter() - t0:.0f} s; load average {os.getloadavg()[0]:.1f}")

    def start(eid: str):
        return subprocess.Popen([sys.executable, __file__, "event", "bench_publish", t.id, eid, folder],
                                stdout=subprocess.PIPE, text=True)

    def finish(proc) -> dict:
        out, _ = proc.communicate()
        if proc.returncode != 0:
            raise RuntimeError(f"an event's publisher process failed ({proc.returncode})")
        return json.loads(out.strip().splitlines()[-1])
    for eid in eids:   # the first publish of each (places worked out and stored beside the pages): not measured
        finish(start(eid))
    d = bootstrap.Deps(repos=repos, clock=clock, publisher=LocalSink(scratch_dir("publish-pair-t-")))
    bootstrap.override(d)

    def in_thread(eid: str, got: list) -> None:
        got.append(publishing.publish_latest(d, t.id, changes=[event_change(eid)], force=True))
    for eid in eids:
        in_thread(eid, [])
    procs_seq, procs_par, threads_seq, threads_par, each = [], [], [], [], []
    for _ in range(REPEAT):
        t0 = time.perf_counter()
        each += [finish(start(eid))["seconds"] for eid in eids]
        procs_seq.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        running = [start(eid) for eid in eids]
        each += [finish(p)["seconds"] for p in running]
        procs_par.append(time.perf_counter() - t0)
        for order, out in ((False, threads_seq), (True, threads_par)):
            publishing.forget_warm(d)   # cold, as the processes are
            got: list = []
            t0 = time.perf_counter()
            if order:
                threads = [threading.Thread(target=in_thread, args=(eid, got)) for eid in eids]
                for th in threads:
                    th.start()
                for th in threads:
                    th.join()
            else:
                for eid in eids:
                    in_thread(eid, got)
            out.append(time.perf_counter() - t0)
            if any(g is None for g in got):
                raise RuntimeError("an event's publish was left to another publisher: the leases serialised them")
    print(f"two events published with force, two publisher processes: at once {_span(procs_par)}, one after the "
          f"other {_span(procs_seq)} (each process's own publish {_span(each)}); two threads of one process: at once "
          f"{_span(threads_par)}, one after the other {_span(threads_seq)} (2 cores shared, load "
          f"{os.getloadavg()[0]:.1f})")


def event_alone(table: str, tid: str, eid: str, target: str) -> None:
    """One event's publisher in this process (a cold container), through its event's lease: one JSON line."""
    import json
    from chalicelib import bootstrap
    from chalicelib.publish.sinks import LocalSink
    from chalicelib.services import publishing
    from chalicelib.services.publish_requests import event_change
    d = bootstrap.Deps(repos=repos_on(table), publisher=LocalSink(target),
                       clock=lambda: datetime(2026, 12, 12, 10, tzinfo=UTC))
    bootstrap.override(d)
    t0 = time.perf_counter()
    stats = publishing.publish_latest(d, tid, changes=[event_change(eid)], force=True)
    if stats is None:
        raise SystemExit("the event's lease was held: its publish was left to the holder")
    print(json.dumps({"seconds": time.perf_counter() - t0, "files": stats["written"]}))


def _timing(stats: dict) -> str:
    tm = stats.get("timing") or {}
    return ", ".join(f"{k} {v:.2f} s" for k, v in tm.items())


if __name__ == "__main__":
    if sys.argv[1:2] == ["alone"]:   # the endpoint of the DynamoDB Local started by the parent is in the environment
        alone(*sys.argv[2:5])
    elif sys.argv[1:2] == ["event"]:
        event_alone(*sys.argv[2:6])
    elif "--pair" in sys.argv:   # only the two events' figures
        on_ddb_local(lambda: two_events(repos_on("bench_publish"), lambda: datetime(2026, 12, 12, 10, tzinfo=UTC)))
    elif sys.argv[1:2] == ["items"]:
        items_alone(*sys.argv[2:4])
    else:
        main()
