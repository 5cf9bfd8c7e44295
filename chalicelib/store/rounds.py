"""Rounds, tables (pairing + result), the event's running state and the audit log."""
from __future__ import annotations

import json
import math
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from operator import itemgetter

from .. import errors
from . import audit_chain, keys, parts
from .dynamo import Op, Table, chunks, client, from_item, to_item


_ROUND_CACHE: dict[tuple, tuple] = {}   # (table, event, stage, round) → ((rev, data, digest), doc, tables): closed
HEAD_ONLY = "head_only"                 # marks a state read without its plans' long fields
WRITERS = 8                             # threads writing a round's batches at once
# On the embedded store: its SQLite writes take turns on one lock and each row's step hands the GIL back and forth,
# so two threads (one making rows while the other's are written) did what eight did for ~0.2 s less of a
# 100,000-entry draw's CPU
EMBEDDED_WRITERS = 2
WRITE_ALL_REQUESTS = 2500               # requests a call of the embedded store's batch_write_all (100 batches of 25)
READERS = keys.ROUND_TABLE_KEYS         # queries at once reading a round's tables (get_round_stamped): a key each
ROUNDS_AT_ONCE = 3                      # rounds a publisher reads at once (rounds_for_publishing)


def _between_packs(prefix: str, low: str, high: str) -> str | None:
    """A table pack's key halfway between two keys under a round (its head and parts count as pack 0)."""
    def number(sk: str) -> int | None:
        if not sk.startswith(prefix):
            return None
        k = keys.pack_no_of(sk)
        return 0 if k is None else k
    a, b = number(low), number(high)
    if a is None or b is None or b - a < 2:
        return None
    return prefix + keys.TABLE_PACK_MARK + keys.sortable((a + b) // 2, 3)


def _table_keys_of(head_item: dict | None) -> int:
    """How many table keys a round's head says it uses: every one for a round drawn before it said (moved there
    by store/migrations.spread_round_tables), none without a head."""
    if head_item is None:
        return 0
    used = head_item.get("table_keys")
    return int(used["N"] if isinstance(used, dict) else used) if used is not None else keys.ROUND_TABLE_KEYS


def _is_table_attr(name: str) -> bool:
    return name[0] == "t" and name[1:].isdigit()


def tables_of_pack(item: dict) -> list[dict]:
    """The tables a raw pack item holds (keys.table_pack), in no particular order."""
    return json.loads("[" + ",".join(v["S"] for k, v in item.items() if _is_table_attr(k)) + "]")   # one parse a pack


def _stamp(head_item: dict, shards_rev: int = 0) -> list:
    return [int(head_item.get("rev", 0)) + shards_rev, json.loads(head_item["data"]).get("drawn_at")]


def _table_no(sk: str) -> int:
    return keys.unsortable(sk.rsplit("#", 1)[1])   # past 9,999 tables: ':' and twelve digits (keys.sortable)


def round_tables(packs: list[dict], written: list[dict]) -> list[dict]:
    """A round's tables in number order, from its raw packs (as drawn) and its raw table items (what was written to
    a table since, keys.table_item), a table's item winning over its pack's copy; an item marked `gone` is a table a
    pairing edit removed. A copy shadowed by a table item is never parsed (after a round's results every table has
    one: half of a played round's JSON), and the rest is parsed in one json.loads."""
    over = {_table_no(item["SK"]["S"]): item for item in written}
    texts = [v["S"] for pack in packs for k, v in pack.items() if _is_table_attr(k) and int(k[1:]) not in over]
    texts += [item["data"]["S"] for item in over.values() if "gone" not in item]
    return sorted(json.loads("[" + ",".join(texts) + "]"), key=lambda t: t["number"])


class _TablesRead:
    """A round's tables parsed page by page as its packs and table items are read (Table.query_ranges' on_page),
    each page's raw items let go once parsed: what `round_tables` makes of them all at once, without the round's
    raw items held together (issue 43: a 100,000-entry publisher read three rounds at once, ~100 MB of raw packs
    each, and what their parse left freed between the tables stayed in the process). A table's item wins over its
    pack's copy whichever page comes first (a page's items are looked at before its packs, so a copy they shadow
    is not parsed); an item at a page's cut, read twice, parses to the same table. The strings and floats the
    tables repeat (ids, statuses, points) are one object each (`words`), page by page: the copies let go are where
    the next page's go."""

    def __init__(self, words: dict | None = None, read_only: bool = False):
        self.read_only = read_only           # the tables are only read (the publisher's): see _one_object_each
        self.drawn: dict[int, dict] = {}     # table number → table, from its pack
        self.written: dict[int, dict] = {}   # table number → table, from its own item (wins over its pack's copy)
        self.owned: set[int] = set()         # tables with an item of their own (removed ones too: it says `gone`)
        self.sks: set[str] = set()           # sort keys read (a copy also left under the event's key is passed over)
        self.words = {} if words is None else words   # shared by rounds read at once: setdefault is atomic
        self._lock = threading.Lock()        # a round's table keys are read on threads of their own

    def page(self, items: list[dict]) -> None:
        own, packs = {}, []
        for item in items:
            kind = item["kind"]["S"]
            if kind == "table_item":
                own[_table_no(item["SK"]["S"])] = item
            elif kind == "tables":
                packs.append(item)
        with self._lock:   # before parsing: a pack's copy parsed meanwhile on another thread is not kept
            self.sks.update(item["SK"]["S"] for item in [*own.values(), *packs])
            self.owned.update(own)
            for no in own:
                self.drawn.pop(no, None)
        owned = self.owned   # (a table another thread claims meanwhile: its copy parsed here is not kept, below)
        texts = [item["data"]["S"] for item in own.values() if "gone" not in item]
        n_own = len(texts)
        texts += [v["S"] for pack in packs for k, v in pack.items() if _is_table_attr(k) and int(k[1:]) not in owned]
        del own, packs, items
        if not texts:
            return
        tables = json.loads("[" + ",".join(texts) + "]")   # one parse a page
        del texts
        with self._lock:
            _one_object_each(tables, self.words, self.read_only)
            for t in tables[:n_own]:
                self.written[t["number"]] = t
            for t in tables[n_own:]:
                if t["number"] not in self.owned:
                    self.drawn[t["number"]] = t

    def tables(self) -> list[dict]:
        """The round's tables in number order (as round_tables gives them)."""
        return sorted([*self.drawn.values(), *self.written.values()], key=lambda t: t["number"])


def _one_object_each(tables: list[dict], words: dict, read_only: bool = False) -> None:
    """Tables as parsed, their repeated values made one object each in place (each table names its two entries six
    times, each a string of its own as parsed): equal values for equal ones, -0.0 left as it is (equal to 0.0 as
    a key, not shown the same). `read_only` (tables nobody changes in place: the publisher's read): a side's seats,
    each side's points and an empty `details` one object for equal ones too (issue 43: ~0.6 KB a table, ~90 MiB of
    a 100,000-entry publisher's three rounds)."""
    one = words.setdefault
    for t in tables:
        for s in t.get("sides") or ():
            if type(e := s.get("entry_id")) is str:
                s["entry_id"] = one(e, e)
            if read_only and type(seats := s.get("seats")) is list and all(type(x) is str for x in seats):
                s["seats"] = one(("seats", *seats), seats)
        for k in ("home", "winner", "status", "reason"):
            if type(v := t.get(k)) is str:
                t[k] = one(v, v)
        for k in ("points", "outcome"):
            if type(v := t.get(k)) is dict:
                t[k] = v = {one(e, e): _one(x, one) for e, x in v.items()}
                for e, x in v.items():
                    if type(x) is dict:
                        for name, y in x.items():
                            x[name] = _one(y, one)
                        if read_only:
                            v[e] = _one_dict(x, one)
        if read_only and type(d := t.get("details")) is dict and not d:
            t["details"] = one(("details",), d)


def _one_dict(x: dict, one) -> dict:
    """A side's points (a few names and figures) as one object for equal ones: equal as shown too — the same
    names in the same order, the same types (2 is not 2.0), no -0.0 — else itself."""
    key = ("points", *x.items(), *map(type, x.values()))
    for y in x.values():
        if type(y) not in (float, int, str, bool) and y is not None or (type(y) is float and y == 0.0
                                                                        and math.copysign(1.0, y) < 0):
            return x
    return one(key, x)


def _one(x, one):
    if type(x) is not float or (x == 0.0 and math.copysign(1.0, x) < 0):
        return x
    return one(x, x)


# a table's stored JSON: json.dumps(table, ensure_ascii=False, default=str), without making an encoder each time
# (a 100,000-entry draw dumps 50,000 tables)
_table_json = json.JSONEncoder(ensure_ascii=False, default=str).encode

_WRITTEN_NAMES = {"#g": "gone", "#ver": "version"}


def _request_key(request: dict) -> str:
    """A batch write request's item key as one string ordered as the store orders its items, by PK then SK (a
    str's order is its UTF-8 bytes' order, SQLite's BLOB order; NUL, below every character of our keys, between):
    a string compares in C where a tuple of two did not."""
    key = request["PutRequest"]["Item"] if "PutRequest" in request else request["DeleteRequest"]["Key"]
    return key["PK"]["S"] + "\0" + key["SK"]["S"]


def _in_key_order(requests: list, key_of=_request_key) -> list:
    """Batch write requests (or items alike: _fill_key) in their items' key order, so each of the embedded store's
    SQLite transactions fills a run of neighbouring B-tree pages: a draw's 100,000 code items, keyed by hash, were
    random inserts over the whole (growing) table, 3–5× the CPU of the same rows in order, more each round
    (docs/scaling.md). As they came if a key is asked twice: in order they would fall in one batch of 25, which
    refuses a key twice, where they were written one after the other."""
    key = [key_of(r) for r in requests]
    order = sorted(range(len(requests)), key=key.__getitem__)
    if any(key[a] == key[b] for a, b in zip(order, order[1:])):
        return requests
    return [requests[k] for k in order]


def _slots(template: dict) -> list[str]:
    """The names of an alike template's slots (values {"S": None} or {"N": None}: each item's own), in order."""
    return [k for k, v in template.items() if None in v.values()]


def _fill_key(template: dict):
    """An item alike's key as _request_key makes a request's, from its fill (the template's constants otherwise)."""
    names = _slots(template)
    pk, sk = (names.index(a) if a in names else template[a]["S"] for a in ("PK", "SK"))
    if isinstance(sk, str):   # one SK for all: ordered as their PKs are (NUL is below every character of a key)
        return itemgetter(pk) if isinstance(pk, int) else (lambda fill: pk + "\0" + sk)
    return (lambda fill: fill[pk] + "\0" + fill[sk]) if isinstance(pk, int) else (lambda fill: pk + "\0" + fill[sk])


def _filled(template: dict, fills: list[tuple]) -> list[dict]:
    """Items alike as batch write requests (for DynamoDB), the template's constant values shared (no writer changes
    a request's values)."""
    names = _slots(template)
    types = [next(iter(template[k])) for k in names]
    out = []
    for fill in fills:
        item = dict(template)
        for name, t, v in zip(names, types, fill):
            item[name] = {t: v}
        out.append({"PutRequest": {"Item": item}})
    return out


def _written_condition(expected_version: int) -> tuple[str, dict]:
    """A table item's condition for a write expecting the table at `expected_version`. Without a table item the
    table is as its pack holds it, at version 0 (a draw writes packs only with tables at version 0, and a table item
    for any other: RoundRepo.table_items; store/migrations.written_tables_out_of_packs for packs of before): so a
    missing table item is version 0, and only a write expecting 0 may be the first."""
    live = "#ver = :ev AND attribute_not_exists(#g)"
    return (f"attribute_not_exists(PK) OR ({live})" if expected_version == 0 else live), {":ev": expected_version}


class RoundRepo:
    def __init__(self, table: Table):
        self.t = table

    # -- state: which rounds exist, which is open, stage plans (long fields in parts: parts.py)
    def state(self, eid: str) -> dict:
        """The whole state, stage plans with every entry included (the head item and its parts)."""
        item = self.t.get(keys.event_state(eid))
        if not item:
            return {"rounds": [], "open_round": 0, "stage": 0, "plans": {}, "version": 0}
        data = parts.unpack(item, self._blobs(item), parts.merge_state, reuse=True)
        data["version"] = item["version"]
        return data

    def state_head(self, eid: str) -> dict:
        """The state without the plans' long fields (entries, numbers, schedules…): the rounds list, the open round
        and each plan's scalars, in one small read (what a result or a phone's poll needs). Cannot be saved."""
        item = self.t.get(keys.event_state(eid))
        if not item:
            return {"rounds": [], "open_round": 0, "stage": 0, "plans": {}, "version": 0, HEAD_ONLY: True}
        data = parts.split_state(json.loads(item["data"]))[0]   # an inline plan too: one shape whatever the size
        return {**data, "version": item["version"], HEAD_ONLY: True}

    def _blobs(self, head_item: dict) -> list[bytes] | None:
        want = parts.part_keys(head_item)
        if not want:
            return None
        got = self.t.get_many(want)
        if any(g is None for g in got):   # parts are written before their head and never deleted
            raise errors.Conflict("A stored document is missing one of its parts; try again.")
        return [parts.blob_of(g) for g in got]

    def _state_ops(self, eid: str, state: dict, expected_version: int) -> tuple[list[dict], Op]:
        """(the part items to write first, the head's conditional put for the transaction)."""
        if state.get(HEAD_ONLY):
            raise RuntimeError("a state read with state_head() lacks the plans' entries and cannot be saved")
        body = {k: v for k, v in state.items() if k != "version"}
        key = keys.event_state(eid)
        head, part_items = parts.pack(key, body, parts.split_state, reuse=True)
        item = {**key, "kind": "event_state", **head, "version": expected_version + 1}
        if expected_version == 0:
            return part_items, Op.put(item, condition="attribute_not_exists(PK)",
                                      on_fail=lambda: errors.RoundOpen("Another round was drawn at the same moment."))
        return part_items, Op.put(item, condition="version = :v", values={":v": expected_version},
                                  on_fail=lambda: errors.RoundOpen("The rounds changed meanwhile; reload."))

    def save_state(self, eid: str, state: dict, expected_version: int, extra: list[Op] = ()) -> None:
        part_items, op = self._state_ops(eid, state, expected_version)
        self._batch_put(part_items)
        self.t.transact([op, *extra])

    # -- rounds
    def create_round(self, eid: str, round_doc: dict, tables: list[dict], state: dict, expected_version: int, *,
                     closes_late_entries: bool = False, audit: dict | None = None) -> None:
        """Tables and parts first (many; idempotent puts, in parallel), then the round, the state and its audit
        record in one transaction: the round exists only once that commits, so a crash halfway leaves nothing
        visible, and the retry's draw removes what the crashed one left that it does not overwrite itself (tables
        numbered past its own, parts of another document) before its own writes."""
        stage, n = round_doc["stage"], round_doc["number"]
        key = keys.round_(eid, stage, n)
        head, round_parts = parts.pack(key, round_doc, parts.split_round)
        state_parts, state_op = self._state_ops(eid, state, expected_version)
        table_items = [*self.table_items(eid, stage, n, tables), *self.written_items(eid, stage, n, tables)]
        self._remove_leftovers(eid, stage, n, {(i["PK"], i["SK"]) for i in [*table_items, *round_parts]})
        self._batch_write(self._put_requests([*round_parts, *state_parts, *table_items]),
                          alike=self.code_items(eid, n, tables))
        used = keys.round_table_keys(max((t["number"] for t in tables), default=0))
        ops = [
            Op.put({**key, "kind": "round", **head, "table_keys": used},
                   condition="attribute_not_exists(PK)", on_fail=lambda: errors.RoundOpen("This round exists already.")),
            state_op,
        ]
        # The event has started: registration closes (unless late entries; then at the last round a late entry
        # may join, `closes_late_entries`), in the draw's own write, on every counter shard (each registration
        # checks its own).
        flags = [f for f, on in (("drawn", n == 1), ("late_closed", closes_late_entries)) if on]
        if flags:
            from .counters import read_items, shard_no
            for item in read_items(self.t, eid) or [keys.event_counters(eid)]:
                ops.append(Op.update(keys.counter_shard(eid, shard_no(item)), "SET " + ", ".join(f"{f} = :t" for f in flags),
                                     values={":t": True}))
        self._transact_audited(eid, audit, ops)

    def _transact_audited(self, eid: str, audit: dict | None, ops: list[Op]) -> None:
        """`ops` with the audit record of what they change in the same transaction (a crash between the two left a
        drawn or closed round the chain did not hold), or alone when the caller records nothing."""
        if audit is None:
            self.t.transact(ops)
        else:
            self._audited(eid, audit, ops)

    def _remove_leftovers(self, eid: str, stage: int, n: int, keep: set[str]) -> None:
        """Items under a round not yet drawn are a crashed draw's (its transaction never ran): one keys-only
        query, empty but for that case; what the new draw will not overwrite is deleted. A round head found
        means another draw committed meanwhile: nothing is written then."""
        head = keys.round_(eid, stage, n)
        found = self._keys_under(eid, stage, n, head["SK"])
        if (head["PK"], head["SK"]) in found:
            raise errors.RoundOpen("Another round was drawn at the same moment.")
        stale = [{"PK": pk, "SK": sk} for pk, sk in found if (pk, sk) not in keep]
        self._batch_write([{"DeleteRequest": {"Key": to_item(k)}} for k in stale])

    def _keys_under(self, eid: str, stage: int, n: int, prefix: str) -> list[tuple[str, str]]:
        """(PK, SK) of every item under a round: the event key's (head, parts, rev counters) and every one of its
        table keys' (keys-only queries at once)."""
        pks = [keys.event_partition(eid), *keys.round_tables_partitions(eid, stage, n)]
        with ThreadPoolExecutor(max_workers=READERS) as pool:
            found = pool.map(lambda pk: self.t.query(pk, prefix, raw=True, projection="SK"), pks)
            return [(pk, i["SK"]["S"]) for pk, items in zip(pks, found) for i in items]

    def delete_round(self, eid: str, stage: int, n: int, tables: list[dict], state: dict, expected_version: int) -> None:
        state_parts, state_op = self._state_ops(eid, state, expected_version)
        self._batch_put(state_parts)
        self.t.transact([Op.delete(keys.round_(eid, stage, n)), state_op])
        # its packs, table items and rev counters (keys-only queries; parts stay, as everywhere)
        found = self._keys_under(eid, stage, n, keys.round_prefix(stage, n) + "#")
        gone = [{"PK": pk, "SK": sk} for pk, sk in found if keys.TABLE_PACK_MARK in sk or keys.REV_MARK in sk]
        self._batch_write([{"DeleteRequest": {"Key": to_item(k)}} for k in gone])

    def edit_round(self, eid: str, round_doc: dict, changed: list[tuple[dict, int | None]], removed: list[tuple[int, int]],
                   state: dict, expected_version: int, audit: dict) -> None:
        """A pairing edit in one transaction: each changed table only if nobody wrote it since it was read (a
        new table only if the number is free), removed tables likewise, the round's document (byes, notes),
        the state (fixed tables; a draw or close meanwhile fails it) and the audit record."""
        stage, n = round_doc["stage"], round_doc["number"]
        stale = lambda: errors.VersionConflict("桌次在编排调整时被修改，请刷新 · A table changed meanwhile; reload.")
        new = [t["number"] for t, version in changed if version is None]
        # a new table's number is free when no table item holds it (but a removed table's mark, as read) and its
        # pack does not hold it: a condition on each, the packs' in one check a pack
        was = dict(zip(new, self.t.get_many([keys.table_item(eid, stage, n, k) for k in new]))) if new else {}
        ops, pack_checks = [], {}
        for table, version in changed:
            item = {**keys.table_item(eid, stage, n, table["number"]), "kind": "table_item",
                    "data": json.dumps(table, ensure_ascii=False, default=str), "version": table.get("version", 0)}
            if version is not None:
                condition, values = _written_condition(version)
            elif was.get(table["number"]) is not None:
                condition, values = "attribute_exists(#g) AND #ver = :ev", {":ev": int(was[table["number"]]["version"])}
            else:
                condition, values = "attribute_not_exists(PK)", {}
                pack_checks.setdefault(keys.table_pack_no(table["number"]), []).append(table["number"])
            ops.append(Op.put(item, condition=condition, names=_WRITTEN_NAMES if values else None, values=values,
                              on_fail=stale))
        for number, version in removed:
            condition, values = _written_condition(version)
            ops.append(Op.put({**keys.table_item(eid, stage, n, number), "kind": "table_item", "gone": True,
                               "version": version + 1}, condition=condition, names=_WRITTEN_NAMES, values=values,
                              on_fail=stale))
        for k, numbers in sorted(pack_checks.items()):
            names = {f"#v{i}": keys.table_attrs(number)[1] for i, number in enumerate(numbers)}
            ops.append(Op.check(keys.table_pack(eid, stage, n, k), " AND ".join(f"attribute_not_exists({a})" for a in names),
                                names=names, on_fail=stale))
        key = keys.round_(eid, stage, n)
        head, round_parts = parts.pack(key, round_doc, parts.split_round)
        state_parts, state_op = self._state_ops(eid, state, expected_version)
        new_codes = self.code_requests(eid, n, [t for t, _ in changed if t is not None])   # a new table's codes
        self._batch_write([*self._put_requests([*round_parts, *state_parts]), *new_codes])
        used = None
        if new:   # a new table past the table keys the round's head says it uses: read from then on
            want = keys.round_table_keys(max(new))
            was_used = _table_keys_of(self.t.get(key, projection=["table_keys", "kind"]))
            used = want if want > was_used else None
        ops.append(self._doc_op(key, head, bump_rev=True, table_keys=used))
        ops.append(state_op)
        self._audited(eid, audit, ops)

    @staticmethod
    def _doc_op(key: dict, head: dict, bump_rev: bool = False, table_keys: int | None = None) -> Op:
        """A round document's head rewritten in place (its `rev` kept, or moved on: publishing's cache key; its
        table keys as they were, or `table_keys`)."""
        names = {"#d": "data", "#p": "parts", "#g": "digest"}
        rev = " ADD rev :one" if bump_rev else ""
        values = {":one": 1} if bump_rev else {}
        if table_keys is not None:
            names["#tk"] = "table_keys"
            values[":tk"] = table_keys
            rev = ", #tk = :tk" + rev
        if head.get("parts"):
            return Op.update(key, "SET #d = :d, #p = :p, #g = :g" + rev, names=names,
                             values={":d": head["data"], ":p": head["parts"], ":g": head["digest"], **values})
        return Op.update(key, "SET #d = :d" + rev + " REMOVE #p, #g", names=names, values={":d": head["data"], **values})

    @staticmethod
    def table_items(eid: str, stage: int, n: int, tables: list[dict]) -> list[dict]:
        """The pack items holding these tables (keys.table_pack), each table's document and version in its own
        attributes."""
        packs: dict[int, dict] = {}
        for table in tables:
            k = keys.table_pack_no(table["number"])
            item = packs.get(k) or packs.setdefault(k, {**keys.table_pack(eid, stage, n, k), "kind": "tables"})
            data, version = keys.table_attrs(table["number"])
            item[data] = _table_json(table)
            item[version] = table.get("version", 0)
        return list(packs.values())

    @staticmethod
    def written_items(eid: str, stage: int, n: int, tables: list[dict]) -> list[dict]:
        """Table items for the tables not at version 0 (a pack's copy of a table counts as version 0: see
        _written_condition)."""
        return [{**keys.table_item(eid, stage, n, t["number"]), "kind": "table_item",
                 "data": _table_json(t), "version": t.get("version", 0)}
                for t in tables if t.get("version", 0) != 0]

    @staticmethod
    def code_items(eid: str, n: int, tables: list[dict]) -> tuple[dict, list[tuple[str, str]]]:
        """Each side's code (its hash) → where it sits, for a code typed without its link (keys.table_code): items
        alike, (their template in the wire format, each one's (PK, table number)) — a 100,000-entry draw writes
        100,000 of them: as dicts, checked and encoded one by one, they were ~1 s of its CPU on the embedded
        store (store/embedded.py batch_put_alike)."""
        template = {"PK": {"S": None}, "SK": {"S": keys.TABLE_CODE_SK}, "kind": {"S": "table_code"},
                    "event_id": {"S": eid}, "round": {"N": str(n)}, "table": {"N": None}}
        mark, fills = keys.TABLE_CODE_MARK, []
        for t in tables:
            number = str(t["number"])
            fills.extend((mark + h, number) for h in t.get("code_hashes", ()))
        return template, fills

    @classmethod
    def code_requests(cls, eid: str, n: int, tables: list[dict]) -> list[dict]:
        """code_items as batch write requests."""
        return _filled(*cls.code_items(eid, n, tables))

    def find_code(self, code_hash: str) -> dict | None:
        item = self.t.get(keys.table_code(code_hash), consistent=False)
        return {"event_id": item["event_id"], "round": int(item["round"]), "table": int(item["table"])} if item else None

    def _batch_put(self, items: list[dict]) -> None:
        self._batch_write(self._put_requests(items))

    @staticmethod
    def _put_requests(items: list[dict]) -> list[dict]:
        return [{"PutRequest": {"Item": to_item(i)}} for i in items]

    def _batch_write(self, requests: list[dict], alike: tuple[dict, list[tuple]] | None = None) -> None:
        """Batches of 25 written by WRITERS threads at once (boto3 clients are thread-safe): 5,000 tables are 200
        round trips. Returns once every batch is written; raises (ServiceUnavailable when throttled throughout)
        otherwise, so a caller's transaction runs only after all of its items are in. On the embedded store, one
        call that writes them a few thousand to a SQLite transaction (store/embedded.py batch_write_all: an fsync
        each, not one per 25 items). `alike`: more items, (a template, each one's values) as code_items makes
        them, none of them at a key of `requests` (their writes may land in either order) — requests like the
        others on DynamoDB, rows made from the template on the embedded store (batch_put_alike)."""
        c = client()
        write_all, put_alike = getattr(c, "batch_write_all", None), getattr(c, "batch_put_alike", None)
        if alike is not None and (put_alike is None or write_all is None):
            requests, alike = [*requests, *_filled(*alike)], None
        if write_all is not None and (len(requests) > 25 or alike is not None):
            # a few calls at once: one thread's rows are made (Python) while another's are written (SQLite, without
            # the GIL) and concurrent commits share an fsync; whole batches of 25 a call, as DynamoDB's would be
            name = self.t.name
            calls = [partial(write_all, RequestItems={name: part})
                     for part in chunks(_in_key_order(requests), WRITE_ALL_REQUESTS)]
            if alike is not None:
                template, fills = alike
                calls += [partial(put_alike, TableName=name, Template=template, Fills=part)
                          for part in chunks(_in_key_order(fills, _fill_key(template)), WRITE_ALL_REQUESTS)]
            if calls:
                with ThreadPoolExecutor(max_workers=min(EMBEDDED_WRITERS, len(calls))) as pool:
                    for done in [pool.submit(call) for call in calls]:
                        done.result()
            return
        batches = list(chunks(requests, 25))
        if len(batches) <= 1:
            for batch in batches:
                self._write_batch(batch)
            return
        with ThreadPoolExecutor(max_workers=min(WRITERS, len(batches))) as pool:
            for done in [pool.submit(self._write_batch, b) for b in batches]:
                done.result()

    def _write_batch(self, batch: list[dict]) -> None:
        c = client()
        request = {self.t.name: batch}
        for attempt in range(10):
            resp = c.batch_write_item(RequestItems=request)
            request = resp.get("UnprocessedItems") or {}
            if not request:
                return
            time.sleep(0.01 * 2 ** attempt)   # throttled: back off before the rest
        raise errors.ServiceUnavailable()

    def get_round(self, eid: str, stage: int, n: int) -> tuple[dict | None, list[dict]]:
        doc, tables, _ = self.get_round_stamped(eid, stage, n)
        return doc, tables

    def get_round_stamped(self, eid: str, stage: int, n: int, tables_hint: int | None = None,
                          words: dict | None = None, read_only: bool = False) -> tuple[dict | None, list[dict], list | None]:
        """The round, its tables and its stamp as read (see `round_stamps`): the event key's query of its head, parts
        and rev counters, and a query of each table key the head names (keys.round_tables_partition), at once; given
        `tables_hint` (about how many tables there are at most, which a close knows from the field) the table keys'
        queries start before the head is read. The tables are parsed page by page as read (`_TablesRead`);
        `words`: the memo of repeated values they share (rounds read together share one); `read_only`: the tables
        are never changed in place by the caller, so equal small containers are shared too (_one_object_each)."""
        prefix = keys.round_prefix(stage, n)
        guess = keys.round_table_keys(tables_hint) if tables_hint else 0
        read = _TablesRead(words, read_only)
        with ThreadPoolExecutor(max_workers=READERS) as pool:
            early = [pool.submit(self._tables_under, pk, prefix, read.page)
                     for pk in keys.round_tables_partitions(eid, stage, n, guess)]
            own = self.t.query(keys.event_partition(eid), prefix, raw=True)   # head, parts, rev counters
            head_item = next((i for i in own if i["kind"]["S"] == "round"), None)
            later = [pool.submit(self._tables_under, pk, prefix, read.page)
                     for pk in keys.round_tables_partitions(eid, stage, n, _table_keys_of(head_item))[len(early):]]
            for f in [*early, *later]:
                f.result()
        head, blobs, revs = None, {}, 0
        left = []   # packs or table items also left under the event's key (a migration halfway): the moved ones win
        for item in own:   # raw items: the generic deserialiser is most of the time of 5,000 tables
            kind = item["kind"]["S"]
            if kind == "round":
                head = from_item(item)
            elif kind in ("tables", "table_item"):
                if item["SK"]["S"] not in read.sks:
                    left.append(item)
            elif kind == "rev":
                revs += int(item["rev"]["N"])
            elif kind == "part":
                blobs[item["SK"]["S"]] = item["blob"]["B"]
        if left:
            read.page(left)
        if head is None:   # tables without their round: a crashed draw's, which its retry cleans
            return None, [], None
        return self._round_doc(head, blobs), read.tables(), _stamp(head, revs)

    def _tables_under(self, pk: str, prefix: str, on_page=None) -> list[dict]:
        """Raw items under one of a round's table keys (its packs and table items, keys.round_tables_partition); a
        page's end cuts the rest in two queries at once (DynamoDB Local reads what is left of a range a page).
        `on_page`: each page handed to it as read instead (Table.query_ranges)."""
        return self.t.query_ranges(pk, [(prefix + keys.TABLE_PACK_MARK, prefix + "#~")],
                                   lambda lo, hi: _between_packs(prefix, lo, hi), workers=2, on_page=on_page)

    def round_stamps(self, eid: str, refs: list[dict]) -> dict[int, list]:
        """Round number → [rev, drawn_at] of each round named (small head items, one batch read): `rev` moves
        with every table written after the draw, `drawn_at` with a redraw; a summary stamped with them is
        current exactly while they are unchanged."""
        return {r["n"]: _stamp(item, revs) for r, (item, revs) in zip(refs, self._heads_and_revs(eid, refs)) if item}

    def _heads_and_revs(self, eid: str, refs: list[dict]) -> list[tuple[dict | None, int]]:
        """Each round's head item (batch reads) and the sum of its rev counters (keys.round_rev_shards): a query a
        round, the rounds at once — a query is billed on the size of all it read (16 counters: one read unit), a
        batch read per item (16 units a round, even for counters never written)."""
        heads = []
        for batch in chunks([keys.round_(eid, r["stage"], r["n"]) for r in refs], 100):
            heads.extend(self.t.get_many(batch))

        def revs(ref: dict) -> int:
            first, *_, last = keys.round_rev_shards(eid, ref["stage"], ref["n"])
            return sum(int(i["rev"]["N"]) for i in self.t.query(keys.event_partition(eid), between=(first["SK"], last["SK"]),
                                                                   raw=True, projection="rev"))
        live = [r for r, head in zip(refs, heads) if head]
        with ThreadPoolExecutor(max_workers=max(1, min(READERS, len(live)))) as pool:
            sums = dict(zip((id(r) for r in live), pool.map(revs, live)))
        return [(head, sums.get(id(r), 0)) for r, head in zip(refs, heads)]

    # -- a stage's running totals (services/running_totals.py): moved only by a close's transaction
    def totals(self, eid: str, stage: int) -> dict | None:
        item = self.t.get(keys.round_totals(eid, stage))
        if not item:
            return None
        return parts.unpack(item, self._blobs(item), parts.merge_round)

    def _round_doc(self, head: dict | None, blobs: dict[str, bytes]) -> dict | None:
        if head is None:
            return None
        want = [k["SK"] for k in parts.part_keys(head)]
        if any(sk not in blobs for sk in want):
            raise errors.Conflict("A round is missing one of its parts; try again.")
        return parts.unpack(head, [blobs[sk] for sk in want] if want else None, parts.merge_round)

    def get_table(self, eid: str, stage: int, n: int, t: int,
                  consistent: bool = True) -> tuple[dict | None, dict | None]:
        """The round's document and one of its tables (a phone's poll reads just these). For a round too long for one
        item the document comes without its long fields (byes, notes, bracket). The round head and the table's own
        item first, in one round trip; its pack only for a table nothing was written to since the draw — read
        eventually consistent (a pack never changes after its draw), strongly only if that finds no table (a draw
        a moment ago): a pack is 10–20 times a table item's size, and a result's request reads its table several
        times. `consistent=False`: the head and the table item too (half their units: a phone's view of its table,
        never a write's read; a round not found so, just drawn, is read again strongly)."""
        item_key = keys.table_item(eid, stage, n, t)
        want = [keys.round_(eid, stage, n), item_key]
        doc, written = self.t.get_many(want, projection=["data", "gone", "table_keys"], consistent=consistent)
        if doc is None and not consistent:
            doc, written = self.t.get_many(want, projection=["data", "gone", "table_keys"])
        if doc is None:
            return None, None
        data, _ = keys.table_attrs(t)
        pack_key = keys.table_pack(eid, stage, n, keys.table_pack_no(t))
        table = self._table_at(item_key, pack_key, data, written)
        if table is None and "table_keys" not in doc:   # a round of before its own table keys, not moved yet
            table = self._table_at(keys.legacy_tables_key(item_key, eid), keys.legacy_tables_key(pack_key, eid), data,
                                   self.t.get(keys.legacy_tables_key(item_key, eid), projection=["data", "gone"]))
        return json.loads(doc["data"]), (json.loads(table) if table else None)

    def table(self, eid: str, stage: int, n: int, t: int) -> dict | None:
        """One table as it is now (strongly consistent), without its round's head: what a writer checking that the
        table did not move on since it read it needs (not a whole get_table on the event's key)."""
        item_key = keys.table_item(eid, stage, n, t)
        table = self._table_at(item_key, keys.table_pack(eid, stage, n, keys.table_pack_no(t)), keys.table_attrs(t)[0],
                               self.t.get(item_key, projection=["data", "gone"]))
        return json.loads(table) if table else None

    def _table_at(self, item_key: dict, pack_key: dict, data: str, written: dict | None) -> str | None:
        if written:
            return None if written.get("gone") else written["data"]
        pack = self.t.get(pack_key, consistent=False, projection=[data])
        if not (pack and data in pack):
            pack = self.t.get(pack_key, projection=[data])
        return pack.get(data) if pack else None

    def close_round(self, eid: str, round_doc: dict, state: dict, expected_version: int,
                    totals: dict | None = None, audit: dict | None = None) -> None:
        """The closed round, the event state (no open round), the stage's running totals and the close's audit
        record together (the round's `rev` is kept). The totals' parts, like every part, are written first and
        never overwritten."""
        key = keys.round_(eid, round_doc["stage"], round_doc["number"])
        head, round_parts = parts.pack(key, round_doc, parts.split_round)
        state_parts, state_op = self._state_ops(eid, state, expected_version)
        ops = [self._doc_op(key, head), state_op]
        totals_parts = []
        if totals is not None:
            totals_key = keys.round_totals(eid, round_doc["stage"])
            totals_head, totals_parts = parts.pack(totals_key, totals, parts.split_totals)
            ops.append(Op.put({**totals_key, "kind": "totals", **totals_head}))
        self._batch_put([*round_parts, *state_parts, *totals_parts])
        self._transact_audited(eid, audit, ops)

    def rounds_for_publishing(self, eid: str, state: dict) -> list[tuple[dict, list[dict]]]:
        """Every round with its tables, reading only what changed since this process last read it: the round
        items come in one batch read with their `rev` (moved by every table write); a closed round whose rev
        and document are as cached is not read again (after one result, one round is re-read, not nine)."""
        refs = state.get("rounds", [])
        if not refs:
            return []
        out: list = []
        misses = []
        for ref, (item, revs) in zip(refs, self._heads_and_revs(eid, refs)):
            if not item:
                continue
            key = (self.t.name, eid, ref["stage"], ref["n"])
            stamp = (int(item.get("rev", 0)) + revs, item["data"], item.get("digest"))
            hit = _ROUND_CACHE.get(key)
            if hit and hit[0] == stamp:
                out.append((hit[1], hit[2]))
            else:
                misses.append((len(out), key, stamp, ref))
                out.append(None)
        # the rounds not cached read at once (a cold publish of nine 5,000-table rounds: one after another they
        # wait on each other's pages)
        words: dict = {}   # the rounds' repeated ids and words one object each, across the rounds too
        with ThreadPoolExecutor(max_workers=max(1, min(ROUNDS_AT_ONCE, len(misses)))) as pool:
            read = list(pool.map(lambda m: self.get_round_stamped(eid, m[3]["stage"], m[3]["n"], words=words,
                                                                  read_only=True)[:2], misses))
        for (at, key, stamp, _), (doc, tables) in zip(misses, read):
            if doc and doc.get("status") == "closed":
                _ROUND_CACHE[key] = (stamp, doc, tables)
                while len(_ROUND_CACHE) > 200:
                    _ROUND_CACHE.pop(next(iter(_ROUND_CACHE)))
            out[at] = (doc, tables)
        return out

    def round_revs(self, eid: str, refs: list[dict]) -> dict[tuple[int, int], tuple[int, str]]:
        """Each round's `rev` (moved by every table write) and document, in one batch read: a publisher holding
        the rounds tells from them which rounds had writes it was not told about."""
        return {(ref["stage"], ref["n"]): (int(item.get("rev", 0)) + revs, item["data"])
                for ref, (item, revs) in zip(refs, self._heads_and_revs(eid, refs)) if item}

    def all_rounds(self, eid: str) -> list[tuple[dict, list[dict]]]:
        """Every round with its tables, in order (a query of the event partition's ROUND# range, then the rounds'
        table keys at once)."""
        heads: dict[tuple[int, int], dict] = {}
        packs: dict[tuple[int, int], list[dict]] = {}
        written: dict[tuple[int, int], list[dict]] = {}
        blobs: dict[str, bytes] = {}
        # Raw items: skipping the generic deserialiser matters for events with thousands of tables. The event key's
        # (heads, parts, rev counters; a round's tables there until store/migrations.spread_round_tables moved
        # them), then every round's table keys at once (theirs first: a table moved and still left is read once).
        own = self.t.query(keys.event_partition(eid), keys.ROUND_PREFIX, raw=True)
        wanted = []
        for head in (i for i in own if i["kind"]["S"] == "round"):
            stage, n = (int(x) for x in head["SK"]["S"].split("#")[1:3])
            wanted += [(pk, keys.round_prefix(stage, n))
                       for pk in keys.round_tables_partitions(eid, stage, n, _table_keys_of(head))]
        with ThreadPoolExecutor(max_workers=max(1, min(READERS, len(wanted)))) as pool:
            spread = [i for items in pool.map(lambda w: self._tables_under(*w), wanted) for i in items]
        seen: set[str] = set()
        for item in [*spread, *own]:
            sk = item["SK"]["S"]
            if sk in seen:
                continue
            seen.add(sk)
            parts_ = sk.split("#")
            key = (int(parts_[1]), int(parts_[2]))
            kind = item["kind"]["S"]
            if kind == "round":
                heads[key] = from_item(item)
            elif kind == "tables":
                packs.setdefault(key, []).append(item)
            elif kind == "table_item":
                written.setdefault(key, []).append(item)
            elif kind == "part":
                blobs[sk] = item["blob"]["B"]
        return [(self._round_doc(heads[k], blobs), round_tables(packs.get(k, []), written.get(k, [])))
                for k in sorted(heads, key=lambda k: k[1])]

    # -- results
    def save_table(self, eid: str, stage: int, n: int, table: dict, expected_version: int, audit: dict) -> None:
        """A table's new result and its audit record, only if nobody changed the table since `expected_version`."""
        condition, values = _written_condition(expected_version)
        self._audited(eid, audit, [
            Op.put({**keys.table_item(eid, stage, n, table["number"]), "kind": "table_item",
                    "data": json.dumps(table, ensure_ascii=False, default=str), "version": table.get("version", 0)},
                   condition=condition, names=_WRITTEN_NAMES, values=values,
                   on_fail=lambda: errors.VersionConflict(
                       f"The result was changed by someone else (now version {expected_version + 1} or later); reload.")),
            # publishing's cache key, one of the round's REV_SHARDS counters (keys.round_rev)
            Op.update(keys.round_rev(eid, stage, n, table["number"]), "SET #k = :k ADD rev :one",
                      names={"#k": "kind"}, values={":k": "rev", ":one": 1})])

    def _audited(self, eid: str, record: dict, ops: list[Op]) -> None:
        """`ops` and the audit record of what they change, in one transaction that appends the record to the
        event's hash chain (store/audit_chain.py: retried if another record was appended meanwhile)."""
        audit_chain.append(self.t, eid, record, ops)

    # -- appeals (申诉): records with states, versioned like tables
    def create_appeal(self, appeal: dict, audit: dict) -> None:
        self._audited(appeal["event_id"], audit, [
            Op.put({**keys.appeal(appeal["event_id"], appeal["id"]), "kind": "appeal",
                    "data": json.dumps(appeal, ensure_ascii=False, default=str), "version": appeal["version"]},
                   condition="attribute_not_exists(PK)", on_fail=errors.DuplicateEntry),
            Op.put({**keys.appeal_pointer(appeal["id"]), "kind": "appeal_pointer", "event_id": appeal["event_id"]},
                   condition="attribute_not_exists(PK)", on_fail=errors.DuplicateEntry)])

    def save_appeal(self, appeal: dict, expected_version: int, audit: dict, extra: list[Op] = ()) -> None:
        self._audited(appeal["event_id"], audit, [
            Op.put({**keys.appeal(appeal["event_id"], appeal["id"]), "kind": "appeal",
                    "data": json.dumps(appeal, ensure_ascii=False, default=str), "version": appeal["version"]},
                   condition="version = :v", values={":v": expected_version},
                   on_fail=lambda: errors.VersionConflict("The appeal changed meanwhile; reload.")), *extra])

    def appeal(self, appeal_id: str) -> dict | None:
        pointer = self.t.get(keys.appeal_pointer(appeal_id))
        if not pointer:
            return None
        item = self.t.get(keys.appeal(pointer["event_id"], appeal_id))
        return json.loads(item["data"]) if item else None

    def appeals(self, eid: str, consistent: bool = True) -> list[dict]:
        """`consistent=False`: half the read units, for a view only (a phone's table page; never a decision's read)."""
        return [json.loads(i["data"]) for i in self.t.query(keys.event_partition(eid), keys.APPEAL_PREFIX,
                                                             consistent=consistent)]

    def add_audit(self, eid: str, record: dict) -> None:
        self._audited(eid, record, [])

    def audited_write(self, eid: str, record: dict, write: Callable[[list[Op]], None]) -> None:
        """Another repository's change and the audit record of it in one transaction (a crash between the two
        left a change the event's chain did not hold): `write(ops)` writes the change with `ops` (the record and
        its chain's head, written only if the head is as read) in its own transaction, after its own ops. It is
        called again with fresh ops when another record was appended meanwhile (the cancelled one wrote nothing);
        its own refusals raise as they would alone."""
        audit_chain.append(self.t, eid, record, write=write)

    def audit(self, eid: str, since: str | None = None) -> list[dict]:
        """The event's audit records in the order of their ids (ULIDs: time first); `since`: only those whose id
        sorts at or after it (what a publisher has not read yet)."""
        return [json.loads(i["data"]) for i in self.audit_items(eid, since)]

    def audit_items(self, eid: str, since: str | None = None) -> list[dict]:
        """The audit items as stored: the record (`data`) and, once chained, its published entry (`chain`, `seq`)."""
        if since is None:
            return self.t.query(keys.event_partition(eid), keys.AUDIT_PREFIX)
        return self.t.query(keys.event_partition(eid), between=(keys.AUDIT_PREFIX + since, keys.AUDIT_PREFIX + "~"))

    def audit_head(self, eid: str) -> tuple[int, str]:
        """(the records chained, the event's head: its one chain's last hash, or its lanes' auditchain.event_head);
        (0, the genesis hash) before the first of an event chained before lanes."""
        return audit_chain.event_head(eid, *self.audit_heads(eid))

    def audit_heads(self, eid: str) -> tuple[int, dict[int, tuple[int, str]]]:
        """(the event's chain format, {lane: (its last seq, its hash)}): store/audit_chain.heads."""
        return audit_chain.heads(self.t, eid)
