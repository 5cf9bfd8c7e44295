"""Documents that grow with the field (stage plans, a knockout round's byes) in bounded items, on moto and on
DynamoDB Local: whole again when read, the version still the one condition, old inline items still readable."""
from __future__ import annotations

import json

import pytest

from chalicelib import errors
from chalicelib.store import keys, parts
from chalicelib.store.dynamo import client

LIMIT = 100 * 1024


@pytest.fixture(autouse=True)
def _patient_store(monkeypatch):
    """Thousands of items a call on a shared, loaded machine: wait for DynamoDB Local longer than a request would."""
    from chalicelib.store import dynamo
    monkeypatch.setattr(dynamo, "READ_TIMEOUT_S", 30.0)
    dynamo.reset_client()


def _ids(n):
    return [f"01JENTRY{k:018d}" for k in range(n)]


def _plan(ids):
    return {"stage": 0, "format": "swiss", "seed": 5, "rounds": 9, "entries": ids,
            "numbers": {e: i + 1 for i, e in enumerate(ids)}, "carry": {e: {"match_points": 1.5} for e in ids[::3]}}


def _scan_sizes(repos):
    out, kwargs = [], {"TableName": repos.table.name}
    while True:
        resp = client().scan(**kwargs)
        out.extend((i["SK"]["S"], parts.item_size(i)) for i in resp["Items"])
        if "LastEvaluatedKey" not in resp:
            return out
        kwargs["ExclusiveStartKey"] = resp["LastEvaluatedKey"]


def test_a_ten_thousand_entry_plan_and_round_in_bounded_items(any_repos, monkeypatch):
    repo, ids = any_repos.rounds, _ids(10_000)
    assert len(json.dumps(_plan(ids))) > 400 * 1024          # one item could not hold it
    byes = [[e, "bye: top seed advances"] for e in ids[:6_000]]
    doc = {"event_id": "E1", "stage": 0, "number": 1, "stage_round": 1, "seed": 5, "status": "open",
           "format": "knockout", "byes": byes, "bye_why": {}, "notes": ["n"] * 3, "bracket": [[a, b] for a, b in
                                                                                       zip(ids[::2], ids[1::2])]}
    tables = [{"number": k, "home": ids[2 * k], "status": "pending", "version": 0, "points": {},
               "sides": [{"entry_id": ids[2 * k], "seats": ["N", "S"]}, {"entry_id": ids[2 * k + 1], "seats": ["E", "W"]}]}
              for k in range(1, 201)]
    state = {"rounds": [{"n": 1, "stage": 0, "stage_round": 1}], "open_round": 1, "stage": 0, "plans": {"0": _plan(ids)}}
    repo.create_round("E1", doc, tables, state, 0)

    got = repo.state("E1")
    assert got["plans"]["0"] == _plan(ids) and got["version"] == 1 and got["open_round"] == 1
    head = repo.state_head("E1")
    assert head["plans"]["0"] == {"stage": 0, "format": "swiss", "seed": 5, "rounds": 9}
    assert head["rounds"] == state["rounds"] and head["version"] == 1
    with pytest.raises(RuntimeError):                          # a head cannot overwrite the plan's entries
        repo.save_state("E1", {**head, "open_round": 0}, 1)

    round_doc, round_tables = repo.get_round("E1", 0, 1)
    assert round_doc == doc and round_tables == tables          # 200 tables in 11 packs, whole and in order
    # a close's read: cut at table packs, queries at once, pages of 2 (DynamoDB's 1 MB made short), a range
    # past its page cut again; whether the field's hint is above the tables (400) or below (60)
    from chalicelib.store import dynamo
    one_query = repo.get_round_stamped("E1", 0, 1)
    monkeypatch.setattr(dynamo, "PAGE_ITEMS", 2)
    for hint in (400, 60, None):    # None: a first page, then the rest at once up to the last pack
        assert repo.get_round_stamped("E1", 0, 1, tables_hint=hint) == one_query
    monkeypatch.setattr(dynamo, "PAGE_ITEMS", None)
    poll_doc, one = repo.get_table("E1", 0, 1, 3)               # a phone's poll: no 6,000 byes with it
    assert poll_doc["status"] == "open" and "byes" not in poll_doc and one["number"] == 3
    assert repo.all_rounds("E1") == [(doc, round_tables)]

    with pytest.raises(errors.RoundOpen):                       # the version is still the one condition
        repo.save_state("E1", {**got, "open_round": 0}, 0)
    closed = {**doc, "status": "closed", "notes": ["closed"]}
    repo.close_round("E1", closed, {**got, "open_round": 0}, got["version"])
    assert repo.get_round("E1", 0, 1)[0] == closed
    assert repo.rounds_for_publishing("E1", repo.state("E1"))[0][0] == closed
    assert repo.rounds_for_publishing("E1", repo.state("E1"))[0][0] == closed   # from the cache the second time

    sizes = _scan_sizes(any_repos)
    largest = max(s for _, s in sizes)
    assert largest < LIMIT, max(sizes, key=lambda x: x[1])
    assert sum(1 for sk, _ in sizes if "#PART#" in sk) >= 3      # it really was split


