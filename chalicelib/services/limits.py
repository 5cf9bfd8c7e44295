"""Per-client limits of public routes that cost us or a provider something per call (a call to WeChat's API with
the official account's secret): counted in the rates store, one conditional write a call (store/repositories.py
RateRepo), so concurrent calls cannot all slip under the limit."""
from __future__ import annotations

from .. import errors
from ..installation import lookup_hash


def per_client(deps, scope: str, client: str, per_minute: int) -> None:
    """Counts this call of `client` (its address, keyed hash only) in the current minute; 429 past `per_minute`."""
    now = int(deps.clock().timestamp())
    window = now // 60
    if not deps.repos.rates.take(scope, lookup_hash("source", client or "unknown"), window, per_minute, now + 180):
        exc = errors.RateLimited("请求过于频繁，请一分钟后再试 · Too many requests: wait a minute and try again.")
        exc.retry_after = 60 - now % 60
        raise exc
