"""What a Swiss day costs on AWS (issue 43, item 6): a simulated day run on the local stack, counted by AWS's
billing rules, priced with AWS's public on-demand prices (cited below).

The day: `--entries` pair entries register (one public POST each) and are checked in at the desk (one staff POST
each); 9 Swiss rounds, each drawn and closed by the organiser; every table's result entered by one side and
confirmed by the other; each table's two phones opening their table once a round (one GET to the API each), then
one phone per table polling the table's live JSON on the CDN while a round is played (issue 43: every
change to a table writes that file, one S3 PUT; the CDN fetches it from S3 when its short-lived copy has expired,
counted here as once a poll) at the page's cadence (CADENCE_S: every 10 s while the table is played, 4 s while
its result waits for the other side, 15 s once confirmed); 2,000 spectators polling the event's feed every 30 s on the CDN; each change asking
the publisher (SQS → Lambda) for the pages it moves.

What is run, what is counted: everything goes through the API app (Chalice's test client, the Lambda handler's own
routing) on the embedded store (STORE=embedded, a SQLite file of this run), with the publisher writing to a
counting sink. A day of `--run-entries` (default: the smaller of 1,000 and --entries) is run whole: registrations
(a sample through the API, the rest written in bulk), the 9 draws and closes, a sample of tables' results and
their publishes, a few phone polls a round. Every store call is metered (`Meter`, wrapped around the store's client
without changing what it does): each item's size as DynamoDB counts it and its partition key, turned into read and
write units by the rules below. The day at `--entries` is then COUNTED from the measured per-request figures:
per-request units, bytes and durations × the day's count of that request (registrations, results, polls, spectator
polls), and the draws' and closes' measured units × entries / run-entries (their items grow with the tables).

Billing rules (DynamoDB developer guide, "Read/write capacity mode" and "Transactions: capacity management"):
- a strongly consistent read: ceil(size / 4 KB) read units; eventually consistent: half; a query: the items it
  read summed, then rounded up to 4 KB (at least one unit); a batch get: each item rounded on its own;
- a write: ceil(size / 1 KB) write units, the larger of the item before and after for a replace or an update, the
  old item for a delete; a conditional write that fails still costs its units;
- a transaction's items count twice (reads and writes); a ConditionCheck counts as a transactional write of the
  checked item;
- the GSI (projection ALL) costs a write of the item for every write that leaves or removes an index key there,
  two when the index key changes.
Lambda: one invocation per API request; GB-s = billed ms (measured here, rounded up to 1 ms) × the configured
memory (infra/stack.py: API 1,024 MB, publisher 3,008 MB). API Gateway: one REST request per API call. S3: one PUT
per object written (the publisher's pages, the tables' live JSON), one GET per CDN origin fetch. CloudFront: one
HTTPS request per spectator poll and per phone poll, bytes as served (gzip, CloudFront compresses) plus
LIVE_HEADER_BYTES of response headers a phone poll. Find-my-table (issue 43): past PUBLISH_FIND_INLINE entries,
each entry's phone once a round fetches the index shards of the name its player types (bench/find_index.py
measures them at --entries), each shard one S3 GET a round and one PUT a draw; printed beside the one find.json
every phone fetched before.

Prices: us-east-1, on-demand, before free tiers (infra/ has no fixed region; docs/deploy.md suggests ap-east-1,
whose prices are ~10–20 % higher). Read from AWS's public pricing pages on 2026-12-05:
- API Gateway REST API $3.50 per million requests (first 333 M); HTTP API $1.00 per million (first 300 M)
  https://aws.amazon.com/api-gateway/pricing/
- Lambda (x86) $0.20 per million requests, $0.0000166667 per GB-s      https://aws.amazon.com/lambda/pricing/
- DynamoDB on-demand $0.625 per million write request units, $0.125 per million read request units (after the
  1 Nov 2024 reduction)                                                  https://aws.amazon.com/dynamodb/pricing/on-demand/
- S3 Standard PUT $0.005 per 1,000, GET $0.0004 per 1,000                 https://aws.amazon.com/s3/pricing/
- SQS standard $0.40 per million requests                               https://aws.amazon.com/sqs/pricing/
- CloudFront (Hong Kong / Asia edges, where the players are) $0.120 per GB out (first 10 TB), $0.0120 per 10,000
  HTTPS requests                                                         https://aws.amazon.com/cloudfront/pricing/

    .venv/bin/python bench/cost.py                      (10,000 entries, a 1,000-entry day run)
    .venv/bin/python bench/cost.py --entries 100000     (--run-entries 10000 runs a 10,000-entry day instead)
    .venv/bin/python bench/cost.py --entries 1000 10000 100000   (one run, counted at each size)
Ends with one JSON line: {"entries", "usd_per_day", "usd_per_entry", "api_requests", "s3_puts_per_close",
"max_partition_rcu_per_s", "max_partition_wcu_per_s"}.
"""
from __future__ import annotations

import argparse
import gzip
import json
import math
import os
import sys
import tempfile
import time
from collections import defaultdict
from contextlib import contextmanager
from pathlib import Path
from datetime import UTC

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

PRICES = {   # USD, see the module's docstring for the pages
    "apigw_rest_per_m": 3.50, "apigw_http_per_m": 1.00,
    "lambda_per_m": 0.20, "lambda_gb_s": 0.0000166667,
    "ddb_wru_per_m": 0.625, "ddb_rru_per_m": 0.125,
    "s3_put_per_k": 0.005, "s3_get_per_k": 0.0004,
    "sqs_per_m": 0.40,
    "cf_gb": 0.120, "cf_https_per_10k": 0.0120,
}
API_MEMORY_GB = 1024 / 1024           # infra/stack.py: lambda_memory_size
PUBLISHER_MEMORY_GB = 3008 / 1024     # infra/stack.py: PUBLISHER_MEMORY_MB
SQS_BATCH = 5                         # app.py: publish_from_queue's batch_size
ROUNDS = 9
ROUND_S = 60 * 60                     # a round played (phones polling) for an hour
RESULTS_WINDOW_S = 20 * 60            # a round's results come in over its last 20 minutes
POLL_S, SPECTATORS, SPECTATOR_POLL_S = 4, 2000, 30
CADENCE_S = {"waiting": 4, "playing": 10, "settled": 15}   # frontend/.../score/useTable.js CADENCE_MS, in s
CONFIRM_WAIT_S = 60                   # a result waits this long, on average, for the other side's confirmation
PHONES_PER_TABLE = 2                  # each side's phone opens its table once a round (the API's one read)
OPEN_WINDOW_S = 2 * 60                # …within the first two minutes of the round
LIVE_HEADER_BYTES = 400               # a phone poll's response headers (CloudFront bills them as bytes out)
FIND_LOOKUPS_PER_ENTRY = 1            # find-my-table: each entry's phone looks its table up once a round
KB = 1024
PARTITION_RCU, PARTITION_WCU = 3000, 1000   # one partition's read and write units a second (DynamoDB)
DRAW_TARGET_S = 5                     # issue 43's target for a 100,000-entry draw


