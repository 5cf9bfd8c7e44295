"""Publishing, the orchestration (issue 37 item 4): when to publish (one publisher at a time, under a lease, asks
counted), what to publish (by event after a table's result, else everything), reading the records and working
out the standings. What the pages show is publish/site_data.py's (pure), writing them publish/site_pages.py's and
the manifest publish/manifest.py's; this publisher's state between publishes is `deps.publish_cache`.

Runs after every drawn round, confirmed result and correction (inline locally; from a queue in AWS when
PUBLISH_QUEUE_URL is set: publish/queue.py) and on demand. Only names and clubs appear: never a phone number or email.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import hashlib
import json
import logging
import os
import time
from zoneinfo import ZoneInfo

from ulid import ULID

from .. import errors
if TYPE_CHECKING:   # the type only: the composition root (bootstrap) imports the services, not the reverse
    from ..bootstrap import Deps
from ..config import get_settings
from ..engine.games import game as game_rules
from ..publish import site_data, site_pages
from ..publish.cache import TournamentCache
from ..publish.failures import log_failure
from ..publish.i18n import prefix as lang_prefix
from ..publish.manifest import load_manifest, save_manifest
from .beside import Beside
from .charts_data import places_by_round
from .gc_pause import gc_paused
from .hall import hall_data
from .links import site_url
from .prizes import event_prizes
from .reads import entries_known
from .standings import bonuses, event_standings

log = logging.getLogger("cardgames.publish")
LANGS = site_pages.LANGS   # zh at /t/, the others at /{lang}/t/ (publish/i18n.py)
penalties_of_table = site_data.penalties_of_table   # (where it was before the split)


def _sink(deps: Deps):
    if deps.publisher is not None:
        return deps.publisher
    from ..publish.sinks import default_sink
    return default_sink()


def event_site_data(deps: Deps, event, tournament, warm: dict | None = None,
                    tables: list[tuple[int, int, int]] | None = None) -> dict:
    warm = {} if warm is None else warm
    cached = tables is not None and all(k in warm for k in ("entries", "state", "rounds", "revs"))
    if cached:
        entry_list, read = warm["entries"], None
    else:   # the entries read beside the rounds: the store works on one while this process parses the other
        from concurrent.futures import ThreadPoolExecutor
        with ThreadPoolExecutor(max_workers=1) as pool:
            later = pool.submit(deps.repos.entries.list, event.id)
            state = deps.repos.rounds.state(event.id)
            # the revs before the rounds: a write between the two reads makes the next publish re-read, never miss it
            revs = deps.repos.rounds.round_revs(event.id, state.get("rounds", []))
            read = (state, revs, deps.repos.rounds.rounds_for_publishing(event.id, state))
            entry_list = later.result()
    with entries_known(event.id, entry_list):   # the standings and charts read the same entries, not again
        return _event_site_data(deps, event, tournament, warm, tables if cached else None, entry_list, read)


def _event_site_data(deps: Deps, event, tournament, warm: dict, tables, entry_list, read) -> dict:
    """What one event's pages show: the records read here (or patched into `warm`, this publisher's cache of the
    event: its entries, state, rounds and each round's worded rows), the standings worked out beside the rounds'
    wording, the rest worded by publish/site_data.py. With `tables`, only those tables' results changed since the
    cache was filled (a result's publish: the event's other items are not read again)."""
    if tables is not None:
        state = warm["state"]
        all_rounds = _patched_rounds(deps, event.id, warm, tables)
    else:
        state, warm["revs"], all_rounds = read   # (event_site_data's reads)
        warm["names_token"] = None
    warm.update(entries=entry_list, state=state, rounds=all_rounds)
    entries, names, name_map = site_data.entry_maps(entry_list, warm)
    later = _standings_later(tables, entry_list, all_rounds, warm)
    wanted = not later and bool(state.get("plans"))
    # a big field's standings worked out in a child beside the rounds' wording below (each ~1 s of a core)
    standings_job = Beside(lambda: event_standings(deps, event, state=state, rounds=all_rounds, entries=entry_list),
                           fork=wanted and len(entry_list) >= get_settings().publish_beside_min)
    try:
        rules = game_rules(event.config.game)
        outs = site_data.word_rounds(event, tournament, rules, all_rounds, names, name_map, warm)
        places = _places(deps, tournament, event, state, all_rounds, warm)
        kept, seq_of = _read_audit(deps, event, names, warm)
        corrections = site_data.correction_rows(kept, seq_of, names, tournament.timezone)
        appeals = site_data.public_appeals(deps.repos.rounds.appeals(event.id), names)
        bonus = bonuses(deps, event, rounds=all_rounds, entries=entry_list) if event.config.game == "doudizhu" else None
        entry_pages = site_data.entry_pages_data(warm, entry_list, entries, outs,
                                                 site_data.event_page_of(tournament, event))
        # the standings last: worked out beside all of the above for a big field
        if later:
            standings, prizes = warm["standings"], warm["prizes"]
        else:
            standings = standings_job.result() if wanted else None
            prizes = (event_prizes(deps, event, state=state, rounds=all_rounds, entries=entry_list, standings=standings,
                                   appeals=appeals) if wanted else None)
            warm["standings"], warm["prizes"] = standings, prizes
        return site_data.event_data(site_data.EventParts(
            event=event, rules=rules, state=state, outs=outs, entries=entries, names=names, standings=standings,
            prizes=prizes, bonuses=bonus, corrections=corrections, chain=warm["chain_view"], appeals=appeals,
            places=places, entry_pages=entry_pages,
            rankings=deps.repos.rankings.rankings_of_event(event.id)), warm)   # issue 42: linked from the standings
    finally:   # the caller failed before taking the standings: the child is not left behind
        standings_job.close()


def _standings_later(tables, entry_list: list, all_rounds: list, warm: dict) -> bool:
    """A big field's standings (the engine's tie-breaks over every record: seconds at 10,000 entries) follow the
    closed rounds: a result in the open round publishes its round, its entries and the feed, and the standings
    move when the round closes (or a closed round's result is corrected)."""
    if tables is None or len(entry_list) <= get_settings().publish_live_standings_max or "standings" not in warm:
        return False
    open_rounds = {(doc["stage"], doc["number"]) for doc, _ in all_rounds if doc and doc.get("status") == "open"}
    return all((stage, n) in open_rounds for stage, n, _ in tables)


def _places(deps: Deps, tournament, event, state: dict, all_rounds: list, warm: dict) -> dict:
    """Each entry's place after each closed round (the charts' data), kept in the publisher's own state beside the
    pages (a new publisher process reads it instead of working out the standings once per closed round)."""
    closed_key = [(doc, tables_) for doc, tables_ in all_rounds if doc and doc.get("status") == "closed"]
    hit = warm.get("places_of")
    if hit and len(hit[0]) == len(closed_key) and hit[1] == state.get("stage", 0) and all(
            a is c and b is d for (a, b), (c, d) in zip(hit[0], closed_key, strict=True)):
        return hit[2]   # the same closed rounds (the same objects): the same places
    saved = _saved_places(deps, tournament.id, event.id, warm)
    keep: dict = {}
    places = places_by_round(deps, event, state, all_rounds, saved, keep, memo=deps.publish_cache.places)
    if set(keep) != set(saved):
        _save_places(deps, tournament.id, event.id, keep)
        warm["places"] = keep
    warm["places_of"] = (closed_key, state.get("stage", 0), places)
    return places


def _places_key(tid: str, eid: str) -> str:
    return f"t/{tid}/{eid}/.places.json"


def _saved_places(deps: Deps, tid: str, eid: str, warm: dict) -> dict:
    """The places the publisher stored after each closed round ({digest: {entry_id: place}}), read once a process."""
    if "places" not in warm:
        try:
            raw = _sink(deps).read(_places_key(tid, eid))
            data = json.loads(raw) if raw else {}
            ids = data.get("entries") or []
            warm["places"] = {d: {e: r for e, r in zip(ids, ranks, strict=False) if r} for d, ranks in (data.get("places") or {}).items()}
        except (ValueError, AttributeError, TypeError):
            warm["places"] = {}
    return warm["places"]


def _save_places(deps: Deps, tid: str, eid: str, places: dict) -> None:
    ids = sorted(set().union(*places.values())) if places else []
    body = {"entries": ids, "places": {d: [p.get(e, 0) for e in ids] for d, p in places.items()}}
    _sink(deps).write(_places_key(tid, eid), json.dumps(body, separators=(",", ":")).encode())


AUDIT_SKEW_MS = 120_000   # audit ids are ULIDs of the writer's clock: re-read that far back, so none is missed


def _read_audit(deps: Deps, event, names: dict, warm: dict) -> tuple[dict, dict]:
    """The audit records that can show on the corrections page, by id, and each chained record's place in the
    chain (sets warm["chain_view"]). The publisher keeps those records (a handful: most are plain results) and
    afterwards reads only the records written since it last read (ids are time-ordered ULIDs; a margin covers
    clocks a little apart), not the whole log after every result."""
    kept = warm.setdefault("audit", {})
    since = warm.get("audit_since")
    read_at = int(time.time() * 1000)   # the ids' clock: the writers' own, not the tournament's
    chain, seq_of = warm.setdefault("chain", {}), warm.setdefault("chain_seq", {})
    count, _ = deps.repos.rounds.audit_head(event.id)   # before the records: they hold at least this much
    items = deps.repos.rounds.audit_items(event.id, since)
    if since is not None and not site_data.chain_whole(chain, items, count):
        # a record that committed later than the margin allows for (a long-retried append): the whole log again
        for held in (kept, chain, seq_of):
            held.clear()
        items = deps.repos.rounds.audit_items(event.id)
    for item in items:
        a = json.loads(item["data"])
        if item.get("chain"):   # kept as the stored JSON text: a big day's chain is 100,000 records
            seq_of[a["id"]] = seq = int(item["seq"])
            chain[seq] = item["chain"]
        if site_data.shows_in_corrections(a, names):
            kept[a["id"]] = a
    warm["audit_since"] = str(ULID.from_timestamp(max(0, read_at - AUDIT_SKEW_MS) / 1000))[:10] + "0" * 16
    site_data.chain_view(event.id, chain, warm)
    return kept, seq_of


def _patched_rounds(deps: Deps, eid: str, warm: dict, changed: list[tuple[int, int, int]]) -> list:
    """The cached rounds with the changed tables read again (one small read each). A round whose `rev` moved by
    more than the writes named (a result entered without a publish asked, say) or whose document changed is
    read again whole; a round the cache does not hold means the state moved: read the event again."""
    from collections import Counter
    refs = warm["state"].get("rounds", [])
    revs = deps.repos.rounds.round_revs(eid, refs)
    named = Counter((stage, n) for stage, n, _ in changed)
    out = list(warm["rounds"])
    where = {(doc["stage"], doc["number"]): i for i, (doc, _) in enumerate(out) if doc}
    if set(revs) != set(warm["revs"]) or any(k not in where for k in named):
        raise _Stale()
    for key, (rev, doc_data) in revs.items():
        old_rev, old_data = warm["revs"][key]
        if (rev, doc_data) == (old_rev, old_data):
            continue
        i = where[key]
        if doc_data == old_data and rev - old_rev == named.get(key, 0):
            doc, tables = out[i]
            for t in sorted({t for stage, n, t in changed if (stage, n) == key}):
                _, table = deps.repos.rounds.get_table(eid, key[0], key[1], t)
                if table is None:
                    raise _Stale()
                tables = [table if x["number"] == t else x for x in tables]
            out[i] = (doc, tables)
        else:
            out[i] = deps.repos.rounds.get_round(eid, key[0], key[1])
    warm["revs"] = revs
    return out


class _Stale(Exception):
    """The publisher's cache does not hold what a change names: read the event again."""


LEASE_SECONDS = 60   # renewed while a publish runs (_LeaseKept) and before each further publish


LEASE_RENEWED_FOR_S = 600   # at most: a publish still running then is stuck (one of 10,000 entries to S3: ~1 min)


def publish_latest(deps: Deps, tid: str, *, force: bool = False, wait_seconds: float = 0.0,
                   then_in_background: bool = False, changes: list[str] | None = None) -> dict | None:
    """Publishes the tournament as it is now, one publisher at a time: asks that arrive while another publishes
    only count themselves, and that publisher publishes again before it stops if any came in — so the last
    pages written always come from data read after the last ask, and a hall of phones confirming at once costs
    a publish or two, not one each (concurrent publishes could also write older pages over newer ones).
    Returns the stats of the publish made here, or None when another publisher took the ask over.
    `wait_seconds`: how long to wait for the lease (on demand); otherwise leave the ask to the holder.
    `then_in_background`: publish once here, and any further rounds in a thread (a request must not wait on a
    hall's worth of them; the queue consumers in AWS keep them in line).
    `changes`: what changed (publish_requests.table_change; None or "*": anything may have)."""
    import time
    from ..ids import new_id
    leases = deps.repos.publish_leases
    me = new_id()
    leases.ask(tid, changes) if changes and changes != ["*"] else leases.ask(tid)
    deadline = time.monotonic() + wait_seconds
    while not leases.acquire(tid, me, _epoch(deps), LEASE_SECONDS):
        if time.monotonic() >= deadline:
            if wait_seconds:
                raise errors.Conflict("正在发布，请稍后再试 · The results are being published; try again in a moment.")
            return None
        time.sleep(0.2)
    stats = _publish_while_asked(deps, tid, me, force, once=then_in_background)
    if stats is _MORE:
        import threading
        threading.Thread(target=_publish_while_asked, args=(deps, tid, me, False), kwargs={"background": True},
                         daemon=True, name=f"publish-{tid}").start()
        return None
    return stats


_MORE = object()


def _publish_while_asked(deps: Deps, tid: str, me: str, force: bool, once: bool = False,
                         background: bool = False):
    """The lease holder's loop: publish, then stop if no ask came in since the count was read. With `once`,
    returns _MORE instead of publishing a second time, still holding the lease (the caller hands the loop on).
    In the background a failure is logged (the lease is given back; the next ask publishes again)."""
    leases = deps.repos.publish_leases
    stats = None
    try:
        while True:
            if once and stats is not None:
                return _MORE
            seen, taken = leases.take(tid)
            with _LeaseKept(deps, tid, me):
                stats = publish_tournament(deps, tid, force=force, asked=(seen, taken))
            if leases.release(tid, me, seen):
                return stats
            if not leases.acquire_again(tid, me, _epoch(deps), LEASE_SECONDS):   # expired and taken: theirs now
                return stats
            force = False   # asks came in meanwhile: publish what changed since
    except BaseException as exc:
        try:
            leases.release(tid, me)
        except Exception:   # noqa: BLE001 — the store is down too: the lease expires by itself
            pass
        if background:
            log_failure(tid, exc)
            return None
        raise


class _LeaseKept:
    """Renews the lease while a publish runs, a third of its length apart: a big tournament's publish to S3 takes
    longer than the lease (bench/publish.py's S3 figures at 10,000 entries), and a lease that ran out under it
    would let a second publisher write older pages over newer ones. A publisher that dies stops renewing, and one
    stuck stops after LEASE_RENEWED_FOR_S: its lease runs out LEASE_SECONDS later, as before."""

    def __init__(self, deps: Deps, tid: str, me: str):
        import threading
        self.deps, self.tid, self.me = deps, tid, me
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._renew, daemon=True, name=f"lease-{tid}")

    def _renew(self) -> None:
        import time
        leases = self.deps.repos.publish_leases
        until = time.monotonic() + LEASE_RENEWED_FOR_S
        while not self.stop.wait(LEASE_SECONDS / 3):
            if time.monotonic() > until:   # a publish this long is stuck: its lease runs out, the next ask publishes
                log.error("publishing tournament %s: still running after %d s, its lease left to run out", self.tid,
                          LEASE_RENEWED_FOR_S)
                return
            try:
                if not leases.acquire_again(self.tid, self.me, _epoch(self.deps), LEASE_SECONDS):
                    log.error("publishing tournament %s: the lease was taken by another publisher", self.tid)
                    return
            except Exception as exc:   # noqa: BLE001 — the store did not answer: tried again a third of a lease later
                log.warning("publishing tournament %s: the lease not renewed (%s)", self.tid, type(exc).__name__)

    def __enter__(self) -> _LeaseKept:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.thread.join()


