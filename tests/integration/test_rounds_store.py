"""RoundRepo on moto and on DynamoDB Local: state under a version, rounds with many tables, results, audit."""
from __future__ import annotations

import pytest

from chalicelib import errors


def _round(n, stage=0):
    return {"event_id": "E1", "stage": stage, "number": n, "stage_round": n, "seed": 7, "status": "open",
            "format": "swiss", "byes": [], "notes": []}


def _tables(count):
    return [{"number": k, "home": f"a{k}", "status": "pending", "version": 0, "points": {},
             "sides": [{"entry_id": f"a{k}", "seats": ["N", "S"]}, {"entry_id": f"b{k}", "seats": ["E", "W"]}]}
            for k in range(1, count + 1)]


def test_round_state_tables_results_and_audit(any_repos):
    repo = any_repos.rounds
    assert repo.state("E1") == {"rounds": [], "open_round": 0, "stage": 0, "plans": {}, "version": 0}
    state = {"rounds": [{"n": 1, "stage": 0, "stage_round": 1}], "open_round": 1, "stage": 0, "plans": {"0": {"rounds": 3}}}
    repo.create_round("E1", _round(1), _tables(60), state, 0)  # more tables than one transaction can hold
    with pytest.raises(errors.RoundOpen):
        repo.create_round("E1", _round(1), _tables(1), state, 0)  # a second draw at the same moment
    got = repo.state("E1")
    assert got["open_round"] == 1 and got["version"] == 1
    doc, tables = repo.get_round("E1", 0, 1)
    assert doc["seed"] == 7 and len(tables) == 60 and tables[0]["number"] == 1
    table = dict(tables[0], status="entered", version=1, points={"a1": {"level_points": 10}})
    repo.save_table("E1", 0, 1, table, 0, {"id": "01A", "action": "result_entered", "who": "x", "at": "t"})
    with pytest.raises(errors.VersionConflict):
        repo.save_table("E1", 0, 1, table, 0, {"id": "01C", "action": "result_changed", "who": "x", "at": "t"})
    assert repo.get_round("E1", 0, 1)[1][0]["status"] == "entered"
    one_doc, one = repo.get_table("E1", 0, 1, 1)                  # a phone's poll: the round and one table
    assert one_doc == doc and one == table and repo.get_table("E1", 0, 1, 61) == (doc, None)
    assert repo.table("E1", 0, 1, 1) == table and repo.table("E1", 0, 1, 2) == tables[1] and repo.table("E1", 0, 1, 61) is None
    assert repo.get_table("E1", 0, 2, 1) == (None, None)
    repo.add_audit("E1", {"id": "01B", "action": "rejected_stale_version", "who": "y", "at": "t"})
    assert [a["action"] for a in repo.audit("E1")] == ["result_entered", "rejected_stale_version"]
    doc["status"] = "closed"
    repo.close_round("E1", doc, {**got, "open_round": 0}, got["version"])
    rounds = repo.all_rounds("E1")
    assert len(rounds) == 1 and rounds[0][0]["status"] == "closed" and len(rounds[0][1]) == 60
    after = repo.state("E1")
    repo.delete_round("E1", 0, 1, rounds[0][1], {**after, "rounds": []}, after["version"])
    assert repo.get_round("E1", 0, 1) == (None, []) and repo.state("E1")["rounds"] == []


