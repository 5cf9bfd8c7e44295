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
import math
import os
import threading
import time
from zoneinfo import ZoneInfo

from ulid import ULID

from .. import errors
if TYPE_CHECKING:   # the type only: the composition root (bootstrap) imports the services, not the reverse
    from ..bootstrap import Deps
from ..config import get_settings
from ..engine.games import game as game_rules
from ..publish import hall_rows, site_data, site_pages
from ..publish.cache import TournamentCache
from ..publish.failures import log_failure
from ..publish.i18n import prefix as lang_prefix
from ..publish.manifest import load_manifest, save_manifest
from .charts_data import places_by_round
from .gc_pause import gc_paused
from .hall import event_hall, hall_data
from .links import site_url
from .prizes import event_prizes
from .publish_requests import WIDE, event_change, event_ids, scoped_asks
from .reads import entries_known
from .standings import bonuses, event_standings, standings_shared

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
    return _event_site_data(deps, event, tournament, warm, tables if cached else None, entry_list, read)


def _event_site_data(deps: Deps, event, tournament, warm: dict, tables, entry_list, read) -> dict:
    """What one event's pages show: the records read here (or patched into `warm`, this publisher's cache of the
    event: its entries, state, rounds and each round's worded rows), the standings worked out first (in this
    process), the rest worded by publish/site_data.py. With `tables`, only those tables' results changed since the
    cache was filled (a result's publish: the event's other items are not read again)."""
    if tables is not None:
        state = warm["state"]
        all_rounds = _patched_rounds(deps, event.id, warm, tables)
    else:
        state, warm["revs"], all_rounds = read   # (event_site_data's reads)
        warm["names_token"] = None
        _one_string_per_id(entry_list, state, all_rounds)
    warm.update(state=state, rounds=all_rounds)
    later = _standings_later(tables, entry_list, all_rounds, warm)
    wanted = not later and bool(state.get("plans"))
    if wanted and site_data.shown_only(entry_list):   # the cache holds what the pages show: the standings read all
        entry_list = deps.repos.entries.list(event.id)
    entries, names, name_map = site_data.entry_maps(entry_list, warm)
    # The standings first, in this process: what working them out holds (every result as a record) is let go
    # before the rounds are worded. Not in a forked child beside the wording (issue 43 item 2): the child's
    # copy-on-write pages of what it touched were a second peak, 2 GB at 100,000 entries.
    # (after a close the places after the last closed round are these standings' ranks: standings_shared)
    with entries_known(event.id, entry_list), standings_shared():   # the standings and charts read these entries
        standings = (warm["standings"] if later else
                     event_standings(deps, event, state=state, rounds=all_rounds, entries=entry_list) if wanted else None)
        places = _places(deps, tournament, event, state, all_rounds, warm)   # (the standings after each closed round)
        appeals = site_data.public_appeals(deps.repos.rounds.appeals(event.id), names)
        if later:
            prizes = warm["prizes"]
        else:
            prizes = (event_prizes(deps, event, state=state, rounds=all_rounds, entries=entry_list,
                                   standings=standings, appeals=appeals) if wanted else None)
            # the standings kept as their published rows from here on, the models let go before the rounds are
            # worded (issue 43: at 100,000 entries ~200 MiB of models the wording's and pages' objects then reuse)
            warm["standings"], warm["prizes"] = site_data.shown_standings(standings, warm)[0], prizes
    standings = warm["standings"] if standings is not None else None
    if len(entry_list) > get_settings().publish_live_standings_max and not site_data.shown_only(entry_list):
        # a big field's entries from here on as the pages show them, the models let go: its results' publishes
        # work out no standings (_standings_later); a small field's keep theirs (its results rank it again).
        # Read again to rank the field (a corrected closed round): those held, when the same (the caches keyed by
        # them hold: the entry pages' inputs, the hall's tables)
        entry_list = site_data.shown_entries(entry_list, warm.get("entries"))
        entries, names, name_map = site_data.entry_maps(entry_list, warm)
    warm["entries"] = entry_list
    rules = game_rules(event.config.game)
    outs = site_data.word_rounds(event, tournament, rules, all_rounds, names, name_map, warm)
    kept, seq_of = _read_audit(deps, event, names, warm)
    corrections = site_data.correction_rows(kept, seq_of, names, tournament.timezone)
    bonus = bonuses(deps, event, rounds=all_rounds, entries=entry_list) if event.config.game == "doudizhu" else None
    entry_pages = site_data.entry_pages_data(warm, entry_list, entries, outs,
                                             site_data.event_page_of(tournament, event))
    data = site_data.event_data(site_data.EventParts(
        event=event, rules=rules, state=state, outs=outs, entries=entries, names=names, standings=standings,
        prizes=prizes, bonuses=bonus, corrections=corrections, chain=warm["chain_view"], appeals=appeals,
        places=places, entry_pages=entry_pages,
        rankings=deps.repos.rankings.rankings_of_event(event.id)), warm)   # issue 42: linked from the standings
    return data


