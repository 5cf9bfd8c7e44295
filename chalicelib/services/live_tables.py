"""The tables' live JSON (issue 43): every change to a table writes the table phone's view of it as a small static
file beside the published pages (S3 behind the CDN; locally the site folder), and the phones poll that instead
of the API. One place reacts to a change: `on_table_changed` (a table's result, confirmation, dispute, forfeit…);
round-wide changes (a draw, a close, a pairing edit, a substitution, a redraw) rewrite the tables of the rounds
phones still follow (`on_tournament_changed`). Failures are logged, never raised: a result must not fail because
its phones' copy could not be written (the next change writes it again, and the API still answers the phone)."""
from __future__ import annotations

from typing import TYPE_CHECKING

import hashlib
import logging
import threading
from dataclasses import replace

if TYPE_CHECKING:   # the type only: the composition root (bootstrap) imports the services, not the reverse
    from ..bootstrap import Deps
from ..installation import live_secret
from ..publish.live import live_body, live_key
from .results import Actor, table_for_scoring

log = logging.getLogger("cardgames.live")

_LIVE_READER = Actor("side", "live", side=None)   # the view a table's phones share (the appeals, no side)

_written: dict[str, str] = {}   # key → digest of the last body written by this process: unchanged tables skipped
_written_lock = threading.Lock()


def live_path(event_id: str, round_no: int, table_no: int) -> str:
    """The file's path on the site's origin, as the API's table answer gives it to the phone."""
    return "/" + live_key(live_secret(), event_id, round_no, table_no)


def on_table_changed(deps: Deps, tournament_id: str, event_id: str, stage: int, round_no: int, table_no: int) -> None:
    """One table changed: its phones' file is written again (one PUT). Called by the request that made the change,
    so the file is out before the other phone's next poll."""
    try:
        doc, table = deps.repos.rounds.get_table(event_id, stage, round_no, table_no)
        for _ in range(3):
            if doc is None or table is None:
                return
            _write(deps, event_id, round_no, doc, table, skip_unchanged=False)
            # Two changes at once (a three-seat table's two confirmations): the request that read the older table
            # may finish its PUT last. Read again after the PUT: a newer table is written again, so the last PUT
            # to land is never older than the table at its end.
            written = table["version"]
            table = deps.repos.rounds.table(event_id, stage, round_no, table_no)   # its item only, not the head
            if table is None or table["version"] == written:
                return
    except Exception as exc:   # noqa: BLE001 — never fails the change itself
        log.warning("live table %s r%s t%s not written: %s", event_id, round_no, table_no, type(exc).__name__)


def on_table_of(deps: Deps, event_id: str, round_no: int, table_no: int) -> None:
    """`on_table_changed` where the caller knows only where the table sits (an appeal's ruling, an arrival)."""
    try:
        event = deps.repos.events.get(event_id)
        stage = next(r["stage"] for r in deps.repos.rounds.state_head(event_id)["rounds"] if r["n"] == round_no)
    except Exception as exc:   # noqa: BLE001 — never fails the change itself
        log.warning("live table %s r%s t%s not written: %s", event_id, round_no, table_no, type(exc).__name__)
        return
    on_table_changed(deps, event.tournament_id, event_id, stage, round_no, table_no)


def on_round_changed(deps: Deps, tournament_id: str, event_id: str, stage: int, round_no: int) -> int:
    """Every table of a round (a draw, a close, a pairing edit, a redraw): the files whose content moved. Returns
    how many were written."""
    doc, tables = deps.repos.rounds.get_round(event_id, stage, round_no)
    if doc is None:
        return 0
    # the round's names and appeals read once for all its tables (a view reads them per table: thousands of
    # reads for a big round), then each table's view built from them
    ids = {s["entry_id"] for table in tables for s in table["sides"]} | set(doc.get("early_finish") or {})
    want = sorted(ids)
    entries = {e.id: e for k in range(0, len(want), 100)   # BatchGetItem takes 100 keys at most
               for e in deps.repos.entries.get_many(event_id, want[k:k + 100]) if e}
    appeals = deps.repos.rounds.appeals(event_id)
    reads = replace(deps, repos=_Over(deps.repos, entries=_Over(deps.repos.entries, get_many=lambda _e, want, **_: [
        entries.get(i) for i in want]), rounds=_Over(deps.repos.rounds, appeals=lambda _e, *_: appeals)))
    return sum(_write(reads, event_id, round_no, doc, table, skip_unchanged=True) for table in tables)


class _Over:
    """A repository with some of its reads answered from what was read already; everything else its own."""

    def __init__(self, inner, **answers):
        self._inner = inner
        self.__dict__.update(answers)

    def __getattr__(self, name):
        return getattr(self._inner, name)


def on_tournament_changed(deps: Deps, tournament_id: str) -> int:
    """Anything may have changed (publish_requests' "*"): the rounds phones still follow — each event's open
    rounds and its latest one (a close moves the appeal window's deadline) — written where they changed."""
    written = 0
    try:
        for event in deps.repos.events.list_for_tournament(tournament_id):
            state = deps.repos.rounds.state_head(event.id)
            rounds = state.get("rounds") or []
            follow = {max((r["n"] for r in rounds), default=0), state.get("open_round") or 0}
            for r in rounds:
                if r["n"] in follow:
                    written += on_round_changed(deps, tournament_id, event.id, r["stage"], r["n"])
    except Exception as exc:   # noqa: BLE001 — never fails the change itself; the error's type only (no data in logs)
        log.warning("live tables of %s not written: %s", tournament_id, type(exc).__name__)
    return written


def on_publish_asked(deps: Deps, tournament_id: str, change: str | None, queued: bool) -> None:
    """publish_requests' hook (until the domain events' bus carries these): a table's change is written here and
    now; a change of anything ("*") here locally, and by the queue's worker in AWS (api/jobs.py), where a round of
    thousands of tables would hold the request."""
    if change and change.startswith("table:"):
        _, eid, stage, n, t = change.split(":")
        on_table_changed(deps, tournament_id, eid, int(stage), int(n), int(t))
    elif (change is None or change.startswith("event:")) and not queued:   # a draw or close is an event's change
        on_tournament_changed(deps, tournament_id)


def _write(deps: Deps, event_id: str, round_no: int, doc: dict, table: dict, skip_unchanged: bool) -> bool:
    view = table_for_scoring(deps, event_id, round_no, _LIVE_READER, doc, table)
    view["table"] = view["table"].model_dump(mode="json")   # the fields of the API's answer (a RoundTable)
    body = live_body(view)
    key = live_key(live_secret(), event_id, round_no, table["number"])
    digest = hashlib.sha1(body).hexdigest()
    with _written_lock:
        if skip_unchanged and _written.get(key) == digest:
            return False
    _sink(deps).write(key, body)
    with _written_lock:
        if len(_written) > 50_000:
            _written.clear()
        _written[key] = digest
    return True


def _sink(deps: Deps):
    if deps.publisher is not None:
        return deps.publisher
    from ..publish.sinks import default_sink
    return default_sink()
