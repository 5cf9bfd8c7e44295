"""Documents that grow with the field, kept in items of bounded size.

A stage plan names every entry (its number, carried points, group, schedule, bracket) and a knockout round's
document lists thousands of byes: at 10,000 entries one item would pass DynamoDB's 400 KB. Such a document is
stored as a small head item (the fields every reader needs, plus `parts` and `digest`) and its long fields as
zlib-compressed part items of at most PART_BYTES each, written *before* the transaction that moves the head:

- parts are keyed by the digest of their content (`<head SK>#PART#<digest>#<k>`), so they are immutable and a
  retry or a second writer writes the same bytes; the head's version condition stays the one thing a draw or a
  close conditions on, and a head only ever names parts that were written before it committed;
- superseded parts are not deleted (a reader that read the old head a moment ago still finds them); a plan
  changes a few times a stage, so this costs a few compressed copies per event, not a growing item;
- a document small enough (INLINE_BYTES) stays in one item exactly as before, so the data of existing (small)
  events reads unchanged and no migration is needed.
"""
from __future__ import annotations

import hashlib
import json
import zlib
from collections.abc import Callable

PART_BYTES = 48 * 1024      # one part item, compressed bytes (an item stays far below the 100 KB we hold to)
INLINE_BYTES = 32 * 1024    # a document up to this size stays inline in its head item


def dumps(doc) -> str:
    return json.dumps(doc, ensure_ascii=False, default=str)


def part_sk(head_sk: str, digest: str, k: int) -> str:
    return f"{head_sk}#PART#{digest}#{k:03d}"


def pack(key: dict, doc: dict, split: Callable[[dict], tuple[dict, dict]], *,
         reuse: bool = False) -> tuple[dict, list[dict]]:
    """(the head's attributes: data, and parts + digest when split; the part items to write first). `reuse`: the
    parts' bytes as last read or written for this key when the long fields are as they were (_Last)."""
    head, tail = split(doc)
    tail_text = dumps(tail)
    # the whole document's JSON holds every field of its tail's: a tail past the bound is a document past it, known
    # without dumping the whole (at 100,000 entries a plan is ~7 MB of JSON, written by every draw and close)
    if len(tail_text) <= INLINE_BYTES + 16:
        data = dumps(doc)
        if len(data.encode()) <= INLINE_BYTES:
            return {"data": data}, []
    raw = tail_text.encode()
    blob = _LAST.blob(key, raw) if reuse else None
    if blob is None:
        blob = zlib.compress(raw, 6)
        if reuse:
            _LAST.remember(key, raw, blob)
    digest = hashlib.sha256(blob).hexdigest()[:20]
    items = [{"PK": key["PK"], "SK": part_sk(key["SK"], digest, k), "kind": "part", "blob": blob[i:i + PART_BYTES]}
             for k, i in enumerate(range(0, len(blob), PART_BYTES))]
    return {"data": dumps(head), "parts": len(items), "digest": digest}, items


def part_keys(head_item: dict) -> list[dict]:
    """The keys of the parts a head item names (none for an inline document)."""
    n = int(head_item.get("parts") or 0)
    return [{"PK": head_item["PK"], "SK": part_sk(head_item["SK"], head_item["digest"], k)} for k in range(n)]


def blob_of(part_item: dict) -> bytes:
    b = part_item["blob"]
    return bytes(b.value) if hasattr(b, "value") else bytes(b)


def unpack(head_item: dict, blobs: list[bytes] | None, merge: Callable[[dict, dict], dict], *,
           reuse: bool = False) -> dict:
    """The whole document from its head item and its parts' bytes in order (None: the head alone). `reuse`: these
    bytes remembered for pack (_Last)."""
    doc = json.loads(head_item["data"])
    if not head_item.get("parts") or blobs is None:
        return doc
    blob = b"".join(blobs)
    raw = zlib.decompress(blob)
    if reuse:
        _LAST.remember(head_item, raw, blob)
    return merge(doc, json.loads(raw))