def _one_string_per_id(entry_list: list, state: dict, all_rounds: list) -> None:
    """The rounds and the stage plans as read, made smaller in place (issue 43: the publisher held every round's
    tables, ~2.4 KB a table at 100,000 entries): each table names its two entries six times (sides, home, winner,
    points, outcome), each a string of its own as parsed; they become the entry's own id string, the words
    every table repeats one string each, and its points' figures one float per value. Equal values for equal
    ones: nothing read or published moves. A round made so before (a closed round the store kept) is passed over."""
    canon: dict[str, str] = {e.id: e.id for e in entry_list}
    numbers: dict[float, float] = {}
    for plan in (state.get("plans") or {}).values():
        if isinstance(plan, dict) and isinstance(plan.get("entries"), list):
            plan["entries"] = [canon.setdefault(e, e) if isinstance(e, str) else e for e in plan["entries"]]
            if isinstance(plan.get("numbers"), dict):
                plan["numbers"] = {canon.setdefault(e, e): n for e, n in plan["numbers"].items()}
    for _, tables in all_rounds:
        if not tables or _made_one(tables[0], canon):
            continue
        for t in tables:
            for s in t.get("sides") or ():
                e = s.get("entry_id")
                if isinstance(e, str):
                    s["entry_id"] = canon.setdefault(e, e)
            for k in ("home", "winner", "status"):
                v = t.get(k)
                if isinstance(v, str):
                    t[k] = canon.setdefault(v, v)
            for k in ("points", "outcome"):
                v = t.get(k)
                if isinstance(v, dict):
                    t[k] = v = {canon.setdefault(e, e): _one_number(x, numbers) for e, x in v.items()}
                    for x in v.values():
                        if isinstance(x, dict):
                            for name, y in x.items():
                                x[name] = _one_number(y, numbers)


def _one_number(x, numbers: dict):
    """A float as one object per value (a table's points and outcome are ~six of them), -0.0 left as it is (equal
    to 0.0, but not shown the same)."""
    if type(x) is not float or (x == 0.0 and math.copysign(1.0, x) < 0):
        return x
    return numbers.setdefault(x, x)


