"""Find-my-table's index for a big field (issue 43): instead of one find.json of every row (19 MB a language at
100,000 entries, fetched by every phone every round), the rows are split into small shards by the grams of their
search keys. A phone folds what is typed, takes its first two characters, fetches the one shard that gram hashes
to (`find/<shard>.json`, ~100–300 rows) and filters its rows by the whole query, as before: every row holding the
query holds its first two characters. A gram that too many rows hold (a Vietnamese field's "ng") is "heavy": the
shard says so, and the page takes one character more of the query (its rows are indexed by those lengthenings),
until a gram is not heavy or the query ends (then the shard gives that gram's first hits and their count).

find.js does the same sums: keys split on "|" with JavaScript's whitespace taken out, characters as code points
(not UTF-16 units: a name outside the Basic Multilingual Plane is one character on both sides), FNV-1a 32 over
the code points, modulo the shard count the page carries (tests/e2e/test_find_shards.py runs both)."""
from __future__ import annotations

import json
import math
import re

# JavaScript's \s, which find.js strips from keys and query: Python's \s differs (\x1c-\x1f and \x85 in, \ufeff out)
JS_SPACE = re.compile("[\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]")
ROWS_PER_SHARD = 200   # ~20–30 KB raw, a few KB gzip-compressed: what one phone fetches a round
HEAVY = 100            # a gram held by more rows is indexed by its lengthenings
CHOICES = 16           # shard counts tried
TOP = 20               # find.js shows this many hits (SHOWN) and counts the rest
FNV_OFFSET, FNV_PRIME = 0x811C9DC5, 0x01000193


def search_keys(q: str) -> list[str]:
    """A row's keys as find.js matches them (the publisher folded them: lower case, no diacritics)."""
    return [JS_SPACE.sub("", k) for k in q.split("|")]


def fnv1a(text: str) -> int:
    """FNV-1a, 32 bits, one step per code point (find.js: Math.imul over codePointAt)."""
    h = FNV_OFFSET
    for ch in text:
        h = ((h ^ ord(ch)) * FNV_PRIME) & 0xFFFFFFFF
    return h


def _grams(keys: list[str], n: int, heavy: set[str] | None) -> set[str]:
    """A row's n-character grams; past two characters only those that lengthen a heavy gram."""
    return {k[i:i + n] for k in keys for i in range(len(k) - n + 1) if heavy is None or k[i:i + n - 1] in heavy}


def plan(rows: list[list]) -> tuple[list[set[str]], dict[str, tuple[int, list[int]]]]:
    """Each row's leaf grams, and the heavy grams: (the rows holding it, its first TOP rows). A bigram held by
    more than HEAVY rows is heavy, and so is any longer gram lengthening a heavy one; a heavy gram's rows are
    indexed by its lengthenings instead (a Vietnamese field's "ng", "nguyen": most rows), down to grams no more
    than HEAVY rows hold. A query that is itself a heavy gram has more than TOP hits: its first TOP and the count
    are all the page shows."""
    keys = [search_keys(row[0]) for row in rows]
    leaves: list[set[str]] = [set() for _ in rows]
    heavy: dict[str, tuple[int, list[int]]] = {}
    todo, n, longer_of = list(range(len(rows))), 2, None
    while todo:
        grams = {i: _grams(keys[i], n, longer_of) for i in todo}
        held: dict[str, list[int]] = {}
        for i in todo:
            for g in grams[i]:
                held.setdefault(g, []).append(i)
        longer_of = {g for g, who in held.items() if len(who) > HEAVY}
        heavy.update((g, (len(held[g]), held[g][:TOP])) for g in longer_of)
        for i in todo:
            leaves[i].update(g for g in grams[i] if g not in longer_of)
        todo, n = [i for i in todo if not grams[i].isdisjoint(longer_of)], n + 1
    return leaves, heavy


def _count_for(sizes: dict[int, int], placements: int) -> int:
    """The shard count: about ROWS_PER_SHARD rows a shard; of a few counts near that, the one whose largest
    shard is smallest (grams' sizes differ: a plain modulo can pile several big ones into one shard)."""
    first = max(1, math.ceil(placements / ROWS_PER_SHARD))

    def largest(count):
        load = [0] * count
        for h, n in sizes.items():
            load[h % count] += n
        return max(load)
    return min(range(first, first + CHOICES), key=lambda c: (largest(c), c))


def shards(rows: list[list]) -> list[dict]:
    """Each shard: its rows (indexes, in the field's order, each once) and the heavy grams hashed to it with
    their count and first rows (as places in the shard's rows); the shard count from the field's size."""
    leaves, heavy = plan(rows)
    hashes: dict[str, int] = {}
    sizes: dict[int, int] = {}
    for gs in leaves:
        for g in gs:
            h = hashes.get(g)
            if h is None:
                h = hashes[g] = fnv1a(g)
            sizes[h] = sizes.get(h, 0) + 1
    for g in heavy:
        h = hashes[g] = fnv1a(g)
        sizes[h] = sizes.get(h, 0) + TOP
    count = _count_for(sizes, sum(sizes.values()))
    held: list[set[int]] = [set() for _ in range(count)]
    for i, gs in enumerate(leaves):
        for g in gs:
            held[hashes[g] % count].add(i)
    for g, (_, first) in heavy.items():
        held[hashes[g] % count].update(first)
    out = [{"rows": sorted(h), "heavy": {}} for h in held]
    for g, (total, first) in heavy.items():
        shard = out[hashes[g] % count]
        place = {i: p for p, i in enumerate(shard["rows"])}
        shard["heavy"][g] = [total, [place[i] for i in first]]
    return out


def shard_texts(rows: list[list], parts: list[dict]):
    """Each shard's JSON `{"hits": [row, …], "heavy": {gram: [count, [place, …]]}}`, one at a time (at 100,000
    entries they add up to several times find.json)."""
    texts = [json.dumps(row, ensure_ascii=False, separators=(",", ":")) for row in rows]
    for part in parts:
        yield ('{"hits":[' + ",".join(texts[i] for i in part["rows"]) + '],"heavy":'
               + json.dumps(part["heavy"], ensure_ascii=False, separators=(",", ":"), sort_keys=True) + "}")
