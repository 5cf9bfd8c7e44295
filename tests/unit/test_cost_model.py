"""bench/cost.py's counting (issue 43, item 6): AWS's billing rules on hand-worked cases, the meter's units for real
calls on the embedded store, and a tiny day run whole (a process of its own: the run rewires the store and the
publisher) whose request count is worked out here by hand."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bench.cost import Meter, query_units, read_units, transaction_write_units, write_units

ROOT = Path(__file__).resolve().parents[2]


def test_reads_count_4_kb_units_rounded_up():
    assert read_units(5 * 1024) == 2                       # strongly consistent, 5 KB
    assert read_units(5 * 1024, consistent=False) == 1     # eventually consistent: half
    assert read_units(5 * 1024, transactional=True) == 4
    assert read_units(4096) == 1 and read_units(4097) == 2 and read_units(0) == 1
    assert query_units([3000, 3000]) == 2                  # a query sums its items, then rounds: 6,000 B
    assert query_units([]) == 1


def test_writes_count_1_kb_units_and_a_transaction_twice():
    assert write_units(1024) == 1 and write_units(1025) == 2 and write_units(10) == 1
    assert transaction_write_units([1536, 1536]) == 2 * 2 * 2   # two 1.5 KB items in a transaction


def _item(pk: str, sk: str, total: int) -> dict:
    """A typed item of exactly `total` bytes as DynamoDB sizes it (names + values)."""
    pad = total - (2 + len(pk)) - (2 + len(sk)) - 1
    return {"PK": {"S": pk}, "SK": {"S": sk}, "d": {"S": "x" * pad}}


@pytest.fixture
def meter(tmp_path):
    from chalicelib.store import schema
    from chalicelib.store.embedded import open_client
    client = open_client(str(tmp_path / "store.sqlite3"))
    schema.ensure_table(client, "t")
    m = Meter(client)
    m.phase = "case"
    yield m
    client.close()


def _units(m: Meter, pk: str) -> list[float]:
    return list(m.units["case"][pk])


def test_the_meter_counts_real_calls_on_the_store(meter):
    meter.transact_write_items(TransactItems=[{"Put": {"TableName": "t", "Item": _item("A", "1", 1536)}},
                                              {"Put": {"TableName": "t", "Item": _item("A", "2", 1536)}}])
    assert _units(meter, "A") == [0, 8]
    meter.put_item(TableName="t", Item=_item("B", "1", 5 * 1024))
    assert _units(meter, "B") == [0, 5]
    got = meter.get_item(TableName="t", Key={"PK": {"S": "B"}, "SK": {"S": "1"}}, ConsistentRead=True)
    assert got["Item"]["d"]["S"].startswith("x")           # the answer is the store's, unchanged
    assert _units(meter, "B") == [2, 5]
    meter.get_item(TableName="t", Key={"PK": {"S": "B"}, "SK": {"S": "1"}}, ProjectionExpression="PK")
    assert _units(meter, "B") == [3, 5]                     # a projection is billed on the whole item, eventually
    # an update that shrinks the item is billed on the larger, the item before (5 KB)
    meter.update_item(TableName="t", Key={"PK": {"S": "B"}, "SK": {"S": "1"}}, UpdateExpression="SET d = :d",
                      ExpressionAttributeValues={":d": {"S": "y"}})
    assert _units(meter, "B") == [3, 10]
    # a query reads both 1.5 KB items of A: 3 KB, one unit
    out = meter.query(TableName="t", KeyConditionExpression="PK = :pk", ExpressionAttributeValues={":pk": {"S": "A"}},
                      ConsistentRead=True)
    assert len(out["Items"]) == 2 and _units(meter, "A") == [1, 8]
    with meter.paused():
        meter.put_item(TableName="t", Item=_item("C", "1", 100))
    assert "C" not in meter.units["case"]


def test_a_draws_code_items_are_metered_as_the_batches_dynamodb_would_take(meter, monkeypatch):
    """The embedded store's items alike (a draw's code items: store/embedded.py batch_put_alike) are not passed
    through the meter unmetered: a draw then sends them as requests, one write unit each."""
    from chalicelib.store import dynamo, rounds
    from chalicelib.store.rounds import RoundRepo
    monkeypatch.setattr(rounds, "client", lambda: meter)
    tables = [{"number": k, "code_hashes": [f"{k:064x}", f"{k + 100:064x}"]} for k in range(1, 16)]
    RoundRepo(dynamo.Table("t"))._batch_write([], alike=RoundRepo.code_items("E1", 1, tables))
    metered = {pk: u for pk, u in meter.units["case"].items() if pk.startswith("TABLECODE#")}
    assert len(metered) == 30 and all(u == [0, 1] for u in metered.values())
    assert meter.inner.get_item(TableName="t", Key={"PK": {"S": f"TABLECODE#{115:064x}"}, "SK": {"S": "META"}})["Item"]


def test_a_tiny_day_is_run_and_counted():
    proc = subprocess.run([sys.executable, "bench/cost.py", "--entries", "100", "--run-entries", "8", "--rounds", "1"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    # 100 entries: 100 registrations + 100 check-ins, 9 draws + 9 closes, 50 tables × 9 rounds entered and
    # confirmed (450 + 450), and each table's 2 phones opening it once a round (900); their polls go to the CDN
    # (issue 43), none to the API
    assert out["api_requests"] == 100 + 100 + 9 + 9 + 450 + 450 + 900
    assert out["entries"] == 100 and out["usd_per_day"] > 0
    assert out["usd_per_entry"] == pytest.approx(out["usd_per_day"] / 100, rel=0.01)
    assert out["s3_puts_per_close"] > 0 and out["max_partition_rcu_per_s"] > 0 and out["max_partition_wcu_per_s"] > 0


def test_the_model_polls_at_the_table_pages_cadence():
    """bench/cost.py counts the phones' live-JSON polls with the cadence the table page really uses (issue 43)."""
    import re

    from bench.cost import CADENCE_S
    js = (ROOT / "frontend" / "app" / "src" / "pages" / "score" / "useTable.js").read_text(encoding="utf-8")
    found = re.search(r"CADENCE_MS = \{([^}]*)\}", js).group(1)
    page = {k: int(v) / 1000 for k, v in re.findall(r"(\w+): (\d+)", found)}
    assert page == CADENCE_S