def test_tables_packed_twenty_to_an_item_keep_their_own_versions(any_repos, request):
    """Tables share items (keys.table_pack) but not conditions: results at two tables of one pack at once both
    land; a pairing edit changing two tables of a pack, removing one and adding one in a new pack is one
    transaction, refused whole when any of them moved since it was read."""
    from concurrent.futures import ThreadPoolExecutor

    from chalicelib.store import keys
    repo = any_repos.rounds
    state = {"rounds": [{"n": 1, "stage": 0, "stage_round": 1}], "open_round": 1, "stage": 0, "plans": {"0": {"rounds": 3}}}
    repo.create_round("E7", _round(1), _tables(45), state, 0)
    packs = [p for pk in keys.round_tables_partitions("E7", 0, 1) for p in any_repos.table.query(pk, projection="SK")]
    assert [p["SK"] for p in packs] == [keys.table_pack("E7", 0, 1, k)["SK"] for k in range(3)]   # 1-19, 20-39, 40-45
    assert any_repos.table.query("EVENT#E7", "ROUND#0#001#TABLES", projection="SK") == []   # not the event's key
    _, tables = repo.get_round("E7", 0, 1)

    def result(k):
        repo.save_table("E7", 0, 1, dict(tables[k - 1], status="entered", version=1), 0,
                        {"id": f"01R{k:02d}", "action": "result_entered", "who": "x", "at": "t"})
    writers = 4 if "ddb_local" in request.node.name else 1   # moto's store is not safe for threads
    with ThreadPoolExecutor(writers) as pool:
        list(pool.map(result, [2, 3, 4, 5]))              # one pack, four writers at once
    _, tables = repo.get_round("E7", 0, 1)
    assert [t["status"] for t in tables[:6]] == ["pending"] + ["entered"] * 4 + ["pending"]

    doc, state = _round(1), repo.state("E7")
    moved = [(dict(tables[1], home="b2", version=2), 1), (dict(tables[6], home="b7", version=1), 0),
             ({**_tables(1)[0], "number": 61, "home": "a61"}, None)]
    audit = {"id": "01E1", "action": "pairing_edited", "who": "x", "at": "t"}
    with pytest.raises(errors.VersionConflict):           # table 7 is at version 0, not 3: nothing is written
        repo.edit_round("E7", doc, [*moved[:1], (moved[1][0], 3), moved[2]], [(8, 0)], state, state["version"], audit)
    assert repo.get_round("E7", 0, 1)[1] == tables and repo.state("E7")["version"] == state["version"]
    with pytest.raises(errors.VersionConflict):           # table 61 is new: only where the number is free
        repo.edit_round("E7", doc, [moved[0], ({**_tables(1)[0], "number": 9}, None)], [], state, state["version"], audit)
    repo.edit_round("E7", doc, moved, [(8, 0)], state, state["version"], audit)
    _, edited = repo.get_round("E7", 0, 1)
    assert [t["number"] for t in edited] == [*range(1, 8), *range(9, 46), 61]
    assert edited[1]["home"] == "b2" and edited[6]["home"] == "b7" and edited[-1]["home"] == "a61"
    assert repo.get_table("E7", 0, 1, 8)[1] is None and repo.get_table("E7", 0, 1, 61)[1]["home"] == "a61"
    with pytest.raises(errors.VersionConflict):           # the edit moved table 2 to version 2
        repo.save_table("E7", 0, 1, dict(edited[1], version=2), 1, {"id": "01R99", "action": "x", "who": "x", "at": "t"})

    state = repo.state("E7")
    repo.delete_round("E7", 0, 1, edited, {**state, "rounds": [], "open_round": 0}, state["version"])
    assert any_repos.table.query("EVENT#E7", "ROUND#0#001", projection="SK") == []
    assert [pk for pk in keys.round_tables_partitions("E7", 0, 1) if any_repos.table.query(pk, projection="SK")] == []


def test_tables_stored_one_to_an_item_by_an_earlier_version_move_into_packs(any_repos):
    """scripts/dev.py runs store/migrations.pack_tables when it opens a store: old table items become packs (a table
    already packed stays), results can be written again, and a second run finds nothing to do."""
    import json

    from chalicelib.store import migrations
    repo = any_repos.rounds
    state = {"rounds": [{"n": 1, "stage": 0, "stage_round": 1}], "open_round": 1, "stage": 0, "plans": {"0": {"rounds": 3}}}
    repo.create_round("E8", _round(1), _tables(3), state, 0)     # tables 1-3 in this version's layout
    old = [dict(t, number=k, version=2, status="confirmed") for k, t in zip(range(3, 26), _tables(23))]
    for t in old:                                                # tables 3-25 as an earlier version wrote them
        any_repos.table.put({"PK": "EVENT#E8", "SK": f"ROUND#0#001#TABLE#{t['number']:04d}", "kind": "table",
                             "data": json.dumps(t), "version": t["version"]})
    assert migrations.pack_tables(any_repos.table) == 23
    _, tables = repo.get_round("E8", 0, 1)
    assert [t["number"] for t in tables] == list(range(1, 26))
    assert tables[2]["status"] == "pending" and tables[3] == old[1]   # table 3 was packed already: it stays
    assert not any("#TABLE#" in i["SK"] for i in any_repos.table.query("EVENT#E8", "ROUND#", projection="SK"))
    repo.save_table("E8", 0, 1, dict(tables[10], version=3), 2, {"id": "01M1", "action": "x", "who": "x", "at": "t"})
    assert repo.get_table("E8", 0, 1, 11)[1]["version"] == 3
    assert migrations.pack_tables(any_repos.table) == 0
    assert migrations.written_tables_out_of_packs(any_repos.table) == 0   # what pack_tables moved has its items


