"""Issue 43: the board's and find-my-table's rows read from each event's worded round and its entries as they are
(publish/hall_rows.py), nothing copied a side: the rows, their shards' bytes and the seating's key as written out."""
from __future__ import annotations

import json

from chalicelib.publish import find_index, hall_rows


def _hall(pages_of: int = 2) -> dict:
    entries = {"a": {"name": "张三丰", "club": "武当", "members": ["张三", "丰"]},
               "b": {"name": "Nguyễn Văn An", "club": "", "members": ["An"]},
               "c": {"name": "李 四", "club": None, "members": []},
               "d": {"name": "Trần Bích", "club": "Hà Nội", "members": ["Bích"]}}
    tables = [{"number": 1, "status": "open", "sides": [{"entry_id": "a", "name": "张三丰", "seats": ["N", "S"]},
                                                         {"entry_id": "b", "name": "Nguyễn Văn An", "seats": ["E", "W"]}]},
              {"number": 2, "status": "confirmed", "sides": [{"entry_id": "c", "name": "李 四", "seats": [1, 2]}]}]
    byes = [{"entry_id": "d", "name": "Trần Bích", "reason": "", "why": None}]
    return {"events": [{"id": "E0", "name": "无轮次", "round": None},
                       {"id": "E1", "name": "掼蛋", "round": {"number": 3, "status": "open", "tables": tables,
                                                             "byes": byes}, "entries": entries}],
            "pages_of": {"E0": pages_of, "E1": pages_of}}


def test_find_rows_read_the_worded_round_and_the_entries():
    rows = hall_rows.find_hits(_hall())
    assert rows == [
        ["张三丰|张三|丰|zsf|zs|f", "张三丰", ["张三", "丰"], 1, 1, "N,S", "E1/round-3.html"],
        ["nguyen van an|an|nva|a", "Nguyễn Văn An", ["An"], 1, 1, "E,W", "E1/round-3.html"],
        ["李 四|ls", "李 四", [], 1, 2, "1,2", "E1/round-3.html"],
        ["tran bich|bich|tb|b", "Trần Bích", ["Bích"], 1, 0, "", "E1/round-3-2.html"],   # the bye: the round's page 2
    ]
    # the same row objects share one link a page and one string a seat code, not one each
    assert rows[0][6] is rows[1][6]
    assert hall_rows.seat_codes(_hall()) == ["1,2", "E,W", "N,S"]


def test_the_rows_json_and_keys_make_the_shards_the_rows_make():
    hall = _hall(pages_of=10)
    rows = hall_rows.find_hits(hall)
    keys, texts = hall_rows.find_texts(hall)
    assert keys[2] == "李四|ls" and keys[0] is not None                 # JavaScript's whitespace out of the keys
    assert [json.loads(t) for t in texts] == rows
    parts = find_index.shards_of_keys(keys)
    assert parts == find_index.shards(rows)
    assert [t.encode() for t in find_index.shard_texts(rows, parts)] == list(find_index.texts_of_shards(texts, parts))


def test_search_texts_worked_out_for_the_seating_key_are_the_rows_own():
    hall = _hall()
    memo, texts = {}, {}
    first = hall_rows.draw_key(hall["events"][1], memo, texts)
    assert texts == {("E1", 1): ["张三丰|张三|丰|zsf|zs|f", "nguyen van an|an|nva|a"], ("E1", 2): ["李 四|ls"]}
    texts[("E1", 1)] = ["kept", "texts"]   # find_rows takes them rather than working them out again
    assert [r[0] for r in hall_rows.find_rows(hall, texts)][:2] == ["kept", "texts"]
    # a table's digest is kept while its sides and the entries are the same objects
    again = {}
    assert hall_rows.draw_key(hall["events"][1], memo, again) == first and again == {}
    ev = hall["events"][1]
    ev["entries"] = {**ev["entries"], "c": {"name": "李 四", "club": "少林", "members": []}}   # a club changed
    assert hall_rows.draw_key(ev, memo, again) != first and set(again) == {("E1", 1), ("E1", 2)}
