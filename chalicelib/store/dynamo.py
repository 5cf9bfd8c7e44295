"""Thin wrapper over the boto3 DynamoDB client: lazy client, (de)serialisation, error translation.

No raw ClientError leaves this module: conditional failures and transaction cancellations become
domain errors chosen by the caller.
"""
from __future__ import annotations

import os
import random
import threading
import time
from typing import Any
from collections.abc import Callable, Iterable, Sequence

from ..errors import Conflict, DomainError, ServiceUnavailable

_client = None
_client_lock = threading.Lock()

# A store that does not answer must not hold a request (a thread of the venue's server, a Lambda's time):
# short timeouts, one retry, then 503. After a call has failed that way, calls fail at once for a moment
# (a breaker), so a hall of phones polling a frozen store gets quick 503s instead of a pile of waiting threads.
# (DDB_MAX_ATTEMPTS may raise the attempts where throttling matters more than a quick answer; DDB_READ_TIMEOUT_S
# the wait, for benches and batch jobs on a loaded machine.)
CONNECT_TIMEOUT_S, READ_TIMEOUT_S = 1.0, float(os.environ.get("DDB_READ_TIMEOUT_S", "1.5"))
MAX_ATTEMPTS = int(os.environ.get("DDB_MAX_ATTEMPTS", "2"))
BREAKER_OPEN_S = 1.5
PAGE_ITEMS: int | None = None   # Table.query_page's page in items (DynamoDB's 1 MB otherwise): tests make pages short
_down_until = 0.0


def embedded_path() -> str | None:
    """The embedded store's file when this process runs on it (the local and venue stages: STORE=embedded and
    STORE_PATH, set by scripts/dev.py), else None: DynamoDB through boto3."""
    if os.environ.get("STORE") != "embedded":
        return None
    if os.environ.get("AWS_LAMBDA_FUNCTION_NAME"):
        raise RuntimeError("STORE=embedded is for the local and venue stages, never on AWS")
    path = os.environ.get("STORE_PATH")
    if not path:
        raise RuntimeError("STORE=embedded needs STORE_PATH, the store's file")
    return path


def client():
    """The boto3 client (or the embedded store's look-alike, store/embedded.py), created on first use so
    moto/local endpoints set up earlier apply. Once per process under a lock: a burst of first requests on a
    threaded server otherwise builds one client per thread (about 0.1 s of CPU each), measured as a tenth of
    the first seconds of a hall's load."""
    global _client
    if _client is None:
        with _client_lock:
            if _client is None and (path := embedded_path()):
                from .embedded import open_client
                _client = open_client(path)
            if _client is None:
                import boto3
                from botocore.config import Config

                made = boto3.client("dynamodb", config=Config(
                    retries={"total_max_attempts": MAX_ATTEMPTS, "mode": "standard"},
                    connect_timeout=CONNECT_TIMEOUT_S, read_timeout=READ_TIMEOUT_S, max_pool_connections=64))
                made.meta.events.register("before-call.dynamodb.*", _refuse_while_down)
                made.meta.events.register("after-call-error.dynamodb.*", _note_failure)
                made.meta.events.register("after-call.dynamodb.*", _note_answer)
                for op in ("Query", "BatchGetItem"):
                    made.meta.events.register(f"before-parse.dynamodb.{op}", _items_without_the_shape_walk)
                _client = made
    return _client


def _items_without_the_shape_walk(response_dict=None, customized_response_dict=None, **_):
    """The items of a Query or BatchGetItem answer taken from its JSON as they are: botocore's parser walks the
    output's shape attribute by attribute, most of a publish's read of 45,000 tables in 2,250 packs (boto/boto3
    #2928). Its only change to an item's values is base64 blobs to bytes, done here; the rest of the answer
    (LastEvaluatedKey, UnprocessedKeys, errors) is still parsed by botocore."""
    if not response_dict or response_dict.get("status_code") != 200 or customized_response_dict is None:
        return
    import json
    body = json.loads(response_dict["body"])
    if "Items" in body:
        customized_response_dict["Items"] = [_blobs_decoded(i) for i in body.pop("Items")]
    elif "Responses" in body:
        customized_response_dict["Responses"] = {t: [_blobs_decoded(i) for i in items]
                                                 for t, items in body.pop("Responses").items()}
    else:
        return
    response_dict["body"] = json.dumps(body).encode()


