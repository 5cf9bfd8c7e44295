"""How a failed publish is logged (the queue consumer, the inline path and the background publisher alike)."""
from __future__ import annotations

import logging

log = logging.getLogger("cardgames.publish")


def log_failure(tid: str, exc: BaseException) -> None:
    """While the store is down every publish fails alike: one line each, not a traceback each."""
    from ..store.dynamo import store_down
    if store_down(exc):
        log.error("publishing tournament %s failed: the store did not answer (%s)", tid, type(exc).__name__)
    else:
        from ..logsafe import where
        log.error("publishing tournament %s failed: %s", tid, where(exc))   # not the message: it may quote a phone