def test_results_kept_in_packs_by_the_previous_layout_read_the_same_and_move_to_table_items(any_repos):
    """Rounds whose results were written into their packs (a pack's attributes at versions past 0, the round head's
    `rev`) read as before; store/migrations.written_tables_out_of_packs gives those tables their own items, after
    which their results take writes again; a second run finds nothing to do."""
    import json

    from chalicelib.store import keys, migrations
    repo = any_repos.rounds
    state = {"rounds": [{"n": 1, "stage": 0, "stage_round": 1}], "open_round": 1, "stage": 0, "plans": {"0": {"rounds": 3}}}
    repo.create_round("E9", _round(1), _tables(25), state, 0)
    done = dict(_tables(25)[21], status="confirmed", version=2, points={"a22": {"level_points": 3}})
    data, version = keys.table_attrs(22)           # as the previous layout's result wrote it
    any_repos.table.update(keys.table_pack("E9", 0, 1, 1), "SET #t = :t, #v = :v", names={"#t": data, "#v": version},
                           values={":t": json.dumps(done), ":v": 2})
    any_repos.table.update(keys.round_("E9", 0, 1), "ADD rev :one", values={":one": 2})
    doc, tables, stamp = repo.get_round_stamped("E9", 0, 1)
    assert tables[21] == done and repo.get_table("E9", 0, 1, 22)[1] == done and stamp[0] == 2
    with pytest.raises(errors.VersionConflict):    # before the migration: refused as stale, never written wrong
        repo.save_table("E9", 0, 1, dict(done, version=3), 2, {"id": "01N1", "action": "x", "who": "x", "at": "t"})
    assert migrations.written_tables_out_of_packs(any_repos.table) == 1
    assert repo.get_round("E9", 0, 1)[1] == tables
    repo.save_table("E9", 0, 1, dict(done, version=3), 2, {"id": "01N2", "action": "x", "who": "x", "at": "t"})
    assert repo.get_table("E9", 0, 1, 22)[1]["version"] == 3 and repo.round_stamps("E9", state["rounds"])[1][0] == 3
    assert migrations.written_tables_out_of_packs(any_repos.table) == 0