# ---------------------------------------------------------------- the billing rules (tests/unit/test_cost_model.py)
def read_units(size: int, consistent: bool = True, transactional: bool = False) -> float:
    """One item read: 4 KB per unit, rounded up; half for an eventually consistent read, twice in a transaction."""
    units = max(1, math.ceil(size / (4 * KB)))
    if transactional:
        return 2.0 * units
    return float(units) if consistent else units / 2


def query_units(sizes: list[int], consistent: bool = True) -> float:
    """A query (one page): the sizes of the items it read summed, then rounded up to 4 KB."""
    return read_units(sum(sizes), consistent)


def write_units(size: int, transactional: bool = False) -> float:
    """One item written: 1 KB per unit, rounded up; twice in a transaction."""
    return max(1, math.ceil(size / KB)) * (2.0 if transactional else 1.0)


def transaction_write_units(sizes: list[int]) -> float:
    return sum(write_units(s, transactional=True) for s in sizes)


# ---------------------------------------------------------------- the meter around the store's client
class Meter:
    """The store's client with every call's read and write units recorded by partition key (in `self.units`:
    phase → pk → [rcu, wcu]) and counted (phase → calls). Sizes are read from the store itself (an item's old
    and new versions, the whole item under a projection) through the wrapped client, unmetered; what the
    wrapped call does and answers is unchanged."""

    def __init__(self, inner):
        self.inner = inner
        self.phase = "setup"
        self.on = True
        self.units: dict = defaultdict(lambda: defaultdict(lambda: [0.0, 0.0]))
        self.calls: dict = defaultdict(int)
        self.items: dict = defaultdict(lambda: defaultdict(lambda: [0.0, 0.0]))

    # the embedded store's items alike (a draw's code items) are not passed through unmetered: without it a draw
    # sends them as requests, metered by batch_write_all below as the batches DynamoDB would take
    batch_put_alike = None

    def __getattr__(self, name):
        return getattr(self.inner, name)

    @contextmanager
    def paused(self):
        was, self.on = self.on, False
        try:
            yield
        finally:
            self.on = was

    def _add(self, pk: str, rcu: float = 0.0, wcu: float = 0.0, sk: str = "?") -> None:
        u = self.units[self.phase][pk]
        u[0] += rcu
        u[1] += wcu
        kind = _pk_kind(pk)
        kind = TABLE_KEY_KIND + "k" if kind.startswith(TABLE_KEY_KIND) else kind   # whichever of a round's keys
        what = self.items[self.phase][kind + " " + _sk_kind(sk)]   # which items of a key the units are
        what[0] += rcu
        what[1] += wcu

    def _size(self, table: str, key: dict) -> int:
        from chalicelib.store.parts import item_size
        item = self.inner.get_item(TableName=table, Key=key, ConsistentRead=True).get("Item")
        return item_size(item) if item else 0

    def _item(self, table: str, key: dict) -> dict | None:
        return self.inner.get_item(TableName=table, Key=key, ConsistentRead=True).get("Item")

    @staticmethod
    def _key(item_or_key: dict) -> dict:
        return {"PK": item_or_key["PK"], "SK": item_or_key["SK"]}

    def _write(self, table: str, key: dict, do, transactional: bool = False):
        """A write of one item: its units from the larger of before and after, the index's write beside."""
        from chalicelib.store.parts import item_size
        if not self.on:
            return do()
        old = self._item(table, key)
        try:
            return do()
        finally:
            new = self._item(table, key)
            size = max(item_size(old) if old else 0, item_size(new) if new else 0)
            w = write_units(size, transactional)
            old_g, new_g = (i.get("GSI1PK") if i else None for i in (old, new))
            if old_g or new_g:   # the index's copy written (twice when it moves from one index key to another)
                w += write_units(size) * (2 if old_g and new_g and (old_g, old.get("GSI1SK")) != (new_g, new.get("GSI1SK")) else 1)
            self._add(key["PK"]["S"], wcu=w, sk=key["SK"]["S"])
            self.calls[self.phase] += 1

    def put_item(self, **kw):
        return self._write(kw["TableName"], self._key(kw["Item"]), lambda: self.inner.put_item(**kw))

    def update_item(self, **kw):
        return self._write(kw["TableName"], kw["Key"], lambda: self.inner.update_item(**kw))

    def delete_item(self, **kw):
        return self._write(kw["TableName"], kw["Key"], lambda: self.inner.delete_item(**kw))

    def batch_write_item(self, **kw):
        if not self.on:
            return self.inner.batch_write_item(**kw)
        from chalicelib.store.parts import item_size
        for table, reqs in kw["RequestItems"].items():
            for r in reqs:
                if "PutRequest" in r:
                    item = r["PutRequest"]["Item"]
                    self._add(item["PK"]["S"], wcu=write_units(max(item_size(item), self._size(table, self._key(item))))
                              * (2 if "GSI1PK" in item else 1), sk=item["SK"]["S"])
                else:
                    key = r["DeleteRequest"]["Key"]
                    self._add(key["PK"]["S"], wcu=write_units(self._size(table, key)), sk=key["SK"]["S"])
        self.calls[self.phase] += 1
        return self.inner.batch_write_item(**kw)

    def batch_write_all(self, **kw):
        """The embedded store's batch write past 25 items (a draw's): metered as the batches DynamoDB would take."""
        for table, reqs in kw["RequestItems"].items():
            for k in range(0, len(reqs), 25):
                self.batch_write_item(RequestItems={table: reqs[k:k + 25]})
        return {"UnprocessedItems": {}}

    def transact_write_items(self, **kw):
        if not self.on:
            return self.inner.transact_write_items(**kw)
        from chalicelib.store.parts import item_size
        before = []
        for op in kw["TransactItems"]:
            (kind, body), = op.items()
            key = self._key(body["Item"]) if kind == "Put" else body["Key"]
            old = self._item(body["TableName"], key)
            before.append((kind, body, key, old))
        try:
            return self.inner.transact_write_items(**kw)
        finally:   # a cancelled transaction is still billed (its units were read and checked)
            for kind, body, key, old in before:
                new = self._item(body["TableName"], key) if kind != "ConditionCheck" else old
                if kind == "Put":
                    new = new or body["Item"]
                size = max(item_size(old) if old else 0, item_size(new) if new else 0)
                w = write_units(size, transactional=True)
                if kind != "ConditionCheck" and ((old and "GSI1PK" in old) or (new and "GSI1PK" in new)):
                    w += write_units(size)
                self._add(key["PK"]["S"], wcu=w, sk=key["SK"]["S"])
            self.calls[self.phase] += 1

    def get_item(self, **kw):
        out = self.inner.get_item(**kw)
        if self.on:
            size = self._size(kw["TableName"], kw["Key"]) if "ProjectionExpression" in kw else \
                (self._item_size(out.get("Item")))
            self._add(kw["Key"]["PK"]["S"], rcu=read_units(size, kw.get("ConsistentRead", False)), sk=kw["Key"]["SK"]["S"])
            self.calls[self.phase] += 1
        return out

    @staticmethod
    def _item_size(item) -> int:
        from chalicelib.store.parts import item_size
        return item_size(item) if item else 0

    def batch_get_item(self, **kw):
        out = self.inner.batch_get_item(**kw)
        if self.on:
            for table, req in kw["RequestItems"].items():
                for key in req["Keys"]:
                    if key in out.get("UnprocessedKeys", {}).get(table, {}).get("Keys", []):
                        continue
                    self._add(key["PK"]["S"], rcu=read_units(self._size(table, key), req.get("ConsistentRead", False)),
                              sk=key["SK"]["S"])
            self.calls[self.phase] += 1
        return out

    def query(self, **kw):
        out = self.inner.query(**kw)
        if self.on:
            if "ProjectionExpression" in kw or kw.get("Select") == "COUNT":   # billed on the whole items read
                full = {k: v for k, v in kw.items() if k not in ("ProjectionExpression", "Select")}
                if "ProjectionExpression" in kw and "ExpressionAttributeNames" in kw:
                    used = kw["KeyConditionExpression"]
                    full["ExpressionAttributeNames"] = {k: v for k, v in kw["ExpressionAttributeNames"].items() if k in used}
                    if not full["ExpressionAttributeNames"]:
                        del full["ExpressionAttributeNames"]
                items = self.inner.query(**full)["Items"]
            else:
                items = out["Items"]
            consistent = kw.get("ConsistentRead", False) and "IndexName" not in kw
            pk = kw["ExpressionAttributeValues"].get(":pk", {"S": "?"}).get("S", "?")
            pk = ("GSI:" + pk) if "IndexName" in kw else pk
            sk = next((v.get("S", "?") for k, v in kw["ExpressionAttributeValues"].items() if k != ":pk"), "?")
            self._add(pk, rcu=query_units([self._item_size(i) for i in items], consistent), sk="query " + sk)
            self.calls[self.phase] += 1
        return out


