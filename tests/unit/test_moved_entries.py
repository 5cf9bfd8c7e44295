"""After one table's result in a round worded before (the same document: its other tables' words kept), the entry
pages' inputs of only that table's entries are worked out again (told from the rows that are not the same
objects, not by comparing every entry's rows), and the page data is what a cold cache gives."""
from __future__ import annotations

from chalicelib.publish import site_data
from tests.unit.test_site_data import _data, _records, _round


def _with_result(rounds: list, number: int, x: int, y: int) -> list:
    doc, tables = rounds[-1]
    t = next(t for t in tables if t["number"] == number)
    a, b = (s["entry_id"] for s in t["sides"])
    done = {**t, "status": "confirmed", "points": {a: {"level_points": x}, b: {"level_points": y}},
            "result": {"final": {"levels": {a: x, b: y}}}}
    return [*rounds[:-1], (doc, [done if s is t else s for s in tables])]


def test_one_result_moves_only_its_tables_entries_and_gives_what_a_cold_cache_does():
    tournament, event, entries = _records(20)
    warm: dict = {}
    closed = _round(1, entries, {k: (14, 2) for k in range(1, 11)}, status="closed")
    rounds = [closed, _round(2, entries[::-1], {2: (12, 9)})]
    assert _data(tournament, event, entries, rounds, warm) == _data(tournament, event, entries, rounds, {})
    for step, (number, x, y) in enumerate([(5, 13, 4), (7, 9, 11), (5, 2, 14), (5, 2, 14)]):
        rounds = _with_result(rounds, number, x, y)
        assert _data(tournament, event, entries, rounds, warm) == _data(tournament, event, entries, rounds, {})
        table = next(t for t in rounds[-1][1] if t["number"] == number)
        seated = {s["entry_id"] for s in table["sides"]}
        # those two entries' inputs only, worked out again (none when the table's words are as they were)
        assert warm["entry_pages"]["moved"] == (seated if step < 3 else set())
        by_entry = site_data.round_by_entry(warm["entry_pages"]["outs"][-1])
        cold = {e: rows for e, rows in site_data.round_by_entry({**warm["entry_pages"]["outs"][-1],
                                                                 "by_entry": None}).items()}
        assert by_entry == cold   # the round's rows by entry, made from the last wording's, as if mapped whole