def _blobs_decoded(item: dict) -> dict:
    for value in item.values():
        if len(value) != 1 or "S" in value or "N" in value:
            continue
        _blob_value(value)
    return item


def _blob_value(value: dict) -> None:
    import base64
    if "B" in value:
        value["B"] = base64.b64decode(value["B"])
    elif "BS" in value:
        value["BS"] = [base64.b64decode(b) for b in value["BS"]]
    elif "M" in value:
        for v in value["M"].values():
            _blob_value(v)
    elif "L" in value:
        for v in value["L"]:
            _blob_value(v)


def _unreachable(exc: BaseException) -> bool:
    from botocore.exceptions import ConnectionClosedError, EndpointConnectionError, ReadTimeoutError
    from botocore.exceptions import ConnectTimeoutError
    return isinstance(exc, (EndpointConnectionError, ConnectTimeoutError, ReadTimeoutError, ConnectionClosedError))


def _refuse_while_down(**_):
    if time.monotonic() < _down_until:
        raise ServiceUnavailable()


def _note_failure(exception=None, **_):
    global _down_until
    if exception is not None and _unreachable(exception):
        _down_until = time.monotonic() + BREAKER_OPEN_S


def _note_answer(**_):
    global _down_until
    _down_until = 0.0


def store_down(exc: BaseException) -> bool:
    """Whether an exception means the store did not answer (the route layer answers 503, not 500)."""
    return isinstance(exc, ServiceUnavailable) or _unreachable(exc)


def ping(timeout_s: float = 2.0) -> bool:
    """Whether the store answers within `timeout_s` (GET /health): a read of a key that never exists. Any
    answer counts, an error one too; only silence or a refused connection is "down"."""
    import concurrent.futures
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=1)
    try:
        pool.submit(Table().get, {"PK": "HEALTH", "SK": "PING"}, False).result(timeout=timeout_s)
        return True
    except concurrent.futures.TimeoutError:
        return False
    except Exception as exc:   # noqa: BLE001 — a health probe answers yes/no; store_down() sorts the outage from the rest
        return not store_down(exc)
    finally:
        pool.shutdown(wait=False)


def reset_client() -> None:
    global _client, _down_until
    if getattr(_client, "embedded", False):   # its SQLite connections (boto3's pool is left to its threads)
        _client.close()
    _client, _down_until = None, 0.0


def _after_fork_in_child() -> None:
    """A forked child (the publisher's languages and its writer) makes its own client if it reads: the
    parent's pool of connections is not the child's to use, and its lock may have been held by another thread.
    (The embedded store's connections are not closed here: they are the parent's; see store/embedded.py.)"""
    global _client_lock, _client, _down_until
    _client_lock = threading.Lock()
    _client, _down_until = None, 0.0


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


_S = None
_D = None


def _ser():
    global _S, _D
    if _S is None:
        from boto3.dynamodb.types import TypeDeserializer, TypeSerializer
        _S, _D = TypeSerializer(), TypeDeserializer()
    return _S, _D


def to_item(plain: dict) -> dict:
    s, _ = _ser()
    out = {}
    for k, v in plain.items():   # strings and whole numbers by hand: the generic serialiser is 10× slower
        t = type(v)
        if t is str:
            out[k] = {"S": v}
        elif t is int:
            out[k] = {"N": str(v)}
        elif v is not None:
            out[k] = s.serialize(v)
    return out


def from_item(item: dict) -> dict:
    _, d = _ser()
    out = {k: d.deserialize(v) for k, v in item.items()}
    for k, v in list(out.items()):
        if type(v).__name__ == "Decimal":
            out[k] = int(v) if v == int(v) else float(v)
    return out


