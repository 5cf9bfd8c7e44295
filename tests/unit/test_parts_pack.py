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
