"""The audit log as hash chains, LANES per event (docs/audit-chain.md; the format: chalicelib/auditchain.py).

A record goes to the lane of its table (its pack modulo LANES, as the round's rev counters: two results that
would meet on a rev counter meet on a lane too, others on neither); a record of no table (a draw, a close, an
arrival) to lane 0. Each record is appended in the same transaction as the change it records, together with its
lane's head item (keys.audit_lane_head: the lane's last seq and hash), which is written only if it still holds the
seq this writer read. Two results of one lane confirmed at once both read head n; one commits n+1, the other's
transaction is cancelled whole (its result too), it reads the head again and appends n+2: no lane forks and no
record is lost. Results of different lanes touch different heads and do not wait on each other. The record's own
item (keyed by its ULID, as before) is written only if absent: a transaction the SDK sent twice, or a migration run
twice, never appends a record twice.

An event whose chain began before lanes (it has the one-chain head, keys.audit_head: format 1) keeps its one
chain: its records go on being appended there, its writers in turn as before.

Per event, not per tournament: the records already live in the event's partition, the corrections page is the
event's, and the events of a day confirm results side by side without waiting on one another's heads."""
from __future__ import annotations

import json
import os
import random
import secrets
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from .. import auditchain, errors
from . import keys
from .dynamo import Op, Table, TransientConflict

APPEND_ATTEMPTS = 100   # head moved meanwhile (another process appended): retry from the head as it is
PUBLIC_REASONS = ("result_corrected", "result_overridden", "forfeit_recorded", "force_majeure", "dispute_settled",
                  "pairing_edited", "appeal_decided")   # reasons the corrections page shows already; others stay private


class ChainMoved(errors.Conflict):
    """Another record was appended since this writer read the head; `head`: the head as it is (when the store
    returned it with the cancellation), else None (read it)."""

    def __init__(self, head: tuple[int, str] | None = None):
        super().__init__()
        self.head = head


class AlreadyAppended(errors.Conflict):
    """This record's item exists: an earlier attempt of the same append committed."""


class OneChainBegun(errors.Conflict):
    """A lane's first record found the event's one-chain head written meanwhile (a writer of the version before
    lanes, during a deploy): the event keeps its one chain."""


def lane_of(record: dict) -> int:
    """A record's lane: its table's pack modulo LANES (keys.round_rev's counter); lane 0 for a record of no table."""
    table_no = record.get("table")
    if isinstance(table_no, bool) or not isinstance(table_no, int):
        return 0
    return keys.table_pack_no(table_no) % auditchain.LANES


def _who(who: str) -> str:
    from ..glossary import display_who   # a name and role, never an account id
    return display_who(who) or (who if who.startswith("table ") else "")


def _snapshot(value):
    """A table's before/after as published: its status, version and points (shown on the round pages anyway)."""
    if isinstance(value, dict) and "status" in value and "version" in value:
        return auditchain.plain({k: value.get(k) for k in ("status", "version", "points")})
    return None


def stored_form(record: dict) -> dict:
    """The record as its item's `data` holds it (what the private digest is of)."""
    return auditchain.plain(json.loads(json.dumps(record, ensure_ascii=False, default=str)))


def entry_for(eid: str, record: dict, seq: int, prev: str, salt: str, lane: int | None = None) -> dict:
    """The record's published entry, hash included. `private`: the SHA-256 of the whole stored record with a
    random salt (kept in the store, never published): the full record is bound into the chain without revealing
    anything, and the salt stops guessing low-entropy fields (a phone in a reason) from the digest. `lane`: the
    lane's chain it is appended to (format 2; None: the event's one chain, format 1, no `lane` field)."""
    action = record.get("action", "")
    entry = {} if lane is None else {"lane": lane}
    entry |= {"seq": seq, "prev": prev, "id": record["id"], "at": str(record.get("at", "")), "action": action,
             "round": record.get("round"), "table": record.get("table"), "who": _who(str(record.get("who", ""))),
             "before": _snapshot(record.get("before")), "after": _snapshot(record.get("after")),
             "reason": str(record.get("reason") or "") if action in PUBLIC_REASONS else "",
             "private": auditchain.digest({"salt": salt, "record": stored_form(record)})}
    entry = auditchain.plain(entry)
    entry["hash"] = auditchain.entry_hash(entry)
    return entry


