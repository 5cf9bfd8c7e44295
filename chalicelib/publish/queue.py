"""Where a publish request goes (the publish queue port): SQS in AWS, where the queue's consumers publish
(api/jobs.publish_from_queue); locally the request is published inline, once here and any further rounds in a
thread. Services ask through `deps.publish_queue.ask(deps, tid, changes, scope=…)` and import neither boto3 nor the
publisher. In AWS a request is a message per publish scope (an event's pages, or the tournament-wide ones:
services/publish_requests.py), so several consumers publish one tournament's events side by side."""
from __future__ import annotations

import json
from typing import Protocol
from collections.abc import Callable

from ..aws_clients import LazyClient


class PublishQueue(Protocol):
    inline: bool   # publishes in this process (the request waits on it), or hands it on to a worker
    def ask(self, deps, tid: str, changes: list[str], scope: str | None = None) -> None:
        """Publish `tid` soon; `changes` says what changed ("*": anything may have); `scope`: only that scope's
        pages (an event's id, "" the tournament-wide ones, "*" every scope; None: as the changes say)."""


class SqsPublishQueue:
    """A message per request and scope; the client is made on the first one (a cold start that asks nothing makes
    none)."""
    inline = False

    def __init__(self, url: str, client_factory: Callable | None = None):
        self.url = url
        self._sqs = LazyClient("sqs", client_factory)

    def ask(self, deps, tid: str, changes: list[str], scope: str | None = None) -> None:
        body = {"tournament_id": tid, "changes": changes} | ({} if scope is None else {"scope": scope})
        self._sqs().send_message(QueueUrl=self.url, MessageBody=json.dumps(body))


class InlinePublishQueue:
    """Publishes in this process (locally, at a venue, in tests): `publish(deps, tid, changes)`, by default the
    publisher's publish_latest with the rounds after the first in a background thread."""
    inline = True

    def __init__(self, publish: Callable[..., object] | None = None):
        self._publish = publish

    def ask(self, deps, tid: str, changes: list[str], scope: str | None = None) -> None:
        if self._publish is not None:
            self._publish(deps, tid, changes, **({} if scope is None else {"scope": scope}))
            return
        from ..services.publishing import publish_latest   # the composition's edge: the publisher, made on use
        publish_latest(deps, tid, then_in_background=True, changes=changes,
                       scope=None if scope in (None, "*") else scope)


def queue_from_settings(settings=None) -> PublishQueue:
    """SQS when PUBLISH_QUEUE_URL is set (AWS), else inline."""
    if settings is None:
        from ..config import get_settings
        settings = get_settings()
    url = settings.publish_queue_url
    return SqsPublishQueue(url) if url else InlinePublishQueue()
