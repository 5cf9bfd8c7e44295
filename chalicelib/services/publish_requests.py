"""Asking for a publish after a change, through the publish queue port (`deps.publish_queue`: a message on SQS in
AWS, inline locally; publish/queue.py). Services that change results import this small module, not the
publisher, so publishing ↔ rounds/results import no circle.

Publishing is by scope (issue 43): each event's pages under a lease of their own, the tournament-wide pages under
theirs. In AWS a request is one message per scope it touches, so the queue's consumers (several containers)
publish one tournament's events side by side; a change of every scope (the clock, "*") is one message the consumer
that takes it fans out, one per scope. Duplicate asks of one scope coalesce: in one batch into one publish, across
containers on the scope's lease (an ask while another publishes it only counts itself)."""
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
WIDE = ""   # the scope of the tournament-wide pages (index, prizes, hall, find, the tournament's feed)
EVERY = "*"   # a message's scope: every scope of the tournament (its consumer asks each; it knows the events)


def scoped_asks(changes: list[str] | None, event_ids) -> dict[str, list[str]]:
    """Which leases a request asks, with what (issue 43: publishing by event): a table's or an event's change
    its event's (whose publisher asks for the tournament-wide pages when what they show of the event moved); the
    clock or the announcements every event's (their feeds) and the tournament-wide pages'; anything else ("*")
    every one's. `event_ids`: called for the tournament's events, only when needed."""
    out: dict[str, list[str]] = {}
    every: list[str] | None = None
    for c in changes or ["*"]:
        kind, _, rest = c.partition(":")
        if kind == "table":
            out.setdefault(rest.rsplit(":", 3)[0], []).append(c)
        elif kind == "event":
            out.setdefault(rest, []).append("*")
        else:   # "hall" or "*"
            every = list(event_ids()) if every is None else every
            for eid in every:
                out.setdefault(eid, []).append(c)
            out.setdefault(WIDE, []).append(c)
    return out


def message_scopes(changes: list[str]) -> dict[str, list[str]]:
    """The messages a request makes (one per scope, each with its changes as asked): a table's or an event's change
    its event's; the clock's or "*" one of EVERY scope (no read here of the tournament's events: its consumer's)."""
    out: dict[str, list[str]] = {}
    for c in changes:
        kind, _, rest = c.partition(":")
        out.setdefault(rest.rsplit(":", 3)[0] if kind == "table" else rest if kind == "event" else EVERY, []).append(c)
    return out


def event_ids(deps: Deps, tid: str) -> list[str]:
    """(No tournament: none, and the tournament-wide publish says it is not found.)"""
    return [e.id for e in deps.repos.tournaments.get_with_events(tid)[1]]


def request_publish(deps: Deps, tid: str, change: str | None = None) -> None:
    """`change`: what changed (table_change, event_change, HALL_CHANGE); None when anything may have."""
    # the phones' live JSON (issue 43): a table's change now; a round-wide one here inline, by the queue's worker in AWS
    queue = deps.publish_queue
    on_publish_asked(deps, tid, change, queued=not queue.inline)
    try:
        if queue.inline:   # published here, scope by scope (services/publishing.publish_latest)
            queue.ask(deps, tid, [change or "*"])
        else:   # a message per scope: several consumers publish one tournament's events side by side
            for scope, changes in message_scopes([change or "*"]).items():
                queue.ask(deps, tid, changes, scope=scope)
    except Exception as exc:  # noqa: BLE001 — a failed publish must not fail the result that triggered it; the next one repairs
        log_failure(tid, exc)
