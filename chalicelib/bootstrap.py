"""Wires the services' dependencies once per process; tests swap parts with `override`."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Callable


def _now() -> datetime:
    return datetime.now(timezone.utc)


@dataclass
class Deps:
    repos: Any
    clock: Callable[[], datetime] = _now
    payments: Any = None      # payment provider (Stripe adapter or None when online payment is off)
    publisher: Any = None     # publish sink + renderer
    extra: dict = field(default_factory=dict)


_deps: Deps | None = None


def deps() -> Deps:
    global _deps
    if _deps is None:
        from .store.repositories import Repos
        _deps = Deps(repos=Repos())
    return _deps


def override(new: Deps | None) -> None:
    """Replace the wiring (tests); None resets to the default on next use."""
    global _deps
    _deps = new
