"""The embedded store's refusals (nothing outside DynamoDB's grammar is ignored), its file's permissions, and its
connections across threads and fork() (the publisher forks children that read)."""
from __future__ import annotations

import os
import threading

import pytest
from botocore.exceptions import ClientError

from chalicelib.store import schema
from chalicelib.store.embedded import EmbeddedClient

KEY = {"PK": {"S": "P"}, "SK": {"S": "S"}}


@pytest.fixture
def c(tmp_path):
    client = EmbeddedClient(str(tmp_path / "store" / "store.sqlite3"))
    client.create_table(**schema.create_table_kwargs("t"))
    client.put_item(TableName="t", Item={**KEY, "n": {"N": "1"}, "s": {"S": "x"}, "l": {"L": []}})
    yield client
    client.close()


@pytest.mark.parametrize("kw, says", [
    ({"UpdateExpression": "SET n = :v", "ConditionExpression": "n == :v"}, "Syntax error"),
    ({"UpdateExpression": "SET n = :v", "ConditionExpression": "frobnicate(n)"}, "Invalid function name"),
    ({"UpdateExpression": "SET n = :v", "ConditionExpression": "size(n) = :v AND upper(s) = :v"}, "Invalid function"),
    ({"UpdateExpression": "SET n = :v", "ConditionExpression": "((n = :v))"}, "redundant parentheses"),
    ({"UpdateExpression": "SET n = :v", "ConditionExpression": "n = :w"}, "not defined"),
    ({"UpdateExpression": "SET n = :v, s = :v", "ExpressionAttributeNames": {"#x": "x"}}, "ExpressionAttributeNames unused"),
    ({"UpdateExpression": "SET n = :v", "ExpressionAttributeValues": {":v": {"N": "1"}, ":z": {"N": "2"}}}, "unused"),
    ({"UpdateExpression": "SET #q = :v"}, "attribute name used in the document path is not defined"),
    ({"UpdateExpression": "SET status = :v"}, "reserved keyword"),
    ({"UpdateExpression": "SET n = :v REMOVE n"}, "overlap"),
    ({"UpdateExpression": "SET PK = :v"}, "part of the key"),
    ({"UpdateExpression": "SET n = nope + :v"}, "does not exist"),
    ({"UpdateExpression": "SET n = s + :v"}, "incorrect data type"),
    ({"UpdateExpression": "ADD s :v"}, "incorrect data type"),
    ({"UpdateExpression": "SET n = :v SET s = :v"}, "only be used once"),
    ({"UpdateExpression": "SET m.deep = :v"}, "invalid for update"),
    ({"UpdateExpression": "RENAME n"}, "Syntax error"),
    ({"UpdateExpression": "SET n = :v", "ConditionExpression": "n < :v", "Expected": {}}, "does not take"),
])
def test_what_dynamodb_refuses_is_refused_never_ignored(c, kw, says):
    kw.setdefault("ExpressionAttributeValues", {":v": {"N": "1"}})
    before = c.get_item(TableName="t", Key=KEY)["Item"]
    with pytest.raises(ClientError) as err:
        c.update_item(TableName="t", Key=KEY, **kw)
    assert err.value.response["Error"]["Code"] == "ValidationException"
    assert says in err.value.response["Error"]["Message"], err.value.response["Error"]["Message"]
    assert c.get_item(TableName="t", Key=KEY)["Item"] == before