def _made_one(table: dict, canon: dict) -> bool:
    """Whether a round's tables were made so already (its first table's first side is the one string)."""
    sides = table.get("sides") or ()
    e = sides[0].get("entry_id") if sides and isinstance(sides[0], dict) else None
    return not isinstance(e, str) or canon.get(e) is e


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
    """The audit records that can show on the corrections page, by id, and each chained record's place in its
    chain (sets warm["chain_view"]): its seq, or "<lane>-<seq>" in an event of lanes. The publisher keeps those
    records (a handful: most are plain results) and afterwards reads only the records written since it last read
    (ids are time-ordered ULIDs; a margin covers clocks a little apart), not the whole log after every result."""
    from ..publish import audit_files
    kept = warm.setdefault("audit", {})
    since = warm.get("audit_since")
    read_at = int(time.time() * 1000)   # the ids' clock: the writers' own, not the tournament's
    chain, seq_of = warm.setdefault("chain", {}), warm.setdefault("chain_seq", {})   # chain: {(lane, seq): text}
    fmt, heads = deps.repos.rounds.audit_heads(event.id)   # before the records: they hold at least this much
    items = deps.repos.rounds.audit_items(event.id, since)
    if since is not None and not audit_files.whole(chain, items, heads):
        # a record that committed later than the margin allows for (a long-retried append): the whole log again
        for held in (kept, chain, seq_of):
            held.clear()
        items = deps.repos.rounds.audit_items(event.id)
    for item in items:
        a = json.loads(item["data"])
        if item.get("chain"):   # kept as the stored JSON text: a big day's chain is 100,000 records
            lane, seq = int(item.get("lane") or 0), int(item["seq"])
            chain[(lane, seq)] = item["chain"]
            seq_of[a["id"]] = seq if fmt == 1 else f"{lane}-{seq}"
        if site_data.shows_in_corrections(a, names):
            kept[a["id"]] = a
    warm["audit_since"] = str(ULID.from_timestamp(max(0, read_at - AUDIT_SKEW_MS) / 1000))[:10] + "0" * 16
    warm["chain_view"] = audit_files.view(event.id, fmt, chain, warm.get("chain_view"))
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
                   then_in_background: bool = False, changes: list[str] | None = None,
                   scope: str | None = None) -> dict | None:
    """Publishes the tournament as it is now: each event under a lease of its own, and the tournament-wide pages
    under theirs, so two events' publishes run side by side (issue 43) while each scope has one publisher at a
    time: asks that arrive while another publishes it only count themselves, and that publisher publishes again
    before it stops if any came in — so the last pages written always come from data read after the last ask,
    and a hall of phones confirming at once costs a publish or two, not one each (concurrent publishes of one
    scope could also write older pages over newer ones).
    Returns the stats of the publishes made here, or None when other publishers took every ask over.
    `wait_seconds`: how long to wait for each lease (on demand); otherwise leave the ask to the holder.
    `then_in_background`: publish each scope once here, and any further rounds in a thread (a request must not
    wait on a hall's worth of them; the queue consumers in AWS keep them in line).
    `changes`: what changed (publish_requests.table_change, event_change; None or "*": anything may have).
    `scope`: that scope's pages only (an event's id, or WIDE), as asked by `changes` (a queue message's: one per
    scope in AWS); the tournament-wide pages too when what they show of the event moved."""
    leases = deps.repos.publish_leases
    if scope is not None:
        asks = {scope: ["*" if c.startswith("event:") else c for c in changes or ["*"]]}
    else:
        asks = scoped_asks(changes, lambda: event_ids(deps, tid))
    for asked_scope, asked in asks.items():
        leases.ask(tid, asked, scope=asked_scope)
    deadline = time.monotonic() + wait_seconds
    made: list[dict] = []
    wide = WIDE in asks
    for event_scope in sorted(s for s in asks if s != WIDE):
        stats, asked_wide = _publish_scope(deps, tid, event_scope, force, deadline, wait_seconds, then_in_background)
        wide = wide or asked_wide
        if stats is not None:
            made.append(stats)
    if wide:   # after the events: built from what they just published
        stats, _ = _publish_scope(deps, tid, WIDE, force, deadline, wait_seconds, then_in_background)
        if stats is not None:
            made.append(stats)
    if not made:
        return None
    out = _joined(made)
    deps.publish_cache.last_stats[tid] = out
    return out


def _publish_scope(deps: Deps, tid: str, scope: str, force: bool, deadline: float, wait_seconds: float,
                   once: bool) -> tuple[dict | None, bool]:
    """One scope's publish through its lease: (the stats of the publish made here, or None when its holder took
    the ask over; whether the tournament-wide pages were asked for by it)."""
    from ..ids import new_id
    leases = deps.repos.publish_leases
    me = new_id()
    while not leases.acquire(tid, me, _epoch(deps), LEASE_SECONDS, scope=scope):
        if time.monotonic() >= deadline:
            if wait_seconds:
                raise errors.Conflict("正在发布，请稍后再试 · The results are being published; try again in a moment.")
            return None, False
        time.sleep(0.2)
    stats, wide, more = _publish_while_asked(deps, tid, scope, me, force, once=once)
    if more:   # still holding the lease: the further rounds in a thread, which the ask is left to
        threading.Thread(target=_publish_while_asked, args=(deps, tid, scope, me, False), kwargs={"background": True},
                         daemon=True, name=f"publish-{tid}-{scope or 'wide'}").start()
        return None, wide
    return stats, wide


