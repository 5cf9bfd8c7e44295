"""The audit chain's lanes (issue 43 item 3, docs/audit-chain.md): an event's records in LANES chains, a record in the
lane of its table's pack, so results of different lanes do not take turns on one head; each lane's chain as whole
and tamper evident as the one chain was; an event chained before lanes keeps its one chain. On each store."""
from __future__ import annotations

import json
import threading

import pytest

from chalicelib import auditchain
from chalicelib.store import audit_chain, keys


def record(k: int, table: int | None) -> dict:
    return {"id": f"01JLANE{k:04d}".ljust(26, "Z"), "at": "2026-12-01T02:00:00+00:00", "who": "table 1 side 2",
            "action": "result_confirmed", "round": 1, "table": table, "before": None, "after": None, "reason": ""}


def as_processes(monkeypatch) -> None:
    """Every append with a lock of its own, as separate processes (Lambda containers) share none."""
    monkeypatch.setattr(audit_chain, "_lock", lambda key: threading.Lock())


def interleaved(monkeypatch, table, other: dict) -> list:
    """The first transaction sent waits until `other` is appended whole (another writer that read its head after
    this one did and committed first): the transactions sent, in order."""
    sent, real = [], table.transact

    def transact(ops):
        sent.append(ops)
        if len(sent) == 1:
            assert audit_chain.append(table, "E", other) is not None
        return real(ops)
    monkeypatch.setattr(table, "transact", transact)
    return sent


def test_results_of_different_lanes_do_not_meet_on_a_head(any_repos, monkeypatch):
    """Two writers interleaved — the second reads its head and commits while the first's transaction is on its way —
    on tables of different packs: neither is cancelled (one chain's head would have cancelled the first, which then
    appends again). On the same lane the head's condition still keeps them apart: one is cancelled and moves on."""
    table = any_repos.rounds.t
    as_processes(monkeypatch)
    assert audit_chain.lane_of(record(0, 1)) == 0 and audit_chain.lane_of(record(0, 21)) == 1
    sent = interleaved(monkeypatch, table, record(1, 21))   # table 21: pack 1, lane 1
    assert audit_chain.append(table, "E", record(2, 1))["seq"] == 1   # table 1: pack 0, lane 0
    assert len(sent) == 2, "the first writer's transaction was cancelled on a head it did not share"
    fmt, heads = any_repos.rounds.audit_heads("E")
    assert fmt == 2 and heads[0][0] == heads[1][0] == 1 and all(heads[k][0] == 0 for k in range(2, auditchain.LANES))
    assert any_repos.rounds.audit_head("E")[0] == 2
    # the same lane (tables 1 and 5: pack 0): the first writer is cancelled and appends after the second
    monkeypatch.undo()
    as_processes(monkeypatch)
    sent = interleaved(monkeypatch, table, record(3, 5))
    assert audit_chain.append(table, "E", record(4, 1))["seq"] == 3
    assert len(sent) == 3
    items = any_repos.rounds.audit_items("E")
    assert audit_chain.check_items("E", items) == len(items) == 4
    assert sorted((json.loads(i["chain"])["lane"], int(i["seq"])) for i in items) == [(0, 1), (0, 2), (0, 3), (1, 1)]


def test_a_tampered_record_in_any_lane_is_found(any_repos):
    table = any_repos.rounds.t
    for k, t in enumerate((1, 61, 61, 101, None, 61)):   # lanes 0, 3, 3, 5, 0, 3
        audit_chain.append(table, "E", record(k, t))
    items = any_repos.rounds.audit_items("E")
    assert audit_chain.check_items("E", items) == 6
    by_lane = {}
    for i in items:
        by_lane.setdefault(int(i["lane"]), []).append(i)
    assert {k: len(v) for k, v in by_lane.items()} == {0: 2, 3: 3, 5: 1}

    def without(item, changed):
        return [changed if i is item else i for i in items]
    second_of_3 = next(i for i in by_lane[3] if int(i["seq"]) == 2)
    # the stored record changed (only the store's private digest shows it)
    data = json.loads(second_of_3["data"]) | {"who": "organiser:else"}
    with pytest.raises(auditchain.Broken, match="lane 3 record 2: the stored record does not match"):
        audit_chain.check_items("E", without(second_of_3, dict(second_of_3, data=json.dumps(data))))
    # its published entry changed
    entry = json.loads(by_lane[5][0]["chain"]) | {"table": 7}
    with pytest.raises(auditchain.Broken, match="lane 5 record 1: its fields do not match its hash"):
        audit_chain.check_items("E", without(by_lane[5][0], dict(by_lane[5][0], chain=json.dumps(entry))))
    # a record removed from a lane's middle, or moved to another lane
    with pytest.raises(auditchain.Broken, match="lane 3 record 2: found seq 3"):
        audit_chain.check_items("E", [i for i in items if i is not second_of_3])
    with pytest.raises(auditchain.Broken, match="lane 3 record 2: found seq 3"):
        audit_chain.check_items("E", without(second_of_3, dict(second_of_3, lane=5)))
    with pytest.raises(auditchain.Broken, match="lane 5 record 1: it names lane 3"):   # as its lane shows it
        auditchain.check("E", [json.loads(second_of_3["chain"]), *audit_chain.entries(by_lane[5])], lane=5)
    # a lane's chain does not pass for another event's
    with pytest.raises(auditchain.Broken, match="lane 5 record 1: its prev"):
        auditchain.check("F", [json.loads(by_lane[5][0]["chain"])], lane=5)


def one_chain_record(table, eid: str) -> None:
    """A record appended as the version before lanes did: the event was created before, with its one chain."""
    rec = {"id": "01HOLD0000".ljust(26, "Z"), "at": "2026-11-30T02:00:00+00:00", "who": "organiser:x",
           "action": "event_created"}
    audit_chain._append(table, eid, rec, (), False, None, audit_chain.head(table, eid))


def test_an_event_chained_before_lanes_keeps_its_one_chain(any_repos, monkeypatch):
    table = any_repos.rounds.t
    one_chain_record(table, "OLD")
    for k, t in enumerate((1, 21, None)):   # tables of lanes 0 and 1 and none: all in the one chain, in turn
        assert audit_chain.append(table, "OLD", record(k, t))["seq"] == k + 2
    # a deploy: the lane's first record read no one-chain head, which a writer of the version before then wrote
    real_get, seen = table.get, []

    def get(key, *a, **kw):
        if key == keys.audit_head("OLD") and not seen:
            seen.append(key)
            return None
        return real_get(key, *a, **kw)
    monkeypatch.setattr(table, "get", get)
    entry = audit_chain.append(table, "OLD", record(9, 41))
    monkeypatch.undo()
    assert seen and entry["seq"] == 5 and "lane" not in entry
    fmt, heads = any_repos.rounds.audit_heads("OLD")
    items = any_repos.rounds.audit_items("OLD")
    assert fmt == 1 and heads[0][0] == 5 and not any(i.get("lane") is not None for i in items)
    assert audit_chain.check_items("OLD", items) == 5
    assert any_repos.rounds.audit_head("OLD") == heads[0]
    assert auditchain.check("OLD", audit_chain.entries(items), 5, heads[0][1]) == heads[0][1]
    tampered = dict(items[2], chain=json.dumps(json.loads(items[2]["chain"]) | {"who": "组委会"}))
    with pytest.raises(auditchain.Broken, match=r"^record 3: its fields do not match its hash"):
        audit_chain.check_items("OLD", [*items[:2], tampered, *items[3:]])
