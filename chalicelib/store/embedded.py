"""The local and venue stages' store: DynamoDB's operations, as this code calls them through a boto3 client, on a
SQLite file inside the API's own process. No network port (nothing on the hall's Wi-Fi can reach it, no web page,
no CORS, no telemetry), and every acknowledged write is on disk first: WAL mode with synchronous=FULL, one SQLite
transaction (BEGIN IMMEDIATE … COMMIT) per write and per TransactWriteItems, the answer only after COMMIT returned
(docs/venue-store.md says why DynamoDB Local is neither private nor durable).

Same wire format in and out as boto3's client ({"S": …}, {"N": "…"}), same errors (ClientError subclasses with
botocore's `.response`: CancellationReasons, the item of ReturnValuesOnConditionCheckFailure), expressions parsed
and evaluated as DynamoDB does (store/expressions.py). Items are stored as their wire JSON beside their key columns;
keys are BLOBs of UTF-8, so sort keys order by UTF-8 bytes as DynamoDB's do.

Thread-safe (a pool of connections, each used by one thread at a time; this process's writers take turns under a
lock, other processes wait on SQLite's lock) and fork-safe (a forked child opens its own connections: SQLite's must
not cross a fork).
"""
from __future__ import annotations

import base64
import contextlib
import json
import os
import sqlite3
import threading
import time
import weakref
from typing import Any

from botocore.exceptions import ClientError

from . import expressions as ex
from .expressions import ValidationError

MAX_ITEM_BYTES = 400 * 1024
PAGE_BYTES = 1024 * 1024      # a Query's or Scan's page: DynamoDB stops reading at 1 MB
BUSY_TIMEOUT_MS = 5000        # another process writing (the runner's start-up beside the API)
WRITE_ALL_ROWS = 5000         # rows a SQLite transaction of batch_write_all: ~50 ms of the write lock, one fsync
_PUT_SQL = "INSERT OR REPLACE INTO items(tbl, pk, sk, gpk, gsk, item) VALUES (?, ?, ?, ?, ?, ?)"
_DELETE_SQL = "DELETE FROM items WHERE tbl = ? AND pk = ? AND sk = ?"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS tables(name TEXT PRIMARY KEY, definition TEXT NOT NULL, created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS items(tbl TEXT NOT NULL, pk BLOB NOT NULL, sk BLOB NOT NULL, gpk BLOB, gsk BLOB,
                                 item TEXT NOT NULL, PRIMARY KEY (tbl, pk, sk)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS items_gsi ON items(tbl, gpk, gsk) WHERE gpk IS NOT NULL;
CREATE TABLE IF NOT EXISTS imports(source TEXT PRIMARY KEY, items INTEGER NOT NULL, at REAL NOT NULL);
"""


# -- errors shaped as botocore's
class _Error(ClientError):
    code = "InternalServerError"

    def __init__(self, message: str, operation: str = "", **extra):
        super().__init__({"Error": {"Code": self.code, "Message": message}, **extra}, operation)


def _error(code: str) -> type:
    return type(code, (_Error,), {"code": code})


class Exceptions:
    ClientError = ClientError
    ConditionalCheckFailedException = _error("ConditionalCheckFailedException")
    TransactionCanceledException = _error("TransactionCanceledException")
    ResourceNotFoundException = _error("ResourceNotFoundException")
    ResourceInUseException = _error("ResourceInUseException")
    ValidationException = _error("ValidationException")
    ProvisionedThroughputExceededException = _error("ProvisionedThroughputExceededException")
    TransactionConflictException = _error("TransactionConflictException")
    InternalServerError = _error("InternalServerError")


class _Events:
    """botocore's event hooks, for the ones tests and benches attach (`provide-client-params.dynamodb.<Op>`,
    `before-call.dynamodb[.<Op>]` with `params` and `model.name`); a name matches its own and its prefixes'
    hooks, as botocore's do. dynamo.client()'s own hooks (the breaker, the fast parser) are boto3's only."""

    def __init__(self):
        self._hooks: dict[str, list] = {}

    def register(self, name: str, handler, *_, **__):
        self._hooks.setdefault(name, []).append(handler)

    def unregister(self, name: str, handler=None, *_, **__):
        hooks = self._hooks.get(name, [])
        if handler in hooks:
            hooks.remove(handler)

    def emit(self, kind: str, op: str, **kw) -> None:
        if not self._hooks:
            return
        for name in (kind, f"{kind}.dynamodb", f"{kind}.dynamodb.{op}"):
            for hook in list(self._hooks.get(name, ())):
                hook(event_name=f"{kind}.dynamodb.{op}", **kw)


class _Meta:
    region_name = "local"
    endpoint_url = None

    def __init__(self):
        self.events = _Events()


class _Model:
    def __init__(self, name: str):
        self.name = name


def _operation(name: str):
    """A client operation: its hooks told first, as botocore's are."""
    def wrap(fn):
        def call(self, **params):
            self.meta.events.emit("provide-client-params", name, params=params, model=_Model(name))
            self.meta.events.emit("before-call", name, params=params, model=_Model(name))
            return fn(self, **params)
        call.__name__, call.__doc__ = fn.__name__, fn.__doc__
        return call
    return wrap


class _Waiter:
    def __init__(self, client: EmbeddedClient):
        self.client = client

    def wait(self, TableName: str, **_):
        self.client.describe_table(TableName=TableName)


# -- storing items: JSON of the wire format; binaries as base64 inside it
def _b64(x):
    if isinstance(x, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(x)).decode()
    raise TypeError(f"not storable: {type(x)}")


# json.dumps(item, ensure_ascii=False, separators=(",", ":"), default=_b64) with its encoder made once, not once an
# item (a 100,000-entry draw stores ~103,000 items)
_dump = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=_b64).encode