def head(table: Table, eid: str) -> tuple[int, str]:
    """The event's one chain's head (format 1); (0, its genesis) when it has none."""
    item = table.get(keys.audit_head(eid))
    if not item:
        return 0, auditchain.genesis(eid)
    return int(item["seq"]), item["hash"]


def lane_head(table: Table, eid: str, lane: int) -> tuple[int, str] | None:
    """A lane's head (format 2); None before the lane's first record."""
    item = table.get(keys.audit_lane_head(eid, lane))
    return (int(item["seq"]), item["hash"]) if item else None


def heads(table: Table, eid: str) -> tuple[int, dict[int, tuple[int, str]]]:
    """(the event's format, {lane: (seq, hash)}): format 1 and lane 0 only for an event chained before lanes;
    else format 2 and every lane, (0, its genesis) for a lane without records. One query (the heads sort together)."""
    found = {i["SK"]: i for i in table.query(keys.event_partition(eid), keys.AUDIT_HEAD)}
    one = found.get(keys.AUDIT_HEAD)
    if one:
        return 1, {0: (int(one["seq"]), one["hash"])}
    out = {}
    for lane in range(auditchain.LANES):
        item = found.get(keys.audit_lane_head(eid, lane)["SK"])
        out[lane] = (int(item["seq"]), item["hash"]) if item else (0, auditchain.lane_genesis(eid, lane))
    return 2, out


def event_head(eid: str, fmt: int, lanes: dict[int, tuple[int, str]]) -> tuple[int, str]:
    """(the records chained, the event's head) from `heads`: its one chain's head, or its lanes' together."""
    if fmt == 1:
        return lanes[0]
    return sum(c for c, _ in lanes.values()), auditchain.event_head(eid, [lanes[k] for k in sorted(lanes)])


def _ops(eid: str, record: dict, at: tuple[int, str], legacy: bool, lane: int | None = None) -> tuple[dict, list[Op]]:
    """The record's item and its chain's new head (`lane` None: the event's one chain, format 1)."""
    seq, prev = at[0] + 1, at[1]
    salt = secrets.token_hex(16)
    entry = entry_for(eid, record, seq, prev, salt, lane)
    chain = {"seq": seq, "chain": json.dumps(entry, ensure_ascii=False, sort_keys=True), "salt": salt}
    if lane is not None:
        chain["lane"] = lane
    key = keys.audit(eid, record["id"])
    if legacy:   # a record written before the chain: its item gains the chain fields, once
        names = {f"#{k}": k for k in chain}
        rec = Op.update(key, "SET " + ", ".join(f"#{k} = :{k}" for k in chain), names=names,
                        values={f":{k}": v for k, v in chain.items()}, condition="attribute_not_exists(#seq)",
                        on_fail=AlreadyAppended)
    else:
        rec = Op.put({**key, "kind": "audit", "data": json.dumps(record, ensure_ascii=False, default=str), **chain},
                     condition="attribute_not_exists(PK)", on_fail=AlreadyAppended)
    head_key = keys.audit_head(eid) if lane is None else keys.audit_lane_head(eid, lane)
    new_head = {**head_key, "kind": "audit_head", "seq": seq, "hash": entry["hash"], "last": record["id"]}
    moved = {"on_fail": ChainMoved, "on_fail_item": lambda item: ChainMoved((int(item["seq"]), item["hash"]))}
    if at[0] == 0:
        head_op = Op.put(new_head, condition="attribute_not_exists(PK)", **moved)
    else:
        head_op = Op.put(new_head, condition="seq = :s", values={":s": at[0]}, **moved)
    if lane is not None and at[0] == 0:   # a lane's first record: only while the event has no one chain
        return entry, [rec, head_op, Op.check(keys.audit_head(eid), "attribute_not_exists(PK)", on_fail=OneChainBegun)]
    return entry, [rec, head_op]


_LOCKS: dict[str, threading.Lock] = {}
_LOCKS_LOCK = threading.Lock()
LOCK_WAIT_S = 15.0


def _after_fork_in_child() -> None:   # a lock another thread held at the fork would stay held in the child
    global _LOCKS_LOCK
    _LOCKS_LOCK = threading.Lock()
    _LOCKS.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _lock(key: str) -> threading.Lock:
    """The lock of one chain (an event's lane, or an event's one chain) in this process."""
    with _LOCKS_LOCK:
        lock = _LOCKS.get(key)
        if lock is None:
            if len(_LOCKS) > 1000:   # a long-lived server: events of other days
                for k in [k for k, v in _LOCKS.items() if not v.locked()][:500]:
                    _LOCKS.pop(k, None)
            lock = _LOCKS[key] = threading.Lock()
        return lock