class CountingSink:
    """The publisher's sink (in memory, as MemorySink) counting PUTs and their bytes, by phase; the tables' live
    JSON (live/…) counted apart as well."""

    def __init__(self, meter: Meter):
        self.files: dict[str, bytes] = {}
        self.meter = meter
        self.puts: dict = defaultdict(int)
        self.live_puts: dict = defaultdict(int)
        self.bytes: dict = defaultdict(int)

    def write(self, key: str, body: bytes) -> None:
        self.files[key] = body
        self.puts[self.meter.phase] += 1
        if key.startswith("live/"):
            self.live_puts[self.meter.phase] += 1
        self.bytes[self.meter.phase] += len(body)

    def read(self, key: str) -> bytes | None:
        return self.files.get(key)


# ---------------------------------------------------------------- the simulated day
class Day:
    """The measured requests of the run: by kind, their count, total ms, and the phases' units and PUTs."""

    def __init__(self, meter: Meter, sink: CountingSink):
        self.meter, self.sink = meter, sink
        self.ms: dict = defaultdict(list)   # kind → billed ms of each request measured
        self.one_key: dict = defaultdict(dict)   # kind → key kind → the most units one key of it took in one request

    @contextmanager
    def phase(self, name: str):
        self.meter.phase = name
        before = {pk: tuple(u) for pk, u in self.meter.units[name].items()}
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.ms[name].append(math.ceil((time.perf_counter() - t0) * 1000))
            self.meter.phase = "other"
            for pk, (r, w) in self.meter.units[name].items():   # this request's units on each single key
                r0, w0 = before.get(pk, (0.0, 0.0))
                top = self.one_key[name].get(_pk_kind(pk), (0.0, 0.0))
                self.one_key[name][_pk_kind(pk)] = (max(top[0], r - r0), max(top[1], w - w0))

    def units(self, name: str) -> tuple[float, float, dict]:
        by_pk = self.meter.units.get(name, {})
        return sum(u[0] for u in by_pk.values()), sum(u[1] for u in by_pk.values()), by_pk

    def per_request(self, name: str) -> dict:
        """The mean of one request of this kind: read and write units, ms, PUTs and bytes; and by partition key."""
        n = max(1, len(self.ms[name]))
        rcu, wcu, by_pk = self.units(name)
        return {"n": n, "rcu": rcu / n, "wcu": wcu / n, "ms": sum(self.ms[name]) / n, "puts": self.sink.puts[name] / n,
                "live_puts": self.sink.live_puts[name] / n, "bytes": self.sink.bytes[name] / n,
                "by_pk": _by_kind(by_pk, n), "one_key": dict(self.one_key.get(name, {})),
                "by_item": {what: [u[0] / n, u[1] / n] for what, u in self.meter.items.get(name, {}).items()}}


TABLE_KEY_KIND = "EVENT#R#T"   # _pk_kind of a round's table keys, before their number
ROSTER_KEY_KIND = "EVENT#Lk"   # _pk_kind of an event's roster keys (keys.roster_chunk), any of the 16