def _publish_while_asked(deps: Deps, tid: str, scope: str, me: str, force: bool, once: bool = False,
                         background: bool = False):
    """The lease holder's loop: publish, then stop if no ask came in since the count was read. With `once`, stops
    instead of publishing a second time, still holding the lease (the caller hands the loop on: `more`).
    In the background a failure is logged (the lease is given back; the next ask publishes again), and the
    tournament-wide pages an event's publish asked for are published after it.
    Returns (the last publish's stats, whether the tournament-wide pages were asked for, more)."""
    leases = deps.repos.publish_leases
    stats, wide = None, False
    try:
        while True:
            if once and stats is not None:
                return stats, wide, True
            seen, taken = leases.take(tid, scope)
            with _LeaseKept(deps, tid, me, scope):
                stats = publish_tournament(deps, tid, force=force, asked=(seen, taken), scope=scope, holder=me)
            wide = wide or bool(stats.get("wide_asked"))
            if background:
                deps.publish_cache.last_stats[tid] = stats
            if leases.release(tid, me, seen, scope=scope):
                break
            if not leases.acquire_again(tid, me, _epoch(deps), LEASE_SECONDS, scope=scope):   # expired, taken
                break
            force = False   # asks came in meanwhile: publish what changed since
    except BaseException as exc:
        try:
            leases.release(tid, me, scope=scope)
        except Exception:   # noqa: BLE001 — the store is down too: the lease expires by itself
            pass
        if background:
            log_failure(tid, exc)
            return None, False, False
        raise
    if background and wide and scope != WIDE:
        try:
            _publish_scope(deps, tid, WIDE, False, 0.0, 0.0, once=False)
        except Exception as exc:   # noqa: BLE001 — logged; the lease is given back and the next ask publishes
            log_failure(tid, exc)
    return stats, wide, False


class _LeaseKept:
    """Renews the lease while a publish runs, a third of its length apart: a big tournament's publish to S3 takes
    longer than the lease (bench/publish.py's S3 figures at 10,000 entries), and a lease that ran out under it
    would let a second publisher write older pages over newer ones. A publisher that dies stops renewing, and one
    stuck stops after LEASE_RENEWED_FOR_S: its lease runs out LEASE_SECONDS later, as before."""

    def __init__(self, deps: Deps, tid: str, me: str, scope: str = WIDE):
        self.deps, self.tid, self.me, self.scope = deps, tid, me, scope
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._renew, daemon=True, name=f"lease-{tid}-{scope or 'wide'}")

    def _renew(self) -> None:
        leases = self.deps.repos.publish_leases
        until = time.monotonic() + LEASE_RENEWED_FOR_S
        while not self.stop.wait(LEASE_SECONDS / 3):
            if time.monotonic() > until:   # a publish this long is stuck: its lease runs out, the next ask publishes
                log.error("publishing tournament %s: still running after %d s, its lease left to run out", self.tid,
                          LEASE_RENEWED_FOR_S)
                return
            try:
                if not leases.acquire_again(self.tid, self.me, _epoch(self.deps), LEASE_SECONDS, scope=self.scope):
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
# per scope the ask count it is current with. A result's publish uses it only when the asks taken since are
# exactly the ones after that count and all name tables (see `_tables_asked`).

def forget_warm(deps: Deps) -> None:
    """As a new publisher process (a cold Lambda container) starts."""
    deps.publish_cache.forget()