def _epoch(deps: Deps) -> int:
    return int(deps.clock().timestamp())


# The publisher's own state between publishes in this process (issue 29) is `deps.publish_cache`
# (publish/cache.py), per tournament: each event's data and the cache it was worked out from, the manifests, and
# the ask count it is current with. A result's publish uses it only when the asks taken since are exactly the ones
# after that count and all name tables (see `_by_event`).

def forget_warm(deps: Deps) -> None:
    """As a new publisher process (a cold Lambda container) starts."""
    deps.publish_cache.forget()


def publish_tournament(deps: Deps, tid: str, *, fork_over: int = 600, force: bool = False,
                       asked: tuple[int, list[str]] | None = None) -> dict:
    """Renders the tournament's pages in every language and writes those that changed (`force`: all).
    Big tournaments render the other languages in forked processes beside Chinese (two cores) when the sink
    writes outside memory. `asked`: the lease's ask count and the changes taken with it (publish_latest): when
    they are all table results, only the events they name are read again and published (by event)."""
    import time
    t0 = time.perf_counter()
    with gc_paused():   # a publish allocates tens of thousands of short-lived dicts (services/gc_pause.py)
        try:
            stats = _publish(deps, tid, fork_over=fork_over, force=force, asked=asked)
        except BaseException:
            deps.publish_cache.drop(tid)   # half-updated: the next publish reads everything
            raise
    stats["timing"] = {**stats.get("timing", {}), "total": time.perf_counter() - t0}
    deps.publish_cache.last_stats[tid] = stats
    return stats


