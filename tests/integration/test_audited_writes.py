"""RoundRepo.audited_write on every store: another repository's change (an entry's transition, a round clock)
and its audit record in one transaction. A refused change leaves no record, a refused record leaves no change,
and a chain that moved meanwhile is written again with fresh ops: one record, one change."""
from __future__ import annotations

from datetime import date

import pytest

from chalicelib import errors
from chalicelib.ids import new_id
from chalicelib.models import Entry, Event, EventConfig, Member, Tournament
from chalicelib.store import audit_chain
from chalicelib.store.dynamo import Op


class AuditRefused(errors.Conflict):
    pass


def _entry(repos, clock) -> Entry:
    t = Tournament(id=new_id(), organiser_id="o1", name="赛", timezone="Asia/Shanghai", currency="CNY",
                   starts_on=date(2026, 12, 12), ends_on=date(2026, 12, 12), created_at=clock())
    repos.tournaments.create(t)
    cfg = EventConfig.model_validate({"name": "掼蛋", "game": "guandan", "entry": "pair", "capacity": 8,
                                      "fee": {"amount": 0}, "stages": [{"format": "swiss", "rounds": 3}]})
    e = Event(id=new_id(), tournament_id=t.id, organiser_id="o1", config=cfg, created_at=clock())
    repos.events.create(e)
    entry = Entry(id=new_id(), event_id=e.id, tournament_id=t.id, name="队", status="confirmed", created_at=clock(),
                  members=[Member(name="甲", phone="13800001111"), Member(name="乙")])
    repos.entries.create(entry)
    return entry


def _record(action: str) -> dict:
    return {"id": new_id(), "at": "t", "who": "x", "action": action}


def _refused_ops(real):
    """audit_chain._ops whose transaction fails on a condition of the record's own."""
    def ops(*a, **kw):
        entry, chain_ops = real(*a, **kw)
        return entry, [*chain_ops, Op.check({"PK": "NO#SUCH", "SK": "ITEM"}, "attribute_exists(PK)", on_fail=AuditRefused)]
    return ops


def _holds_once(repos, monkeypatch, eid, write, stale_write, held, unchanged, changed) -> None:
    rounds = repos.rounds
    # the change refused (written by another meanwhile: a stale version): no record
    with pytest.raises(errors.VersionConflict):
        rounds.audited_write(eid, _record("stale"), stale_write)
    assert rounds.audit(eid) == [] and held() == unchanged
    # the record refused (a condition of its own fails): no change
    real = audit_chain._ops
    monkeypatch.setattr(audit_chain, "_ops", _refused_ops(real))
    with pytest.raises(AuditRefused):
        rounds.audited_write(eid, _record("refused"), write)
    monkeypatch.setattr(audit_chain, "_ops", real)
    assert rounds.audit(eid) == [] and held() == unchanged
    # the chain moved after this writer read its head (another process appended): written again, once
    rounds.add_audit(eid, _record("other"))
    real_head = audit_chain.lane_head
    monkeypatch.setattr(audit_chain, "lane_head", lambda *a: None)   # what it read before the other record
    calls = []
    rounds.audited_write(eid, _record("changed"), lambda ops: (calls.append(ops), write(ops)))
    monkeypatch.setattr(audit_chain, "lane_head", real_head)
    assert len(calls) == 2, "the first transaction met the moved head"
    assert [r["action"] for r in rounds.audit(eid)] == ["other", "changed"] and held() == changed
    assert audit_chain.check_items(eid, rounds.audit_items(eid)) == 2


def test_an_entry_change_and_its_record_commit_together(any_repos, clock, monkeypatch):
    entry = _entry(any_repos, clock)
    renamed = entry.model_copy(update={"name": "改名队", "version": entry.version + 1})
    stale = entry.model_copy(update={"version": entry.version + 5})
    _holds_once(any_repos, monkeypatch, entry.event_id,
                lambda ops: any_repos.entries.transition(entry, renamed, extra=ops),
                lambda ops: any_repos.entries.transition(stale, stale.model_copy(update={"version": 9}), extra=ops),
                lambda: any_repos.entries.get(entry.event_id, entry.id).name, "队", "改名队")


def test_a_round_clock_and_its_record_commit_together(any_repos, clock, monkeypatch):
    eid = _entry(any_repos, clock).event_id
    _holds_once(any_repos, monkeypatch, eid,
                lambda ops: any_repos.hall.save_clock(eid, 1, {"starts_at": "s"}, 0, extra=ops),
                lambda ops: any_repos.hall.save_clock(eid, 1, {"starts_at": "x"}, 3, extra=ops),
                lambda: any_repos.hall.clock(eid, 1), None, {"starts_at": "s", "version": 1})