def test_small_documents_stay_inline_and_old_items_read(any_repos):
    repo = any_repos.rounds
    state = {"rounds": [], "open_round": 0, "stage": 0, "plans": {"0": _plan(_ids(20))}}
    repo.save_state("E2", state, 0)
    raw = client().get_item(TableName=any_repos.table.name, Key={"PK": {"S": "EVENT#E2"}, "SK": {"S": "STATE"}})["Item"]
    assert "parts" not in raw and json.loads(raw["data"]["S"])["plans"]["0"]["entries"] == _ids(20)
    # an item as the store wrote it before parts existed
    client().put_item(TableName=any_repos.table.name, Item={
        "PK": {"S": "EVENT#E3"}, "SK": {"S": "STATE"}, "kind": {"S": "event_state"}, "version": {"N": "4"},
        "data": {"S": json.dumps({**state, "open_round": 2})}})
    old = repo.state("E3")
    assert old["version"] == 4 and old["plans"]["0"]["numbers"][_ids(20)[3]] == 4
    assert "entries" not in repo.state_head("E3")["plans"]["0"]
    # growing past the inline size later moves the plan to parts, and back
    repo.save_state("E3", {**old, "plans": {"0": _plan(_ids(3_000))}}, 4)
    assert repo.state("E3")["plans"]["0"] == _plan(_ids(3_000))
    assert keys.event_state("E3") and repo.state("E3")["version"] == 5
    repo.save_state("E3", {**old, "plans": {"0": _plan(_ids(5))}}, 5)
    assert repo.state("E3")["plans"]["0"] == _plan(_ids(5))


def test_parts_are_written_before_the_head_names_them(any_repos):
    """A draw that fails its version condition leaves the current state readable and whole."""
    repo, ids = any_repos.rounds, _ids(4_000)
    repo.save_state("E4", {"rounds": [], "open_round": 0, "stage": 0, "plans": {"0": _plan(ids)}}, 0)
    with pytest.raises(errors.RoundOpen):
        repo.save_state("E4", {"rounds": [], "open_round": 0, "stage": 0, "plans": {"0": _plan(ids[::-1])}}, 0)
    assert repo.state("E4")["plans"]["0"]["entries"] == ids


