"""Asking for a publish after a change: a message on the queue in AWS, inline locally. Services that change
results import this small module, not the publisher, so publishing ↔ rounds/results import no circle."""
from __future__ import annotations

import json
import logging

from ..bootstrap import Deps

log = logging.getLogger("cardgames.publish")


def request_publish(deps: Deps, tid: str) -> None:
    from ..config import get_settings
    queue = get_settings().publish_queue_url
    try:
        if queue:
            import boto3
            boto3.client("sqs").send_message(QueueUrl=queue, MessageBody=json.dumps({"tournament_id": tid}))
        else:
            from .publishing import publish_latest
            publish_latest(deps, tid, then_in_background=True)
    except Exception as exc:  # a failed publish must not fail the result that triggered it; the next one repairs
        from .publishing import log_failure
        log_failure(tid, exc)
