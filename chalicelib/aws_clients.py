"""A boto3 client made on its first use and kept: a cold start that needs none makes none (each is ~0.1 s of CPU),
and endpoints set up before that use (moto, a local stand-in) apply. Made once under a lock, as store/dynamo.client
is: a burst of first requests on a threaded server would otherwise build one each. The SQS queues a request writes
to (messages/nudge.py, publish/queue.py) share this rather than each keeping its own copy."""
from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any


class LazyClient:
    """`LazyClient("sqs", connect_timeout=2)()` → the client; botocore `Config` options as keywords. `factory`
    makes it instead (tests: a stand-in, or a count of clients made)."""

    def __init__(self, service: str, factory: Callable[[], Any] | None = None, **config: Any):
        self.service = service
        self._factory = factory
        self._config = config
        self._client = None
        self._lock = threading.Lock()

    def __call__(self):
        if self._client is None:
            with self._lock:
                if self._client is None:
                    self._client = self._factory() if self._factory is not None else self._make()
        return self._client

    def _make(self):
        import boto3
        from botocore.config import Config
        return boto3.client(self.service, config=Config(**self._config) if self._config else None)
