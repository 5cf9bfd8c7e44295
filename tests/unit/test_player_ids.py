"""One player id per person across events, from the entry's phone, never revealing it (issue 42)."""
from __future__ import annotations

from types import SimpleNamespace as NS

from chalicelib.players import entry_player_ids, member_player_id, player_id


def test_same_person_however_the_phone_was_typed():
    assert player_id("13812345678") == player_id("+86 138-1234-5678") == player_id("0086 138 1234 5678")
    assert player_id("13812345678") != player_id("13812345679")


def test_the_id_does_not_reveal_the_phone_and_depends_on_the_secret(monkeypatch):
    pid = player_id("13812345678")
    assert pid.startswith("p") and len(pid) == 20 and "12345678" not in pid
    from chalicelib.config import get_settings
    monkeypatch.setenv("TABLE_CODE_SECRET", "another installation")
    get_settings.cache_clear()
    assert player_id("13812345678") != pid


def test_members_without_a_phone_are_players_of_their_entry_only():
    entry = NS(id="E1", members=[NS(phone="13812345678"), NS(phone=None)])
    a, b = entry_player_ids(entry)
    assert a == player_id("13812345678")
    assert b.startswith("x") and b != member_player_id("E2", 1, None) and b == member_player_id("E1", 1, "")
