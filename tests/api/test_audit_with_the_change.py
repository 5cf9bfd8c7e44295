"""The desk's and the chief referee's changes carry their audit record in their own transaction (a substitution, a
disqualification, a walk-in, an undone check-in, a voided payment, the round clock): before, each appended its
record after its write, so a crash between left a change the event's chain did not hold. Here the record's write
is refused: the change must not be there either; then, allowed, each is recorded once, retries included."""
from __future__ import annotations

import pytest

from chalicelib import bootstrap, errors
from chalicelib.store import audit_chain
from chalicelib.store.dynamo import Op
from tests.api.play import draw, people, setup_event

PAIRS = {"name": "掼蛋双人", "game": "guandan", "entry": "pair", "capacity": 40, "fee": {"amount": 3000, "per": "entry"},
         "substitutes": {"pairs": True}, "stages": [{"format": "swiss", "rounds": 3, "scoring": {"method": "level_points"}}]}
WALK_IN = {"name": "现场队", "members": [{"name": "现场甲", "phone": "13911112222"}, {"name": "现场乙"}]}
LATER = {"name": "后付队", "members": [{"name": "后付甲", "phone": "13911113333"}, {"name": "后付乙"}]}


class AuditRefused(errors.Conflict):
    pass


@pytest.fixture
def refusing(monkeypatch):
    """While `refusing["on"]`, every audit record's transaction fails on a condition of the record's own (as a
    chain head that will not take it would), whatever else it carries."""
    flag = {"on": False}
    real = audit_chain._ops

    def ops(*a, **kw):
        entry, chain_ops = real(*a, **kw)
        if flag["on"]:
            chain_ops = [*chain_ops, Op.check({"PK": "NO#SUCH", "SK": "ITEM"}, "attribute_exists(PK)", on_fail=AuditRefused)]
        return entry, chain_ops

    monkeypatch.setattr(audit_chain, "_ops", ops)
    return flag


def _records(api, eid, action):
    return [a for a in api.get(f"/events/{eid}/audit").data["audit"] if a["action"] == action]


def test_the_desks_changes_are_not_written_without_their_record_and_retries_record_once(api, refusing):
    tid, eid, ids = setup_event(api, PAIRS, people(2, 2, "队"))
    repos = bootstrap.deps().repos
    later = api.post(f"/events/{eid}/entries", LATER, token=None).data["entry"]
    paid = api.post(f"/events/{eid}/entries/{later['id']}/payments", {"method": "cash", "amount": 3000}).data
    api.post(f"/events/{eid}/entries/{later['id']}/check-in")
    checked = repos.entries.get(eid, later["id"])
    key = {"Idempotency-Key": "walk-in-audit-0001"}

    refusing["on"] = True
    assert api.post(f"/events/{eid}/entries/desk", WALK_IN).status_code == 409
    assert WALK_IN["name"] not in [e.name for e in repos.entries.list(eid)]          # no entry without its record
    paying = api.post(f"/events/{eid}/entries/desk", {**LATER | {"name": "现付队"}, "members": [
        {"name": "现付甲", "phone": "13911114444"}, {"name": "现付乙"}], "payment": {"method": "cash"}}, headers=key)
    assert paying.status_code == 409
    waiting = [e for e in repos.entries.list(eid) if e.name == "现付队"]
    assert [(e.amount_paid, e.payment_state) for e in waiting] == [(0, "unpaid")]     # no cash without its record
    assert api.delete(f"/events/{eid}/entries/{later['id']}/check-in").status_code == 409
    assert repos.entries.get(eid, later["id"]) == checked                            # still checked in
    assert repos.payments.get(paid["payment_id"]).state == "confirmed"
    assert [_records(api, eid, a) for a in ("desk_entry", "check_in_undone", "payment_voided")] == [[], [], []]

    refusing["on"] = False
    walk = api.post(f"/events/{eid}/entries/desk", WALK_IN)
    assert walk.status_code == 201, walk.data
    retry = api.post(f"/events/{eid}/entries/desk", {**LATER | {"name": "现付队"}, "members": [
        {"name": "现付甲", "phone": "13911114444"}, {"name": "现付乙"}], "payment": {"method": "cash"}}, headers=key)
    assert retry.status_code == 201 and retry.data["entry"]["amount_paid"] == 3000, retry.data   # the retry pays
    again = api.post(f"/events/{eid}/entries/desk", {**LATER | {"name": "现付队"}, "members": [
        {"name": "现付甲", "phone": "13911114444"}, {"name": "现付乙"}], "payment": {"method": "cash"}}, headers=key)
    assert again.status_code == 201 and again.data["entry"]["amount_paid"] == 3000
    assert [(r["after"]["entry_id"], r["after"]["paid"]) for r in _records(api, eid, "desk_entry")] == \
        [(walk.data["entry"]["id"], 0), (waiting[0].id, 3000)]
    for _ in range(2):   # a retry answers the entry as it is, recording nothing
        assert api.delete(f"/events/{eid}/entries/{later['id']}/check-in").status_code == 200
        assert api.delete(f"/events/{eid}/entries/{later['id']}/payments/{paid['payment_id']}").status_code == 200
    assert [len(_records(api, eid, a)) for a in ("check_in_undone", "payment_voided")] == [1, 1]
    assert repos.payments.get(paid["payment_id"]).state == "cancelled"


def test_the_chief_referees_changes_are_not_written_without_their_record(api, refusing):
    tid, eid, ids = setup_event(api, PAIRS, people(4, 2, "队"))
    repos = bootstrap.deps().repos
    rnd = draw(api, eid)
    sub = {"out": 1, "in": {"name": "替补甲"}, "reason": "家中有事，裁判长批准"}
    before = {i: repos.entries.get(eid, i) for i in ids}

    refusing["on"] = True
    assert api.post(f"/events/{eid}/entries/{ids[0]}/substitutions", sub).status_code == 409
    assert api.post(f"/events/{eid}/entries/{ids[1]}/disqualify", {"kind": "cheating", "reason": "查实"}).status_code == 409
    assert {i: repos.entries.get(eid, i) for i in ids} == before
    assert api.post(f"/events/{eid}/rounds/1/clock", {"action": "start"}).status_code == 409
    assert repos.hall.clock(eid, 1) is None
    assert {t["status"] for t in api.get(f"/events/{eid}/rounds/1").data["tables"]} == {"pending"}

    refusing["on"] = False
    assert api.post(f"/events/{eid}/entries/{ids[0]}/substitutions", sub).status_code == 201
    for _ in range(2):
        dq = api.post(f"/events/{eid}/entries/{ids[1]}/disqualify", {"kind": "cheating", "reason": "查实"})
        assert dq.status_code == 200 and dq.data["status"] == "disqualified"
    assert api.post(f"/events/{eid}/rounds/1/clock", {"action": "start"}).status_code == 200
    table = next(t for t in rnd["tables"] if ids[1] in {s["entry_id"] for s in t["sides"]})
    records = {a: _records(api, eid, a) for a in ("substitution", "entry_disqualified", "clock_start", "forfeit_recorded")}
    assert [len(records[a]) for a in ("substitution", "entry_disqualified", "clock_start")] == [1, 1, 1]
    assert records["entry_disqualified"][0]["after"]["tables_awarded"] == [table["number"]]
    assert [r["table"] for r in records["forfeit_recorded"]] == [table["number"]]   # the forfeit records itself
    assert repos.hall.clock(eid, 1)["starts_at"]
