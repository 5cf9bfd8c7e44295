"""The entry pages' place charts, in files of their own (issue 43: a close writes what changed). An entry's place
after each closed round moves for every entry at every close; kept in the entry page, it made each close rewrite
every entry page (30,000 PUTs at 10,000 entries). The page now names one small file, `places-<k>.json`, holding the
charts of about PLACES_CHUNK entries (chosen by a hash of the entry's id, so the page's text does not depend on the
round), and live.js draws the chart from it; without JavaScript the page links the standings instead. A close
rewrites these few files (per language: the charts' words are the page's), not the pages."""
from __future__ import annotations

import hashlib
import json
from functools import lru_cache

PLACES_CHUNK = 100   # entries a file holds, about: small enough for a phone to fetch, few enough to write at a close


def places_chunks(entries: int) -> int:
    """How many files an event's charts are in: a power of two (it moves only when the field doubles or halves,
    and then every entry page names its file again)."""
    k = 1
    while k * PLACES_CHUNK < entries:
        k *= 2
    return k


@lru_cache(maxsize=1 << 17)
def _bucket(entry_id: str) -> int:
    return int(hashlib.sha1(entry_id.encode()).hexdigest()[:8], 16)


def places_file(entry_id: str, chunks: int) -> str:
    """The file (in the event's folder) holding an entry's place chart."""
    return f"places-{_bucket(entry_id) % max(1, chunks) + 1}.json"


def chunk_members(entry_ids, chunks: int) -> list[list[str]]:
    """The entries of each file, file 1 first (in the order given)."""
    out: list[list[str]] = [[] for _ in range(max(1, chunks))]
    for e in entry_ids:
        out[_bucket(e) % len(out)].append(e)
    return out


def chunk_inputs(places: dict, members: list[str]) -> str:
    """What a file shows: the rounds, the field and its entries' places (its digest's input)."""
    by_entry = (places or {}).get("by_entry", {})
    return repr(((places or {}).get("rounds"), (places or {}).get("field"), [(e, by_entry.get(e)) for e in members]))


def chunk_body(charts: dict[str, str]) -> str:
    """The file: each entry's chart (SVG markup, escaped as the page's own), by entry id; an entry without a chart
    (fewer than two closed rounds) is not in it."""
    return json.dumps({"charts": charts}, ensure_ascii=False, separators=(",", ":"))