class Table:
    """Operations on the single table, named by settings."""

    def __init__(self, name: str | None = None):
        if name is None:
            from ..config import get_settings
            name = get_settings().table_name
        self.name = name

    # -- reads
    def get(self, key: dict, consistent: bool = True, projection: Sequence[str] | None = None) -> dict | None:
        kwargs: dict[str, Any] = {"TableName": self.name, "Key": to_item(key), "ConsistentRead": consistent}
        if projection:
            kwargs["ProjectionExpression"] = ", ".join(f"#p{k}" for k in range(len(projection)))
            kwargs["ExpressionAttributeNames"] = {f"#p{k}": x for k, x in enumerate(projection)}
        resp = client().get_item(**kwargs)
        item = resp.get("Item")
        return from_item(item) if item else None

    def get_many(self, keys_: Sequence[dict], projection: Sequence[str] | None = None,
                 consistent: bool = True) -> list[dict | None]:
        """Several items in one round trip (BatchGetItem, strongly consistent unless told), in the order asked;
        `projection`: only these attributes of each (and its key)."""
        want = [to_item(k) for k in keys_]
        found: dict[tuple, dict] = {}
        request: dict[str, Any] = {self.name: {"Keys": want, "ConsistentRead": consistent}}
        if projection:
            names = ["PK", "SK", *projection]
            request[self.name]["ProjectionExpression"] = ", ".join(f"#p{k}" for k in range(len(names)))
            request[self.name]["ExpressionAttributeNames"] = {f"#p{k}": x for k, x in enumerate(names)}
        while request:
            resp = client().batch_get_item(RequestItems=request)
            for item in resp.get("Responses", {}).get(self.name, []):
                found[(item["PK"]["S"], item["SK"]["S"])] = from_item(item)
            request = resp.get("UnprocessedKeys") or {}
        return [found.get((k["PK"], k["SK"])) for k in keys_]

    def count(self, pk: str, below: str, *, index: str = "GSI1") -> int:
        """How many index items under pk sort before `below` (Select=COUNT: no item data is read back)."""
        kwargs: dict[str, Any] = {"TableName": self.name, "IndexName": index, "Select": "COUNT",
                                  "KeyConditionExpression": "GSI1PK = :pk AND GSI1SK < :below",
                                  "ExpressionAttributeValues": to_item({":pk": pk, ":below": below})}
        total = 0
        while True:
            resp = client().query(**kwargs)
            total += resp.get("Count", 0)
            if "LastEvaluatedKey" not in resp:
                return total
            kwargs["ExclusiveStartKey"] = resp["LastEvaluatedKey"]

    def query(self, pk: str, prefix: str | None = None, *, index: str | None = None,
              upper: str | None = None, limit: int | None = None, forward: bool = True,
              consistent: bool = True, raw: bool = False, projection: str | None = None,
              between: tuple[str, str] | None = None) -> list[dict]:
        """`projection`: attribute names, comma-separated, to read only those (less to send and parse);
        `between`: sort keys from the first to the second, both included (instead of `prefix`)."""
        pk_name, sk_name = ("GSI1PK", "GSI1SK") if index else ("PK", "SK")
        expr = f"{pk_name} = :pk"
        values: dict[str, Any] = {":pk": pk}
        if prefix is not None:
            expr += f" AND begins_with({sk_name}, :prefix)"
            values[":prefix"] = prefix
        elif between is not None:
            expr += f" AND {sk_name} BETWEEN :lo AND :hi"
            values[":lo"], values[":hi"] = between
        elif upper is not None:
            expr += f" AND {sk_name} <= :upper"
            values[":upper"] = upper
        kwargs: dict[str, Any] = {"TableName": self.name, "KeyConditionExpression": expr,
                                  "ExpressionAttributeValues": to_item(values), "ScanIndexForward": forward}
        if index:
            kwargs["IndexName"] = index
        else:
            kwargs["ConsistentRead"] = consistent
        if projection:
            names = [x.strip() for x in projection.split(",")]
            kwargs["ProjectionExpression"] = ", ".join(f"#p{k}" for k in range(len(names)))
            kwargs["ExpressionAttributeNames"] = {f"#p{k}": x for k, x in enumerate(names)}
        out: list[dict] = []
        while True:
            if limit:
                kwargs["Limit"] = limit - len(out)
            resp = client().query(**kwargs)
            out.extend(resp.get("Items", []) if raw else (from_item(i) for i in resp.get("Items", [])))
            if "LastEvaluatedKey" not in resp or (limit and len(out) >= limit):
                return out
            kwargs["ExclusiveStartKey"] = resp["LastEvaluatedKey"]

    def query_page(self, pk: str, low: str, high: str, *, start: dict | None = None,
                   projection: str | None = None, limit: int | None = None) -> tuple[list[dict], str | None]:
        """One page of raw items with low <= SK <= high (strongly consistent), and the sort key it stopped at (None:
        the range is read to its end). `projection` gets SK added: the caller orders and dedupes by it. `limit`:
        items at most (DynamoDB Local reads every item of a wide range before it cuts the page at 1 MB, measured
        at as much as the whole roster for its first page; a Limit it stops at)."""
        kwargs: dict[str, Any] = {"TableName": self.name, "ConsistentRead": True,
                                  "KeyConditionExpression": "PK = :pk AND SK BETWEEN :lo AND :hi",
                                  "ExpressionAttributeValues": to_item({":pk": pk, ":lo": low, ":hi": high})}
        if projection:
            names = [x.strip() for x in projection.split(",")]
            names += [] if "SK" in names else ["SK"]
            kwargs["ProjectionExpression"] = ", ".join(f"#p{k}" for k in range(len(names)))
            kwargs["ExpressionAttributeNames"] = {f"#p{k}": x for k, x in enumerate(names)}
        if start:
            kwargs["ExclusiveStartKey"] = start
        if PAGE_ITEMS or limit:
            kwargs["Limit"] = PAGE_ITEMS or limit
        resp = client().query(**kwargs)
        last = resp.get("LastEvaluatedKey")
        return resp.get("Items", []), (last["SK"]["S"] if last else None)

    def query_ranges(self, pk: str, ranges: Sequence[tuple[str, str]],
                     split: Callable[[str, str], str | None] | None = None, *,
                     projection: str | None = None, workers: int = 8,
                     on_page: Callable[[list[dict]], None] | None = None) -> list[dict]:
        """Raw items with a sort key in any of `ranges` ((low, high), both included), each once, in sort-key order,
        read by up to `workers` queries at once. A query stopped by a page's end (DynamoDB reads at most 1 MB a
        page, whatever the projection) hands the rest of its range to two queries, cut at `split(last, high)` (a
        sort key between the two, or None: the next page of the same query), so a dense range does not become a
        chain of pages one after another (on DynamoDB Local each page of a range also costs as much as reading what
        is left of the range: narrow ranges are cheap there).

        `on_page`: each page's raw items handed to it as read (in this thread, one page at a time, pages in no
        particular order, an item at a cut possibly in two pages) and not kept: the answer is then []. A reader
        that keeps only what it makes of the items (a round's parsed tables) holds one page of raw items at a
        time, not the whole range (issue 43: a 100,000-entry round's packs are ~100 MB of text)."""
        from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
        found: dict[str, dict] = {}
        with ThreadPoolExecutor(max_workers=max(1, min(workers, 2 * len(ranges)))) as pool:
            def read(low, high, start=None):
                return low, high, pool.submit(self.query_page, pk, low, high, start=start, projection=projection)
            running = {f: (lo, hi) for lo, hi, f in (read(lo, hi) for lo, hi in ranges)}
            while running:
                done, _ = wait(running, return_when=FIRST_COMPLETED)
                for f in done:
                    low, high = running.pop(f)
                    items, last = f.result()
                    if on_page is not None:
                        on_page(items)
                    else:
                        for item in items:
                            found[item["SK"]["S"]] = item
                    del items
                    if last is None:
                        continue
                    cut = split(last, high) if split else None
                    parts = [(last, cut), (cut, high)] if cut is not None and last < cut < high else []
                    if parts:   # both bounds are included: an item at `last` or `cut` is read twice, kept once
                        running.update({g: (lo, hi) for lo, hi, g in (read(lo, hi) for lo, hi in parts)})
                    else:
                        lo, hi, g = read(low, high, {"PK": {"S": pk}, "SK": {"S": last}})
                        running[g] = (lo, hi)
        return [found[k] for k in sorted(found, key=lambda k: k.encode())]   # DynamoDB orders by UTF-8 bytes

    # -- writes
    def put(self, item: dict, *, condition: str | None = None, values: dict | None = None,
            names: dict | None = None, on_fail: Callable[[], DomainError] | None = None) -> None:
        kwargs: dict[str, Any] = {"TableName": self.name, "Item": to_item(item)}
        _add_condition(kwargs, condition, values, names)
        self._run(client().put_item, kwargs, on_fail)

    def update(self, key: dict, expr: str, *, values: dict | None = None, names: dict | None = None,
               condition: str | None = None, on_fail: Callable[[], DomainError] | None = None,
               on_fail_item: Callable[[dict], DomainError] | None = None, returns: str = "ALL_NEW") -> dict:
        """`on_fail_item`: when the condition fails, DynamoDB returns the item as it was (no second read).
        `returns="ALL_OLD"`: the item as it was before this update (a read and a change in one step)."""
        kwargs: dict[str, Any] = {"TableName": self.name, "Key": to_item(key), "UpdateExpression": expr,
                                  "ReturnValues": returns}
        _add_condition(kwargs, condition, values, names)
        if on_fail_item:
            kwargs["ReturnValuesOnConditionCheckFailure"] = "ALL_OLD"
        c = client()
        try:
            resp = c.update_item(**kwargs)
        except c.exceptions.ConditionalCheckFailedException as exc:
            if on_fail_item:
                raise on_fail_item(from_item(exc.response.get("Item") or {})) from None
            raise (on_fail() if on_fail else Conflict()) from None
        return from_item(resp.get("Attributes", {}))

    def delete(self, key: dict, *, condition: str | None = None, values: dict | None = None,
               on_fail: Callable[[], DomainError] | None = None) -> None:
        kwargs: dict[str, Any] = {"TableName": self.name, "Key": to_item(key)}
        _add_condition(kwargs, condition, values, None)
        self._run(client().delete_item, kwargs, on_fail)

    def transact(self, ops: Sequence[Op]) -> None:
        """All or nothing. A failed condition raises the DomainError of the first op that failed."""
        items = [op.to_transact(self.name) for op in ops]
        c = client()
        for attempt in range(6):
            try:
                c.transact_write_items(TransactItems=items)
                return
            except c.exceptions.TransactionCanceledException as exc:
                reasons = exc.response.get("CancellationReasons", [])
                for op, reason in zip(ops, reasons):
                    if reason.get("Code") == "ConditionalCheckFailed":
                        if op.on_fail_item and reason.get("Item"):   # the item as it was, to decide what next
                            raise op.on_fail_item(from_item(reason["Item"])) from None
                        raise (op.on_fail() if op.on_fail else Conflict()) from None
                codes = [r.get("Code") for r in reasons]
                if not any(code in ("TransactionConflict", "ThrottlingError") for code in codes):
                    raise TransientConflict(f"transaction cancelled: {codes}") from None
            # Another transaction held one of the items: nothing was written, so trying again is safe.
            time.sleep(random.uniform(0, 0.02 * 2 ** attempt))
        raise TransientConflict("transaction conflict: try again")

    def _run(self, fn, kwargs, on_fail):
        c = client()
        try:
            return fn(**kwargs)
        except c.exceptions.ConditionalCheckFailedException:
            raise (on_fail() if on_fail else Conflict()) from None