def round_table_keys(tables: int) -> int:
    from chalicelib.store.keys import round_table_keys as used
    return used(tables)


def _by_kind(by_pk: dict, n: int) -> dict:
    out: dict = defaultdict(lambda: [0.0, 0.0])
    for pk, (r, w) in by_pk.items():
        out[_pk_kind(pk)][0] += r / n
        out[_pk_kind(pk)][1] += w / n
    return dict(out)


def _sk_kind(sk: str) -> str:
    """A sort key's kind: its words without ids and numbers (ROUND#0#003#TABLES#012#0245 → ROUND TABLES)."""
    words = [w for w in sk.replace("query ", "query#").split("#") if w and not w[:1].isdigit() and not w.startswith("01")]
    return " ".join(w for w in words if w.isupper() or w == "query") or "?"


def _pk_kind(pk: str) -> str:
    """A partition key with its id left out (EVENT#…): the same key for every event, tournament. A round's table
    keys (keys.round_tables_partition) keep their number, without the round's: EVENT#R#T05 is the load of every
    round's sixth table key (a round's phones and results come in while that round is played, its own keys only).
    An event's 16 roster keys are one kind, EVENT#Lk (a draw reads them alike; a request's figure is its busiest)."""
    from chalicelib.store.keys import ROSTER_MARK, ROUND_TABLES_MARK
    head, *rest = pk.split("#")
    if ROUND_TABLES_MARK in pk:
        return f"{head}#R#{pk.rsplit('#', 1)[1]}"
    if head == "EVENT" and len(rest) == 2 and ("#" + rest[1]).startswith(ROSTER_MARK):
        return ROSTER_KEY_KIND   # the busiest of them in a draw (one_key): a roster's 16 keys are read alike
    if head == "EVENT" and len(rest) > 1:   # an event's other keys of their own (its counters' shards, C01 …)
        return "#".join([head, *rest[1:]])
    return head if rest else pk


