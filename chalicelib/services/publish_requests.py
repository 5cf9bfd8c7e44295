"""Asking for a publish after a change, through the publish queue port (`deps.publish_queue`: a message on SQS in
AWS, inline locally; publish/queue.py). Services that change results import this small module, not the
publisher, so publishing ↔ rounds/results import no circle."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:   # the type only: the composition root (bootstrap) imports the services, not the reverse
    from ..bootstrap import Deps
from ..publish.failures import log_failure
from .live_tables import on_publish_asked


def table_change(eid: str, stage: int, n: int, t: int) -> str:
    """A change that is one table's result (and its audit record) only: the publisher re-reads that table and
    publishes that event's pages that show it, not the whole tournament (issue 29)."""
    return f"table:{eid}:{stage}:{n}:{t}"


def event_change(eid: str) -> str:
    """A change to one event only (its draw, its close, a round edited): that event's pages read again, and the
    tournament-wide pages when what they show of it moved (issue 43: events publish side by side)."""
    return f"event:{eid}"


HALL_CHANGE = "hall"   # the round clock or the announcements changed: the feeds and the board, no event's pages


def request_publish(deps: Deps, tid: str, change: str | None = None) -> None:
    """`change`: what changed (table_change, event_change, HALL_CHANGE); None when anything may have."""
    # the phones' live JSON (issue 43): a table's change now; a round-wide one here inline, by the queue's worker in AWS
    on_publish_asked(deps, tid, change, queued=not deps.publish_queue.inline)
    try:
        deps.publish_queue.ask(deps, tid, [change or "*"])
    except Exception as exc:  # noqa: BLE001 — a failed publish must not fail the result that triggered it; the next one repairs
        log_failure(tid, exc)
