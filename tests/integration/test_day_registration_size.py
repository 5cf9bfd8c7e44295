"""How large a day's registration fits its one transaction (DynamoDB: 100 actions), on every store backend.

A pair entry whose two members give mainland phones, the first of them the registration's contact, is 7 actions:
its entry, pointer, counter, roster copy, two person items and its partner's phone-index item (the contact's phone
finds it through the registration's own index item). The registration adds 5: idempotency record, registration,
the contact's index item, the payment and its message. 13 such events are 96 actions and register; 14 are 103 and
are refused whole. The person items an earlier version keyed under the number as typed (+86…) are read before the
transaction, not checked in it: one still refuses the registration, and nothing is written."""
from __future__ import annotations

import pytest

from chalicelib import errors
from chalicelib.ids import new_id
from chalicelib.models import Payment
from chalicelib.store import keys
from chalicelib.store.dynamo import Op
from chalicelib.store.entries import phone_hash, phone_hash_of
from tests.integration.test_phone_index import _entry, _event

CONTACT, PARTNER = "13800000001", "13800000002"


def _day(repos, clock, events: int):
    """A day's registration as services/day_registration.py writes it: `events` pair entries, both phones given."""
    reg_id = new_id()
    evs = [_event(repos, clock) for _ in range(events)]
    entries = [_entry(e, clock, phones=(CONTACT, PARTNER), registration_id=reg_id, status="pending_payment")
               for e in evs]
    record = {"id": reg_id, "tournament_id": evs[0].tournament_id, "contact": {"name": "甲0", "phone": CONTACT},
              "items": [{"event_id": e.event_id, "entry_id": e.id} for e in entries],
              "created_at": clock().isoformat(), "currency": "CNY", "payment_id": new_id()}
    idem = {**keys.idempotency(f"T{record['tournament_id']}", new_id()), "kind": "idempotency", "entry_id": reg_id}
    payment = Payment(id=record["payment_id"], entry_id=entries[0].id, event_id=entries[0].event_id, provider="stripe",
                      state="created", amount=4000 * events, currency="CNY", created_at=clock(), updated_at=clock(),
                      registration_id=reg_id, items=[{"event_id": e.event_id, "entry_id": e.id, "amount": 4000}
                                                     for e in entries])
    message = Op.put({"PK": f"TEST_OUTBOX#{reg_id}", "SK": "MSG", "kind": "message"})   # its one outbox item
    return entries, record, dict(idem=idem, payment=payment, extra=[message])


def _written(repos, entries, record) -> list:
    """Whatever of the registration is in the store."""
    return [x for x in [repos.entries.registration(record["id"]), repos.payments.get(record.get("payment_id") or "-"),
                        *(repos.entries.get(e.event_id, e.id) for e in entries),
                        *(repos.entries.entry_of_person(e.event_id, p) for e in entries for p in (CONTACT, PARTNER))]
            if x is not None]


def test_thirteen_pair_events_with_two_phones_each_register_in_one_go(any_repos, clock):
    entries, record, kw = _day(any_repos, clock, 13)
    any_repos.entries.create_many(entries, record, **kw)
    assert [any_repos.entries.get(e.event_id, e.id).id for e in entries] == [e.id for e in entries]
    assert all(any_repos.entries.entry_of_person(e.event_id, p) == e.id for e in entries for p in (CONTACT, PARTNER))
    assert any_repos.payments.get(kw["payment"].id).amount == 13 * 4000
    assert all(any_repos.entries.counters(e.event_id)["taken"] == 1 for e in entries)
    # "我的": the partner's phone by each entry's own index item, the contact's by the registration's
    partner = any_repos.players.holdings(phone_hash_of(PARTNER))
    assert sorted(h["entry_id"] for h in partner) == sorted(e.id for e in entries)
    contact = any_repos.players.holdings(phone_hash_of(CONTACT))
    assert [(h["kind"], h["registration_id"]) for h in contact] == [("phone_registration", record["id"])]
    again, again_record, again_kw = _day(any_repos, clock, 1)   # the same people again in one of these events
    twin = again[0].model_copy(update={"event_id": entries[5].event_id, "tournament_id": entries[5].tournament_id})
    with pytest.raises(errors.DuplicateEntry):
        any_repos.entries.create_many([twin], {**again_record, "items": [{"event_id": twin.event_id,
                                                                          "entry_id": twin.id}]}, **again_kw)
    assert any_repos.entries.get(twin.event_id, twin.id) is None