def _by_event(warm: TournamentCache | None, asked) -> dict[str, list[tuple[int, int, int]]] | None:
    """{event id: [(stage, round, table)…]} when the publisher's cache plus the changes taken are the whole
    story since it was filled; None when anything may have changed (read everything again)."""
    if warm is None or asked is None or warm.asked is None:
        return None
    seen, changes = asked
    if warm.asked + len(changes) != seen:   # someone else published meanwhile, or a publisher crashed
        return None
    out: dict[str, list[tuple[int, int, int]]] = {}
    for c in changes:
        kind, _, rest = c.partition(":")
        if kind == "hall":   # the clock or the announcements: read with every publish, no event's data
            continue
        if kind != "table":
            return None
        eid, stage, n, t = rest.rsplit(":", 3)
        out.setdefault(eid, []).append((int(stage), int(n), int(t)))
    return out


def _publish(deps: Deps, tid: str, *, fork_over: int, force: bool, asked=None) -> dict:
    """Reads what changed (by event when the asks say so), works out every event's data and the hall's, and
    writes each language's pages (the other languages in forked children for a big tournament's full publish)."""
    t0 = time.perf_counter()
    tournament, events = deps.repos.tournaments.get_with_events(tid)
    if tournament is None:
        raise errors.NotFound("tournament not found")
    sink = _sink(deps)
    warm = deps.publish_cache.tournament(tid)
    by_event = _by_event(warm, asked)
    if warm is None or warm.sink is not sink:   # another sink: nothing cached holds for it
        warm = deps.publish_cache.fresh(tid, sink)
        by_event = None
    warm.asked = None   # until this publish is through
    datas, skip = _event_datas(deps, tournament, events, warm, by_event, force)
    run = _site_run(deps, tournament, datas, skip, warm)
    pages = sum(len(d["entries"]) + len(d["rounds"]) + 5 for e, d in run.datas)
    read = time.perf_counter() - t0
    many = pages > fork_over and by_event is None   # a publish of every page of a big tournament

    def one_language(lang: str) -> dict:
        return _write_language(sink, lang, run, warm, skip, force=force, by_event=by_event is not None, many=many)

    forked = getattr(sink, "forkable", False) and many and hasattr(os, "fork")
    if forked:
        parts = _run_forked(one_language)
        for lang in LANGS[1:]:   # written by the children: read from the sink next time
            warm.manifests.pop(lang, None)
    else:
        parts = [one_language(lang) for lang in LANGS]
    if asked is not None:
        warm.asked = asked[0]   # current with every ask up to this count
    return {**_sum_stats(parts, forked, read), "by_event": sorted(by_event) if by_event is not None else None}


