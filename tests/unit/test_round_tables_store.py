"""A round's tables put together from its packs and its table items (store/rounds.round_tables), as every whole-round
read does (a close, a publish)."""
from __future__ import annotations

import json

from chalicelib.store import keys
from chalicelib.store.rounds import RoundRepo, round_tables


def _raw(item: dict) -> dict:
    from chalicelib.store.dynamo import to_item
    return to_item(item)


def test_a_table_item_wins_over_its_packs_copy_a_gone_one_removes_it_and_the_rest_is_as_drawn():
    drawn = [{"number": k, "version": 0, "status": "pending"} for k in (1, 2, 19, 20, 21, 12345)]
    packs = [_raw(p) for p in RoundRepo.table_items("E", 0, 1, drawn)]
    played = {**drawn[1], "version": 2, "status": "confirmed"}
    written = [_raw({**keys.table_item("E", 0, 1, 2), "kind": "table_item", "data": json.dumps(played), "version": 2}),
               _raw({**keys.table_item("E", 0, 1, 20), "kind": "table_item", "gone": True, "version": 1})]
    for pack in packs:   # a shadowed copy is never parsed: made unreadable here, the read still answers
        if "t0002" in pack:
            pack["t0002"] = {"S": "{not json"}
    got = round_tables(list(reversed(packs)), written)
    assert [t["number"] for t in got] == [1, 2, 19, 21, 12345]
    assert got[1] == played and got[0] == drawn[0] and got[-1] == drawn[-1]
    assert round_tables([], []) == []
