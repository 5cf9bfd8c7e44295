"""Find-my-table's index for a big field (issue 43): instead of one find.json of every row (19 MB a language at
100,000 entries, fetched by every phone every round), the rows are split into small shards by the bigrams of their
search keys. A phone folds what is typed, takes its first two characters, fetches the one shard that bigram hashes
to (`find/<shard>.json`, ~100–300 rows) and filters its rows by the whole query, as before: every row holding the
query holds its first bigram, so the shard holds every hit.

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
FNV_OFFSET, FNV_PRIME = 0x811C9DC5, 0x01000193


def search_keys(q: str) -> list[str]:
    """A row's keys as find.js matches them (the publisher folded them: lower case, no diacritics)."""
    return [JS_SPACE.sub("", k) for k in q.split("|")]


def bigrams(q: str) -> set[str]:
    """Every two consecutive characters (code points) within one key."""
    return {k[i:i + 2] for k in search_keys(q) for i in range(len(k) - 1)}


def fnv1a(text: str) -> int:
    """FNV-1a, 32 bits, one step per code point (find.js: Math.imul over codePointAt)."""
    h = FNV_OFFSET
    for ch in text:
        h = ((h ^ ord(ch)) * FNV_PRIME) & 0xFFFFFFFF
    return h


def shard_count(grams: list[set[str]]) -> int:
    """From the field's size: about ROWS_PER_SHARD rows a shard (a row is in one shard per bigram it holds)."""
    return max(1, math.ceil(sum(len(g) for g in grams) / ROWS_PER_SHARD))


def shards(rows: list[list]) -> list[list[int]]:
    """Each shard's rows (their indexes, in the field's order, each once a shard); the shard count from the
    field's size."""
    grams = [bigrams(row[0]) for row in rows]
    members: list[list[int]] = [[] for _ in range(shard_count(grams))]
    slot: dict[str, int] = {}
    for i, gs in enumerate(grams):
        for k in sorted({slot[g] if g in slot else slot.setdefault(g, fnv1a(g) % len(members)) for g in gs}):
            members[k].append(i)
    return members


def shard_texts(rows: list[list], members: list[list[int]]):
    """Each shard's JSON `{"hits": [row, …]}`, one at a time (at 100,000 entries they add up to ~10 × find.json)."""
    texts = [json.dumps(row, ensure_ascii=False, separators=(",", ":")) for row in rows]
    for m in members:
        yield '{"hits":[' + ",".join(texts[i] for i in m) + "]}"
