"""A venue's data in DynamoDB Local's files (earlier versions' .data/ddb) carried into the embedded store: every
item the same, the index answering, once only, and a file of an unknown layout refused with nothing changed."""
from __future__ import annotations

import sqlite3
from decimal import Decimal

import boto3
import pytest

from chalicelib.store import schema
from chalicelib.store.embedded import EmbeddedClient
from scripts import ddblocal
from scripts.store_import import ImportRefused, import_folder


def _canon(items):
    """Items compared whole; numbers by value (this store gives them back trimmed, as DynamoDB does)."""
    def number_trimmed(v):
        if isinstance(v, dict):
            return {k: (str(Decimal(x).normalize()) if k == "N" else number_trimmed(x)) for k, x in v.items()}
        return [number_trimmed(x) for x in v] if isinstance(v, list) else v
    return sorted(sorted((k, repr(number_trimmed(v))) for k, v in i.items()) for i in items)


def _scan(c, table):
    items, kw = [], {"TableName": table}
    while True:
        resp = c.scan(**kw)
        items += resp["Items"]
        if "LastEvaluatedKey" not in resp:
            return items
        kw["ExclusiveStartKey"] = resp["LastEvaluatedKey"]


@pytest.fixture(scope="module")
def old_files(tmp_path_factory):
    """DynamoDB Local with its files in a folder, items written through it, then stopped (as an upgrade finds it)."""
    folder = tmp_path_factory.mktemp("old") / "ddb"
    port = ddblocal.free_port()
    proc = ddblocal.start(port, db_path=str(folder))
    try:
        c = boto3.client("dynamodb", endpoint_url=f"http://127.0.0.1:{port}")
        schema.ensure_table(c, "cardgames")
        items = [{"PK": {"S": f"EVENT#{e}"}, "SK": {"S": f"ENTRY#{k:04d}"}, "name": {"S": f"选手{k} \"q\""},
                  "n": {"N": str(k * 1.5)}, "tags": {"SS": ["a", f"t{k % 3}"]}, "blob": {"B": bytes([k % 256, 0, 255])},
                  "doc": {"M": {"l": {"L": [{"N": "2.50"}, {"BOOL": True}, {"NULL": True}]}}},
                  **({"GSI1PK": {"S": f"WAITLIST#{e}"}, "GSI1SK": {"S": f"{k:06d}"}} if k % 4 == 0 else {})}
                 for e in range(3) for k in range(120)]
        for batch in range(0, len(items), 25):
            c.batch_write_item(RequestItems={"cardgames": [{"PutRequest": {"Item": i}} for i in items[batch:batch + 25]]})
        c.transact_write_items(TransactItems=[{"Update": {"TableName": "cardgames", "Key": {"PK": {"S": "EVENT#0"},
                               "SK": {"S": "COUNTERS"}}, "UpdateExpression": "ADD taken :one",
                               "ExpressionAttributeValues": {":one": {"N": "1"}}}}])
        before = _scan(c, "cardgames")
    finally:
        ddblocal.stop(proc)
    return folder, before


@pytest.fixture
def old_venue(old_files, tmp_path):
    """A copy of the old files of this test's own (an import renames the folder)."""
    import shutil
    folder, before = old_files
    shutil.copytree(folder, tmp_path / "ddb")
    return tmp_path / "ddb", before


def test_every_item_of_dynamodb_locals_files_is_carried_over_once(old_venue, tmp_path):
    folder, before = old_venue
    store = EmbeddedClient(str(tmp_path / "store" / "store.sqlite3"))
    assert import_folder(folder, store) == len(before) == 361
    after = _scan(store, "cardgames")
    assert _canon(after) == _canon(before)
    waiting = store.query(TableName="cardgames", IndexName="GSI1", KeyConditionExpression="GSI1PK = :w",
                          ExpressionAttributeValues={":w": {"S": "WAITLIST#1"}})["Items"]
    assert [i["GSI1SK"]["S"] for i in waiting] == [f"{k:06d}" for k in range(0, 120, 4)]
    assert not folder.exists() and (tmp_path / "ddb.imported").exists()   # the old files kept, renamed
    # a second start finds nothing to do; even the old folder put back is not imported twice
    store.put_item(TableName="cardgames", Item={"PK": {"S": "EVENT#0"}, "SK": {"S": "COUNTERS"}, "taken": {"N": "7"}})
    assert import_folder(folder, store) is None
    (tmp_path / "ddb.imported").rename(folder)
    assert import_folder(folder, store) == 0
    assert store.get_item(TableName="cardgames", Key={"PK": {"S": "EVENT#0"}, "SK": {"S": "COUNTERS"}})["Item"]["taken"] == {"N": "7"}
    assert len(_scan(store, "cardgames")) == 361


def test_a_file_of_an_unknown_layout_is_refused_and_nothing_changes(old_venue, tmp_path):
    folder, _ = old_venue
    db = next(folder.glob("*.db"))
    with sqlite3.connect(db) as conn:   # a row whose key columns do not match its item: not the layout read here
        changed = conn.execute('UPDATE "cardgames" SET hashKey = ? WHERE rangeKey = ? AND hashKey = ?',
                               (b"EVENT#9", b"ENTRY#0003", b"EVENT#0")).rowcount
    assert changed == 1
    store = EmbeddedClient(str(tmp_path / "store" / "store.sqlite3"))
    with pytest.raises(ImportRefused, match="unknown DynamoDB Local layout"):
        import_folder(folder, store)
    assert store.list_tables()["TableNames"] == [] and folder.exists()
