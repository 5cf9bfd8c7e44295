"""domain/contacts.py: what contact data is and its erasure — at any depth, a message's address, names kept,
erasing twice the same as once; the day a tournament's contacts are due."""
from __future__ import annotations

from datetime import date

from chalicelib.domain.contacts import erase_contacts, erase_on, has_contacts


def test_contacts_are_blanked_at_any_depth_and_names_stay():
    entry = {"id": "E1", "name": "队一", "members": [{"name": "甲", "phone": "13800000000", "email": "a@b.cn"},
                                                    {"name": "乙", "phone": None}],
             "roster_history": [{"in": {"name": "丙", "phone": "13900000000"}, "reason": "伤"}],
             "payer": {"openid": "o-abc"}, "note": "", "version": 3}
    erased = erase_contacts(entry)
    assert erased["members"] == [{"name": "甲", "phone": None, "email": None}, {"name": "乙", "phone": None}]
    assert erased["roster_history"] == [{"in": {"name": "丙", "phone": None}, "reason": "伤"}]
    assert erased["payer"] == {"openid": None} and erased["name"] == "队一" and erased["version"] == 3
    assert entry["members"][0]["phone"] == "13800000000"            # a copy: the record given is untouched
    assert erase_contacts(erased) == erased and not has_contacts(erased) and has_contacts(entry)


def test_a_message_loses_its_address_and_other_records_keep_a_to():
    message = {"id": "M1", "channel": "sms", "to": "13800000000", "kind": "draw", "params": {"table": "12"}}
    assert erase_contacts(message) == {**message, "to": ""}
    assert erase_contacts({"to": "all", "text": "…"}) == {"to": "all", "text": "…"}   # a notice's audience


def test_due_the_day_after_the_retention_has_passed():
    assert erase_on(date(2026, 12, 12), 180) == date(2027, 6, 11)    # 12-12 + 180 days = 06-10, more than that: 06-11
    assert erase_on(date(2026, 1, 31), 30) == date(2026, 3, 3)