def test_hot_keys_are_those_over_a_partitions_limits_with_the_keys_their_load_needs():
    from bench.cost import _sk_kind, hot_keys
    out = {"rcu_s": {"EVENT": 7269.0, "TOURN": 191.0}, "wcu_s": {"EVENT": 1000.0, "TOURN": 0.0},
           "bursts": {"close": {"EVENT": (1015.0, 93.0)}, "draw": {"TABLECODE": (10.0, 2500.0)}}}
    assert hot_keys(out) == {"EVENT": 3, "TABLECODE": 3}   # 7,269 / 3,000 read units; 2,500 / 1,000 write units
    assert hot_keys({"rcu_s": {"EVENT": 3000.0}, "wcu_s": {"EVENT": 1000.0}, "bursts": {}}) == {}   # at, not over
    assert _sk_kind("ROUND#0#003#TABLES#012#0245") == "ROUND TABLES" and _sk_kind("AUDIT#01KBQ8Z4T3M2") == "AUDIT"


def test_a_rounds_table_keys_are_counted_each_as_its_own_key():
    """A round's sixteen table keys are sixteen partition keys (issue 43): the model keeps each apart (the same
    number of every round together: a round's load is on its own keys only), and an event's counter shards too."""
    from bench.cost import _pk_kind
    from chalicelib.store import keys
    assert [_pk_kind(keys.table_item("01EV", 0, 3, t)["PK"]) for t in (5, 25, 325)] == ["EVENT#R#T00", "EVENT#R#T01", "EVENT#R#T00"]
    assert _pk_kind(keys.table_pack("01EV", 1, 9, 17)["PK"]) == "EVENT#R#T01"
    assert _pk_kind("EVENT#01EV") == "EVENT" and _pk_kind(keys.counter_shard("01EV", 3)["PK"]) == "EVENT#C03"
    assert _pk_kind("TABLECODE#ab12") == "TABLECODE"
    assert {_pk_kind(keys.roster_chunk("01EV", f"01ENTRY{i}")["PK"]) for i in range(40)} == {"EVENT#Lk"}