def test_a_crashed_draw_leaves_nothing_its_retry_does_not_clean(any_repos):
    """A draw writes its tables and parts (in parallel batches) before the transaction that names them: a crash
    in between leaves items under a round that does not exist; the retry's draw deletes those it does not
    overwrite. A round already there (another draw committed) stops a draw before it writes anything."""
    repo, ids = any_repos.rounds, _ids(200)

    def tables(count, tag):
        return [{"number": k, "home": ids[2 * k], "status": "pending", "version": 0, "points": {}, "reason": tag,
                 "sides": [{"entry_id": ids[2 * k], "seats": ["N", "S"]}, {"entry_id": ids[2 * k + 1], "seats": ["E", "W"]}]}
                for k in range(1, count + 1)]
    doc = {"event_id": "E5", "stage": 0, "number": 1, "stage_round": 1, "seed": 5, "status": "open", "format": "swiss",
           "byes": [], "notes": []}
    state = {"rounds": [{"n": 1, "stage": 0, "stage_round": 1}], "open_round": 1, "stage": 0, "plans": {"0": _plan(ids)}}
    # the crashed attempt: 75 tables (4 packs of 20) and a stray part written, no transaction
    repo._batch_put(repo.table_items("E5", 0, 1, tables(75, "crashed")))
    repo._batch_put([{"PK": "EVENT#E5", "SK": parts.part_sk("ROUND#0#001", "0" * 20, 0), "kind": "part", "blob": b"x"}])
    assert repo.get_round("E5", 0, 1) == (None, [])            # nothing visible
    repo.create_round("E5", doc, tables(50, "retry"), state, 0)
    got_doc, got = repo.get_round("E5", 0, 1)
    assert got_doc["seed"] == 5 and [t["number"] for t in got] == list(range(1, 51))
    assert {t["reason"] for t in got} == {"retry"}
    under = [u for pk in ["EVENT#E5", *keys.round_tables_partitions("E5", 0, 1)]
             for u in any_repos.table.query(pk, "ROUND#0#001#", projection="SK")]
    assert [u["SK"] for u in under] == [f"ROUND#0#001#TABLES#00{k}" for k in range(3)]   # tables 1-50: the 4th
    # pack (tables 60-75, under its own table key) and the part are gone
    with pytest.raises(errors.RoundOpen):
        repo.create_round("E5", doc, tables(60, "late"), {**state}, 1)
    assert [t["reason"] for t in repo.get_round("E5", 0, 1)[1]] == ["retry"] * 50


def test_running_totals_go_with_the_close_and_stamps_move_with_results(any_repos):
    repo, ids = any_repos.rounds, _ids(4_000)
    doc = {"event_id": "E6", "stage": 0, "number": 1, "stage_round": 1, "seed": 5, "status": "open", "format": "swiss",
           "byes": [], "notes": [], "drawn_at": "2026-12-12T01:00:00+00:00"}
    table = {"number": 1, "home": ids[0], "status": "confirmed", "version": 0, "points": {},
             "sides": [{"entry_id": ids[0], "seats": ["N", "S"]}, {"entry_id": ids[1], "seats": ["E", "W"]}]}
    state = {"rounds": [{"n": 1, "stage": 0, "stage_round": 1}], "open_round": 1, "stage": 0, "plans": {"0": _plan(ids)}}
    repo.create_round("E6", doc, [table], state, 0)
    _, _, stamp = repo.get_round_stamped("E6", 0, 1)
    assert stamp == [0, doc["drawn_at"]] and repo.round_stamps("E6", state["rounds"]) == {1: stamp}
    field = {"ids": ids, "pts": [[2.0] * 9 for _ in ids]}        # a 10,000-entry field's size: parts, not one item
    totals = {"stage": 0, "through": 1, "stamps": {"1": stamp}, "field": field}
    with pytest.raises(errors.RoundOpen):                        # the state's version is the one condition
        repo.close_round("E6", {**doc, "status": "closed"}, {**state, "open_round": 0}, 0, totals)
    assert repo.totals("E6", 0) is None
    repo.close_round("E6", {**doc, "status": "closed"}, {**state, "open_round": 0}, 1, totals)
    assert repo.totals("E6", 0) == totals
    repo.save_table("E6", 0, 1, {**table, "version": 1}, 0, {"id": "A1", "action": "result"})
    assert repo.round_stamps("E6", state["rounds"]) == {1: [1, doc["drawn_at"]]}
    assert max(size for _, size in _scan_sizes(any_repos)) < LIMIT