def _sum_stats(parts: list[dict], forked: bool, read: float) -> dict:
    """The languages' figures as one publish's: files, writes, bytes, the largest page, and where the time went
    (rendering side by side when forked, so the longest language's; else their sum)."""
    timing: dict[str, float] = {"read": read}
    for p in parts:
        for k, v in (p.get("timing") or {}).items():
            timing[k] = max(timing.get(k, 0.0), v) if forked else timing.get(k, 0.0) + v
    return {"files": sum(p["files"] for p in parts), "written": sum(p["written"] for p in parts),
            "bytes": sum(p["bytes"] for p in parts),
            "largest": list(max((p["largest"] for p in parts), key=lambda x: x[1])), "timing": timing}


def _event_datas(deps: Deps, tournament, events, warm: TournamentCache, by_event, force: bool) -> tuple[list, set[str]]:
    """Every event's page data ([(event, data)] by id) and the events nothing changed in (by event): their
    data is the cache's and their pages are left as they are."""
    datas, skip = [], set()
    for event in sorted(events, key=lambda e: e.id):
        ev_warm = warm.events.setdefault(event.id, {})
        if by_event is not None and event.id not in by_event and "data" in ev_warm and not force:
            skip.add(event.id)
        else:
            try:
                ev_warm["data"] = event_site_data(deps, event, tournament, ev_warm,
                                                  by_event.get(event.id) if by_event is not None else None)
            except _Stale:
                ev_warm["data"] = event_site_data(deps, event, tournament, ev_warm)
        datas.append((event, ev_warm["data"]))
    return datas, skip