def publish_tournament(deps: Deps, tid: str, *, fork_over: int = 600, force: bool = False,
                       asked: tuple[int, list[str]] | None = None, scope: str | None = None,
                       holder: str | None = None) -> dict:
    """Renders pages in every language and writes those that changed (`force`: all). `scope`: one event's pages
    (its id) or the tournament-wide ones (""), as the holder of that scope's lease (`holder`) publishes them;
    None: every event's and then the tournament-wide ones, here, without the leases (a whole publish).
    Big events render the other languages in forked processes beside Chinese (two cores) when the sink writes
    outside memory, up to LANGUAGE_CHILDREN_UP_TO pages (past it their copies of the cache cost more than they save). `asked`: the lease's ask count and the changes taken with it (publish_latest): when they are
    all the event's table results, only those tables are read again (by event)."""
    t0 = time.perf_counter()
    with gc_paused():   # a publish allocates tens of thousands of short-lived dicts (services/gc_pause.py)
        if scope is None:
            stats = _publish_whole(deps, tid, fork_over=fork_over, force=force)
        else:
            try:
                stats = (_publish_wide(deps, tid, force=force, asked=asked) if scope == WIDE else
                         _publish_event(deps, tid, scope, fork_over=fork_over, force=force, asked=asked,
                                        holder=holder))
            except BaseException:
                deps.publish_cache.drop(tid, scope)   # half-updated: that scope's next publish reads everything
                raise
    stats["timing"] = {**stats.get("timing", {}), "total": time.perf_counter() - t0}
    if scope is None:
        deps.publish_cache.last_stats[tid] = stats
    return stats


def _publish_whole(deps: Deps, tid: str, *, fork_over: int, force: bool) -> dict:
    """Every event's pages, then the tournament-wide pages from the data just read (no lease: the caller's)."""
    _, events = deps.repos.tournaments.get_with_events(tid)
    made, fresh = [], {}
    for event in sorted(events, key=lambda e: e.id):
        try:
            made.append(_publish_event(deps, tid, event.id, fork_over=fork_over, force=force, asked=None,
                                       holder=None, fresh=fresh))
        except BaseException:
            deps.publish_cache.drop(tid, event.id)
            raise
    try:
        made.append(_publish_wide(deps, tid, force=force, asked=None, fresh=fresh))
    except BaseException:
        deps.publish_cache.drop(tid, WIDE)
        raise
    return _joined(made)


def _joined(made: list[dict]) -> dict:
    """Several scopes' publishes as one's figures: summed, the largest page, and `by_event` None when any event
    was read whole, else the events read by table ([]: only feeds)."""
    timing: dict[str, float] = {}
    for s in made:
        for k, v in (s.get("timing") or {}).items():
            timing[k] = timing.get(k, 0.0) + v
    partial = [s["by_event"] for s in made if "by_event" in s]
    return {"files": sum(s.get("files", 0) for s in made), "written": sum(s.get("written", 0) for s in made),
            "bytes": sum(s.get("bytes", 0) for s in made),
            "largest": list(max((s.get("largest", ("", 0)) for s in made), key=lambda x: x[1])),
            "timing": timing, "scopes": len(made),
            "by_event": None if any(p is None for p in partial) else sorted(set().union(*partial))}


def _tables_asked(current: int | None, asked, eid: str) -> list[tuple[int, int, int]] | None:
    """[(stage, round, table)…] of this event's changes taken, when the publisher's cache plus those changes are
    the whole story since it was filled ([]: only the clock or the announcements); None when anything may have
    changed (read the event again)."""
    if current is None or asked is None:
        return None
    seen, changes = asked
    if current + len(changes) != seen:   # someone else published meanwhile, or a publisher crashed
        return None
    out = []
    for c in changes:
        kind, _, rest = c.partition(":")
        if kind == "hall":   # the clock or the announcements: the feed, no data of the event's
            continue
        if kind != "table":
            return None
        owner, stage, n, t = rest.rsplit(":", 3)
        if owner != eid:
            return None
        out.append((int(stage), int(n), int(t)))
    return out


_WARM_LOCK = threading.Lock()   # two events' first publishes in one process share one tournament's state


def _warm(deps: Deps, tid: str, sink) -> TournamentCache:
    with _WARM_LOCK:
        warm = deps.publish_cache.tournament(tid)
        if warm is None or warm.sink is not sink:   # another sink: nothing cached holds for it
            warm = deps.publish_cache.fresh(tid, sink)
        return warm


