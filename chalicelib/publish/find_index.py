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
from collections import Counter
from operator import add

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


def _bigrams(keys: list[str]) -> set[str]:
    out: set[str] = set()
    for k in keys:
        out.update(map(add, k, k[1:]))
    return out


def _grams(keys: list[str], n: int, heavy: set[str] | None) -> set[str]:
    """A row's n-character grams; past two characters only those that lengthen a heavy gram."""
    if heavy is None:
        return _bigrams(keys)
    return {k[i:i + n] for k in keys for i in range(len(k) - n + 1) if k[i:i + n - 1] in heavy}


def _counts(keys: _Split) -> tuple[dict[str, int], set[str]]:
    """How many rows hold each gram (bigrams, and the lengthenings of heavy ones), and the heavy grams. A bigram
    held by more than HEAVY rows is heavy, and so is any longer gram lengthening a heavy one that as many hold.
    Level by level, each row's grams made again rather than kept (kept, 100,000 rows' were ~400 MB)."""
    counts: dict[str, int] = {}
    heavy: set[str] = set()
    todo, n, longer_of = range(len(keys)), 2, None
    while todo:
        level: Counter = Counter()
        for i in todo:
            level.update(_grams(keys[i], n, longer_of))
        counts.update(level)
        found = {g for g, c in level.items() if c > HEAVY}
        if not found:
            break
        heavy |= found
        todo = [i for i in todo if not _grams(keys[i], n, longer_of).isdisjoint(found)]
        n, longer_of = n + 1, found
    return counts, heavy


def _walk(keys: list[str], heavy: set[str]) -> tuple[set[str], set[str]]:
    """A row's leaf grams (where find.js looks for it) and the heavy grams it holds: from each character, the
    two there, lengthened while heavy; a heavy gram reaching its key's end leaves no leaf."""
    grams = _bigrams(keys)
    leaves, held = grams - heavy, grams & heavy
    if held:
        for k in keys:
            for i in range(len(k) - 1):
                n = 2
                while k[i:i + n] in heavy:
                    held.add(k[i:i + n])
                    n += 1
                    if i + n > len(k):
                        break
                else:
                    leaves.add(k[i:i + n])
    return leaves, held


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


class _Split:
    """Rows' keys split when read (`joined`: each row's keys joined by "|", JavaScript's whitespace out): a list of
    lists held for 100,000 rows was ~45 MiB (issue 43)."""
    __slots__ = ("joined",)

    def __init__(self, joined: list[str]):
        self.joined = joined

    def __getitem__(self, i: int) -> list[str]:
        return self.joined[i].split("|")

    def __len__(self) -> int:
        return len(self.joined)


def joined_keys(q: str) -> str:
    """A row's search text as find.js matches it: search_keys joined by "|" again ("|" is no whitespace); the text
    itself, not a copy, when it holds none."""
    return JS_SPACE.sub("", q) if JS_SPACE.search(q) else q


def shards(rows: list[list]) -> list[dict]:
    """The shards of find rows (their first item the search text): shards_of_keys."""
    return shards_of_keys([joined_keys(row[0]) for row in rows])


def shards_of_keys(joined: list[str]) -> list[dict]:
    """Each shard: its rows (indexes, in the field's order, each once) and the heavy grams hashed to it with
    the rows holding them and their first TOP rows (as places in the shard's rows). A heavy gram's rows are found
    by its lengthenings instead (a Vietnamese field's "ng", "nguyen": most rows), down to grams no more than HEAVY
    rows hold; a query that is itself a heavy gram has more than TOP hits: its first TOP and the count are all the
    page shows. The shard count from the field's size."""
    keys = _Split(joined)
    counts, heavy = _counts(keys)
    hashes = {g: fnv1a(g) for g in counts}
    sizes: dict[int, int] = {}
    for g, c in counts.items():   # a leaf's rows, a heavy gram's first TOP
        h = hashes[g]
        sizes[h] = sizes.get(h, 0) + (TOP if g in heavy else c)
    count = _count_for(sizes, sum(sizes.values()))
    held: list[list[int]] = [[] for _ in range(count)]
    first: dict[str, list[int]] = {g: [] for g in heavy}
    for i, ks in enumerate(keys):
        leaves, holds = _walk(ks, heavy)
        at = {hashes[g] % count for g in leaves}
        for g in holds:
            if len(first[g]) < TOP:
                first[g].append(i)
                at.add(hashes[g] % count)
        for k in at:
            held[k].append(i)   # rows in order: each shard's list is sorted
    out = [{"rows": h, "heavy": {}} for h in held]
    for g, rows_ in first.items():
        shard = out[hashes[g] % count]
        place = {i: p for p, i in enumerate(shard["rows"])}
        shard["heavy"][g] = [counts[g], [place[i] for i in rows_]]
    return out


def shard_texts(rows: list[list], parts: list[dict]):
    """Each shard's JSON `{"hits": [row, …], "heavy": {gram: [count, [place, …]]}}`, one at a time (at 100,000
    entries they add up to several times find.json)."""
    yield from texts_of_shards([json.dumps(row, ensure_ascii=False, separators=(",", ":")) for row in rows], parts)


def texts_of_shards(texts: list, parts: list[dict]):
    """shard_texts from the rows' JSON (`texts`): strings, or their UTF-8 bytes (then each shard's bytes)."""
    raw = bool(texts) and isinstance(texts[0], bytes)
    for part in parts:
        heavy = json.dumps(part["heavy"], ensure_ascii=False, separators=(",", ":"), sort_keys=True)
        if raw:
            yield b'{"hits":[' + b",".join(texts[i] for i in part["rows"]) + b'],"heavy":' + heavy.encode() + b"}"
        else:
            yield '{"hits":[' + ",".join(texts[i] for i in part["rows"]) + '],"heavy":' + heavy + "}"