class TransientConflict(Conflict):
    """Another transaction touched the same items; the caller may retry."""
    code = "conflict"


def _add_condition(kwargs, condition, values, names):
    if condition:
        kwargs["ConditionExpression"] = condition
    if values:
        kwargs["ExpressionAttributeValues"] = to_item(values)
    if names:
        kwargs["ExpressionAttributeNames"] = names


class Op:
    """One operation of a transaction."""

    def __init__(self, kind: str, *, item: dict | None = None, key: dict | None = None, expr: str | None = None,
                 condition: str | None = None, values: dict | None = None, names: dict | None = None,
                 on_fail: Callable[[], DomainError] | None = None,
                 on_fail_item: Callable[[dict], DomainError] | None = None):
        """`on_fail_item`: when the condition fails, DynamoDB returns the item as it was and this builds the
        error from it (the caller learns the current state without another read)."""
        self.kind, self.item, self.key, self.expr = kind, item, key, expr
        self.condition, self.values, self.names, self.on_fail = condition, values, names, on_fail
        self.on_fail_item = on_fail_item

    @classmethod
    def put(cls, item, **kw):
        return cls("Put", item=item, **kw)

    @classmethod
    def update(cls, key, expr, **kw):
        return cls("Update", key=key, expr=expr, **kw)

    @classmethod
    def check(cls, key, condition, **kw):
        return cls("ConditionCheck", key=key, condition=condition, **kw)

    @classmethod
    def delete(cls, key, **kw):
        return cls("Delete", key=key, **kw)

    def to_transact(self, table: str) -> dict:
        body: dict[str, Any] = {"TableName": table}
        if self.item is not None:
            body["Item"] = to_item(self.item)
        if self.key is not None:
            body["Key"] = to_item(self.key)
        if self.expr:
            body["UpdateExpression"] = self.expr
        _add_condition(body, self.condition, self.values, self.names)
        if self.on_fail_item:
            body["ReturnValuesOnConditionCheckFailure"] = "ALL_OLD"
        return {self.kind: body}


def chunks(seq: Iterable, n: int):
    buf = []
    for x in seq:
        buf.append(x)
        if len(buf) == n:
            yield buf
            buf = []
    if buf:
        yield buf