def _no_pages() -> dict:
    return {"files": 0, "written": 0, "bytes": 0, "largest": ("", 0), "timing": {}, "by_event": []}


def _publish_event(deps: Deps, tid: str, eid: str, *, fork_over: int, force: bool, asked, holder: str | None,
                   fresh: dict | None = None) -> dict:
    """One event's pages and its feed (the event's folder, its own manifest). After a table's result only that
    table is read again (from this process's cache, when the lease's count says nothing else happened). Then, as
    the lease's holder, notes what the tournament-wide pages show of the event and asks for them when it moved."""
    t0 = time.perf_counter()
    tournament, events = deps.repos.tournaments.get_with_events(tid)
    if tournament is None:
        raise errors.NotFound("tournament not found")
    event = next((e for e in events if e.id == eid), None)
    if event is None:   # an event no longer there: nothing of its own to publish
        return _no_pages()
    sink = _sink(deps)
    warm = _warm(deps, tid, sink)
    tables = _tables_asked(warm.asked.get(eid), asked, eid)
    warm.asked.pop(eid, None)   # until this publish is through
    ev_warm = warm.events.setdefault(eid, {})
    feed_only = tables == [] and "data" in ev_warm and not force
    if feed_only:
        data = ev_warm["data"]
    else:
        try:
            data = event_site_data(deps, event, tournament, ev_warm, tables or None)
        except _Stale:
            data, tables = event_site_data(deps, event, tournament, ev_warm), None
        ev_warm["data"] = data
        data["page_inputs"] = site_data.page_inputs(tournament, event, data, ev_warm, page_rows())
    if fresh is not None:
        fresh[eid] = data
    hall = event_hall(deps, tid, event, data)
    run = _run(deps, tournament, [] if feed_only else [(event, data)], [(event, data)], [], "", hall, warm)
    read = time.perf_counter() - t0
    pages = len(data["entries"]) + len(data["rounds"]) + 5
    many = pages > fork_over and not tables and not feed_only   # every page of a big event

    def one_language(lang: str) -> dict:
        def render(out: site_pages.PageOut) -> None:
            if feed_only:
                out.keep_folder(f"{lang_prefix(lang)}t/{tid}/{eid}/")
            site_pages.render_event_language(lang, out, run, event, None if feed_only else data)
        return _write_language(sink, lang, f"{lang_prefix(lang)}t/{tid}/{eid}/.manifest.json", eid, render, warm,
                               force=force, kept_ok=bool(tables) or feed_only, many=many)

    forked = (getattr(sink, "forkable", False) and many and pages <= LANGUAGE_CHILDREN_UP_TO
              and hasattr(os, "fork"))
    if forked:
        parts = _run_forked(one_language)
        for lang in LANGS[1:]:   # written by the children: read from the sink next time
            warm.manifests.pop((eid, lang), None)
    else:
        parts = [one_language(lang) for lang in LANGS]
    stats = {**_sum_stats(parts, forked, read), "by_event": [] if feed_only else [eid] if tables else None}
    if asked is not None:
        warm.published[eid] = (asked[0], data)   # before the tournament-wide pages are asked: they read it
        warm.asked[eid] = asked[0]   # current with every ask up to this count
    if holder is not None:
        leases = deps.repos.publish_leases
        if leases.show(tid, eid, holder, wide_digest(event, data, warm.wide_memo)):
            leases.ask(tid, [event_change(eid)], scope=WIDE)
            stats["wide_asked"] = True
    return stats


