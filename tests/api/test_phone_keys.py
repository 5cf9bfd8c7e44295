"""Phone numbers as keys (issue 36): one person, one login, one search however the number is typed; data an
earlier version stored with +86… found by the lookups."""
from __future__ import annotations

import pytest

from chalicelib import bootstrap
from chalicelib.phones import normalise
from chalicelib.services.organisers import create_account, login_key
from tests.api.test_registration_limits import make_event, tid  # noqa: F401  (tid: the fixture)
from tests.factories import doudizhu_event


@pytest.mark.parametrize("typed, key", [
    ("13812345678", "13812345678"), ("+8613812345678", "13812345678"), ("0086 138-1234-5678", "13812345678"),
    ("86 138 1234 5678", "13812345678"), ("+86 (138) 1234-5678", "13812345678"), ("１３８１２３４５６７８", "13812345678"),
    ("+84 912 345 678", "+84912345678"), ("+84 0912 345 678", "+84912345678"), ("0084912345678", "+84912345678"),
    ("+1 (415) 555-0100", "+14155550100"), ("+852 9123 4567", "+85291234567"),
])
def test_one_key_form(typed, key):
    assert normalise(typed) == key


@pytest.mark.parametrize("typed", ["010-1234-5678", "+86 10 1234 5678", "12345", "1-800-FLOWERS", "138 1234 5678 ext 9",
                                   "+84 1", "电话13812345678"])
def test_not_phone_numbers(typed):
    with pytest.raises(ValueError):
        normalise(typed)


def test_one_person_however_the_phone_is_typed(api, tid):
    eid = make_event(api, tid, factory=doudizhu_event)
    first = api.post(f"/events/{eid}/entries", {"members": [{"name": "张三", "phone": "13812345678"}]}, token=None)
    assert first.status_code == 201, first.data
    for typed in ("+8613812345678", "0086 138-1234-5678", "86 138 1234 5678", "+86 (138) 1234-5678"):
        again = api.post(f"/events/{eid}/entries", {"members": [{"name": "张三", "phone": typed}]}, token=None)
        assert again.status_code == 409 and again.data["code"] == "duplicate_entry", (typed, again.data)
    foreign = api.post(f"/events/{eid}/entries", {"members": [{"name": "Bình", "phone": "+84 0912 345 678"}]}, token=None)
    assert foreign.status_code == 201 and foreign.data["entry"]["members"][0]["phone"] == "+84912345678"
    assert api.post(f"/events/{eid}/entries", {"members": [{"name": "Bình", "phone": "0084912345678"}]},
                    token=None).data["code"] == "duplicate_entry"
    assert api.get(f"/events/{eid}/entries?q=%2B86%20138-1234-5678").data["entries"][0]["members"][0]["name"] == "张三"


def test_an_entry_stored_before_phones_were_normalised_is_still_the_same_person(api, tid, moto_repos):
    """Data of an earlier version: an entry (and its person item) stored with +86…. Not rewritten: a new
    registration checks that form too, and the desk's search finds it by any form."""
    eid = make_event(api, tid, factory=doudizhu_event)
    first = api.post(f"/events/{eid}/entries", {"members": [{"name": "张三", "phone": "13812345678"}]}, token=None)
    entry = moto_repos.entries.get(eid, first.data["entry"]["id"])
    from chalicelib.store import keys
    from chalicelib.store.entries import phone_hash
    # as an earlier version wrote it: the phone as typed, its person item under that form
    old = entry.model_copy(update={"members": [entry.members[0].model_copy(update={"phone": "+8613812345678"})]})
    moto_repos.table.delete(keys.person_in_event(eid, phone_hash("13812345678")))
    moto_repos.table.put({**keys.person_in_event(eid, phone_hash("+8613812345678")), "kind": "person", "entry_id": entry.id})
    moto_repos.entries.transition(entry, old.model_copy(update={"version": entry.version + 1}))
    again = api.post(f"/events/{eid}/entries", {"members": [{"name": "张三", "phone": "138 1234 5678"}]}, token=None)
    assert again.status_code == 409 and again.data["code"] == "duplicate_entry"
    found = api.get(f"/events/{eid}/entries?q=13812345678").data["entries"]
    assert [e["id"] for e in found] == [entry.id]


def test_an_organiser_signs_in_with_any_form_and_an_older_key_is_moved(api, moto_repos):
    create_account(bootstrap.deps(), "甲商会", "138 0000 2222", "correct horse")
    for typed in ("+86 138 0000 2222", "0086-138-0000-2222"):
        assert api.post("/auth/sign-in", {"login": typed, "password": "correct horse"}, token=None).status_code == 200
    assert api.post("/auth/sign-in", {"login": "+8613800002222", "password": "wrong horse"}, token=None).status_code == 401
    # an account an earlier version keyed under the number as typed then (+86…)
    from chalicelib.store import keys
    create_account(bootstrap.deps(), "乙商会", "13800003333", "correct horse")
    item = moto_repos.table.get(keys.login(login_key("13800003333")))
    moto_repos.table.delete(keys.login(login_key("13800003333")))
    moto_repos.table.put({**item, **keys.login(login_key("+8613800003333"))})
    assert api.post("/auth/sign-in", {"login": "138-0000-3333", "password": "correct horse"}, token=None).status_code == 200
    assert moto_repos.table.get(keys.login(login_key("13800003333"))) is not None          # moved under today's key
    assert moto_repos.table.get(keys.login(login_key("+8613800003333"))) is None
    with pytest.raises(Exception) as exc:   # and one account per number, whatever form a new one is asked in
        create_account(bootstrap.deps(), "丙商会", "+86 138 0000 3333", "correct horse")
    assert getattr(exc.value, "code", None) == "duplicate_entry"