def test_conditional_failures_and_cancellations_are_shaped_as_botocores(c):
    with pytest.raises(c.exceptions.ConditionalCheckFailedException) as err:
        c.update_item(TableName="t", Key=KEY, UpdateExpression="ADD n :one", ConditionExpression="n > :one",
                      ExpressionAttributeValues={":one": {"N": "1"}}, ReturnValuesOnConditionCheckFailure="ALL_OLD")
    assert err.value.response["Item"]["n"] == {"N": "1"}
    other = {"PK": {"S": "P"}, "SK": {"S": "T"}}
    with pytest.raises(c.exceptions.TransactionCanceledException) as err:
        c.transact_write_items(TransactItems=[
            {"Put": {"TableName": "t", "Item": {**other, "a": {"S": "b"}}, "ConditionExpression": "attribute_not_exists(PK)"}},
            {"Update": {"TableName": "t", "Key": KEY, "UpdateExpression": "ADD n :one", "ConditionExpression": "n = :two",
                        "ExpressionAttributeValues": {":one": {"N": "1"}, ":two": {"N": "2"}},
                        "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}}])
    reasons = err.value.response["CancellationReasons"]
    assert [r["Code"] for r in reasons] == ["None", "ConditionalCheckFailed"] and reasons[1]["Item"]["n"] == {"N": "1"}
    assert "Item" not in c.get_item(TableName="t", Key=other)   # all or nothing


def test_the_file_is_private(tmp_path, c):
    path = tmp_path / "store" / "store.sqlite3"
    assert path.stat().st_mode & 0o777 == 0o600 and path.parent.stat().st_mode & 0o777 == 0o700
    for extra in ("-wal", "-shm"):   # SQLite gives its side files the database file's mode
        side = path.with_name(path.name + extra)
        assert not side.exists() or side.stat().st_mode & 0o777 == 0o600


def test_threads_never_lose_an_update(c):
    def add():
        for _ in range(50):
            c.update_item(TableName="t", Key=KEY, UpdateExpression="ADD n :one", ExpressionAttributeValues={":one": {"N": "1"}})
    threads = [threading.Thread(target=add) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert c.get_item(TableName="t", Key=KEY)["Item"]["n"] == {"N": "401"}


def test_a_forked_child_reads_with_its_own_connection_and_leaves_the_parents_alone(tmp_path, monkeypatch):
    from chalicelib.store import dynamo
    monkeypatch.setenv("STORE", "embedded")
    monkeypatch.setenv("STORE_PATH", str(tmp_path / "s.sqlite3"))
    dynamo.reset_client()
    try:
        schema.ensure_table(dynamo.client(), "t")
        dynamo.Table("t").put({"PK": "P", "SK": "S", "n": 1})
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:   # the child: a client of its own (dynamo's at-fork hook), reads and writes, exits
            try:
                t = dynamo.Table("t")
                t.update({"PK": "P", "SK": "S"}, "ADD n :one", values={":one": 1})
                os.write(w, str(t.get({"PK": "P", "SK": "S"})["n"]).encode())
            finally:
                os._exit(0)
        os.close(w)
        assert os.read(r, 100) == b"2"
        os.waitpid(pid, 0)
        t = dynamo.Table("t")   # the parent's connection still works after the child's exit
        t.update({"PK": "P", "SK": "S"}, "ADD n :one", values={":one": 1})
        assert t.get({"PK": "P", "SK": "S"})["n"] == 3
    finally:
        dynamo.reset_client()


def test_short_lived_threads_leave_no_open_files(c):
    """/health and the parallel reads run in threads made for them: their connections close when they end."""
    from concurrent.futures import ThreadPoolExecutor
    fds = lambda: len(os.listdir("/proc/self/fd"))  # noqa: E731
    c.get_item(TableName="t", Key=KEY)
    before = fds()
    for _ in range(30):
        with ThreadPoolExecutor(4) as pool:
            list(pool.map(lambda _: c.get_item(TableName="t", Key=KEY), range(4)))
    import gc
    gc.collect()
    assert fds() - before < 10


def test_a_batch_that_never_reached_the_disk_acknowledges_none_of_its_writers(c, monkeypatch):
    """Group commit: the writer that runs a batch may fail before the batch's transaction begins (no connection:
    out of descriptors). The other writers it took along must hear that error, not a success for a write that
    was never made."""
    import sqlite3

    from chalicelib.store import embedded

    other_key = {"PK": {"S": "P"}, "SK": {"S": "other"}}
    table = c._table("t")
    other = embedded._Job(lambda conn: c._store(conn, table, {**other_key, "n": {"N": "2"}}))
    c._pending.append(other)   # another thread's write, waiting for this one's turn

    def no_connection():
        raise sqlite3.OperationalError("unable to open database file")
    monkeypatch.setattr(c, "_borrow", no_connection)
    from chalicelib.errors import ServiceUnavailable
    with pytest.raises(ServiceUnavailable):   # 503: the store did not answer
        c.put_item(TableName="t", Item={**KEY, "n": {"N": "3"}})
    monkeypatch.undo()
    assert other.done and other.error is not None, "the other writer would be told its write succeeded"
    assert "Item" not in c.get_item(TableName="t", Key=other_key)


def test_a_batch_write_past_25_items_is_checked_as_batches_of_25_and_written_a_few_thousand_a_transaction(c, monkeypatch):
    from chalicelib.store import embedded
    monkeypatch.setattr(embedded, "WRITE_ALL_ROWS", 7)   # several SQLite transactions for 60 requests
    commits = []
    real_run_on = c._run_on
    monkeypatch.setattr(c, "_run_on", lambda conn, batch: (commits.append(len(batch)), real_run_on(conn, batch)))
    seen = []
    c.meta.events.register("before-call.dynamodb.BatchWriteItem", lambda params, **_: seen.append(params))

    def put(k, **extra):
        return {"PutRequest": {"Item": {"PK": {"S": "B"}, "SK": {"S": f"{k:03d}"}, **extra}}}
    requests = [put(k, n={"N": "007" if k == 3 else str(k)}, s={"S": "表"}) for k in range(60)]
    requests.append({"DeleteRequest": {"Key": KEY}})
    assert c.batch_write_all(RequestItems={"t": requests}) == {"UnprocessedItems": {}}
    assert len(commits) == 9 and len(seen) == 1   # 61 rows, 7 a transaction; the hooks told once, as one call
    got = c.query(TableName="t", KeyConditionExpression="PK = :p", ExpressionAttributeValues={":p": {"S": "B"}})["Items"]
    assert [i["SK"]["S"] for i in got] == [f"{k:03d}" for k in range(60)]
    assert got[3]["n"] == {"N": "7"} and got[0]["n"] == {"N": "0"} and got[59]["s"] == {"S": "表"}   # stored normalised
    assert "Item" not in c.get_item(TableName="t", Key=KEY)

    # refused before anything is written: a duplicate within one batch of 25, an item over 400 KB, a bad number
    for bad in ([put(100), *[put(101 + k) for k in range(23)], put(100), *[put(130 + k) for k in range(5)]],
                [put(200 + k) for k in range(30)] + [put(300, big={"S": "x" * (400 * 1024)})],
                [put(400 + k) for k in range(30)] + [put(500, n={"N": "1e"})]):
        with pytest.raises(ClientError) as err:
            c.batch_write_all(RequestItems={"t": bad})
        assert err.value.response["Error"]["Code"] == "ValidationException"
        assert len(c.query(TableName="t", KeyConditionExpression="PK = :p",
                           ExpressionAttributeValues={":p": {"S": "B"}})["Items"]) == 60
    # the same key in two batches of 25 is not a duplicate (DynamoDB takes them as two calls): the later one stays
    c.batch_write_all(RequestItems={"t": [put(600, n={"N": "1"}), *[put(601 + k) for k in range(24)],
                                          put(600, n={"N": "2"})]})
    assert c.get_item(TableName="t", Key={"PK": {"S": "B"}, "SK": {"S": "600"}})["Item"]["n"] == {"N": "2"}


def test_items_alike_are_stored_as_their_whole_items_would_be_and_refused_alike(c):
    """batch_put_alike (a draw's code items: a template and each item's values) stores each item's row as a put of
    the whole item does — its JSON byte for byte, its key and index key — and refuses what batch_write_all refuses,
    nothing written then."""
    template = {"PK": {"S": None}, "SK": {"S": "META"}, "kind": {"S": "表\"x"}, "GSI1PK": {"S": None},
                "GSI1SK": {"S": "g"}, "round": {"N": "007"}, "table": {"N": None}, "note": {"S": None}}
    fills = [("A1", "G1", "17", ""), ("A2\n表", "G2", "0", "x\\y\u0001"), ("A3", "G3", "1.50", "n")]
    table = c._table("t")
    whole = [{**template, "PK": {"S": a}, "GSI1PK": {"S": g}, "table": {"N": n}, "note": {"S": x}} for a, g, n, x in fills]
    from chalicelib.store.embedded import _Alike
    alike = _Alike(table, template)
    assert alike.fast   # the first two from the template's JSON, the third (a number to normalise) made whole
    assert [alike.row(f) for f in fills] == [c._put_row(table, item) for item in whole]
    assert c.batch_put_alike(TableName="t", Template=template, Fills=fills) == {"UnprocessedItems": {}}
    got = c.get_item(TableName="t", Key={"PK": {"S": "A3"}, "SK": {"S": "META"}})["Item"]
    assert got == {**template, "PK": {"S": "A3"}, "GSI1PK": {"S": "G3"}, "round": {"N": "7"}, "table": {"N": "1.5"},
                   "note": {"S": "n"}}
    by_index = c.query(TableName="t", IndexName=table.index, KeyConditionExpression="GSI1PK = :p",
                       ExpressionAttributeValues={":p": {"S": "G2"}})["Items"]
    assert [i["PK"]["S"] for i in by_index] == ["A2\n表"]

    def stored() -> int:
        return c.scan(TableName="t", Select="COUNT")["Count"]
    before = stored()
    for bad in ([(f"B{k}", "G", "1", "") for k in range(24)] + [("B0", "G", "1", "")],   # a key twice within 25
                [(f"C{k}", "G", "1", "") for k in range(30)] + [("", "G", "1", "")],   # an empty key
                [(f"D{k}", "G", "1", "") for k in range(30)] + [("D", "G", "1e", "")],   # not a number
                [(f"E{k}", "G", "1", "") for k in range(30)] + [("E", "G", "1", "x" * 400 * 1024)],   # over 400 KB
                [("F", "G", "1")]):   # a value missing
        with pytest.raises(ClientError) as err:
            c.batch_put_alike(TableName="t", Template=template, Fills=bad)
        assert err.value.response["Error"]["Code"] == "ValidationException"
        assert stored() == before
    # the same key in two batches of 25 is not a duplicate (as batch_write_all): the later one stays
    c.batch_put_alike(TableName="t", Template=template, Fills=[("H", "G", "1", ""), *[(f"H{k}", "G", "1", "") for k in range(24)],
                                                               ("H", "G", "2", "")])
    assert c.get_item(TableName="t", Key={"PK": {"S": "H"}, "SK": {"S": "META"}})["Item"]["table"] == {"N": "2"}


def test_a_begins_with_query_reads_its_prefix_not_the_rest_of_the_partition(c):
    """A prefix of a big partition (an event's appeals or audit heads beside 100,000 entries and tables) is read in
    its own range: the query stops at the prefix's end instead of stepping through every later key of the
    partition (a publish's small reads took ~50 ms each at 20,000 entries)."""
    items = [{"PutRequest": {"Item": {"PK": {"S": "E"}, "SK": {"S": sk}}}}
             for sk in ["APPEAL#", "APPEAL#1", "APPEAL#2", "APPEAL$", "表#1", "表", "表格#1",
                        *(f"AUDIT#{k:05d}" for k in range(3000))]]
    c.batch_write_all(RequestItems={"t": items})

    def sks(prefix: str, forward: bool = True) -> list[str]:
        return [i["SK"]["S"] for i in c.query(TableName="t", KeyConditionExpression="PK = :p AND begins_with(SK, :s)",
                                              ExpressionAttributeValues={":p": {"S": "E"}, ":s": {"S": prefix}},
                                              ScanIndexForward=forward)["Items"]]
    assert sks("APPEAL#") == ["APPEAL#", "APPEAL#1", "APPEAL#2"]
    assert sks("APPEAL#", forward=False) == ["APPEAL#2", "APPEAL#1", "APPEAL#"]
    assert sks("表") == ["表", "表#1", "表格#1"] and sks("表#") == ["表#1"]
    assert len(sks("AUDIT#")) == 3000 and sks("B") == []
    steps = []
    for conn in c._all:   # SQLite's virtual machine steps, counted by the hundred, through one query
        conn.set_progress_handler(lambda: steps.append(1), 100)
    try:
        assert sks("APPEAL#") == ["APPEAL#", "APPEAL#1", "APPEAL#2"]
    finally:
        for conn in c._all:
            conn.set_progress_handler(None, 0)
    assert len(steps) < 20, f"{len(steps) * 100} steps for 3 rows: the query read past the prefix"
