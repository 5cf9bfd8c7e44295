"""domain/contacts.py: contact data blanked at any depth (everyone's, or only the given phones'), names kept;
a tournament ends after its last day where it is played."""
from __future__ import annotations

from datetime import UTC, date, datetime

from chalicelib.domain.contacts import erase_contacts, has_contacts, tournament_ended

ENTRY = {"name": "王五队", "members": [{"name": "王五", "phone": "+86 135-1234-5678"}, {"name": "赵六", "phone": "13587654321"}],
         "roster_history": [{"out": {"name": "钱七", "phone": "13500000000"}, "in": {"name": "赵六", "phone": "13587654321"}}]}
REG = {"id": "R1", "contact": {"name": "王五", "phone": "13512345678", "email": "w@example.com", "openid": "o-1"}}


def test_everyones_contact_data_goes_names_stay():
    blank = erase_contacts(ENTRY)
    assert [m["phone"] for m in blank["members"]] == [None, None] and not has_contacts(blank)
    assert [m["name"] for m in blank["members"]] == ["王五", "赵六"] and blank["name"] == "王五队"
    assert blank["roster_history"][0]["out"] == {"name": "钱七", "phone": None}
    assert ENTRY["members"][0]["phone"] == "+86 135-1234-5678"          # a copy: the record given is untouched
    assert erase_contacts(REG)["contact"] == {"name": "王五", "phone": None, "email": None, "openid": None}


def test_only_the_given_phones_people_lose_theirs():
    blank = erase_contacts(ENTRY, of={"13512345678"})                     # key form: however it was typed
    assert [m["phone"] for m in blank["members"]] == [None, "13587654321"] and has_contacts(blank)
    assert erase_contacts(REG, of={"13512345678"})["contact"]["email"] is None
    assert erase_contacts(REG, of={"13599999999"}) == REG


def test_a_tournament_ends_after_its_last_day_where_it_is_played():
    last = date(2026, 12, 20)
    assert not tournament_ended(last, "Asia/Shanghai", datetime(2026, 12, 20, 15, 59, tzinfo=UTC))   # 23:59 there
    assert tournament_ended(last, "Asia/Shanghai", datetime(2026, 12, 20, 16, 0, tzinfo=UTC))        # 00:00 the 21st
    assert not tournament_ended(last, "Europe/London", datetime(2026, 12, 20, 16, 0, tzinfo=UTC))