def _site_run(deps: Deps, tournament, datas: list, skip: set[str], warm: TournamentCache) -> site_pages.SiteRun:
    """What every language renders: the events' lines, the pages' inputs, the hall (the board, find.html and the
    clock and announcements in the feeds)."""
    summaries = [{"id": event.id, "name": event.config.name, "game": event.config.game,
                  "entries": data["playing"], "rounds": len(data["rounds"]),
                  "round_status": data["rounds"][-1]["status"] if data["rounds"] else "open",
                  "leaders": [{"name": r["name"], "points": r["points"], "point_names": data["point_names"]}
                              for r in data["standings"][:3]], "version": data["version"],
                  "withdrawn": data["withdrawn"]} for event, data in datas]
    t_version = hashlib.sha1("".join(s["version"] for s in summaries).encode()).hexdigest()[:16]
    rows = page_rows()
    for event, data in datas:
        if event.id not in skip:
            data["page_inputs"] = site_data.page_inputs(tournament, event, data, warm.events[event.id], rows)
    hall = hall_data(deps, tournament.id, datas, warm.hall_tables)
    # The board reloads when what it shows moves (the draw, the standings it shows), not on every result in a
    # 5,000-table round; its clock and announcements it updates from the feed without reloading.
    draw_memo = warm.draw_keys
    find_inputs = "[" + ", ".join(site_data.draw_key(ev, draw_memo) for ev in hall["events"]) + "]"   # who sits where
    hall["version"] = hashlib.sha1(repr([find_inputs, [(ev["id"], ev.get("standings"), ev.get("point_names"))
                                                       for ev in hall["events"]]]).encode()).hexdigest()[:16]
    hall["find_inputs"] = hashlib.sha1(find_inputs.encode()).hexdigest()
    hall["pages_of"] = {event.id: rows for event, _ in datas}
    updated = deps.clock().astimezone(ZoneInfo(tournament.timezone)).strftime("%Y-%m-%d %H:%M")
    return site_pages.SiteRun(tournament=tournament, datas=[(e, d) for e, d in datas if e.id not in skip],
                              all_datas=datas, summaries=summaries, updated=updated, t_version=t_version, hall=hall,
                              ev_caches=warm.events, rows=rows, site=site_url(),
                              find_inline=get_settings().publish_find_inline)


