"""One small message bus (cosmicpython's shape): the handlers that follow from each domain event, run inline
after the change is committed.

Handlers are registered in one place, services/reactions.py, into `REGISTRY` here when the services package is
imported (services/__init__.py); bootstrap's bus reads this registry. So the wiring (bootstrap) never imports a
service — every service imports bootstrap for `Deps`, and that import would close a cycle.

A handler's failure is logged and does not undo or fail the change that raised the event: the change is
committed already, and each reaction here repairs itself on the next change (a publish re-reads the records)."""
from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from .events import Event

log = logging.getLogger("cardgames.bus")

Handler = Callable[[Any, Event], None]   # (deps, event) → None


REGISTRY: dict[type[Event], list[Handler]] = {}


def register(event_type: type[Event], *handlers: Handler) -> None:
    for handler in handlers:
        if handler not in REGISTRY.setdefault(event_type, []):   # a module imported twice registers once
            REGISTRY[event_type].append(handler)


class MessageBus:
    def __init__(self, handlers: Mapping[type[Event], Sequence[Handler]] | None = None):
        # the mapping itself, not a copy: the default bus sees what the services register after it was made
        self.handlers: Mapping[type[Event], Sequence[Handler]] = handlers if handlers is not None else {}

    def dispatch(self, deps: Any, events: Iterable[Event]) -> None:
        for event in events:
            for handler in self.handlers.get(type(event), ()):
                try:
                    handler(deps, event)
                except Exception:  # noqa: BLE001 — the change is committed; a reaction must not fail it
                    log.exception("handler %s failed on %s", getattr(handler, "__name__", handler), type(event).__name__)


class RecordingBus(MessageBus):
    """A bus for tests: keeps every event dispatched (and runs any handlers given)."""

    def __init__(self, handlers: Mapping[type[Event], Sequence[Handler]] | None = None):
        super().__init__(handlers)
        self.events: list[Event] = []

    def dispatch(self, deps: Any, events: Iterable[Event]) -> None:
        events = list(events)
        self.events.extend(events)
        super().dispatch(deps, events)
