"""The audit chain's format (docs/audit-chain.md): how a record's published form is serialised and hashed, and how a
chain is checked. Standard library only: scripts/verify_log.py uses it with nothing else of the platform installed.

An event's audit records form chains: one (format 1, events whose chain began before lanes) or LANES of them
(format 2, a record in the lane of its table: results of different tables do not wait on one head). In a chain,
record n's published entry carries `seq` n, `prev` (the hash of record n-1; for record 1 the chain's genesis hash)
and `hash` = SHA-256 of the entry without `hash`, serialised by `canonical`. Changing, removing, reordering or
inserting any entry breaks a hash, a `prev` or a `seq`."""
from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable

FORMAT = "cardgames-audit-chain/1"         # one chain per event (events whose first record came before lanes)
FORMAT_LANES = "cardgames-audit-chain/2"   # LANES chains per event, each entry naming its `lane`
LANES = 16
SEGMENT = 1000   # entries a published segment file holds (audit-<k>.json); the records past the last full one are in audit.json


def canonical(obj) -> bytes:
    """JSON with keys sorted, no spaces, UTF-8 (not \\u escapes), no NaN. Entries hold no floats (`plain`), so any
    JSON library that keeps integers and strings as they are writes the same bytes again."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8")


def digest(obj) -> str:
    return hashlib.sha256(canonical(obj)).hexdigest()


def genesis(event_id: str) -> str:
    """The `prev` of an event's first record: binds the chain to its event (no chain passes for another's)."""
    return digest({"chain": FORMAT, "event": event_id})


def lane_genesis(event_id: str, lane: int) -> str:
    """The `prev` of a lane's first record (format 2): binds the lane's chain to its event and its lane."""
    return digest({"chain": FORMAT_LANES, "event": event_id, "lane": lane})


def event_head(event_id: str, lanes: list[tuple[int, str]]) -> str:
    """One hash for an event's LANES chains as they stand (format 2): each lane's count and head, in lane order.
    What the corrections page shows and one notes down: a chain cut short or re-headed in any lane changes it."""
    return digest({"chain": FORMAT_LANES, "event": event_id, "lanes": [[c, h] for c, h in lanes]})


def entry_hash(entry: dict) -> str:
    return digest({k: v for k, v in entry.items() if k != "hash"})


def plain(value):
    """A value as an entry holds it: floats that are whole become integers, others decimal strings (float text
    differs between languages' JSON writers; these do not); tuples lists; anything else not JSON its str()."""
    if isinstance(value, bool) or value is None or isinstance(value, (int, str)):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else repr(value)
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return str(value)


class Broken(Exception):
    """A chain that does not hold: `seq` names the first entry that is wrong (or missing)."""

    def __init__(self, seq: int, message: str, lane: int | None = None):
        super().__init__(f"{'' if lane is None else f'lane {lane} '}record {seq}: {message}")
        self.seq, self.lane = seq, lane


def check(event_id: str, entries: Iterable[dict], count: int | None = None, head: str | None = None,
          lane: int | None = None) -> str:
    """Checks an event's entries in their order from record 1; returns the last hash (the genesis for none).
    `count`, `head`: what the publisher said the chain holds, checked against its end (a record removed from the
    end). `lane`: the chain is that lane's (format 2), else the event's one chain (format 1). Raises Broken naming
    the first entry that is wrong."""
    prev, expected = (genesis(event_id) if lane is None else lane_genesis(event_id, lane)), 1
    for entry in entries:
        seq = entry.get("seq")
        if lane is not None and entry.get("lane") != lane:
            raise Broken(expected, f"it names lane {entry.get('lane')!r}, not lane {lane} it is published in", lane=lane)
        if seq != expected:
            raise Broken(expected, f"found seq {seq!r} where {expected} belongs (a record removed, inserted or moved)", lane=lane)
        if entry.get("prev") != prev:
            raise Broken(expected, "its prev is not the hash of the record before it", lane=lane)
        if entry_hash(entry) != entry.get("hash"):
            raise Broken(expected, "its fields do not match its hash (the record was altered)", lane=lane)
        prev, expected = entry["hash"], expected + 1
    if count is not None and count != expected - 1:
        raise Broken(expected, f"the chain ends at record {expected - 1} but {count} are published", lane=lane)
    if head is not None and head != prev:
        raise Broken(expected - 1, "the last record's hash is not the published head", lane=lane)
    return prev
