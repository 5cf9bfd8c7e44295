"""Waking the outbox's worker when an urgent job is queued (record.URGENT: an organiser's reset, a round's draw), so
it is done within seconds instead of at the scheduled pass's next minute.

On AWS a nudge is one message on the small messages queue (MESSAGES_QUEUE_URL); its consumer
(api/jobs.deliver_nudged) runs the worker's pass for what is due. A nudge is only a hint: the pass is idempotent
(each message is claimed before it is tried: store/messages.claim), and the scheduled minute stays the safety net,
so a nudge lost, doubled or sent while the queue is down costs at most that minute — it never fails the request.

Locally (no queue URL: `make run`'s worker thread, the browser tests' scripts/messages_worker.py) there is no
nudge: the worker already looks every second or two. A kick in the API's own process would put the job's work
(an account looked up, a provider called) back beside the request that asked for it — what the reset's job was made
to move out of it — and race the tests that check nothing is sent inside a request."""
from __future__ import annotations

import logging
from collections.abc import Callable

from ..aws_clients import LazyClient

log = logging.getLogger("cardgames.messages")


class SqsNudge:
    """One small message per nudge; the client is made on the first (a cold start that nudges nothing makes none),
    with short timeouts and one retry: a request never waits long on a queue that does not answer."""

    def __init__(self, url: str, client_factory: Callable | None = None):
        self.url = url
        self._sqs = LazyClient("sqs", client_factory, connect_timeout=2, read_timeout=2,
                               retries={"max_attempts": 2, "mode": "standard"})

    def wake(self, kind: str) -> bool:
        try:
            self._sqs().send_message(QueueUrl=self.url, MessageBody='{"due": "now"}')
            return True
        except Exception as exc:   # noqa: BLE001 — the queue down or the client's set-up: the minute's pass covers it
            log.warning("messages: the worker was not nudged for a %s job (%s); the scheduled pass sends it",
                        kind, type(exc).__name__)
            return False


class NoNudge:
    """Locally: the worker looks every second or two already (module docstring)."""

    def wake(self, kind: str) -> bool:
        return False


def nudger(deps):
    """This process's nudge: deps.extra["nudge"] when wired (tests), else SQS when MESSAGES_QUEUE_URL is set."""
    found = deps.extra.get("nudge")
    if found is None:
        from ..config import get_settings
        url = get_settings().messages_queue_url
        found = deps.extra["nudge"] = SqsNudge(url) if url else NoNudge()
    return found
