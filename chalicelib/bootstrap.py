"""Wires the services' dependencies once per process; tests swap parts with `override`."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, UTC
from typing import TYPE_CHECKING

from .domain.bus import REGISTRY, MessageBus
from .ports import Clock, MessageSender, Publisher, Repos

from .payments.offline import desk_gateways

if TYPE_CHECKING:   # made on first use (the publisher's modules are not on a result's import path)
    from .publish.cache import PublishCache
    from .publish.queue import PublishQueue


def _now() -> datetime:
    return datetime.now(UTC)


def message_bus() -> MessageBus:
    """The bus over the handlers the services register (services/reactions.py, one place): what follows from each
    domain event. Not imported from here: every service imports this module for `Deps`."""
    return MessageBus(REGISTRY)


@dataclass
class Deps:
    repos: Repos
    clock: Clock = _now
    # The payment providers' registry: name → adapter behind the one port (payments/port.py). The desk's
    # (offline, cash, transfer) always; Stripe, WeChat Pay, Alipay when they have keys; the demo locally.
    providers: dict = field(default_factory=desk_gateways)
    publisher: Publisher | None = None     # publish sink; None: the settings' sink
    publish_queue: PublishQueue = field(default_factory=lambda: _publish_queue())   # publish/queue.py: SQS in AWS, else inline
    publish_cache: PublishCache = field(default_factory=lambda: _publish_cache())    # the publisher's state in this process
    extra: dict = field(default_factory=dict)
    messages: MessageSender | None = None  # issue "players": SMS / WeChat messages; none wired yet
    bus: MessageBus = field(default_factory=message_bus)

    def dispatch(self, events) -> None:
        """After a change is committed: run what follows from its events (inline; see docs/domain.md)."""
        self.bus.dispatch(self, events)


def _publish_queue():
    from .publish.queue import queue_from_settings
    return queue_from_settings()


def _publish_cache():
    from .publish.cache import PublishCache
    return PublishCache()


_deps: Deps | None = None


def deps() -> Deps:
    global _deps
    if _deps is None:
        from .config import get_settings
        from .store.repositories import Repos
        settings = get_settings()
        from .payments.setup import payment_providers
        _deps = Deps(repos=Repos(), providers=payment_providers(settings), extra={"hold_minutes": settings.hold_minutes})
    return _deps


def override(new: Deps | None) -> None:
    """Replace the wiring (tests); None resets to the default on next use."""
    global _deps
    _deps = new