def _publish_wide(deps: Deps, tid: str, *, force: bool, asked, fresh: dict | None = None) -> dict:
    """The tournament-wide pages (index, prizes, the board, find-my-table, the tournament's feed) from each event's
    data: as its publisher in this process last published it while no ask for the event came in since (the
    leases' counts, one read), else read here (`fresh`: the data a whole publish just read)."""
    t0 = time.perf_counter()
    tournament, events = deps.repos.tournaments.get_with_events(tid)
    if tournament is None:
        raise errors.NotFound("tournament not found")
    sink = _sink(deps)
    warm = _warm(deps, tid, sink)
    warm.asked.pop(WIDE, None)
    counts = deps.repos.publish_leases.asked_by_scope(tid) if fresh is None else {}
    datas = []
    for event in sorted(events, key=lambda e: e.id):
        kept = warm.published.get(event.id)
        if fresh is not None and event.id in fresh:
            data = fresh[event.id]
        elif kept is not None and kept[0] == counts.get(event.id):
            data = kept[1]
        else:   # read here, into a cache of its own (the event's publisher may be using its own beside this one),
            # not kept: a second copy of a big event's state would double the publisher's memory
            data = event_site_data(deps, event, tournament, {})
        datas.append((event, data))
    run = _site_run(deps, tournament, datas, warm)
    read = time.perf_counter() - t0
    parts = [_write_language(sink, lang, f"{lang_prefix(lang)}t/{tid}/.manifest.json", WIDE,
                             lambda out, lang=lang: site_pages.render_tournament_language(lang, out, run), warm,
                             force=force, kept_ok=False, many=False) for lang in LANGS]
    if asked is not None:
        warm.asked[WIDE] = asked[0]
    return _sum_stats(parts, False, read)


def wide_digest(event, data: dict, memo: dict) -> str:
    """What the tournament-wide pages show of an event (its line on the index, the board's round and standings,
    find-my-table's seats, names, clubs and members, its prizes, the link card's leaders): a result that moves
    none of it publishes only the event's pages. `memo`: the entries' part by event, kept while they are the same
    object (after a result: not 10,000 entries again), and the digest, kept while the rest is equal and the
    round's seats are the same (a result re-words its one table: not 50,000 tables' seats again)."""
    from .hall import current_round
    r = current_round(data)
    hit = memo.get(event.id)
    if hit is None or hit[0] is not data["entries"]:
        hit = memo[event.id] = (data["entries"], hashlib.sha1(repr(
            [(e, x.get("club"), x.get("members")) for e, x in data["entries"].items()]).encode()).hexdigest())
    shown = [event.config.name, event.config.game, data["playing"], len(data["rounds"]),
             data["rounds"][-1]["status"] if data["rounds"] else "open", data["withdrawn"], data["final"],
             data["point_names"], data["event"], data["standings"][:30], data["prizes"], None, hit[1]]
    rest = repr(shown)   # all but the seats (a few KB)
    kept = memo.get(("shown", event.id))
    if kept is not None and kept[0] == rest and _same_seats(kept[1], r):
        digest = kept[2]
    else:
        shown[11] = None if r is None else (r["number"], r["status"], [_seats_of(t) for t in r["tables"]],
                                            [(b["entry_id"], b["name"]) for b in r["byes"]])
        digest = hashlib.sha1(repr(shown).encode()).hexdigest()
    # these rows from now on (the next result's publish compares its rows with them: all but one the same)
    memo[("shown", event.id)] = (rest, None if r is None else (r["number"], r["status"], r["tables"], r["byes"]),
                                 digest)
    return digest


def _seats_of(t: dict) -> list[tuple]:
    return [(s["entry_id"], s["name"], s["seats"]) for s in t["sides"]]


def _same_seats(before: tuple | None, r: dict | None) -> bool:
    """Whether the round's seats (who sits where, by name) are those `before` held: the same table rows (or the
    same sides) need no comparing, only the tables re-worded since (a result's: one)."""
    if before is None or r is None:
        return before is None and r is None
    number, status, tables, byes = before
    if (number, status, len(tables)) != (r["number"], r["status"], len(r["tables"])):
        return False
    if byes is not r["byes"] and [(b["entry_id"], b["name"]) for b in byes] != [(b["entry_id"], b["name"])
                                                                               for b in r["byes"]]:
        return False
    return all(a is b or a["sides"] is b["sides"] or _seats_of(a) == _seats_of(b)
               for a, b in zip(tables, r["tables"], strict=True))


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


