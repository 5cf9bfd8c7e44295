"""Players as people across events (issue 42): one `player_id` per person, from the phone of the entry.

Until the "players" issue (41) binds a player to a verified phone, the key is the entry's normalised phone
(chalicelib/phones.py: however it was typed). The id is a keyed hash under the installation's secret, so it never
reveals the phone and cannot be guessed from one. Issue 41 changes `player_key` only: everything else asks here.
"""
from __future__ import annotations

from typing import Any

from .installation import lookup_hash
from .phones import key_form


def player_key(phone: str | None) -> str | None:
    """What makes one person one player: today the phone's key form (issue 41: the verified phone)."""
    return key_form(phone) if phone else None


def player_id(phone: str) -> str:
    """The public id of the person with this phone (never the phone, never reversible without the secret)."""
    return "p" + lookup_hash("player", player_key(phone) or "")[:19]


def member_player_id(entry_id: str, index: int, phone: str | None) -> str:
    """A member's player id; a member with no phone is a player of this entry only (it cannot be linked across
    events), marked by its 'x' so pages and exports can tell."""
    if player_key(phone):
        return player_id(phone)
    return "x" + lookup_hash("player-anon", f"{entry_id}:{index}")[:19]


def entry_player_ids(entry: Any) -> list[str]:
    """The player ids of an entry's members, in roster order."""
    return [member_player_id(entry.id, i, m.phone) for i, m in enumerate(entry.members)]