class _Last:
    """The last long fields read or written of a document kept with `reuse` (the event's state): its key, its JSON's
    length and SHA-256, its compressed bytes. A draw reads the state and writes it back with the stage plan's long
    fields as they were (~7 MB of JSON at 100,000 entries: 0.16 s of zlib, a draw and a close), so the same text
    is compressed again only when it changed, and the head names the same parts (the same bytes, the same
    digest). One document, not a cache: ~2 MB stay in the process at 100,000 entries (the publisher's memory
    counts)."""

    def __init__(self):
        self._last: tuple[tuple[str, str], int, bytes, bytes] | None = None

    def remember(self, key: dict, raw: bytes, blob: bytes) -> None:
        self._last = ((key["PK"], key["SK"]), len(raw), hashlib.sha256(raw).digest(), blob)

    def blob(self, key: dict, raw: bytes) -> bytes | None:
        last = self._last   # one read: another thread may remember another meanwhile
        if last is not None and last[0] == (key["PK"], key["SK"]) and last[1] == len(raw) \
                and last[2] == hashlib.sha256(raw).digest():
            return last[3]
        return None


_LAST = _Last()


# -- what is long, per kind of document

PLAN_LONG = ("entries", "numbers", "carry", "groups", "schedules", "bracket", "de", "early_finish", "choices")
ROUND_LONG = ("byes", "bye_why", "notes", "bracket")


def split_state(state: dict) -> tuple[dict, dict]:
    """The event state's head keeps the rounds list and each plan's scalars (format, rounds, seed): what a result
    or a phone's poll needs. Every entry-sized field of the plans goes to the parts."""
    heads, tails = {}, {}
    for stage, plan in state.get("plans", {}).items():
        heads[stage] = {k: v for k, v in plan.items() if k not in PLAN_LONG}
        tails[stage] = {k: v for k, v in plan.items() if k in PLAN_LONG}
    return {**state, "plans": heads}, {"plans": tails}


def merge_state(head: dict, tail: dict) -> dict:
    plans = {stage: {**plan, **tail.get("plans", {}).get(stage, {})} for stage, plan in head.get("plans", {}).items()}
    return {**head, "plans": plans}


def split_round(doc: dict) -> tuple[dict, dict]:
    return {k: v for k, v in doc.items() if k not in ROUND_LONG}, {k: v for k, v in doc.items() if k in ROUND_LONG}


def merge_round(head: dict, tail: dict) -> dict:
    return {**head, **tail}


def split_totals(doc: dict) -> tuple[dict, dict]:
    """A stage's running totals: the stamps in the head, the per-entry columns in the parts."""
    return {k: v for k, v in doc.items() if k != "field"}, {"field": doc.get("field")}


def item_size(item: dict) -> int:
    """An item's size as DynamoDB counts it (attribute names + values, UTF-8), for plain or typed items."""
    from .dynamo import to_item
    typed = item if all(isinstance(v, dict) and len(v) == 1 and next(iter(v)) in _TYPES for v in item.values()) \
        else to_item(item)
    return sum(len(k.encode()) + _value_size(v) for k, v in typed.items())


_TYPES = {"S", "N", "B", "BOOL", "NULL", "M", "L", "SS", "NS", "BS"}


def _value_size(v: dict) -> int:
    (t, x), = v.items()
    if t == "S":
        return len(x.encode())
    if t == "N":
        return len(str(x)) // 2 + 2
    if t == "B":
        return len(x.value if hasattr(x, "value") else x)
    if t in ("BOOL", "NULL"):
        return 1
    if t == "M":
        return 3 + sum(len(k.encode()) + _value_size(y) + 1 for k, y in x.items())
    if t == "L":
        return 3 + sum(_value_size(y) + 1 for y in x)
    if t == "SS":
        return sum(len(s.encode()) for s in x)
    if t == "NS":
        return sum(len(str(n)) // 2 + 2 for n in x)
    return sum(len(b) for b in x)
