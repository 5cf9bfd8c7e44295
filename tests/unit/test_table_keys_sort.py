"""A round's table packs and table items sort by number however many there are (issue 43: a 100,000-entry round has
1,250 packs and 25,000 tables; with three and four digits "1000" sorted before "999" and the close's range read was
refused), and the keys stored before stay as they were."""
import random

from chalicelib.store import keys
from chalicelib.store.rounds import _between_packs


def test_packs_and_tables_sort_by_number_past_their_width():
    packs = [keys.table_pack("e", 1, 3, k)["SK"] for k in range(0, 30_000, 7)]
    assert sorted(packs) == packs
    tables = [keys.table_item("e", 1, 3, t)["SK"] for t in range(0, 120_000, 13)]
    assert sorted(tables) == tables
    mixed = [keys.table_pack("e", 1, 3, k)["SK"] for k in range(990, 1010)] + \
        [keys.table_item("e", 1, 3, t)["SK"] for t in range(19_800, 20_200)]
    shuffled = random.Random(5).sample(mixed, len(mixed))
    # every table item sorts after its own pack and before the next pack
    order = sorted(shuffled)
    for t in range(19_800, 20_200):
        at = order.index(keys.table_item("e", 1, 3, t)["SK"])
        assert order[:at].count(keys.table_pack("e", 1, 3, t // keys.TABLES_PER_ITEM)["SK"]) == 1
        if t // keys.TABLES_PER_ITEM + 1 < 1010:
            assert keys.table_pack("e", 1, 3, t // keys.TABLES_PER_ITEM + 1)["SK"] in order[at:]


def test_keys_stored_before_are_unchanged_and_read_back():
    assert keys.table_pack("e", 1, 3, 42)["SK"] == "ROUND#1#003#TABLES#042"
    assert keys.table_item("e", 1, 3, 842)["SK"] == "ROUND#1#003#TABLES#042#0842"
    for k in (0, 7, 999, 1000, 1252, 123_456):
        assert keys.pack_no_of(keys.table_pack("e", 1, 3, k)["SK"]) == k
        assert keys.pack_no_of(keys.table_item("e", 1, 3, k * keys.TABLES_PER_ITEM + 5)["SK"]) == k
    assert keys.pack_no_of("ROUND#1#003") is None


def test_a_range_cut_halfway_between_packs_past_a_thousand_lies_between_them():
    prefix = keys.round_prefix(1, 3)
    low, high = keys.table_pack("e", 1, 3, 939)["SK"], keys.table_pack("e", 1, 3, 1252)["SK"]
    cut = _between_packs(prefix, low, high)
    assert low < cut < high and keys.pack_no_of(cut) == (939 + 1252) // 2


def test_a_table_items_number_reads_back_past_9999_tables():
    from chalicelib.store.rounds import _table_no
    for t in (1, 842, 9_999, 10_000, 49_999):   # a 20,000-entry round's table 10,000 failed to read back
        assert _table_no(keys.table_item("e", 1, 3, t)["SK"]) == t