def test_a_result_writes_its_own_table_item_and_one_rev_counter(any_repos):
    """A result rewrites neither its pack nor the round head (issue 43): only its table's item and one of the
    round's rev counters, beside the audit chain; twenty results of one pack land on twenty items and spread over
    rev counters; the round's rev still counts every write; a table removed by a pairing edit takes no result and
    its number can be given to a new table again."""
    from chalicelib.store import keys
    repo = any_repos.rounds
    state = {"rounds": [{"n": 1, "stage": 0, "stage_round": 1}], "open_round": 1, "stage": 0, "plans": {"0": {"rounds": 3}}}
    repo.create_round("E10", _round(1), _tables(45), state, 0)
    def under_round():
        return {i["SK"]: i for pk in ["EVENT#E10", *keys.round_tables_partitions("E10", 0, 1)]
                for i in any_repos.table.query(pk, "ROUND#0#001")}
    before = under_round()
    for k in range(20, 40):
        repo.save_table("E10", 0, 1, dict(_tables(45)[k - 1], status="entered", version=1), 0,
                        {"id": f"01W{k:02d}", "action": "result_entered", "who": "x", "at": "t"})
    after = under_round()
    assert all(after[sk] == item for sk, item in before.items())          # packs and head untouched
    new = {sk: i for sk, i in after.items() if sk not in before}
    assert sorted(i["kind"] for i in new.values()).count("table_item") == 20
    revs = [i for i in new.values() if i["kind"] == "rev"]
    assert len(revs) == 1 and revs[0]["rev"] == 20                       # pack 1's results: its one counter
    repo.save_table("E10", 0, 1, dict(_tables(45)[44], status="entered", version=1), 0,
                    {"id": "01W45", "action": "result_entered", "who": "x", "at": "t"})
    assert repo.round_stamps("E10", state["rounds"])[1][0] == 21 == repo.round_revs("E10", state["rounds"])[(0, 1)][0]
    _, tables = repo.get_round("E10", 0, 1)
    assert [t["status"] for t in tables].count("entered") == 21
    assert keys.pack_no_of(keys.table_item("E10", 0, 1, 45)["SK"]) == 2

    doc, state = _round(1), repo.state("E10")
    audit = {"id": "01E2", "action": "pairing_edited", "who": "x", "at": "t"}
    repo.edit_round("E10", doc, [], [(21, 1)], state, state["version"], audit)      # table 21 removed
    assert repo.get_table("E10", 0, 1, 21)[1] is None and 21 not in [t["number"] for t in repo.get_round("E10", 0, 1)[1]]
    with pytest.raises(errors.VersionConflict):
        repo.save_table("E10", 0, 1, dict(_tables(45)[20], version=2), 1, {"id": "01W99", "action": "x", "who": "x", "at": "t"})
    state = repo.state("E10")
    repo.edit_round("E10", doc, [({**_tables(1)[0], "number": 21, "home": "n21"}, None)], [], state, state["version"],
                    {**audit, "id": "01E3"})                                         # its number given again
    assert repo.get_table("E10", 0, 1, 21)[1]["home"] == "n21"
    state = repo.state("E10")
    repo.delete_round("E10", 0, 1, repo.get_round("E10", 0, 1)[1], {**state, "rounds": [], "open_round": 0}, state["version"])
    assert under_round() == {}


def test_a_round_stored_under_its_event_key_reads_there_and_moves_to_its_own_table_keys(any_repos):
    """Rounds drawn before their own table keys (issue 43) kept packs and table items under the event's key: they
    read the same from there (the whole round, one table, every round), store/migrations.spread_round_tables moves
    them to the round's table keys (a table item written there since is kept), results take writes again after it,
    and a second run finds nothing to do."""
    import json

    from chalicelib.store import keys, migrations
    repo = any_repos.rounds
    state = {"rounds": [{"n": 1, "stage": 0, "stage_round": 1}], "open_round": 1, "stage": 0, "plans": {"0": {"rounds": 3}}}
    repo.create_round("E11", _round(1), _tables(45), state, 0)
    repo.save_table("E11", 0, 1, dict(_tables(45)[4], status="entered", version=1), 0,
                    {"id": "01S1", "action": "result_entered", "who": "x", "at": "t"})
    want = repo.get_round("E11", 0, 1)
    for pk in keys.round_tables_partitions("E11", 0, 1):        # as the previous layout held them
        for item in any_repos.table.query(pk):
            any_repos.table.put({**item, "PK": "EVENT#E11"})
            any_repos.table.delete({"PK": pk, "SK": item["SK"]})
    any_repos.table.update(keys.round_("E11", 0, 1), "REMOVE table_keys")
    assert repo.get_round("E11", 0, 1) == want and repo.all_rounds("E11") == [want]
    assert repo.get_table("E11", 0, 1, 5)[1]["status"] == "entered" and repo.get_table("E11", 0, 1, 44)[1]["number"] == 44
    newer = dict(_tables(45)[9], status="entered", version=2)   # written to its new key before the move
    any_repos.table.put({**keys.table_item("E11", 0, 1, 10), "kind": "table_item", "data": json.dumps(newer), "version": 2})
    assert migrations.spread_round_tables(any_repos.table) == 4   # three packs and table 5's item
    assert any_repos.table.query("EVENT#E11", "ROUND#0#001#TABLES") == []
    _, tables = repo.get_round("E11", 0, 1)
    assert tables[9] == newer and [t for k, t in enumerate(tables) if k != 9] == [t for k, t in enumerate(want[1]) if k != 9]
    repo.save_table("E11", 0, 1, dict(tables[4], version=2), 1, {"id": "01S2", "action": "x", "who": "x", "at": "t"})
    assert repo.get_table("E11", 0, 1, 5)[1]["version"] == 2
    assert migrations.spread_round_tables(any_repos.table) == 0