def _write_language(sink, lang: str, run: site_pages.SiteRun, warm: TournamentCache, skip: set[str], *, force: bool,
                    by_event: bool, many: bool) -> dict:
    """One language's pages out, then its manifest (last, once every page is out: a crash before leaves the old
    manifest, so pages are rewritten)."""
    manifest_key = f"{lang_prefix(lang)}t/{run.tid}/.manifest.json"
    kept = warm.manifests.get(lang)   # by event, nobody else published since: what this process wrote last
    old_manifest = {} if force else kept if (by_event and kept) else load_manifest(sink, manifest_key)
    out = site_pages.PageOut(sink, lang, old_manifest, warm.input_digests.setdefault(lang, {}), many)
    for eid in skip:   # an event nothing changed in: its pages stay as they are
        out.keep_folder(f"{lang_prefix(lang)}t/{run.tid}/{eid}/")
    t1 = time.perf_counter()
    try:
        site_pages.render_language(lang, out, run)
    except BaseException:
        out.abandon()
        raise
    t2 = time.perf_counter()
    out.close()   # raises if a file was not written
    manifest = out.manifest()
    save_manifest(sink, manifest_key, manifest, old_manifest)
    warm.manifests[lang] = manifest
    return {**out.stats, "timing": {"render": t2 - t1, "write": time.perf_counter() - t2}}


