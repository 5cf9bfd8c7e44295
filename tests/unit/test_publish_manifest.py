"""The publisher's manifest saved from the last one (only the parts holding changed lines worked out again) is what
saving it whole gives, part for part; the sink then holds what a new publisher process reads back."""
from __future__ import annotations

import random

from chalicelib.publish.sinks import MemorySink
from chalicelib.publish.manifest import load_manifest as _load_manifest, save_manifest as _save_manifest

KEY = "t/T1/.manifest.json"


def _manifest(rng: random.Random, events: list[str], entries: int) -> dict:
    pages, inputs = {}, {}
    for eid in events:
        for k in range(entries):
            pages[f"t/T1/{eid}/entry-{k}.html"] = f"p{rng.randrange(3)}"
            inputs[f"t/T1/{eid}/entry-{k}.html"] = f"i{rng.randrange(3)}"
        pages[f"t/T1/{eid}/index.html"] = f"p{rng.randrange(3)}"
    pages["t/T1/index.html"] = "p"
    return {"pages": pages, "inputs": inputs}


def _parts(sink: MemorySink) -> dict:
    return {k: v for k, v in sink.files.items() if "/.manifest" in k or k.endswith(".manifest.json")}


def test_a_manifest_saved_from_the_last_is_the_manifest_saved_whole():
    rng = random.Random(7)
    first = _manifest(rng, ["E1", "E2"], 60)
    incremental = MemorySink()
    _save_manifest(incremental, KEY, first, {})
    before = first
    for step in range(6):
        now = {"pages": dict(before["pages"]), "inputs": dict(before["inputs"])}
        for key in rng.sample(sorted(now["pages"]), 3):   # a few pages changed
            now["pages"][key] = f"x{step}"
        now["inputs"].pop(rng.choice(sorted(now["inputs"])))   # a line gone
        if step == 2:   # a new event's pages
            extra = _manifest(rng, ["E3"], 5)
            now["pages"].update(extra["pages"])
            now["inputs"].update(extra["inputs"])
        if step == 4:   # an event's pages gone: its parts leave the index
            now = {f: {k: v for k, v in now[f].items() if "/E2/" not in k} for f in ("pages", "inputs")}
        whole = MemorySink()
        _save_manifest(whole, KEY, {f: dict(now[f]) for f in ("pages", "inputs")}, {})
        _save_manifest(incremental, KEY, now, before)
        index = _load_manifest(incremental, KEY)
        assert {f: index[f] for f in ("pages", "inputs")} == {f: now[f] for f in ("pages", "inputs")}
        assert index["_index"] == _load_manifest(whole, KEY)["_index"]
        live = {f"t/T1/.manifest/{name}.json" for name in index["_index"]} | {KEY}
        assert {k: v for k, v in _parts(incremental).items() if k in live} == _parts(whole)
        before = now


def test_a_saved_manifest_holds_its_parts_as_keys_not_a_second_copy_of_its_lines():
    """Issue 43: the publisher keeps each language's manifest between publishes; its parts are held as their keys
    and digests (their lines made again from the manifest's when one changes), not as a copy of every line."""
    import tracemalloc
    manifest = _manifest(random.Random(3), ["E1"], 4000)
    sink = MemorySink()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        lines = {f: dict(manifest[f]) for f in ("pages", "inputs")}   # what a copy of every line holds
        copied = tracemalloc.get_traced_memory()[0] - before
        del lines
        _save_manifest(sink, KEY, manifest, {})
        sink.files.clear()   # (the sink's bytes are not the publisher's to hold)
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert set(manifest["_shards"]) == set(manifest["_index"]) and len(manifest["_index"]) == 18   # 16 + E1 + t
    assert held < 0.25 * copied, (held, copied)
    assert _load_manifest(_sink_with(manifest), KEY)["pages"] == manifest["pages"]


def _sink_with(manifest: dict) -> MemorySink:
    sink = MemorySink()
    _save_manifest(sink, KEY, {f: dict(manifest[f]) for f in ("pages", "inputs")}, {})
    return sink
