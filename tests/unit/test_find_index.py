"""Issue 43: find-my-table's index shards (publish/find_index.py) hold, for every query of two characters or more,
every row that holds it — checked against a brute-force substring search over the same rows."""
from __future__ import annotations

import json
import random

from chalicelib.publish import find_index
from chalicelib.services.hall import fold, initials


def _row(name: str, members: list[str]) -> list:
    q = "|".join([fold(name), *[fold(m) for m in members], initials(name), *[initials(m) for m in members]])
    return [q, name, members, 0, 1, "N,S", "e/round-1.html"]


NAMES = ["张三丰", "Nguyễn Văn An", "Trần Thị Bích", "ĐẶNG Đức", "John Smith", "陈𠮷", "𠮷𠀋队", "María José",
         "Lê\u3000Hoàng", "王 芳"]


def test_fnv1a_is_the_published_32_bit_function():
    # FNV-1a 32's reference values (ASCII: a code point is its byte)
    assert find_index.fnv1a("") == 0x811C9DC5
    assert find_index.fnv1a("a") == 0xE40C292C
    assert find_index.fnv1a("foobar") == 0xBF9CF968


def test_a_character_outside_the_bmp_is_one_character():
    parts = find_index.shards([_row("陈𠮷", [])])
    assert parts[find_index.fnv1a("陈𠮷") % len(parts)]["rows"] == [0]
    assert find_index.fnv1a("𠮷") == ((0x811C9DC5 ^ 0x20BB7) * 0x01000193) & 0xFFFFFFFF


def test_keys_lose_javascripts_whitespace_only():
    # find.js strips \s (the ideographic space among them) from keys; \x1c is not \s there, so it stays
    assert find_index.search_keys("lê\u3000hoàng|a b|x\x1cy|p\ufeffq") == ["lê" "hoàng", "ab", "x\x1cy", "pq"]


def _found(rows, parts, q):
    """What find.js shows for q: (the rows it lists, the count it gives)."""
    keys = [find_index.search_keys(r[0]) for r in rows]
    for n in range(2, len(q) + 1):
        part = parts[find_index.fnv1a(q[:n]) % len(parts)]
        heavy = part["heavy"].get(q[:n])
        if heavy and n < len(q):
            continue
        if heavy:
            return [part["rows"][p] for p in heavy[1]], heavy[0]
        got = [i for i in part["rows"] if any(q in k for k in keys[i])]
        return got[:find_index.TOP], len(got)


def test_every_query_finds_what_a_search_of_every_row_finds():
    rng = random.Random(7)
    rows = [_row(rng.choice(NAMES) + str(i), [rng.choice(NAMES), rng.choice(NAMES)]) for i in range(1000)]
    parts = find_index.shards(rows)
    assert 10 <= len(parts) <= 200
    decoded = [json.loads(t) for t in find_index.shard_texts(rows, parts)]
    assert [len(d["hits"]) for d in decoded] == [len(p["rows"]) for p in parts]
    assert [d["hits"] for d in decoded] == [[rows[i] for i in p["rows"]] for p in parts]
    assert any(d["heavy"] for d in decoded)                      # "ng", "ua"… : more than HEAVY rows hold them
    keys = [find_index.search_keys(r[0]) for r in rows]
    queries = {k[i:i + n] for ks in keys[:300] for k in ks for n in (2, 3, 5, 9) for i in range(0, max(1, len(k) - n + 1))}
    queries = rng.sample(sorted(q for q in queries if len(q) >= 2), 250) + ["nguyenvanan", "ng", "𠮷𠀋", "陈𠮷"]
    for q in queries:
        expected = [i for i, ks in enumerate(keys) if any(q in k for k in ks)]
        assert _found(rows, parts, q) == (expected[:find_index.TOP], len(expected)), q


def test_shards_are_small_against_the_field():
    rows = [_row(f"第{i}队", [f"甲{i}", f"乙{i}"]) for i in range(4000)]
    sizes = sorted(len(p["rows"]) for p in find_index.shards(rows))
    assert sizes[-1] <= 3 * find_index.ROWS_PER_SHARD, sizes[-1]   # the largest shard: a few hundred rows of 4,000


def test_a_shard_is_cached_briefly_each_draw_rewrites_it():
    from chalicelib.publish.sinks import cache_control
    assert cache_control("t/T1/find/3.json") == "public, max-age=30"   # not a year's immutable, as find.json had