def _write_calls(client, table: str) -> list[tuple[str, list[str]]]:
    """Every batch write call the embedded client is asked for, as it comes: (its kind, its items' keys)."""
    from chalicelib.store.rounds import _filled, _request_key
    calls = []

    def seen(params, **_):
        if "Fills" in params:   # items alike (batch_put_alike): a template and each item's values
            calls.append(("alike", [_request_key(r) for r in _filled(params["Template"], params["Fills"])]))
        else:
            calls.append(("requests", [_request_key(r) for r in params["RequestItems"][table]]))
    client.meta.events.register("before-call.dynamodb.BatchWriteItem", seen)
    return calls


def test_a_draw_on_the_embedded_store_writes_its_items_in_two_calls(embedded_repos):
    """Not one batch write of 25 each (an fsync each: most of a 100,000-entry draw's time): one call for the packs,
    one for the code items alike, written a few thousand rows to a SQLite transaction (store/embedded.py
    batch_write_all, batch_put_alike)."""
    from chalicelib.store import dynamo
    calls = _write_calls(dynamo.client(), embedded_repos.rounds.t.name)
    tables = [{**t, "code_hashes": [f"{t['number']:064x}", f"{t['number'] + 10**6:064x}"]} for t in _tables(300)]
    state = {"rounds": [{"n": 1, "stage": 0, "stage_round": 1}], "open_round": 1, "stage": 0, "plans": {}}
    embedded_repos.rounds.create_round("E1", _round(1), tables, state, 0)
    # packs 0–15 (tables 1–300, twenty a pack), then each side's code
    assert [(kind, len(got)) for kind, got in calls if len(got) > 1] == [("requests", 16), ("alike", 600)]
    assert embedded_repos.rounds.get_round("E1", 0, 1)[1] == tables
    assert embedded_repos.rounds.find_code(f"{300 + 10**6:064x}") == {"event_id": "E1", "round": 1, "table": 300}


def _coded(tables):
    """Tables with each side's code hash as a draw makes them: keyed hashes, in no order of their tables."""
    import hashlib
    return [{**t, "code_hashes": [hashlib.sha256(f"{t['number']}:{i}".encode()).hexdigest() for i in range(2)]}
            for t in tables]


def test_a_drawn_code_finds_its_table_on_every_store(any_repos):
    """The code items a draw writes (made in the wire format directly: RoundRepo.code_requests) read back as
    find_code reads them."""
    tables = _coded(_tables(30))
    state = {"rounds": [{"n": 1, "stage": 0, "stage_round": 1}], "open_round": 1, "stage": 0, "plans": {}}
    any_repos.rounds.create_round("E1", _round(1), tables, state, 0)
    for t in (tables[0], tables[29]):
        for h in t["code_hashes"]:
            assert any_repos.rounds.find_code(h) == {"event_id": "E1", "round": 1, "table": t["number"]}
    assert any_repos.rounds.find_code("0" * 64) is None


def test_a_draw_reaches_the_embedded_store_in_key_order(embedded_repos):
    """Its items sorted by key before they are cut into calls, so each SQLite transaction fills neighbouring pages
    (a draw's code items are keyed by hash: random inserts over the whole table were 3–5× the CPU)."""
    from chalicelib.store import dynamo
    calls = _write_calls(dynamo.client(), embedded_repos.rounds.t.name)
    state = {"rounds": [{"n": 1, "stage": 0, "stage_round": 1}], "open_round": 1, "stage": 0, "plans": {}}
    embedded_repos.rounds.create_round("E1", _round(1), _coded(_tables(300)), state, 0)
    written = {kind: keys for kind, keys in calls if len(keys) > 1}
    assert len(written["requests"]) == 16 and written["requests"] == sorted(written["requests"])
    assert len(written["alike"]) == 600 and written["alike"] == sorted(written["alike"])


