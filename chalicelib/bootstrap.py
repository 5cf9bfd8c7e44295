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
    providers: dict = field(default_factory=dict)   # v1.2: "wechat_pay" / "alipay" adapters that have keys
    publisher: Any = None     # publish sink + renderer
    publish_queue: Any = field(default_factory=lambda: _publish_queue())   # publish/queue.py: SQS in AWS, else inline
    publish_cache: Any = field(default_factory=lambda: _publish_cache())    # the publisher's state in this process
    extra: dict = field(default_factory=dict)


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
        from .payments.setup import china_providers
        _deps = Deps(repos=Repos(), payments=_payment_gateway(settings), providers=china_providers(settings),
                     extra={"hold_minutes": settings.hold_minutes})
    return _deps


def _payment_gateway(settings):
    """Stripe when keys are configured (env, or Secrets Manager read once per cold start); else None:
    online payment is off and entries pay at the desk."""
    key, secret = settings.stripe_secret_key, settings.stripe_webhook_secret
    if not key and settings.stripe_secret_arn:
        import json

        from .config import secret_string
        try:
            data = json.loads(secret_string(settings.stripe_secret_arn) or "{}")
        except ValueError:
            data = {}
        key, secret = data.get("secret_key"), data.get("webhook_secret")
    if not key:
        return None
    from .payments.stripe_gateway import StripeGateway
    return StripeGateway(key, secret)


def override(new: Deps | None) -> None:
    """Replace the wiring (tests); None resets to the default on next use."""
    global _deps
    _deps = new
