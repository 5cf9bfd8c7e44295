"""Scheduled and event-driven handlers (registered on the app in app.py)."""
from __future__ import annotations

import logging

log = logging.getLogger("cardgames.jobs")


def sweep_holds(event=None) -> dict:
    from ..bootstrap import deps
    from ..services.payments import sweep_expired_holds
    result = sweep_expired_holds(deps())
    log.info("hold sweep: %s", result)
    return result
