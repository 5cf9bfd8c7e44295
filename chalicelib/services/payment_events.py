"""Where the payment transitions' events go after their write: the one message bus (bootstrap.Deps.dispatch), with
a log line of ids and amounts only (no personal data) so a day's money can be followed in the logs."""
from __future__ import annotations

from typing import TYPE_CHECKING

import logging

if TYPE_CHECKING:   # the type only: the composition root (bootstrap) imports the services, not the reverse
    from ..bootstrap import Deps

log = logging.getLogger("cardgames.payments")


def dispatch(deps: Deps, events: list) -> None:
    for event in events:
        log.info("%s %s", type(event).__name__, getattr(event, "payment_id", "") or getattr(event, "entry_id", ""))
    deps.dispatch(events)