def _load(text: str) -> dict:
    item = json.loads(text)
    if '"B' in text:
        for v in item.values():
            _unb64(v)
    return item


def _unb64(v: dict) -> None:
    if "B" in v and isinstance(v["B"], str):
        v["B"] = base64.b64decode(v["B"])
    elif "BS" in v:
        v["BS"] = [base64.b64decode(b) for b in v["BS"]]
    elif "M" in v and isinstance(v["M"], dict):
        for e in v["M"].values():
            _unb64(e)
    elif "L" in v and isinstance(v["L"], list):
        for e in v["L"]:
            _unb64(e)


def _checked(item: dict) -> dict:
    """An item's values checked (ex.check_value) and as stored (ex.normalised); a string, or a whole number
    already in DynamoDB's form (most values: a draw's tables, versions and codes), as it is, without the calls; an
    item of only such values is itself (nothing here or after changes an item)."""
    for v in item.values():
        if not (type(v) is dict and len(v) == 1 and (type(v.get("S")) is str or _plain_whole(v.get("N")))):
            break
    else:
        return item
    out = {}
    for k, v in item.items():
        if type(v) is dict and len(v) == 1 and (type(v.get("S")) is str or _plain_whole(v.get("N"))):
            out[k] = v
        else:
            ex.check_value(v)
            out[k] = ex.normalised(v)
    return out


def _plain_whole(x) -> bool:
    """A number's text that ex.normalised keeps as it is: ASCII digits, no leading zero, within 38 digits."""
    return type(x) is str and 0 < len(x) <= 38 and x.isascii() and x.isdigit() and (x[0] != "0" or x == "0")


class _TableInfo:
    def __init__(self, name: str, definition: dict):
        self.name, self.definition = name, definition
        schema = {k["KeyType"]: k["AttributeName"] for k in definition["KeySchema"]}
        self.hash, self.range = schema["HASH"], schema.get("RANGE")
        gsis = definition.get("GlobalSecondaryIndexes") or []
        self.index = gsis[0]["IndexName"] if gsis else None
        gschema = {k["KeyType"]: k["AttributeName"] for k in gsis[0]["KeySchema"]} if gsis else {}
        self.ghash, self.grange = gschema.get("HASH"), gschema.get("RANGE")

    @property
    def key_names(self) -> tuple:
        return (self.hash, self.range)

    def key_of(self, item: dict) -> dict:
        return {self.hash: item[self.hash], self.range: item[self.range]}

    def check_key(self, key: dict) -> tuple[bytes, bytes]:
        if set(key) != {self.hash, self.range}:
            raise ValidationError("The provided key element does not match the schema")
        return self._key_bytes(key[self.hash], self.hash), self._key_bytes(key[self.range], self.range)

    @staticmethod
    def _key_bytes(v: Any, name: str) -> bytes:
        if not isinstance(v, dict) or set(v) != {"S"}:
            raise ValidationError(f"One or more parameter values were invalid: Type mismatch for key {name} "
                                  "expected: S")
        if v["S"] == "":
            raise ValidationError("One or more parameter values are not valid. The AttributeValue for a key "
                                  f"attribute cannot contain an empty string value. Key: {name}")
        return v["S"].encode()

    def index_keys(self, item: dict) -> tuple[bytes | None, bytes | None]:
        if not self.index or self.ghash not in item or self.grange not in item:
            return None, None
        return self._key_bytes(item[self.ghash], self.ghash), self._key_bytes(item[self.grange], self.grange)


_quoted = json.encoder.encode_basestring   # a string's JSON as _dump writes it (not ASCII-escaped), quoted: C


class _Alike:
    """Items alike (EmbeddedClient.batch_put_alike): the template's JSON made once and cut at its slots, each item's
    row that JSON with its values put in and its key taken from them; what _put_row would make of the whole item,
    with its checks (tests/unit/test_embedded_store.py holds the two equal). An item outside the plain case (a
    value not a string, a number not in DynamoDB's own form, an empty key, a row that might be over 400 KB) is
    made whole and goes through _put_row itself."""

    def __init__(self, table: _TableInfo, template: dict):
        self.table, self.template = table, template
        self.names = [k for k, v in template.items() if type(v) is dict and len(v) == 1 and None in v.values()]
        self.types = [next(iter(template[k])) for k in self.names]
        slot_of = {k: i for i, k in enumerate(self.names)}
        constants = _checked({k: v for k, v in template.items() if k not in slot_of})   # checked and normalised once
        marks = [f"\0slot{i}\0" for i in range(len(self.names))]
        text = _dump({k: ({self.types[slot_of[k]]: marks[slot_of[k]]} if k in slot_of else constants[k]) for k in template})
        quoted_marks = [_quoted(m) for m in marks]
        self.fast = all(t in ("S", "N") for t in self.types) and all(text.count(m) == 1 for m in quoted_marks)
        self.pieces = []
        for m in quoted_marks:
            head, _, text = text.partition(m)
            self.pieces.append(head)
        self.pieces.append(text)

        def where(name: str | None):   # a key attribute: its slot, or its constant's bytes (None: not in the item)
            if name in slot_of:
                self.fast &= self.types[slot_of[name]] == "S"
                return slot_of[name]
            if name in constants:
                v = constants[name]
                self.fast &= type(v) is dict and set(v) == {"S"} and v["S"] != ""
                return v["S"].encode() if self.fast else None
            return None
        self.pk, self.sk = where(table.hash), where(table.range)
        self.fast &= self.pk is not None and self.sk is not None
        self.gpk, self.gsk = where(table.ghash), where(table.grange)
        if self.gpk is None or self.gsk is None:   # an item without both index keys is not in the index
            self.gpk = self.gsk = None

    def row(self, fill: tuple) -> tuple:
        if not self.fast or len(fill) != len(self.names):
            return self._whole(fill)
        pieces, types = self.pieces, self.types
        parts = [pieces[0]]
        for k, v in enumerate(fill):
            if type(v) is not str or (types[k] == "N" and not _plain_whole(v)):
                return self._whole(fill)
            parts.append(_quoted(v))
            parts.append(pieces[k + 1])
        text = "".join(parts)
        if len(text) * 4 > MAX_ITEM_BYTES:   # might be over: counted exactly
            return self._whole(fill)
        keys = []
        for at in (self.pk, self.sk, self.gpk, self.gsk):
            if type(at) is int:
                if fill[at] == "":
                    return self._whole(fill)
                at = fill[at].encode()
            keys.append(at)
        return (self.table.name, *keys, text)

    def _whole(self, fill: tuple) -> tuple:
        if len(fill) != len(self.names):
            raise ValidationError(f"an item alike fills the template's {len(self.names)} slots")
        item = dict(self.template)
        for name, t, v in zip(self.names, self.types, fill):
            item[name] = {t: v}
        return EmbeddedClient._put_row(self.table, item)