def test_fourteen_are_refused_whole_before_anything_is_written(any_repos, clock):
    entries, record, kw = _day(any_repos, clock, 14)
    with pytest.raises(errors.RegistrationTooLarge) as refused:
        any_repos.entries.create_many(entries, record, **kw)
    assert refused.value.details == {"events": 14, "actions": 103, "limit": 100}
    assert _written(any_repos, entries, record) == []
    assert all(any_repos.entries.counters(e.event_id)["taken"] == 0 for e in entries)


def test_a_person_item_keyed_as_typed_before_issue_36_still_refuses_the_registration(any_repos, clock):
    entries, record, kw = _day(any_repos, clock, 3)
    old = keys.person_in_event(entries[2].event_id, phone_hash("+86" + PARTNER))   # as an earlier version wrote it
    any_repos.table.put({**old, "kind": "person", "entry_id": "an-older-entry"})
    with pytest.raises(errors.DuplicateEntry) as refused:
        any_repos.entries.create_many(entries, record, **kw)
    assert refused.value.details == {"event_id": entries[2].event_id}
    assert _written(any_repos, entries, record) == []
    assert any_repos.table.get({k: kw["idem"][k] for k in ("PK", "SK")}) is None
    assert any_repos.players.holdings(phone_hash_of(PARTNER)) == []
    any_repos.table.delete(old)   # that entry withdrawn (it releases its own item): now they may register
    any_repos.entries.create_many(entries, record, **kw)
    assert len(_written(any_repos, entries, record)) == 1 + 1 + 3 + 6   # registration, payment, entries, people


@pytest.mark.parametrize("shape", [
    # (members' phones as the form sends them, member 1 being the contact; an online payment opened)
    ([["138 0000 0001", "13800000002"]] * 3, True),
    ([["+86 138-0000-0001", "13800000003", None, "+84912345678"], ["13800000001", None]], False),
    ([["13800000001"]] * 5 + [["13800000001", "13800000004"]], True),
])
def test_the_form_counts_the_actions_as_the_store_writes_them(moto_repos, clock, shape):
    """frontend/app/src/shared/dayLimit.js (the day's form, stopping a registration before it is sent) counts what
    EntryRepo.create_many puts in the transaction: compared here, shape by shape, with the actions it sent."""
    import json
    import shutil
    import subprocess
    from pathlib import Path

    from chalicelib.models import Member
    from chalicelib.phones import normalise
    rosters, online = shape
    entries, record, kw = _day(moto_repos, clock, len(rosters))
    entries = [e.model_copy(update={"members": [Member(name=f"甲{k}", phone=normalise(p)) for k, p in enumerate(r)]})
               for e, r in zip(entries, rosters, strict=True)]
    record["contact"]["phone"] = normalise(rosters[0][0])
    if not online:
        kw["payment"] = None
    sent = []
    real = moto_repos.entries.t.transact
    moto_repos.entries.t.transact = lambda ops: (sent.append(len(ops)), real(ops))
    try:
        moto_repos.entries.create_many(entries, record, **kw)
    finally:
        del moto_repos.entries.t.transact
    module = (Path(__file__).parents[2] / "frontend/app/src/shared/dayLimit.js").as_uri()
    items = [{"members": [{"phone": p} for p in r]} for r in rosters]
    script = (f"import {{ dayActions }} from {json.dumps(module)};\n"
              f"console.log(dayActions({json.dumps(rosters[0][0])}, {json.dumps(items)}, {{ payment: {json.dumps(online)} }}));")
    out = subprocess.run([shutil.which("node"), "--input-type=module", "-e", script], capture_output=True, text=True,
                         check=True, timeout=30)
    assert sent == [int(out.stdout)]