def test_a_key_written_twice_in_one_batch_write_keeps_the_last(embedded_repos):
    """Key order never reorders two writes of one key (in order they would fall in one batch of 25, refused; on
    the embedded store one call writes them in their order)."""
    repo = embedded_repos.rounds
    items = [{"PK": "T#x", "SK": f"{k:03d}", "v": k} for k in range(60)]
    repo._batch_put([*items[:59], {"PK": "T#x", "SK": "000", "v": 99}])
    got = repo.t.query("T#x", "0")
    assert len(got) == 59 and got[0]["v"] == 99 and got[1] == items[1]


def test_a_draw_and_a_close_carry_their_audit_record_in_their_own_transaction(any_repos, monkeypatch):
    """The round's head and state and its audit record commit together: before, the service appended the record
    after the round's write, so a crash between the two left a drawn or closed round the chain did not hold; and a
    draw or close that fails leaves no record of itself."""
    repo, table = any_repos.rounds, any_repos.table
    state = {"rounds": [{"n": 1, "stage": 0, "stage_round": 1}], "open_round": 1, "stage": 0, "plans": {"0": {"rounds": 3}}}
    drawn = {"id": "01D", "action": "round_drawn", "round": 1, "who": "x", "at": "t"}
    with pytest.raises(errors.RoundOpen):                  # a stale state: neither the round nor its record
        repo.create_round("E9", _round(1), _tables(3), state, 5, audit=drawn)
    assert repo.audit("E9") == [] and repo.get_round("E9", 0, 1) == (None, [])
    calls = []
    real = type(table).transact
    monkeypatch.setattr(type(table), "transact", lambda self, ops, *a, **k: (calls.append(list(ops)), real(self, ops, *a, **k))[1])
    repo.create_round("E9", _round(1), _tables(3), state, 0, audit=drawn)
    kinds = [{(op.item or {}).get("kind") for op in ops} for ops in calls]
    assert [k for k in kinds if "round" in k] == [k for k in kinds if "audit" in k], kinds   # one transaction
    assert [a["action"] for a in repo.audit("E9")] == ["round_drawn"]
    got = repo.state("E9")
    closed = {"id": "01E", "action": "round_closed", "round": 1, "who": "x", "at": "t"}
    with pytest.raises(errors.RoundOpen):
        repo.close_round("E9", {**_round(1), "status": "closed"}, {**got, "open_round": 0}, got["version"] + 3, audit=closed)
    assert [a["action"] for a in repo.audit("E9")] == ["round_drawn"]
    repo.close_round("E9", {**_round(1), "status": "closed"}, {**got, "open_round": 0}, got["version"], audit=closed)
    assert [a["action"] for a in repo.audit("E9")] == ["round_drawn", "round_closed"]
    assert repo.audit_head("E9")[0] == 2