class EmbeddedClient:
    """A boto3-DynamoDB-client look-alike over one SQLite file."""

    exceptions = Exceptions
    embedded = True

    def __init__(self, path: str):
        self.path = os.path.abspath(path)
        self._pid = os.getpid()
        self.meta = _Meta()
        self._write_lock = threading.Lock()     # held by the writer committing a batch
        self._pending_lock = threading.Lock()
        self._pending: list[_Job] = []
        self._tables: dict[str, _TableInfo] = {}
        self._idle_lock = threading.Lock()
        self._idle: list[sqlite3.Connection] = []
        self._all: list[sqlite3.Connection] = []
        folder = os.path.dirname(self.path)
        os.makedirs(folder, mode=0o700, exist_ok=True)
        os.chmod(folder, 0o700)
        # The file made 0600 before SQLite opens it: its -wal and -shm files take the database file's mode.
        created = not os.path.exists(self.path)
        os.close(os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600))
        os.chmod(self.path, 0o600)
        if created:   # the new file's name on disk too, before anything is acknowledged into it (a power cut)
            fd = os.open(folder, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        with self._borrow() as conn:
            conn.executescript(_SCHEMA)

    # -- connections: a pool, each connection used by one thread at a time and handed back, never closed while the
    # client lives (SQLite keeps a closed connection's file open while others in the process hold locks on the
    # file: a connection per short-lived thread — /health, parallel reads — was a descriptor leaked each time)
    @contextlib.contextmanager
    def _borrow(self):
        if os.getpid() != self._pid:
            raise RuntimeError("an embedded store client used across fork(): make a new one in the child")
        with self._idle_lock:
            conn = self._idle.pop() if self._idle else None
        if conn is None:
            conn = self._open()
        try:
            yield conn
        finally:
            if conn.in_transaction:   # never handed on mid-transaction
                conn.execute("ROLLBACK")
            with self._idle_lock:
                self._idle.append(conn)

    def _open(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False,
                               timeout=BUSY_TIMEOUT_MS / 1000, factory=_Connection)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")   # the WAL is on disk before COMMIT returns
        conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        with self._idle_lock:
            self._all.append(conn)
        _LIVE.add(conn)
        return conn

    def _one(self, sql: str, args: tuple = ()):
        with self._borrow() as conn:
            return conn.execute(sql, args).fetchone()

    def close(self) -> None:
        """Closes every connection this client opened (in the process that opened them only)."""
        if os.getpid() != self._pid:
            return
        with self._idle_lock:
            conns, self._all, self._idle = self._all, [], []
        for conn in conns:
            conn.close()

    def _write(self, op: str, fn):
        """fn(conn) inside a SQLite write transaction, committed (on disk) before this returns.

        Group commit: writers that arrive while another's COMMIT waits on its fsync are run together by the next
        of them, each in a savepoint of one transaction (a failed one undone alone, the others' writes seen in
        order), so one fsync acknowledges them all. Each still answers only after that COMMIT."""
        job = _Job(fn)
        with self._pending_lock:
            self._pending.append(job)
        with self._write_lock:
            if not job.done:
                with self._pending_lock:
                    batch, self._pending = self._pending, []
                try:
                    self._run(batch)
                except BaseException as exc:   # noqa: BLE001 — before or instead of COMMIT: no writer of the batch is acknowledged
                    error = _unavailable(exc) if isinstance(exc, sqlite3.OperationalError) else exc
                    for other in batch:
                        if not other.done:
                            other.finish(error=error)
        if job.error is not None:
            raise job.error
        return job.result

    def _run(self, batch: list[_Job]) -> None:
        with self._borrow() as conn:
            self._run_on(conn, batch)

    def _run_on(self, conn, batch: list[_Job]) -> None:
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            for job in batch:
                job.finish(error=_unavailable(exc))
            return
        try:
            for k, job in enumerate(batch):
                conn.execute(f"SAVEPOINT w{k}")
                try:
                    job.result = job.fn(conn)
                    conn.execute(f"RELEASE w{k}")
                except BaseException as exc:   # noqa: BLE001 — this write alone is undone and answers its error
                    conn.execute(f"ROLLBACK TO w{k}")
                    conn.execute(f"RELEASE w{k}")
                    job.error = exc
            conn.execute("COMMIT")
        except sqlite3.OperationalError as exc:   # the disk full or failing: nothing of the batch was written
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            for job in batch:
                job.finish(error=_unavailable(exc))
            return
        for job in batch:
            job.finish()

    def _table(self, name: str, op: str = "") -> _TableInfo:
        info = self._tables.get(name)
        if info is None:
            row = self._one("SELECT definition FROM tables WHERE name = ?", (name,))
            if row is None:
                raise Exceptions.ResourceNotFoundException("Requested resource not found", op)
            info = self._tables[name] = _TableInfo(name, json.loads(row[0]))
        return info

    def _read(self, conn, table: _TableInfo, pk: bytes, sk: bytes) -> dict | None:
        row = conn.execute("SELECT item FROM items WHERE tbl = ? AND pk = ? AND sk = ?",
                           (table.name, pk, sk)).fetchone()
        return _load(row[0]) if row else None

    def _store(self, conn, table: _TableInfo, item: dict) -> None:
        conn.execute(_PUT_SQL, self._row(table, item))

    @staticmethod
    def _row(table: _TableInfo, item: dict, key: tuple[bytes, bytes] | None = None) -> tuple:
        """An item's row as stored (its size checked): table, key, index key, its JSON."""
        text = _dump(item)
        # the item's JSON in UTF-8 is never smaller than its size as DynamoDB counts it (every name and value is in
        # it, strings escaped, numbers as digits, blobs in base64), and a character is at most 4 bytes: counted
        # exactly only when it might be over
        if len(text) * 4 > MAX_ITEM_BYTES and ex.item_size(item) > MAX_ITEM_BYTES:
            raise ValidationError("Item size has exceeded the maximum allowed size")
        pk, sk = key or table.check_key(table.key_of(item))
        gpk, gsk = table.index_keys(item)
        return table.name, pk, sk, gpk, gsk, text

    @staticmethod
    def _put_row(table: _TableInfo, item: dict) -> tuple:
        """A put's item checked (values, key, size) and made into its row, as _row's."""
        item = _checked(item)
        if table.hash not in item or table.range not in item:
            raise ValidationError("One or more parameter values were invalid: Missing the key in the item")
        return EmbeddedClient._row(table, item, table.check_key(table.key_of(item)))

    def _remove(self, conn, table: _TableInfo, pk: bytes, sk: bytes) -> None:
        conn.execute(_DELETE_SQL, (table.name, pk, sk))

    # -- the table's definition
    @_operation("CreateTable")
    def create_table(self, TableName: str, KeySchema: list, AttributeDefinitions: list,
                     GlobalSecondaryIndexes: list | None = None, **_) -> dict:
        types = {a["AttributeName"]: a["AttributeType"] for a in AttributeDefinitions}
        key_attrs = [k["AttributeName"] for k in KeySchema]
        gsis = GlobalSecondaryIndexes or []
        if len(gsis) > 1 or len(key_attrs) != 2 or any(
                types.get(a) != "S" for a in [*key_attrs, *(k["AttributeName"] for g in gsis for k in g["KeySchema"])]):
            raise _validation("the embedded store keeps tables of string hash and sort keys and at most one index",
                              "CreateTable")
        definition = {"TableName": TableName, "KeySchema": KeySchema, "AttributeDefinitions": AttributeDefinitions,
                      "GlobalSecondaryIndexes": gsis}

        def create(conn):
            if conn.execute("SELECT 1 FROM tables WHERE name = ?", (TableName,)).fetchone():
                raise Exceptions.ResourceInUseException(f"Table already exists: {TableName}", "CreateTable")
            conn.execute("INSERT INTO tables(name, definition, created) VALUES (?, ?, ?)",
                         (TableName, json.dumps(definition), time.time()))
        self._write("CreateTable", create)
        return {"TableDescription": self._description(TableName)}

    def _description(self, name: str) -> dict:
        info = self._table(name, "DescribeTable")
        count = self._one("SELECT count(*) FROM items WHERE tbl = ?", (name,))[0]
        return {**info.definition, "TableStatus": "ACTIVE", "ItemCount": count,
                "TableArn": f"arn:aws:dynamodb:local:000000000000:table/{name}"}

    @_operation("DescribeTable")
    def describe_table(self, TableName: str) -> dict:
        return {"Table": self._description(TableName)}

    @_operation("DeleteTable")
    def delete_table(self, TableName: str) -> dict:
        description = self._description(TableName)

        def drop(conn):
            conn.execute("DELETE FROM items WHERE tbl = ?", (TableName,))
            conn.execute("DELETE FROM tables WHERE name = ?", (TableName,))
        self._write("DeleteTable", drop)
        self._tables.pop(TableName, None)
        return {"TableDescription": description}

    @_operation("ListTables")
    def list_tables(self, **_) -> dict:
        with self._borrow() as conn:
            return {"TableNames": [r[0] for r in conn.execute("SELECT name FROM tables ORDER BY name")]}

    @_operation("UpdateTimeToLive")
    def update_time_to_live(self, TableName: str, TimeToLiveSpecification: dict, **_) -> dict:
        """Accepted and kept as DynamoDB Local does: nothing here relies on expired items going away."""
        self._table(TableName, "UpdateTimeToLive")
        return {"TimeToLiveSpecification": TimeToLiveSpecification}

    def get_waiter(self, name: str) -> _Waiter:
        return _Waiter(self)

    # -- an earlier store's data carried over (scripts/store_import.py)
    def imported(self, source: str) -> bool:
        return self._one("SELECT 1 FROM imports WHERE source = ?", (source,)) is not None

    def import_tables(self, tables: list[tuple[dict, list[dict]]], source: str) -> int:
        """Tables (a CreateTable definition and items) written with the marker `source` in one transaction: all or
        nothing, and never twice. An item already here (same key) is kept as it is."""
        infos = []
        for definition, items in tables:
            known = self._one("SELECT definition FROM tables WHERE name = ?", (definition["TableName"],))
            infos.append((definition, items, known))

        def run(conn):
            if conn.execute("SELECT 1 FROM imports WHERE source = ?", (source,)).fetchone():
                return 0
            count = 0
            for definition, items, known in infos:
                if not known:
                    conn.execute("INSERT INTO tables(name, definition, created) VALUES (?, ?, ?)",
                                 (definition["TableName"], json.dumps(definition), time.time()))
                table = _TableInfo(definition["TableName"], definition if not known else json.loads(known[0]))
                for item in items:
                    pk, sk = table.check_key(table.key_of(item))
                    if self._read(conn, table, pk, sk) is None:
                        self._store(conn, table, item)
                        count += 1
            conn.execute("INSERT INTO imports(source, items, at) VALUES (?, ?, ?)", (source, count, time.time()))
            return count
        return self._write("Import", run)

    # -- single items
    @_operation("GetItem")
    def get_item(self, TableName: str, Key: dict, ConsistentRead: bool = False, ProjectionExpression: str | None = None,
                 ExpressionAttributeNames: dict | None = None, **_) -> dict:
        with _answers("GetItem"):
            table = self._table(TableName, "GetItem")
            projection = ex.parse_projection(ProjectionExpression) if ProjectionExpression else None
            ex.check_placeholders([projection] if projection else [], ExpressionAttributeNames, None)
            key = table.check_key(Key)
            with self._borrow() as conn:
                item = self._read(conn, table, *key)
            if item is None:
                return {}
            return {"Item": ex.project(item, projection, ExpressionAttributeNames or {}) if projection else item}

    @_operation("PutItem")
    def put_item(self, TableName: str, Item: dict, **kw) -> dict:
        with _answers("PutItem"):
            table = self._table(TableName, "PutItem")
            check = self._prepare_put(table, Item, kw)

            def put(conn):
                old = self._read(conn, table, *check["key"])
                self._check(check, old, "PutItem")
                self._store(conn, table, check["item"])
                return old
            old = self._write("PutItem", put)
            return {"Attributes": old} if kw.get("ReturnValues") == "ALL_OLD" and old else {}

    @_operation("DeleteItem")
    def delete_item(self, TableName: str, Key: dict, **kw) -> dict:
        with _answers("DeleteItem"):
            table = self._table(TableName, "DeleteItem")
            check = self._prepare(table, Key, kw)

            def delete(conn):
                old = self._read(conn, table, *check["key"])
                self._check(check, old, "DeleteItem")
                self._remove(conn, table, *check["key"])
                return old
            old = self._write("DeleteItem", delete)
            return {"Attributes": old} if kw.get("ReturnValues") == "ALL_OLD" and old else {}

    @_operation("UpdateItem")
    def update_item(self, TableName: str, Key: dict, **kw) -> dict:
        with _answers("UpdateItem"):
            table = self._table(TableName, "UpdateItem")
            check = self._prepare(table, Key, kw, update=kw.get("UpdateExpression"))

            def update(conn):
                old = self._read(conn, table, *check["key"])
                self._check(check, old, "UpdateItem")
                new, touched = self._updated(table, check, old, Key)
                self._store(conn, table, new)
                return old, new, touched
            old, new, touched = self._write("UpdateItem", update)
            returns = kw.get("ReturnValues", "NONE")
            if returns == "ALL_NEW":
                return {"Attributes": new}
            if returns == "ALL_OLD":
                return {"Attributes": old} if old else {}
            if returns == "UPDATED_NEW":
                return {"Attributes": {k: v for k, v in new.items() if k in touched}}
            if returns == "UPDATED_OLD":
                return {"Attributes": {k: v for k, v in (old or {}).items() if k in touched}} if old else {}
            return {}

    # conditions and updates of one write, parsed before the write begins (a bad request never takes the lock)
    def _prepare(self, table: _TableInfo, key: dict, kw: dict, update: str | None = None,
                 item: dict | None = None) -> dict:
        known = {"ConditionExpression", "ExpressionAttributeNames", "ExpressionAttributeValues", "ReturnValues",
                 "ReturnValuesOnConditionCheckFailure", "UpdateExpression", "TableName", "Key", "Item",
                 "ReturnConsumedCapacity", "ReturnItemCollectionMetrics"}
        if unknown := set(kw) - known:
            raise ValidationError(f"the embedded store does not take {sorted(unknown)}")
        parsed = []
        condition = ex.parse_condition(kw["ConditionExpression"]) if kw.get("ConditionExpression") else None
        if condition:
            parsed.append(condition)
        upd = ex.parse_update(update) if update else None
        if upd:
            parsed.append(upd)
        names, values = kw.get("ExpressionAttributeNames"), kw.get("ExpressionAttributeValues")
        ex.check_placeholders(parsed, names, values)
        values = {k: ex.normalised(v) for k, v in (values or {}).items()}   # stored as DynamoDB would keep them
        return {"key": table.check_key(key), "condition": condition, "update": upd, "names": names or {},
                "values": values or {}, "item": item,
                "old_on_fail": kw.get("ReturnValuesOnConditionCheckFailure") == "ALL_OLD"}

    def _prepare_put(self, table: _TableInfo, item: dict, kw: dict) -> dict:
        if table.hash not in item or table.range not in item:
            raise ValidationError("One or more parameter values were invalid: Missing the key in the item")
        for v in item.values():
            ex.check_value(v)
        item = {k: ex.normalised(v) for k, v in item.items()}
        return self._prepare(table, table.key_of(item), kw, item=item)

    def _check(self, check: dict, old: dict | None, op: str) -> None:
        if check["condition"] and not ex.evaluate(check["condition"].tree, old or {}, check["names"], check["values"]):
            extra = {"Item": old} if check["old_on_fail"] and old else {}
            raise Exceptions.ConditionalCheckFailedException("The conditional request failed", op, **extra)

    def _updated(self, table: _TableInfo, check: dict, old: dict | None, key: dict) -> tuple[dict, set]:
        base = old if old is not None else dict(key)
        if check["update"] is None:
            return base, set()
        new, touched = ex.apply_update(check["update"], base, check["names"], check["values"], table.key_names)
        for name in (table.ghash, table.grange):
            if name and name in new:
                table._key_bytes(new[name], name)
        return new, touched

    # -- reads of many
    @_operation("Query")
    def query(self, TableName: str, KeyConditionExpression: str, **kw) -> dict:
        with _answers("Query"):
            table = self._table(TableName, "Query")
            index = kw.get("IndexName")
            if index is not None and index != table.index:
                raise ValidationError(f"The table does not have the specified index: {index}")
            if index and kw.get("ConsistentRead"):
                raise ValidationError("Consistent reads are not supported on global secondary indexes")
            hash_name, range_name = (table.ghash, table.grange) if index else (table.hash, table.range)
            key_parsed = ex.parse_condition(KeyConditionExpression)
            parsed, filt, projection = self._many_parsed(kw, [key_parsed])
            names, values = kw.get("ExpressionAttributeNames") or {}, kw.get("ExpressionAttributeValues") or {}
            hash_value, cond = ex.key_condition(key_parsed, hash_name, range_name, names, values)
            pk_col, sk_col = ("gpk", "gsk") if index else ("pk", "sk")
            sql = [f"SELECT pk, sk, item FROM items WHERE tbl = ? AND {pk_col} = ?"]
            args: list = [TableName, table._key_bytes(hash_value, hash_name)]
            if cond:
                op, *operands = cond
                if any(set(v) != {"S"} for v in operands):
                    raise ValidationError("One or more parameter values were invalid: Condition parameter type does "
                                          "not match schema type")
                raw = [v["S"].encode() for v in operands]
                if op == "between":
                    sql.append(f"AND {sk_col} BETWEEN ? AND ?")
                    args += raw
                elif op == "begins_with":   # bounded above (no UTF-8 byte is 0xFF): not the partition's rest
                    sql.append(f"AND {sk_col} >= ? AND {sk_col} < ? AND substr({sk_col}, 1, ?) = ?")
                    args += [raw[0], raw[0] + b"\xff", len(raw[0]), raw[0]]
                else:
                    sql.append(f"AND {sk_col} {op} ?")
                    args.append(raw[0])
            forward = kw.get("ScanIndexForward", True)
            start = kw.get("ExclusiveStartKey")
            order_cols = [sk_col, "pk", "sk"] if index else ["sk"]
            if start:
                start_vals = ([start[table.grange], start[table.hash], start[table.range]] if index
                              else [start[table.range]])
                marks = ", ".join("?" for _ in order_cols)
                sql.append(f"AND ({', '.join(order_cols)}) {'>' if forward else '<'} ({marks})")
                args += [v["S"].encode() for v in start_vals]
            sql.append("ORDER BY " + ", ".join(f"{c} {'ASC' if forward else 'DESC'}" for c in order_cols))
            return self._page(" ".join(sql), args, table, kw, filt, projection, index)

    @_operation("Scan")
    def scan(self, TableName: str, **kw) -> dict:
        with _answers("Scan"):
            table = self._table(TableName, "Scan")
            parsed, filt, projection = self._many_parsed(kw, [])
            sql, args = "SELECT pk, sk, item FROM items WHERE tbl = ?", [TableName]
            if start := kw.get("ExclusiveStartKey"):
                sql += " AND (pk, sk) > (?, ?)"
                args += [start[table.hash]["S"].encode(), start[table.range]["S"].encode()]
            return self._page(sql + " ORDER BY pk, sk", args, table, kw, filt, projection, None)

    def _many_parsed(self, kw: dict, parsed: list) -> tuple:
        known = {"IndexName", "ConsistentRead", "ScanIndexForward", "ExclusiveStartKey", "Limit", "Select",
                 "ProjectionExpression", "FilterExpression", "ExpressionAttributeNames", "ExpressionAttributeValues",
                 "ReturnConsumedCapacity"}
        if unknown := set(kw) - known:
            raise ValidationError(f"the embedded store does not take {sorted(unknown)}")
        filt = ex.parse_condition(kw["FilterExpression"]) if kw.get("FilterExpression") else None
        projection = ex.parse_projection(kw["ProjectionExpression"]) if kw.get("ProjectionExpression") else None
        parsed = [*parsed, *(p for p in (filt, projection) if p)]
        ex.check_placeholders(parsed, kw.get("ExpressionAttributeNames"), kw.get("ExpressionAttributeValues"))
        if kw.get("Select") not in (None, "ALL_ATTRIBUTES", "COUNT", "SPECIFIC_ATTRIBUTES"):
            raise ValidationError(f"the embedded store does not take Select={kw.get('Select')}")
        if kw.get("Limit") is not None and int(kw["Limit"]) < 1:
            raise ValidationError("1 validation error detected: Value at 'limit' failed to satisfy constraint: "
                                  "Member must have value greater than or equal to 1")
        return parsed, filt, projection

    def _page(self, sql: str, args: list, table: _TableInfo, kw: dict, filt, projection, index) -> dict:
        limit = kw.get("Limit")
        names, values = kw.get("ExpressionAttributeNames") or {}, kw.get("ExpressionAttributeValues") or {}
        count_only = kw.get("Select") == "COUNT"
        with self._borrow() as conn:
            return self._page_on(conn, sql, args, table, kw, filt, projection, index, limit, names, values, count_only)

    def _page_on(self, conn, sql, args, table, kw, filt, projection, index, limit, names, values, count_only) -> dict:
        items, scanned, size, last = [], 0, 0, None
        cur = conn.execute(sql, args)
        try:
            for row in cur:
                text = row[2]
                item = _load(text)
                scanned += 1
                size += len(text)
                if filt is None or ex.evaluate(filt.tree, item, names, values):
                    items.append(item if projection is None or count_only else ex.project(item, projection, names))
                if (limit and scanned >= limit) or size >= PAGE_BYTES:
                    # a key to go on from only when there is more to read (as DynamoDB Local does at a Limit)
                    last = item if next(cur, None) is not None else None
                    break
        finally:
            cur.close()
        out: dict[str, Any] = {"Count": len(items), "ScannedCount": scanned}
        if not count_only:
            out["Items"] = items
        if last is not None:
            lek = table.key_of(last)
            if index:
                lek.update({table.ghash: last[table.ghash], table.grange: last[table.grange]})
            out["LastEvaluatedKey"] = lek
        return out

    @_operation("BatchGetItem")
    def batch_get_item(self, RequestItems: dict, **_) -> dict:
        with _answers("BatchGetItem"):
            if sum(len(r["Keys"]) for r in RequestItems.values()) > 100:
                raise ValidationError("Too many items requested for the BatchGetItem call")
            out: dict[str, list] = {}
            wanted = []
            for name, request in RequestItems.items():
                table = self._table(name, "BatchGetItem")
                projection = (ex.parse_projection(request["ProjectionExpression"])
                              if request.get("ProjectionExpression") else None)
                ex.check_placeholders([projection] if projection else [], request.get("ExpressionAttributeNames"), None)
                keys = [table.check_key(k) for k in request["Keys"]]
                if len(set(keys)) != len(keys):
                    raise ValidationError("Provided list of item keys contains duplicates")
                wanted.append((name, table, projection, request.get("ExpressionAttributeNames") or {}, keys))
            with self._borrow() as conn:
                conn.execute("BEGIN")   # one snapshot for the whole batch
                try:
                    for name, table, projection, names, keys in wanted:
                        found = out.setdefault(name, [])
                        for pk, sk in keys:
                            item = self._read(conn, table, pk, sk)
                            if item is not None:
                                found.append(ex.project(item, projection, names) if projection else item)
                finally:
                    conn.execute("COMMIT")
            return {"Responses": out, "UnprocessedKeys": {}}

    # -- writes of many
    @_operation("BatchWriteItem")
    def batch_write_item(self, RequestItems: dict, **_) -> dict:
        with _answers("BatchWriteItem"):
            if sum(len(r) for r in RequestItems.values()) > 25:
                raise ValidationError("Too many items requested for the BatchWriteItem call")
            rows = self._batch_rows(RequestItems)
            self._write("BatchWriteItem", lambda conn: self._write_rows(conn, rows))
            return {"UnprocessedItems": {}}

    @_operation("BatchWriteItem")
    def batch_write_all(self, RequestItems: dict, **_) -> dict:
        """This store's own: BatchWriteItem without its bound of 25 (a 100,000-entry draw's 102,500 items), each
        request checked as batch_write_item checks it (duplicates within each 25, as the batches DynamoDB would be
        sent), then written in SQLite transactions of WRITE_ALL_ROWS rows: one fsync each instead of one a batch of
        25 (4,100 of them were most of such a draw's time), the write lock held a moment each so other writers
        interleave. Like batch writes sent one after another, each transaction is all or nothing and one failing
        raises with those before it written (callers write such items first and idempotently, before the
        transaction that makes them count)."""
        with _answers("BatchWriteItem"):
            rows = []
            for name, requests in RequestItems.items():
                for k in range(0, len(requests), 25):
                    rows += self._batch_rows({name: requests[k:k + 25]})
            for k in range(0, len(rows), WRITE_ALL_ROWS):
                chunk = rows[k:k + WRITE_ALL_ROWS]
                self._write("BatchWriteItem", lambda conn, chunk=chunk: self._write_rows(conn, chunk))
            return {"UnprocessedItems": {}}

    @_operation("BatchWriteItem")
    def batch_put_alike(self, TableName: str, Template: dict, Fills: list[tuple], **_) -> dict:
        """This store's own: the puts of many items alike, written as batch_write_all writes its requests. `Template`
        is an item in the wire format whose slot values ({"S": None} or {"N": None}) each item fills, in the
        template's order, from its tuple in `Fills`. Every item is checked as batch_write_item checks it (values,
        sizes, keys; a key twice within each 25 of `Fills` in order, as the batches DynamoDB would be sent), all
        before any write; its row is the template's JSON, made once, with the item's values put in at its slots:
        no item made (a 100,000-entry draw's code items, _Alike). An item with a value outside the plain forms (a
        number not in DynamoDB's own form, say) is made whole and checked as any put."""
        with _answers("BatchWriteItem"):
            alike = _Alike(self._table(TableName, "BatchWriteItem"), Template)
            rows, seen = [], set()
            for k, fill in enumerate(Fills):
                if k % 25 == 0:
                    seen = set()
                row = alike.row(fill)
                key = row[1], row[2]
                if key in seen:
                    raise ValidationError("Provided list of item keys contains duplicates")
                seen.add(key)
                rows.append(row)
            for k in range(0, len(rows), WRITE_ALL_ROWS):
                chunk = rows[k:k + WRITE_ALL_ROWS]
                self._write("BatchWriteItem", lambda conn, chunk=chunk: conn.executemany(_PUT_SQL, chunk))
            return {"UnprocessedItems": {}}

    def _batch_rows(self, request_items: dict) -> list[tuple]:
        """A batch write's requests checked (before any lock is taken) and made into rows: ("put", (table, pk, sk,
        gpk, gsk, item's JSON)) or ("delete", (table, pk, sk))."""
        rows = []
        for name, requests in request_items.items():
            table = self._table(name, "BatchWriteItem")
            seen = set()
            for request in requests:
                if "PutRequest" in request:
                    row = self._put_row(table, request["PutRequest"]["Item"])
                    key = row[1], row[2]
                    rows.append(("put", row))
                else:
                    key = table.check_key(request["DeleteRequest"]["Key"])
                    rows.append(("delete", (table.name, *key)))
                if key in seen:
                    raise ValidationError("Provided list of item keys contains duplicates")
                seen.add(key)
        return rows

    @staticmethod
    def _write_rows(conn, rows: list[tuple]) -> None:
        """Rows of _batch_rows in their order, a run of puts or of deletes in one executemany."""
        k = 0
        while k < len(rows):
            kind = rows[k][0]
            end = k
            while end < len(rows) and rows[end][0] == kind:
                end += 1
            conn.executemany(_PUT_SQL if kind == "put" else _DELETE_SQL, [r[1] for r in rows[k:end]])
            k = end

    @_operation("TransactWriteItems")
    def transact_write_items(self, TransactItems: list, **kw) -> dict:
        with _answers("TransactWriteItems"):
            if len(TransactItems) > 100:
                raise ValidationError("Member must have length less than or equal to 100")
            plans = []
            for entry in TransactItems:
                (kind, body), = entry.items()
                table = self._table(body["TableName"], "TransactWriteItems")
                args = {k: v for k, v in body.items() if k not in ("TableName", "Key", "Item")}
                if kind == "Put":
                    check = self._prepare_put(table, body["Item"], args)
                elif kind in ("Update", "Delete", "ConditionCheck"):
                    if kind == "ConditionCheck" and not body.get("ConditionExpression"):
                        raise ValidationError("The ConditionCheck needs a ConditionExpression")
                    check = self._prepare(table, body["Key"], args, update=body.get("UpdateExpression"))
                else:
                    raise ValidationError(f"the embedded store does not take a transaction's {kind}")
                plans.append((kind, table, body, check))
            keys = [(t.name, c["key"]) for _, t, _, c in plans]
            if len(set(keys)) != len(keys):
                raise ValidationError("Transaction request cannot include multiple operations on one item")

            def run(conn):
                olds = [self._read(conn, t, *c["key"]) for _, t, _, c in plans]
                reasons, news, failed = [], [], False
                for (kind, table, body, check), old in zip(plans, olds):   # each item judged on its own
                    reason, new = {"Code": "None"}, None
                    cond = check["condition"]
                    try:
                        if cond and not ex.evaluate(cond.tree, old or {}, check["names"], check["values"]):
                            reason = {"Code": "ConditionalCheckFailed", "Message": "The conditional request failed"}
                            if check["old_on_fail"] and old:
                                reason["Item"] = old
                        elif kind == "Update":
                            new = self._updated(table, check, old, body["Key"])[0]
                            if ex.item_size(new) > MAX_ITEM_BYTES:
                                raise ValidationError("Item size to update has exceeded the maximum allowed size")
                        elif kind == "Put" and ex.item_size(check["item"]) > MAX_ITEM_BYTES:
                            raise ValidationError("Item size has exceeded the maximum allowed size")
                    except ValidationError as exc:
                        reason = {"Code": "ValidationError", "Message": str(exc)}
                    failed = failed or reason["Code"] != "None"
                    reasons.append(reason)
                    news.append(new)
                if failed:
                    codes = ", ".join(r["Code"] for r in reasons)
                    raise Exceptions.TransactionCanceledException(
                        f"Transaction cancelled, please refer cancellation reasons for specific reasons [{codes}]",
                        "TransactWriteItems", CancellationReasons=reasons)
                for (kind, table, _body, check), new in zip(plans, news):
                    if kind == "Put":
                        self._store(conn, table, check["item"])
                    elif kind == "Update":
                        self._store(conn, table, new)
                    elif kind == "Delete":
                        self._remove(conn, table, *check["key"])
            self._write("TransactWriteItems", run)
            return {}


class _Job:
    __slots__ = ("fn", "result", "error", "done")

    def __init__(self, fn):
        self.fn, self.result, self.error, self.done = fn, None, None, False

    def finish(self, error: BaseException | None = None) -> None:
        if error is not None:
            self.error, self.result = error, None
        self.done = True


class _answers:
    """A refused request raises ValidationException, as boto3's client does; a busy or failing disk 503s."""

    def __init__(self, op: str):
        self.op = op

    def __enter__(self):
        return self

    def __exit__(self, kind, exc, tb):
        if isinstance(exc, ValidationError):
            raise _validation(str(exc), self.op) from None
        if isinstance(exc, sqlite3.OperationalError):
            raise _unavailable(exc) from None
        return False


def _validation(message: str, op: str) -> ClientError:
    return Exceptions.ValidationException(message, op)


def _unavailable(exc: Exception) -> Exception:
    """The file locked past the busy timeout, or the disk full: the store did not answer (503, not 500)."""
    from ..errors import ServiceUnavailable
    err = ServiceUnavailable()
    err.__cause__ = exc
    return err


class _Connection(sqlite3.Connection):
    """sqlite3's connection, weakly referable: the threads' connections are known without being kept alive."""


_LIVE: weakref.WeakSet = weakref.WeakSet()   # this process's open connections
_INHERITED: list[sqlite3.Connection] = []     # a forked child's copies of its parent's: never used, never closed


def _after_fork_in_child() -> None:
    # Closing a copy would run SQLite's close in the child on the parent's file (it may checkpoint, or drop locks
    # SQLite believes it holds): kept referenced instead, so no garbage collection closes them.
    _INHERITED.extend(list(_LIVE))
    _LIVE.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def open_client(path: str) -> EmbeddedClient:
    return EmbeddedClient(path)