def run_day(run_entries: int, *, reg_sample: int = 10, result_sample: int = 6, polls: int = 3,
            rounds: int = ROUNDS) -> dict:
    """Runs a day of run_entries pair entries on the local stack and returns its measured per-request figures."""
    reg_sample = min(reg_sample, run_entries // 2)
    tmp = Path(tempfile.mkdtemp(prefix="cost-"))
    os.environ.update(STORE="embedded", STORE_PATH=str(tmp / "store.sqlite3"))
    os.environ.setdefault("TABLE_CODE_SECRET", __import__("secrets").token_hex(32))
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    from datetime import datetime

    from chalice.test import Client

    from app import app
    from chalicelib import bootstrap
    from chalicelib.ids import new_id
    from chalicelib.models import Entry, Member
    from chalicelib.services import live_tables, publish_requests, publishing
    from chalicelib.services.organisers import create_organiser
    from chalicelib.store import dynamo, schema
    from chalicelib.store.entries import entry_item, roster_copy_items
    from chalicelib.store.repositories import Repos
    from tests.bigday import results_for_round
    from tests.factories import Api, tournament_body

    schema.ensure_table(dynamo.client(), "cost_day")
    meter = Meter(dynamo.client())
    dynamo._client = meter
    sink = CountingSink(meter)
    repos = Repos(dynamo.Table("cost_day"))
    d = bootstrap.Deps(repos=repos, clock=lambda: datetime.now(UTC), publisher=sink)
    bootstrap.override(d)
    asked: list = []
    def ask(deps, tid, change=None):   # as in AWS: a table's live JSON by the request, the rest a queue message
        live_tables.on_publish_asked(deps, tid, change, queued=True)
        asked.append((tid, change))
    publish_requests.request_publish = ask
    day = Day(meter, sink)

    def publish(kind: str) -> None:
        """The publishes asked since the last one, each as the queue's consumer would run it (api/jobs.py)."""
        while asked:
            tid, change = asked.pop(0)
            if change is None or change.startswith("event:"):   # a round-wide change: the round's tables' live
                # JSON, by the queue's worker before the pages (api/jobs.py)
                with day.phase("live_round"):
                    live_tables.on_tournament_changed(d, tid)
            with day.phase(kind):
                publishing.publish_latest(d, tid, changes=[change or "*"])

    with Client(app) as client:
        with meter.paused():
            _, token = create_organiser(d, "全国联赛组委会")
        api = Api(client, token)
        tid = api.post("/tournaments", tournament_body()).data["id"]
        r = api.post(f"/tournaments/{tid}/events", {"name": "掼蛋", "game": "guandan", "entry": "pair",
                                                     "capacity": run_entries, "fee": {"amount": 0},
                                                     "stages": [{"format": "swiss", "rounds": rounds}]})
        assert r.status_code == 201, r.data
        eid = r.data["id"]
        for i in range(reg_sample):   # registrations and check-ins through the API
            body = {"name": f"队{i}", "club": f"商会{i % 7}",
                    "members": [{"name": f"甲{i}", "phone": f"1390000{i:04d}"}, {"name": f"乙{i}"}]}
            with day.phase("register"):
                reg = api.post(f"/events/{eid}/entries", body, token=None,
                               headers={"X-Forwarded-For": f"10.0.{i // 200}.{i % 200}"})
            assert reg.status_code == 201, reg.data
            with day.phase("check_in"):
                ok = api.post(f"/events/{eid}/entries/{reg.data['entry']['id']}/check-in")
            assert ok.status_code == 200, ok.data
        asked.clear()   # registrations' publishes are counted with the day's publishes of the index, not here
        with meter.paused():   # the rest of the roster in bulk
            event = repos.events.get(eid)
            now = datetime.now(UTC)
            bulk = [Entry(id=new_id(), event_id=eid, tournament_id=tid, name=f"第{i + 1}队",
                          club=f"商会{i % 97}", members=[Member(name=f"甲{i}"), Member(name=f"乙{i}")],
                          status="confirmed", checked_in=True, created_at=now)
                    for i in range(reg_sample, run_entries)]
            # their roster copies as registrations write them, into the chunks the sampled ones wrote (kept)
            copies = roster_copy_items(bulk)
            there = [i for part in dynamo.chunks(copies, 100)
                     for i in repos.table.get_many([{"PK": c["PK"], "SK": c["SK"]} for c in part])]
            repos.rounds._batch_put([*map(entry_item, bulk), *({**(old or {}), **c} for c, old in zip(copies, there))])
            repos.table.update({"PK": f"EVENT#{eid}", "SK": "COUNTERS"}, "SET taken = :n, confirmed = :n",
                               values={":n": run_entries})
        spectator_bytes = []
        for n in range(1, rounds + 1):
            with day.phase("draw"):
                r = api.post(f"/events/{eid}/rounds", {"seed": n})
            assert r.status_code == 201, r.data
            tables = r.data["tables"]
            publish("publish_draw")
            for t in tables[:polls]:   # a phone opens its table (the API), then polls its live JSON (the CDN)
                with day.phase("open"):
                    p = api.get(f"/events/{eid}/rounds/{n}/tables/{t['number']}", token=None,
                                headers={"X-Table-Code": t["codes"][0]})
                assert p.status_code == 200, p.data
                day.ms.setdefault("open_bytes", []).append(len(json.dumps(p.data).encode()))
                live = sink.files[p.data["live"].lstrip("/")]
                day.ms.setdefault("live_bytes", []).append(len(live))
                day.ms.setdefault("live_bytes_gz", []).append(len(gzip.compress(live)))
            for t in tables[polls:polls + result_sample]:
                a, b = (s["entry_id"] for s in t["sides"])
                base = f"/events/{eid}/rounds/{n}/tables/{t['number']}"
                with day.phase("result"):
                    put = api.put(f"{base}/result", {"version": 0, "final": {"levels": {a: 14, b: 9}}}, token=None,
                                  headers={"X-Table-Code": t["codes"][0]})
                assert put.status_code == 200, put.data
                publish("publish_result")
                with day.phase("confirm"):
                    ok = api.post(f"{base}/confirm", token=None, headers={"X-Table-Code": t["codes"][1]})
                assert ok.status_code == 200 and ok.data["status"] == "confirmed", ok.data
                publish("publish_result")
            with meter.paused():
                results_for_round(repos, event, n)
                # the rest of the round's results, written in bulk, published now as their own publishes would
                # have been (each result's publish is counted above, by the sample's): unpublished, every page
                # they move would be counted again as the close's, which writes what the close itself changes
                publishing.publish_latest(d, tid, changes=[f"event:{eid}"])
            with day.phase("close"):
                c = api.post(f"/events/{eid}/rounds/{n}/close")
            assert c.status_code == 200, c.data
            publish("publish_close")
            feeds = [k for k in sink.files if k.endswith("feed.json")]   # the largest a spectator's page polls
            if feeds:
                spectator_bytes.append(max(len(gzip.compress(sink.files[k])) for k in feeds))
    return {"run_entries": run_entries, "tables": run_entries // 2, "rounds": rounds,
            "kinds": {k: day.per_request(k) for k in ("register", "check_in", "draw", "open", "result", "confirm",
                                                       "close", "publish_draw", "publish_result", "publish_close",
                                                       "live_round")},
            "open_bytes": sum(day.ms["open_bytes"]) / max(1, len(day.ms["open_bytes"])),
            "live_bytes": sum(day.ms["live_bytes"]) / max(1, len(day.ms["live_bytes"])),
            "live_bytes_gz": sum(day.ms["live_bytes_gz"]) / max(1, len(day.ms["live_bytes_gz"])),
            "spectator_bytes": max(spectator_bytes) if spectator_bytes else 0}


# ---------------------------------------------------------------- the day at --entries, counted and priced
def live_polls_per_table() -> float:
    """A phone's polls of its table's live JSON in a round: played (pending) until its result, which comes at a
    uniform moment of the round's last RESULTS_WINDOW_S; then waiting for the confirmation; then settled."""
    playing = ROUND_S - RESULTS_WINDOW_S / 2
    settled = ROUND_S - playing - CONFIRM_WAIT_S
    return playing / CADENCE_S["playing"] + CONFIRM_WAIT_S / CADENCE_S["waiting"] + settled / CADENCE_S["settled"]


_FIND: dict = {}


def find_model(entries: int) -> dict:
    """Find-my-table's CDN traffic in a day (issue 43): past PUBLISH_FIND_INLINE entries each phone fetches the
    index shards of what its player types (bench/find_index.py: a field of `entries` pair entries with a national
    day's names, a sample of players typing one of their entry's names in full; each shard once, gzip-compressed
    as CloudFront serves it), FIND_LOOKUPS_PER_ENTRY a round; each shard is fetched from S3 about once a round.
    Beside it, the one find.json of every row (every language's) that each phone fetched whole before."""
    from chalicelib.config import get_settings
    if entries <= get_settings().publish_find_inline:   # the hits are in find.html (counted with the pages)
        return {"shards": 0, "requests": 0, "bytes": 0, "origin_gets": 0, "phone_requests": 0, "phone_gz": 0,
                "old_requests": 0, "old_bytes": 0, "old_gz": 0, "old_raw_bytes": 0, "inline": True}
    if entries not in _FIND:
        from bench.find_index import measure
        _FIND[entries] = measure(entries, "mix")
    m = _FIND[entries]
    lookups = entries * FIND_LOOKUPS_PER_ENTRY * ROUNDS
    return {"shards": m["shards"], "requests": lookups * m["phone_requests"],
            "bytes": lookups * (m["phone_gz"] + m["phone_requests"] * LIVE_HEADER_BYTES),
            "origin_gets": m["shards"] * ROUNDS, "phone_requests": m["phone_requests"], "phone_gz": m["phone_gz"],
            "old_requests": lookups, "old_bytes": lookups * (m["old_gz"] + LIVE_HEADER_BYTES), "old_gz": m["old_gz"],
            "old_raw_bytes": lookups * m["old_raw"], "inline": False}


def model(measured: dict, entries: int) -> dict:
    """The day at `entries`, counted from the measured per-request figures; returns lines and totals."""
    k = entries / measured["run_entries"]          # draws and closes grow with the tables
    tables = entries // 2
    rounds = ROUNDS                                # the day's rounds, whatever the run's
    m = measured["kinds"]
    counts = {   # API requests of the day, by kind (the phones' polls go to the CDN: `live_polls`)
        "register": entries, "check_in": entries, "draw": rounds, "close": rounds,
        "result": tables * rounds, "confirm": tables * rounds, "open": PHONES_PER_TABLE * tables * rounds,
    }
    live_polls = round(tables * rounds * live_polls_per_table())
    api_requests = sum(counts.values())
    scale = {"draw": k, "close": k}   # per-request units measured at the run's size
    rcu = sum(m[kind]["rcu"] * n * scale.get(kind, 1) for kind, n in counts.items())
    wcu = sum(m[kind]["wcu"] * n * scale.get(kind, 1) for kind, n in counts.items())
    api_gb_s = sum(m[kind]["ms"] * scale.get(kind, 1) * n for kind, n in counts.items()) / 1000 * API_MEMORY_GB
    # the publisher: one message per ask (each result and confirmation, draw, close); the lease makes asks that
    # come while it publishes wait for the next publish, so a round's results cost at most the window's worth
    publish_asks = counts["result"] + counts["confirm"] + rounds * 2
    per_result_s = m["publish_result"]["ms"] / 1000
    result_publishes = min(counts["result"] + counts["confirm"],
                           rounds * max(1, RESULTS_WINDOW_S / max(per_result_s, 1e-3)))
    live_round = m["live_round"]   # a draw's or close's live JSON of the round's tables (2 a round: measured n)
    pub_s = (result_publishes * per_result_s + rounds * k * (m["publish_close"]["ms"] + m["publish_draw"]["ms"]
                                                             + 2 * live_round["ms"]) / 1000)
    pub_rcu = result_publishes * m["publish_result"]["rcu"] + rounds * k * (m["publish_close"]["rcu"] + m["publish_draw"]["rcu"]
                                                                            + 2 * live_round["rcu"])
    pub_wcu = result_publishes * m["publish_result"]["wcu"] + rounds * k * (m["publish_close"]["wcu"] + m["publish_draw"]["wcu"])
    puts_close = k * (m["publish_close"]["puts"] + live_round["puts"])
    puts_draw = k * (m["publish_draw"]["puts"] + live_round["puts"])
    puts = result_publishes * m["publish_result"]["puts"] + rounds * (puts_close + puts_draw)
    # the tables' live JSON: one PUT by each result's and confirmation's own request (the draws' and closes' are
    # in the publisher's PUTs above, written by the queue's worker)
    live_puts = sum(counts[kind] * m[kind]["live_puts"] for kind in ("result", "confirm"))
    live_bytes = live_polls * (measured["live_bytes_gz"] + LIVE_HEADER_BYTES)
    find = find_model(entries)
    puts_draw += find["shards"]                    # a draw moves every entry's table: each shard written again
    puts += rounds * find["shards"]
    spectator_polls = SPECTATORS * rounds * ROUND_S // SPECTATOR_POLL_S
    cf_bytes = spectator_polls * measured["spectator_bytes"]
    p = PRICES
    lines = [
        ("API Gateway REST requests", f"{api_requests:,}", api_requests / 1e6 * p["apigw_rest_per_m"]),
        ("Lambda API invocations", f"{api_requests:,}", api_requests / 1e6 * p["lambda_per_m"]),
        ("Lambda API GB-s (1,024 MB)", f"{api_gb_s:,.0f}", api_gb_s * p["lambda_gb_s"]),
        ("DynamoDB reads, API (RRU)", f"{rcu:,.0f}", rcu / 1e6 * p["ddb_rru_per_m"]),
        ("DynamoDB writes, API (WRU)", f"{wcu:,.0f}", wcu / 1e6 * p["ddb_wru_per_m"]),
        ("SQS publish messages (send+receive+delete)", f"{publish_asks * 3:,}", publish_asks * 3 / 1e6 * p["sqs_per_m"]),
        ("Lambda publisher invocations", f"{math.ceil(publish_asks / SQS_BATCH):,}",
         math.ceil(publish_asks / SQS_BATCH) / 1e6 * p["lambda_per_m"]),
        ("Lambda publisher GB-s (3,008 MB)", f"{pub_s * PUBLISHER_MEMORY_GB:,.0f}",
         pub_s * PUBLISHER_MEMORY_GB * p["lambda_gb_s"]),
        ("DynamoDB reads, publisher (RRU)", f"{pub_rcu:,.0f}", pub_rcu / 1e6 * p["ddb_rru_per_m"]),
        ("DynamoDB writes, publisher (WRU)", f"{pub_wcu:,.0f}", pub_wcu / 1e6 * p["ddb_wru_per_m"]),
        ("S3 PUTs (pages; draws' and closes' live JSON)", f"{puts:,.0f}", puts / 1000 * p["s3_put_per_k"]),
        ("S3 PUTs (live JSON by results, confirmations)", f"{live_puts:,.0f}", live_puts / 1000 * p["s3_put_per_k"]),
        ("CloudFront spectator requests", f"{spectator_polls:,}", spectator_polls / 1e4 * p["cf_https_per_10k"]),
        ("CloudFront spectator bytes out (GB)", f"{cf_bytes / 1e9:,.1f}", cf_bytes / 1e9 * p["cf_gb"]),
        ("CloudFront phone polls (live JSON)", f"{live_polls:,}", live_polls / 1e4 * p["cf_https_per_10k"]),
        ("CloudFront phone poll bytes out (GB)", f"{live_bytes / 1e9:,.1f}", live_bytes / 1e9 * p["cf_gb"]),
        ("S3 GETs (CDN origin fetches, one a poll)", f"{live_polls:,}", live_polls / 1000 * p["s3_get_per_k"]),
        ("CloudFront find-my-table requests (shards)", f"{find['requests']:,.0f}",
         find["requests"] / 1e4 * p["cf_https_per_10k"]),
        ("CloudFront find-my-table bytes out (GB)", f"{find['bytes'] / 1e9:,.2f}", find["bytes"] / 1e9 * p["cf_gb"]),
        ("S3 GETs (find shards, CDN origin fetches)", f"{find['origin_gets']:,}",
         find["origin_gets"] / 1000 * p["s3_get_per_k"]),
    ]
    usd = sum(x[2] for x in lines)
    # partition keys: the phones opening their tables and the results over their windows, at once (per second)
    open_rate = PHONES_PER_TABLE * tables / OPEN_WINDOW_S
    result_rate = 2 * tables / RESULTS_WINDOW_S
    rcu_s: dict = defaultdict(float)
    wcu_s: dict = defaultdict(float)
    item_s: dict = defaultdict(lambda: [0.0, 0.0])   # the same by item kind (which items make a key hot)
    table_keys = round_table_keys(tables)   # the run's few sampled tables sit in its first pack, on one table key;
    for kind, rate in (("open", open_rate), ("result", result_rate / 2), ("confirm", result_rate / 2)):
        for pk, (r, w) in m[kind]["by_pk"].items():   # the day's phones and results on every table, on every key
            if pk.startswith(TABLE_KEY_KIND):
                pk, r, w = f"{TABLE_KEY_KIND}k (each of {table_keys})", r / table_keys, w / table_keys
            rcu_s[pk] += r * rate
            wcu_s[pk] += w * rate
        for what, (r, w) in m[kind].get("by_item", {}).items():
            item_s[what][0] += r * rate
            item_s[what][1] += w * rate
    bursts = {}
    for kind in ("draw", "close"):   # a draw's or close's units on its busiest key of each kind, over its own
        secs = max(1e-3, m[kind]["ms"] / 1000)   # duration (this machine's speed, at the run's size)
        bursts[kind] = {pk: (r / secs, w / secs) for pk, (r, w) in m[kind]["one_key"].items()}
    # …and the draw at `entries` within its target (issue 43: < DRAW_TARGET_S at 100,000 entries): its units there
    # (the run's × k) over that many seconds — what the keys must take for the draw to be that fast in AWS
    bursts[f"draw in {DRAW_TARGET_S} s"] = {pk: (r * k / DRAW_TARGET_S, w * k / DRAW_TARGET_S)
                                             for pk, (r, w) in m["draw"]["one_key"].items()}
    max_r = max([*rcu_s.values(), *(r for b in bursts.values() for r, _ in b.values())], default=0)
    max_w = max([*wcu_s.values(), *(w for b in bursts.values() for _, w in b.values())], default=0)
    # the API's busiest minutes: every phone opening its table at a round's start, with the results coming in
    peak_api_rate = open_rate + result_rate
    phones_usd = sum(x[2] for x in lines if "phone poll" in x[0] or "origin fetches" in x[0] or "live JSON by" in x[0])
    steady = tables * rounds * ROUND_S / POLL_S   # the reference: every phone at a steady 4 s
    steady_usd = (steady / 1e4 * p["cf_https_per_10k"] + steady * (measured["live_bytes_gz"] + LIVE_HEADER_BYTES) / 1e9
                  * p["cf_gb"] + steady / 1000 * p["s3_get_per_k"] + live_puts / 1000 * p["s3_put_per_k"])
    find["old_usd"] = find["old_requests"] / 1e4 * p["cf_https_per_10k"] + find["old_bytes"] / 1e9 * p["cf_gb"]
    find["usd"] = sum(x[2] for x in lines if "find" in x[0])
    return {"lines": lines, "usd": usd, "counts": counts, "find": find, "live_polls": live_polls, "phones_usd": phones_usd, "steady_usd": steady_usd,
            "peak_api_rate": peak_api_rate, "api_requests": api_requests, "puts_close": puts_close, "puts_draw": puts_draw,
            "rcu_s": dict(rcu_s), "wcu_s": dict(wcu_s), "item_s": dict(item_s), "bursts": bursts, "max_r": max_r, "max_w": max_w,
            "result_publishes": result_publishes, "http_api_usd": api_requests / 1e6 * p["apigw_http_per_m"]}


def hot_keys(out: dict) -> dict[str, int]:
    """Partition keys whose modelled load (steady or a draw's or close's burst) is over one partition's limits, with
    the number of partition keys that load would need (DynamoDB's per-partition limits, developer guide: "Partitions
    and data distribution" — 3,000 read units and 1,000 write units a second)."""
    need: dict[str, int] = {}
    loads = [(pk, out["rcu_s"].get(pk, 0), out["wcu_s"].get(pk, 0)) for pk in out["rcu_s"]]
    loads += [(pk, r, w) for b in out["bursts"].values() for pk, (r, w) in b.items()]
    for pk, r, w in loads:
        keys_ = max(math.ceil(r / PARTITION_RCU), math.ceil(w / PARTITION_WCU))
        if keys_ > 1:
            need[pk] = max(need.get(pk, 0), keys_)
    return need


def report(measured: dict, entries: int) -> dict:
    out = model(measured, entries)
    m = measured["kinds"]
    print(f"measured on a {measured['run_entries']:,}-entry day run here ({measured['rounds']} rounds; load average "
          f"{os.getloadavg()[0]:.1f}); per request (mean of n):")
    print(f"  {'request':16} {'n':>4} {'RRU':>8} {'WRU':>8} {'ms':>7} {'PUTs':>7}  partition keys (RRU, WRU)")
    for kind, x in m.items():
        pks = ", ".join(f"{pk} {r:.1f}/{w:.1f}" for pk, (r, w) in sorted(x["by_pk"].items()))
        print(f"  {kind:16} {x['n']:>4} {x['rcu']:>8.1f} {x['wcu']:>8.1f} {x['ms']:>7.0f} {x['puts']:>7.0f}  {pks}")
    for kind in ("open", "result", "confirm"):   # what the busiest requests read and write, by item
        print(f"  {kind} by item (RRU/WRU): " + ", ".join(
            f"{what} {r:.1f}/{w:.1f}" for what, (r, w) in sorted(m[kind]["by_item"].items(), key=lambda x: -sum(x[1]))))
    print(f"  a table's API answer {measured['open_bytes'] / 1024:.1f} KiB; its live JSON {measured['live_bytes'] / 1024:.1f} "
          f"KiB ({measured['live_bytes_gz'] / 1024:.1f} KiB gzipped); a spectator's feed poll "
          f"{measured['spectator_bytes'] / 1024:.1f} KiB gzipped")
    print(f"\nthe day at {entries:,} entries ({entries // 2:,} tables, {ROUNDS} rounds of {ROUND_S // 60} min, a phone a "
          f"table polling its live JSON {live_polls_per_table():.0f} times a round (every {CADENCE_S['playing']} s played, "
          f"{CADENCE_S['waiting']} s waiting, {CADENCE_S['settled']} s settled; {ROUND_S // POLL_S} at a steady {POLL_S} s), "
          f"{SPECTATORS:,} spectators every {SPECTATOR_POLL_S} s), us-east-1 on-demand:")
    for name, qty, usd in out["lines"]:
        print(f"  {name:44} {qty:>16} ${usd:>10,.2f}")
    print(f"  {'total':44} {'':>16} ${out['usd']:>10,.2f}   (${out['usd'] / entries:.4f} an entry)")
    c = out["counts"]
    writes = out["api_requests"] - c["open"]
    print(f"\nAPI requests {out['api_requests']:,}: writes and staff actions {writes:,}, the phones' table opens "
          f"{c['open']:,} (no polls: {out['live_polls']:,} on the CDN, ${out['phones_usd']:,.2f} with their S3 "
          f"PUTs and GETs; ${out['steady_usd']:,.2f} if every phone polled at a steady {POLL_S} s, "
          f"${out['usd'] - out['phones_usd'] + out['steady_usd']:,.2f} a day, "
          f"${(out['usd'] - out['phones_usd'] + out['steady_usd']) / entries:.4f} an entry). "
          f"On an HTTP API the API Gateway line would be ${out['http_api_usd']:,.2f}.")
    print(f"API request rate at a round's start: {out['peak_api_rate']:,.0f}/s (every phone opening its table in "
          f"{OPEN_WINDOW_S // 60} min, results coming in; infra/stack.py sizes the prod throttle from this)")
    print(f"publisher: {out['result_publishes']:,.0f} publishes for results; S3 PUTs per close {out['puts_close']:,.0f}, "
          f"per draw {out['puts_draw']:,.0f} (the run's × {entries / measured['run_entries']:g}; target per close "
          f"≤ 2 × tables + 100 = {entries + 100:,})")
    f = out["find"]
    if not f["inline"]:
        print(f"find-my-table (each entry's phone {FIND_LOOKUPS_PER_ENTRY}× a round, typing one of its names): "
              f"{f['shards']:,} index shards written a draw; a phone fetches {f['phone_requests']:.1f} shards, "
              f"{f['phone_gz'] / KB:.1f} KiB gzip-compressed: {f['requests']:,.0f} requests, {f['bytes'] / 1e9:,.2f} GB, "
              f"${f['usd']:,.2f} a day — the reference, one find.json a phone ({f['old_gz'] / KB / KB:.2f} MiB "
              f"gzip-compressed): {f['old_requests']:,} requests, {f['old_bytes'] / 1e9:,.1f} GB, ${f['old_usd']:,.2f} a day "
              f"({f['old_raw_bytes'] / 1e9:,.0f} GB, ${f['old_raw_bytes'] / 1e9 * PRICES['cf_gb']:,.0f} as served before: the "
              f"pages' cache policy did not let CloudFront compress)")

    def busiest(loads: dict, top: int = 6) -> str:   # pk → (rcu, wcu): the busiest first, against the limits
        ranked = sorted(loads.items(), key=lambda x: -max(x[1][0] / PARTITION_RCU, x[1][1] / PARTITION_WCU))
        more = f" (+{len(ranked) - top} keys less busy)" if len(ranked) > top else ""
        return ", ".join(f"{pk} {r:,.0f}/{w:,.0f}" for pk, (r, w) in ranked[:top]) + more
    print("partition keys (RRU/WRU a second; EVENT#R#Tk: a round's table key k), steady while results come in: "
          + busiest({pk: (out["rcu_s"][pk], out["wcu_s"].get(pk, 0)) for pk in out["rcu_s"]}))
    for kind, b in out["bursts"].items():
        how = "its units at this size over that time" if " in " in kind else "its measured duration, this machine"
        print(f"  {kind} ({how}): " + busiest(b))
    k = entries / measured["run_entries"]
    for kind in ("draw", "close"):   # the roster's read (issue 43: 100,000 entry items on the event key, 5,520/s)
        total = m[kind]["by_pk"].get(ROSTER_KEY_KIND, (0.0, 0.0))[0] * k
        busiest_key = m[kind]["one_key"].get(ROSTER_KEY_KIND, (0.0, 0.0))[0] * k
        print(f"  the {kind}'s roster read at {entries:,} entries: {total:,.0f} RRU over its 16 keys, {busiest_key:,.0f} "
              f"on the busiest ({busiest_key / DRAW_TARGET_S:,.0f} a second in {DRAW_TARGET_S} s; counted from the "
              f"run's × {k:g}, which overstates it: the run's chunk items hold a row or two, their keys' bytes each); "
              f"the event key's, all of the {kind}'s reads there: {m[kind]['one_key'].get('EVENT', (0.0, 0.0))[0] * k:,.0f} RRU")
    top = sorted(out["item_s"].items(), key=lambda x: -(x[1][0] / PARTITION_RCU + x[1][1] / PARTITION_WCU))[:6]
    print("  by item, steady: " + ", ".join(f"{what} {r:,.0f}/{w:,.0f}" for what, (r, w) in top))
    for pk, need in hot_keys(out).items():
        print(f"  {pk} is over one partition's {PARTITION_RCU:,} RRU/s or {PARTITION_WCU:,} WRU/s: its load needs "
              f"{need} partition keys")
    if not hot_keys(out):
        print(f"  every partition key under one partition's {PARTITION_RCU:,} RRU/s and {PARTITION_WCU:,} WRU/s")
    summary = {"entries": entries, "usd_per_day": round(out["usd"], 2), "usd_per_entry": round(out["usd"] / entries, 5),
               "api_requests": out["api_requests"], "s3_puts_per_close": round(out["puts_close"]),
               "max_partition_rcu_per_s": round(out["max_r"]), "max_partition_wcu_per_s": round(out["max_w"])}
    print(json.dumps(summary))
    return summary


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--entries", type=int, nargs="+", default=[10000],
                    help="the day's entries (several: one run, counted at each; a JSON line each, in this order)")
    ap.add_argument("--run-entries", type=int, default=None,
                    help="the day run on the local stack (default: the smaller of 1,000 and --entries)")
    ap.add_argument("--rounds", type=int, default=ROUNDS)
    args = ap.parse_args(argv)
    run = args.run_entries or min(1000, max(args.entries))
    measured = run_day(run, rounds=args.rounds)
    return [report(measured, n) for n in args.entries][-1]


if __name__ == "__main__":
    main()
