"""The audit log as a hash chain, one per event (docs/audit-chain.md; the format: chalicelib/auditchain.py).

Each record is appended in the same transaction as the change it records, together with the chain's head item
(keys.audit_head: the last seq and hash), which is written only if it still holds the seq this writer read. Two
results confirmed at once both read head n; one commits n+1, the other's transaction is cancelled whole (its result
too), it reads the head again and appends n+2: the chain never forks and no record is lost. The record's own item
(keyed by its ULID, as before) is written only if absent: a transaction the SDK sent twice, or a migration run twice,
never appends a record twice.

Per event, not per tournament: the records already live in the event's partition, the corrections page is the
event's, and the events of a day confirm results side by side without waiting on one another's head."""
from __future__ import annotations

import json
import os
import random
import secrets
import threading
import time
from collections.abc import Sequence

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


def entry_for(eid: str, record: dict, seq: int, prev: str, salt: str) -> dict:
    """The record's published entry, hash included. `private`: the SHA-256 of the whole stored record with a
    random salt (kept in the store, never published): the full record is bound into the chain without revealing
    anything, and the salt stops guessing low-entropy fields (a phone in a reason) from the digest."""
    action = record.get("action", "")
    entry = {"seq": seq, "prev": prev, "id": record["id"], "at": str(record.get("at", "")), "action": action,
             "round": record.get("round"), "table": record.get("table"), "who": _who(str(record.get("who", ""))),
             "before": _snapshot(record.get("before")), "after": _snapshot(record.get("after")),
             "reason": str(record.get("reason") or "") if action in PUBLIC_REASONS else "",
             "private": auditchain.digest({"salt": salt, "record": stored_form(record)})}
    entry = auditchain.plain(entry)
    entry["hash"] = auditchain.entry_hash(entry)
    return entry


def head(table: Table, eid: str) -> tuple[int, str]:
    item = table.get(keys.audit_head(eid))
    if not item:
        return 0, auditchain.genesis(eid)
    return int(item["seq"]), item["hash"]


def _ops(eid: str, record: dict, at: tuple[int, str], legacy: bool) -> tuple[dict, list[Op]]:
    seq, prev = at[0] + 1, at[1]
    salt = secrets.token_hex(16)
    entry = entry_for(eid, record, seq, prev, salt)
    chain = {"seq": seq, "chain": json.dumps(entry, ensure_ascii=False, sort_keys=True), "salt": salt}
    key = keys.audit(eid, record["id"])
    if legacy:   # a record written before the chain: its item gains the chain fields, once
        names = {f"#{k}": k for k in chain}
        rec = Op.update(key, "SET " + ", ".join(f"#{k} = :{k}" for k in chain), names=names,
                        values={f":{k}": v for k, v in chain.items()}, condition="attribute_not_exists(#seq)",
                        on_fail=AlreadyAppended)
    else:
        rec = Op.put({**key, "kind": "audit", "data": json.dumps(record, ensure_ascii=False, default=str), **chain},
                     condition="attribute_not_exists(PK)", on_fail=AlreadyAppended)
    new_head = {**keys.audit_head(eid), "kind": "audit_head", "seq": seq, "hash": entry["hash"], "last": record["id"]}
    moved = {"on_fail": ChainMoved, "on_fail_item": lambda item: ChainMoved((int(item["seq"]), item["hash"]))}
    if at[0] == 0:
        head_op = Op.put(new_head, condition="attribute_not_exists(PK)", **moved)
    else:
        head_op = Op.put(new_head, condition="seq = :s", values={":s": at[0]}, **moved)
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


def _lock(eid: str) -> threading.Lock:
    with _LOCKS_LOCK:
        lock = _LOCKS.get(eid)
        if lock is None:
            if len(_LOCKS) > 1000:   # a long-lived server: events of other days
                for k in [k for k, v in _LOCKS.items() if not v.locked()][:500]:
                    _LOCKS.pop(k, None)
            lock = _LOCKS[eid] = threading.Lock()
        return lock


def append(table: Table, eid: str, record: dict, ops: Sequence[Op] = (), *, legacy: bool = False) -> dict | None:
    """`record` appended to the event's chain in one transaction with `ops` (the change it records; their own
    failures raise as they would without the audit, first). Returns its entry (None: it was appended before)."""
    # The writers of one process take turns (a venue's API is one process of many threads): racing each other for
    # the head they would mostly cancel each other's transactions, and an unlucky one could lose every time. Across
    # processes (Lambda) the head's condition decides, with retries.
    lock = _lock(eid)
    if not lock.acquire(timeout=LOCK_WAIT_S):
        raise TransientConflict(BUSY)
    try:
        # read, not remembered from this process's last append: on AWS other containers append to the same event,
        # and a transaction cancelled on a stale head costs more than the read
        at = head(table, eid)
        for attempt in range(APPEND_ATTEMPTS):
            entry, chain_ops = _ops(eid, record, at, legacy)
            try:
                table.transact([*ops, *chain_ops])
                return entry
            except ChainMoved as moved:
                time.sleep(random.uniform(0, min(0.1, 0.002 * 2 ** attempt)))   # a burst of writers spreads out
                at = moved.head or head(table, eid)
            except AlreadyAppended:
                return None
        raise TransientConflict(BUSY)
    finally:
        lock.release()


BUSY = "审计记录繁忙，请重试 · The audit log is busy: try again."


def entries(items: Sequence[dict]) -> list[dict]:
    """The published entries of audit items (those chained), in chain order."""
    return sorted((json.loads(i["chain"]) for i in items if i.get("chain")), key=lambda e: e["seq"])


def check_items(eid: str, items: Sequence[dict]) -> int:
    """The chain as the store holds it, checked with what only the store has: every record's private digest
    (its salt and whole record) besides the links. Returns the records checked; raises auditchain.Broken."""
    chained = sorted((i for i in items if i.get("chain")), key=lambda i: int(i["seq"]))
    es = [json.loads(i["chain"]) for i in chained]
    auditchain.check(eid, es)
    for item, e in zip(chained, es):
        want = auditchain.digest({"salt": item["salt"], "record": auditchain.plain(json.loads(item["data"]))})
        if e["private"] != want:
            raise auditchain.Broken(e["seq"], "the stored record does not match its private digest")
    return len(es)