@contextmanager
def _in_turn(key: str) -> Iterator[None]:
    lock = _lock(key)
    if not lock.acquire(timeout=LOCK_WAIT_S):
        raise TransientConflict(BUSY)
    try:
        yield
    finally:
        lock.release()


def append(table: Table, eid: str, record: dict, ops: Sequence[Op] = (), *, legacy: bool = False,
           write: Callable[[list[Op]], None] | None = None) -> dict | None:
    """`record` appended to its lane's chain (the event's one chain, for an event chained before lanes) in one
    transaction with `ops` (the change it records; their own failures raise as they would without the audit,
    first). `write`: instead of `ops`, another repository's write of the change, called with the chain's ops to
    put in its own transaction after its own (again with fresh ones if the chain moved meanwhile: nothing of a
    cancelled transaction was written). Returns its entry (None: it was appended before)."""
    # The writers of one chain in one process take turns (a venue's API is one process of many threads): racing
    # each other for the head they would mostly cancel each other's transactions, and an unlucky one could lose
    # every time. Across processes (Lambda) the head's condition decides, with retries.
    lane = lane_of(record)
    with _in_turn(f"{eid}#{lane:02d}"):
        # read, not remembered from this process's last append: on AWS other containers append to the same lane,
        # and a transaction cancelled on a stale head costs more than the read
        at = lane_head(table, eid, lane)
        if at is not None or table.get(keys.audit_head(eid)) is None:
            try:
                return _append(table, eid, record, ops, legacy, lane, at or (0, auditchain.lane_genesis(eid, lane)),
                               write)
            except OneChainBegun:
                pass
    with _in_turn(eid):   # an event chained before lanes: its one chain, every writer in turn
        return _append(table, eid, record, ops, legacy, None, head(table, eid), write)


def _append(table: Table, eid: str, record: dict, ops: Sequence[Op], legacy: bool, lane: int | None,
            at: tuple[int, str], write: Callable[[list[Op]], None] | None = None) -> dict | None:
    for attempt in range(APPEND_ATTEMPTS):
        entry, chain_ops = _ops(eid, record, at, legacy, lane)
        try:
            if write is None:
                table.transact([*ops, *chain_ops])
            else:
                write(chain_ops)
            return entry
        except ChainMoved as moved:
            time.sleep(random.uniform(0, min(0.1, 0.002 * 2 ** attempt)))   # a burst of writers spreads out
            at = moved.head or (head(table, eid) if lane is None else
                                lane_head(table, eid, lane) or (0, auditchain.lane_genesis(eid, lane)))
        except AlreadyAppended:
            return None
    raise TransientConflict(BUSY)


BUSY = "审计记录繁忙，请重试 · The audit log is busy: try again."


def entries(items: Sequence[dict]) -> list[dict]:
    """The published entries of audit items (those chained), in chain order (lane by lane)."""
    return sorted((json.loads(i["chain"]) for i in items if i.get("chain")), key=lambda e: (e.get("lane", 0), e["seq"]))


def check_items(eid: str, items: Sequence[dict]) -> int:
    """The chains as the store holds them, checked with what only the store has: every record's private digest
    (its salt and whole record) besides the links, lane by lane (or the event's one chain). Returns the records
    checked; raises auditchain.Broken."""
    chained = [i for i in items if i.get("chain")]
    lanes: dict[int | None, list[dict]] = {}
    for i in chained:
        lanes.setdefault(None if i.get("lane") is None else int(i["lane"]), []).append(i)
    if None in lanes and len(lanes) > 1:
        raise auditchain.Broken(1, "records of the one chain and of lanes in one event")
    for lane, its in sorted(lanes.items(), key=lambda kv: -1 if kv[0] is None else kv[0]):
        its.sort(key=lambda i: int(i["seq"]))
        es = [json.loads(i["chain"]) for i in its]
        auditchain.check(eid, es, lane=lane)
        for item, e in zip(its, es):
            want = auditchain.digest({"salt": item["salt"], "record": auditchain.plain(json.loads(item["data"]))})
            if e["private"] != want:
                raise auditchain.Broken(e["seq"], "the stored record does not match its private digest", lane=lane)
    return len(chained)
