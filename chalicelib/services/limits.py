"""Per-client limits of public routes that cost us or a provider something per call (a call to WeChat's API with
the official account's secret): counted in the rates store, one conditional write a call (store/repositories.py
RateRepo), so concurrent calls cannot all slip under the limit."""
from __future__ import annotations

from .. import errors
from ..installation import lookup_hash, phone_hash


def per_client(deps, scope: str, client: str, per_minute: int) -> None:
    """Counts this call of `client` (its address, keyed hash only) in the current minute; 429 past `per_minute`."""
    now = int(deps.clock().timestamp())
    window = now // 60
    if not deps.repos.rates.take(scope, lookup_hash("source", client or "unknown"), window, per_minute, now + 180):
        exc = errors.RateLimited("请求过于频繁，请一分钟后再试 · Too many requests: wait a minute and try again.")
        exc.retry_after = 60 - now % 60
        raise exc


# --------------------------------------------------------------------------- public registration (issue 36)
# A hall's players share one address (the venue's NAT), so the address limit is sized for a hall: 200 players in
# 10 minutes (one every 3 s) pass with room for retries and a rush, a script's burst does not. A bucket per
# address: BURST at once, then one every EVERY_S. Per phone a smaller one: a phone enters an event once anyway,
# so many registrations of one number are a script (cheap to vary, hence never the only limit). Per event and
# address the places a burst may take are a share of the event's places: a script behind one address cannot fill
# a small event in seconds (16 of 16 in 2 s before), while a hall fills it within minutes — a waitlisted
# registration takes no place and gives its token back.
ADDRESS_BURST, ADDRESS_EVERY_S = 20, 2.0          # 30 a minute sustained: 320 in 10 minutes at most
PHONE_BURST, PHONE_EVERY_S = 6, 30.0
PLACE_SHARE, PLACE_BURST_MIN = 4, 4               # a quarter of the places (at least 4) at once, as many a minute


def _exempt(client: str | None) -> bool:
    """This machine itself (the venue laptop's own browser, its tools): a script there can read the store
    directly, a limit adds nothing. API Gateway never reports a loopback source. Behind a local reverse proxy
    TRUSTED_PROXY_HOPS must be set, or every client would look like this machine."""
    import ipaddress
    try:
        return ipaddress.ip_address((client or "").strip()).is_loopback
    except ValueError:
        return False


def _limited(seconds: float, what: str) -> errors.RateLimited:
    wait = max(1, int(-(-seconds // 1)))
    exc = errors.RateLimited(
        f"报名过于频繁，请 {wait} 秒后再试 · Too many registrations: try again in {wait} s.",
        {"retry_after": wait, "limit": what})
    exc.retry_after = wait
    return exc


def _take(deps, scope: str, key: str, burst: int, every_s: float, what: str) -> None:
    now_ms = int(deps.clock().timestamp() * 1000)
    wait_ms = deps.repos.rates.bucket(scope, key, now_ms, burst, int(every_s * 1000))
    if wait_ms:
        raise _limited(wait_ms / 1000, what)


def bucket(deps, scope: str, key: str, burst: int, every_s: float, what: str) -> None:
    """One call counted in the bucket `scope`/`key` (a keyed hash, never a phone): 429 rate_limited with
    Retry-After past it (sign-in codes, services/players.py)."""
    wait_ms = deps.repos.rates.bucket(scope, key, int(deps.clock().timestamp() * 1000), burst, int(every_s * 1000))
    if wait_ms:
        wait = max(1, -(-wait_ms // 1000))
        exc = errors.RateLimited(f"请求过于频繁，请 {wait} 秒后再试 · Too many requests: try again in {wait} s.",
                                 {"retry_after": wait, "limit": what})
        exc.retry_after = wait
        raise exc


def place_burst(capacity: int) -> int:
    return max(PLACE_BURST_MIN, -(-capacity // PLACE_SHARE))


def registration(deps, client: str | None, phones, events=()) -> list:
    """Counts one public registration of `client` with these phones for these events (their places); 429
    rate_limited with Retry-After past a limit. Returns the per-event tokens taken, for `not_a_place`."""
    if client is None or _exempt(client):
        return []
    source = lookup_hash("source", client or "unknown")
    _take(deps, "reg-address", source, ADDRESS_BURST, ADDRESS_EVERY_S, "address")
    for phone in sorted({p for p in phones if p}):
        _take(deps, "reg-phone", phone_hash(phone), PHONE_BURST, PHONE_EVERY_S, "phone")
    taken = []
    for event in events:
        if event.config.waitlist and event.counters.taken >= event.config.capacity:
            continue   # known full: it goes to the waitlist, which takes no place
        burst = place_burst(event.config.capacity)
        _take(deps, "reg-places", f"{event.id}#{source}", burst, 60.0 / burst, "event")
        taken.append((event.id, source, burst))
    return taken


def not_a_place(deps, taken: list, event_id: str) -> None:
    """A registration that went to the waitlist took no place: its event token back."""
    for eid, source, burst in taken:
        if eid == event_id:
            deps.repos.rates.bucket_give_back("reg-places", f"{eid}#{source}", int(60.0 / burst * 1000))