def test_a_round_read_page_by_page_is_the_round_read_whole(any_repos, monkeypatch):
    """A round's tables are parsed page by page as read (issue 43: the raw packs are not all held until the round is
    parsed): with pages of two items (cuts between a pack and its tables' items, and ranges cut again) the tables
    are those of one parse of every pack and table item read whole, a table's item winning over its pack's copy, a
    removed table gone; the repeated ids and words are one object each across the round; the pages handed to the
    reader are every item, none kept by the table layer."""
    from chalicelib.store import dynamo, keys
    from chalicelib.store.rounds import round_tables
    repo = any_repos.rounds
    state = {"rounds": [{"n": 1, "stage": 0, "stage_round": 1}], "open_round": 1, "stage": 0, "plans": {"0": {"rounds": 3}}}
    repo.create_round("E12", _round(1), _tables(45), state, 0)
    for k in (1, 19, 20, 21, 40, 45):   # each end of a pack: its item and its pack's copy in different pages
        repo.save_table("E12", 0, 1, dict(_tables(45)[k - 1], status="entered", version=1, winner=f"a{k}",
                                          points={f"a{k}": {"mp": 2.0}, f"b{k}": {"mp": -0.0}}), 0,
                        {"id": f"01P{k:02d}", "action": "result_entered", "who": "x", "at": "t"})
    state = repo.state("E12")
    repo.edit_round("E12", _round(1), [], [(21, 1)], state, state["version"],
                    {"id": "01P99", "action": "pairing_edited", "who": "x", "at": "t"})
    raw = [i for pk in keys.round_tables_partitions("E12", 0, 1) for i in any_repos.table.query(pk, raw=True)]
    whole = round_tables([i for i in raw if i["kind"]["S"] == "tables"], [i for i in raw if i["kind"]["S"] == "table_item"])
    assert 21 not in [t["number"] for t in whole] and len(whole) == 44

    monkeypatch.setattr(dynamo, "PAGE_ITEMS", 2)
    doc, tables = repo.get_round("E12", 0, 1)
    assert doc["number"] == 1 and tables == whole
    assert [t["status"] for t in tables].count("entered") == 5 and str(tables[19]["points"]["b20"]["mp"]) == "-0.0"
    assert all(t["sides"][0]["entry_id"] is t["home"] for t in tables)                 # one string each
    assert len({id(t["status"]) for t in tables if t["status"] == "pending"}) == 1
    assert tables[0]["points"]["a1"]["mp"] is tables[-1]["points"]["a45"]["mp"]        # 2.0 once

    pages: list[list[dict]] = []
    pk = keys.round_tables_partition("E12", 0, 1, 0)
    assert any_repos.table.query_ranges(pk, [("ROUND#0#001#TABLES#", "ROUND#0#001#~")], on_page=pages.append) == []
    assert len(pages) >= 2 and {i["SK"]["S"] for p in pages for i in p} == {i["SK"]["S"] for i in raw if i["PK"]["S"] == pk}


def test_the_rounds_read_for_publishing_share_their_equal_small_parts(any_repos):
    """The publisher only reads its rounds' tables (issue 43: ~0.6 KB a table less at 100,000 entries): equal seats,
    equal sides' points and the empty details are one object each, and the tables are equal — and their reprs, which
    the pages' digests are made of, the same: -0.0 and 0.0, 2 and 2.0 kept apart. A round read for writing shares
    none of them (its caller may change a table in place)."""
    repo = any_repos.rounds
    state = {"rounds": [{"n": 1, "stage": 0, "stage_round": 1}], "open_round": 1, "stage": 0, "plans": {"0": {"rounds": 3}}}
    tables = [dict(t, details={}) for t in _tables(30)]
    repo.create_round("E13", _round(1), tables, state, 0)
    losers = {3: -0.0, 4: 0, 5: 0.0, 6: 0.0}   # the loser's points: -0.0, an int, and two equal floats
    for k, lost in losers.items():
        repo.save_table("E13", 0, 1, dict(tables[k - 1], status="entered", version=1, winner=f"a{k}",
                                          points={f"a{k}": {"mp": 2.0}, f"b{k}": {"mp": lost}}), 0,
                        {"id": f"01Q{k:02d}", "action": "result_entered", "who": "x", "at": "t"})
    state = repo.state("E13")
    [(_, shared)] = repo.rounds_for_publishing("E13", state)
    _, plain = repo.get_round("E13", 0, 1)
    assert shared == plain and repr(shared) == repr(plain)
    assert shared[0]["sides"][0]["seats"] is shared[-1]["sides"][0]["seats"] == ["N", "S"]
    assert shared[0]["details"] is shared[-1]["details"] == {}
    pts = {k: shared[k - 1]["points"] for k in losers}
    assert pts[3]["a3"] is pts[4]["a4"] is pts[6]["a6"]                          # {"mp": 2.0} once
    assert pts[5]["b5"] is pts[6]["b6"] and pts[4]["b4"] is not pts[5]["b5"]     # 0.0 once, 0 apart
    assert pts[3]["b3"] is not pts[5]["b5"] and str(pts[3]["b3"]["mp"]) == "-0.0"
    assert plain[0]["sides"][0]["seats"] is not plain[-1]["sides"][0]["seats"]
    assert plain[0]["details"] is not plain[-1]["details"]