def _run(deps: Deps, tournament, datas: list, all_datas: list, summaries: list, t_version: str, hall: dict,
         warm: TournamentCache) -> site_pages.SiteRun:
    updated = deps.clock().astimezone(ZoneInfo(tournament.timezone)).strftime("%Y-%m-%d %H:%M")
    return site_pages.SiteRun(tournament=tournament, datas=datas, all_datas=all_datas, summaries=summaries,
                              updated=updated, t_version=t_version, hall=hall, ev_caches=warm.events,
                              rows=page_rows(), site=site_url(), find_inline=get_settings().publish_find_inline)


def _site_run(deps: Deps, tournament, datas: list, warm: TournamentCache) -> site_pages.SiteRun:
    """What every language renders of the tournament-wide pages: the events' lines, the hall (the board,
    find.html and the clock and announcements in the feeds)."""
    summaries = [{"id": event.id, "name": event.config.name, "game": event.config.game,
                  "entries": data["playing"], "rounds": len(data["rounds"]),
                  "round_status": data["rounds"][-1]["status"] if data["rounds"] else "open",
                  "leaders": [{"name": r["name"], "points": r["points"], "point_names": data["point_names"]}
                              for r in data["standings"][:3]], "version": data["version"],
                  "withdrawn": data["withdrawn"]} for event, data in datas]
    # the tournament's feed moves (and its index reloads) when what these pages show moves, not on every result
    t_version = hashlib.sha1("".join(wide_digest(e, d, warm.wide_memo) for e, d in datas).encode()).hexdigest()[:16]
    hall = hall_data(deps, tournament.id, datas)
    # The board reloads when what it shows moves (the draw, the standings it shows), not on every result in a
    # 5,000-table round; its clock and announcements it updates from the feed without reloading. The sides' search
    # texts worked out for it are find-my-table's too, this publish (hall["texts"]: not worked out twice).
    draw_memo, hall["texts"] = warm.draw_keys, {}
    seats = hashlib.sha1(b"".join(hall_rows.draw_key(ev, draw_memo, hall["texts"])
                                  for ev in hall["events"]))   # who sits where
    hall["find_inputs"] = seats.hexdigest()
    hall["version"] = hashlib.sha1(repr([hall["find_inputs"], [(ev["id"], ev.get("standings"), ev.get("point_names"))
                                                               for ev in hall["events"]]]).encode()).hexdigest()[:16]
    hall["pages_of"] = {event.id: page_rows() for event, _ in datas}
    return _run(deps, tournament, datas, datas, summaries, t_version, hall, warm)


def _write_language(sink, lang: str, manifest_key: str, scope: str, render, warm: TournamentCache, *,
                    force: bool, kept_ok: bool, many: bool) -> dict:
    """One language's pages of one scope out (`render(out)`), then the scope's manifest (last, once every page is
    out: a crash before leaves the old manifest, so pages are rewritten). `kept_ok`: the manifest this process
    wrote last is the sink's (nobody else published the scope since)."""
    kept = warm.manifests.get((scope, lang))
    carried = not force and kept_ok and bool(kept)   # this process's own last lines: entry pages need no visit
    old_manifest = {} if force else kept if carried else load_manifest(sink, manifest_key)
    out = site_pages.PageOut(sink, lang, old_manifest, many, carried=carried)
    t1 = time.perf_counter()
    try:
        render(out)
    except BaseException:
        out.abandon()
        raise
    t2 = time.perf_counter()
    out.close()   # raises if a file was not written
    manifest = out.manifest()
    save_manifest(sink, manifest_key, manifest, old_manifest)
    warm.manifests[(scope, lang)] = manifest
    return {**out.stats, "timing": {"render": t2 - t1, "write": time.perf_counter() - t2}}


# Past this many pages an event's languages are rendered one after the other here, not two in children of their own:
# a child that renders touches (by reference counts) every page of the publisher's cache it reads, so each holds a
# copy of it (~16 KB an entry): at 100,000 entries the children doubled the publisher's peak (6.7 GB PSS against
# 3.2 GB alone, bench/big_event.py). Below it the second core's time is worth the copies (20,000 entries: ~1.3 GB).
LANGUAGE_CHILDREN_UP_TO = 20_000

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
