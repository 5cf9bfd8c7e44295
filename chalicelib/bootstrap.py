"""Wires the services' dependencies once per process; tests swap parts with `override`."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable

from .payments.offline import desk_gateways


def _now() -> datetime:
    return datetime.now(timezone.utc)


@dataclass
class Deps:
    repos: Any
    clock: Callable[[], datetime] = _now
    # The payment providers' registry: name → adapter behind the one port (payments/port.py). The desk's
    # (offline, cash, transfer) always; Stripe, WeChat Pay, Alipay when they have keys; the demo locally.
    providers: dict = field(default_factory=desk_gateways)
    publisher: Any = None     # publish sink + renderer
    extra: dict = field(default_factory=dict)


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
