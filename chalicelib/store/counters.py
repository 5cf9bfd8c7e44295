"""An event's counters, in one item or, for a registration rush, in N shards (docs/scaling.md).

One item (`EVENT#<eid>/COUNTERS`) is where places can never be oversold, and also a hot key: DynamoDB serialises
transactions on an item, about 1,000 writes a second at most. An event of SHARD_THRESHOLD places or more gets
SHARDS items instead (shard 0 is the counters item itself, which also keeps the tournament, owner and config
version; shards 1… are `EVENT#<eid>#C<k>/COUNTERS`, each its own partition key). Each shard holds its own share of the places (`cap`) and its own
taken/confirmed/held/waitlisted, and every entry records the shard its counts live on (`Entry.shard`):

- never oversold: each shard's write is conditioned on its own `taken < cap`, and the shares sum to the capacity;
- places left, and every count shown, are the sums over the shards (the counters item, then one batch read);
- the config's version is on every shard, so a registration written from a cached config checks it on the shard
  it moves, as before; a capacity edit re-spreads the free places over the shards in one transaction.

The layout is chosen when the event is created and kept (a capacity edited across the threshold later keeps it).
"""
from __future__ import annotations

SHARD_THRESHOLD = 2_000
SHARDS = 10
COUNTS = ("taken", "confirmed", "held", "waitlisted")


def shard_count(capacity: int) -> int:
    return SHARDS if capacity >= SHARD_THRESHOLD else 1


def spread(free: int, n: int) -> list[int]:
    """`free` places over n shards as evenly as can be (the remainder to the first shards)."""
    return [free // n + (1 if k < free % n else 0) for k in range(n)]


def shard_no(item: dict) -> int:
    return int(item.get("shard", 0))


def read_items(table, eid: str) -> list[dict]:
    """The counters item and its shards (strongly consistent): one read for most events, two for a sharded one."""
    from . import keys
    main = table.get(keys.event_counters(eid))
    if not main:
        return []
    n = int(main.get("shards", 1))
    if n == 1:
        return [main]
    return [main, *(i for i in table.get_many([keys.counter_shard(eid, k) for k in range(1, n)]) if i)]


def summed(items: list[dict]) -> dict:
    """The event's counters from its shard items: sums, the main item's config version, and each shard's
    taken and cap (`shards`: [(k, taken, cap)], for choosing a shard with a free place)."""
    items = [i for i in items if i.get("kind") in ("event_counters", "counter_shard")]
    main = next((i for i in items if i.get("kind") == "event_counters"), {})
    out = {k: sum(int(i.get(k, 0)) for i in items) for k in (*COUNTS, "cap")}
    out["config_version"] = main.get("config_version", 1)
    out["drawn"] = bool(main.get("drawn"))
    out["late_closed"] = bool(main.get("late_closed"))
    out["cversion"] = sum(int(i.get("cversion", 0)) for i in items)
    out["shards"] = sorted((shard_no(i), int(i.get("taken", 0)), int(i.get("cap", 0))) for i in items)
    return out


def free_shards(counters: dict) -> list[int]:
    return [k for k, taken, cap in counters.get("shards", []) if taken < cap]