FORKED_LANGUAGE_S = 240   # a language's child answers within this (a 10,000-entry one to S3 takes about a minute)


def _run_forked(run) -> list[dict]:
    """Each language but Chinese in a child process, Chinese here; the children's figures come back through pipes.
    A child that has not answered by the deadline is killed and its language fails the publish (the lease is given
    back; the next ask publishes again): a child forked while another thread held a lock it needs never would."""
    import signal
    import time
    from ..forked import close_kept, fork_with_pipe, read_until
    children = []
    out = []
    try:
        for lang in LANGS[1:]:
            pid, fd = fork_with_pipe(child_reads=False)
            if pid == 0:  # a child: render and write its language, report, and leave without running any cleanup
                code = 1
                try:
                    view = memoryview(json.dumps(run(lang)).encode())
                    while view:
                        view = view[os.write(fd, view):]
                    code = 0
                finally:
                    os._exit(code)
            children.append((lang, pid, fd))
        out.append(run(LANGS[0]))
    finally:   # every child forked is read and reaped, also when a fork or Chinese failed
        failed = []
        deadline = time.monotonic() + FORKED_LANGUAGE_S
        for lang, pid, read_end in children:
            body = read_until(read_end, deadline)
            close_kept(read_end)
            if body is None:
                log.error("publishing the pages in %s: no answer in %d s, the child stopped", lang, FORKED_LANGUAGE_S)
                os.kill(pid, signal.SIGKILL)
            _, status = os.waitpid(pid, 0)
            if status != 0 or not body:
                failed.append(lang)
                continue
            part = json.loads(body)
            out.append({**part, "largest": tuple(part["largest"])})
    if failed:
        raise RuntimeError(f"publishing the pages in {', '.join(failed)} failed")
    return out


def page_rows() -> int:
    return max(1, get_settings().publish_page_rows)
