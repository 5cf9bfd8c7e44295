"""Asking for a publish after a change: a message on the queue in AWS, inline locally. Services that change
results import this small module, not the publisher, so publishing ↔ rounds/results import no circle."""
from __future__ import annotations

import json
import logging

from ..bootstrap import Deps
from .live_tables import on_publish_asked

log = logging.getLogger("cardgames.publish")


def table_change(eid: str, stage: int, n: int, t: int) -> str:
    """A change that is one table's result (and its audit record) only: the publisher re-reads that table and
    publishes that event's pages that show it, not the whole tournament (issue 29)."""
    return f"table:{eid}:{stage}:{n}:{t}"


HALL_CHANGE = "hall"   # the round clock or the announcements changed: the feeds and the board, no event's pages


def request_publish(deps: Deps, tid: str, change: str | None = None) -> None:
    """`change`: what changed (table_change, HALL_CHANGE); None when anything may have (a draw, a close, an entry)."""
    from ..config import get_settings
    queue = get_settings().publish_queue_url
    changes = [change or "*"]
    on_publish_asked(deps, tid, change, queued=bool(queue))   # the phones' live JSON (issue 43); to the event bus at merge
    try:
        if queue:
            import boto3
            boto3.client("sqs").send_message(QueueUrl=queue, MessageBody=json.dumps({"tournament_id": tid,
                                                                                     "changes": changes}))
        else:
            from .publishing import publish_latest
            publish_latest(deps, tid, then_in_background=True, changes=changes)
    except Exception as exc:  # a failed publish must not fail the result that triggered it; the next one repairs
        from .publishing import log_failure
        log_failure(tid, exc)
