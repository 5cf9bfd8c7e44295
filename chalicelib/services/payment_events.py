"""The one place the payment transitions' events go after their write (until the message bus exists: the lead
wires `dispatch` to it). Handlers are plain `on_<event>(deps, event)` functions registered in HANDLERS."""
from __future__ import annotations

import logging

from ..bootstrap import Deps

log = logging.getLogger("cardgames.payments")

# event class name → handlers; nothing reacts yet beyond the log line (ids and amounts only: no personal data)
HANDLERS: dict[str, list] = {}


def dispatch(deps: Deps, events: list) -> None:
    for event in events:
        name = type(event).__name__
        log.info("%s %s", name, getattr(event, "payment_id", "") or getattr(event, "entry_id", ""))
        for handler in HANDLERS.get(name, ()):
            handler(deps, event)
