"""A publish that visits only the entry pages whose inputs moved (PageOut.carry_entries: the others' lines carried
from this process's last manifest) leaves the manifest, its parts and the figures a publish visiting every page
leaves; a page no longer made leaves it either way."""
from __future__ import annotations

from chalicelib.publish.manifest import save_manifest
from chalicelib.publish.sinks import MemorySink
from chalicelib.publish.site_pages import PageOut

EP = "t/T1/E1/"
KEY = EP + ".manifest.json"
ENTRIES = [f"N{i:03d}" for i in range(300)]


def _publish(sink, old: dict, inputs: dict, rest: list[str], *, carry: set[str] | None = None):
    """One language's pages: the rest (some keyed by inputs), then the entry pages (all, or only `carry`'s)."""
    out = PageOut(sink, "zh", old, many=False, carried=carry is not None)
    for name in rest:
        if name.startswith("round-") and out.unchanged(EP + name, inputs.get(name, "r")):
            continue
        out.write(EP + name, f"{name} {inputs.get(name, '')}")
    if carry is not None:
        assert out.can_carry()
        out.carry_entries(len(ENTRIES) - len(carry))
    for e in ENTRIES if carry is None else sorted(carry):
        if not out.unchanged(f"{EP}entry-{e}.html", inputs[e]):
            out.write(f"{EP}entry-{e}.html", f"page of {e}: {inputs[e]}")
    out.close()
    manifest = out.manifest()
    save_manifest(sink, KEY, manifest, old)
    return manifest, out.stats


def _lines(manifest: dict) -> dict:
    return {f: manifest[f] for f in ("pages", "inputs")}


def _parts(sink: MemorySink) -> dict:
    return {k: v for k, v in sink.files.items() if "/.manifest" in k or k.endswith(".manifest.json")}


def test_entry_pages_left_unvisited_leave_the_manifest_a_full_visit_leaves():
    inputs = {e: f"in-{e}" for e in ENTRIES}
    rest = ["index.html", "round-1.html", "round-2.html", "standings.html", "prizes.html"]
    carried_sink, whole_sink = MemorySink(), MemorySink()
    first, _ = _publish(carried_sink, {}, inputs, rest)
    assert first["_rest"] == ({EP + n for n in rest}, {EP + "round-1.html", EP + "round-2.html"})
    before_carried = first
    before_whole, _ = _publish(whole_sink, {}, inputs, rest)
    for step, moved in enumerate([{"N007", "N123"}, {"N007"}, {"N200", "N201", "N299"}, set()]):
        for e in moved:
            inputs[e] = f"in-{e}-{step}"
        inputs["round-2.html"] = f"r{step}"
        if step == 2:
            rest = [n for n in rest if n != "prizes.html"]   # a page no longer made
        carried, carried_stats = _publish(carried_sink, before_carried, inputs, rest, carry=moved | {"N050"})
        whole, whole_stats = _publish(whole_sink, before_whole, inputs, rest)
        assert _lines(carried) == _lines(whole) and carried["_rest"] == whole["_rest"]
        assert {k: carried_stats[k] for k in ("files", "written")} == {k: whole_stats[k] for k in ("files", "written")}
        assert _parts(carried_sink) == _parts(whole_sink)
        assert (EP + "prizes.html" in carried["pages"]) == (step < 2)
        before_carried, before_whole = carried, whole


def test_a_manifest_read_back_from_the_sink_is_not_carried():
    sink = MemorySink()
    inputs = {e: f"in-{e}" for e in ENTRIES}
    _publish(sink, {}, inputs, ["index.html"])
    from chalicelib.publish.manifest import load_manifest
    out = PageOut(sink, "zh", load_manifest(sink, KEY), many=False, carried=True)
    assert not out.can_carry()   # which lines are no entry page's is known only to the process that wrote them
