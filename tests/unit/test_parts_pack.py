"""parts.pack: a document inline exactly while its whole JSON is within INLINE_BYTES, whichever way it is told."""
from __future__ import annotations

import json

from chalicelib.store import parts


def _state(entries: int, rounds: int = 1) -> dict:
    ids = [f"01J{k:023d}" for k in range(entries)]
    return {"rounds": [{"n": n, "stage": 0, "stage_round": n, "note": "x" * 200} for n in range(1, rounds + 1)],
            "open_round": 1, "stage": 0,
            "plans": {"0": {"stage": 0, "format": "swiss", "entries": ids, "numbers": {e: k for k, e in enumerate(ids)},
                            "carry": {}, "seed": 1, "rounds": 9}}}


def _blobs(items: list[dict]) -> list[bytes]:
    return [i["blob"] for i in items]


def test_inline_or_in_parts_as_the_whole_document_s_size_says():
    key = {"PK": "EVENT#E", "SK": "STATE"}
    seen = set()
    # the plan's entries (the tail) and the rounds list (the head) each around the bound, alone and together
    for entries, rounds in [(0, 1), (300, 1), (700, 1), (800, 1), (850, 1), (900, 1), (1000, 1), (20_000, 1),
                            (0, 120), (0, 160), (500, 60), (650, 60), (5000, 200)]:
        doc = _state(entries, rounds)
        whole = parts.dumps(doc)
        head, items = parts.pack(key, doc, parts.split_state)
        inline = len(whole.encode()) <= parts.INLINE_BYTES
        seen.add(inline)
        assert (head == {"data": whole} and items == []) if inline else (head["parts"] == len(items) > 0)
        assert parts.unpack({**key, **head}, _blobs(items) if items else None, parts.merge_state) == json.loads(whole)
    assert seen == {True, False}


def test_a_round_document_by_its_byes():
    key = {"PK": "EVENT#E", "SK": "ROUND#0#001"}
    for byes in (10, 500, 800, 900, 5000):
        doc = {"event_id": "E", "number": 1, "byes": [[f"01J{k:023d}", "lowest"] for k in range(byes)], "notes": []}
        head, items = parts.pack(key, doc, parts.split_round)
        assert (items == []) == (len(parts.dumps(doc).encode()) <= parts.INLINE_BYTES)
        assert parts.unpack({**key, **head}, _blobs(items) if items else None, parts.merge_round) == doc


def test_a_state_written_back_unchanged_reuses_the_bytes_it_was_read_from(monkeypatch):
    """A draw reads the state and writes it back with the plan's long fields as they were (~7 MB of JSON at 100,000
    entries): with `reuse` they are not compressed again, and the head names the same parts (same bytes, same
    digest); a changed plan, another document's key, or a document packed without `reuse` is compressed as ever."""
    import zlib
    key, other = {"PK": "EVENT#E", "SK": "STATE"}, {"PK": "EVENT#F", "SK": "STATE"}
    doc = _state(5000)
    head, items = parts.pack(key, doc, parts.split_state)
    read = parts.unpack({**key, **head}, _blobs(items), parts.merge_state, reuse=True)
    assert read == doc
    compressed = []
    real = zlib.compress
    monkeypatch.setattr(zlib, "compress", lambda data, level: (compressed.append(len(data)), real(data, level))[1])
    read["open_round"] = 2   # a head field: the long ones as read
    again, again_items = parts.pack(key, read, parts.split_state, reuse=True)
    assert compressed == [] and again["digest"] == head["digest"] and _blobs(again_items) == _blobs(items)
    assert json.loads(again["data"])["open_round"] == 2
    assert parts.pack(other, read, parts.split_state, reuse=True)[0]["digest"] == head["digest"]
    assert parts.pack(key, read, parts.split_state)[0]["digest"] == head["digest"]
    assert len(compressed) == 2
    read["plans"]["0"]["numbers"][read["plans"]["0"]["entries"][0]] = 99   # a long field changed
    changed, changed_items = parts.pack(key, read, parts.split_state, reuse=True)
    assert len(compressed) == 3 and changed["digest"] != head["digest"]
    assert parts.unpack({**key, **changed}, _blobs(changed_items), parts.merge_state) == read
