"""Publishing writes only the pages whose content changed; `force` rewrites all."""
from __future__ import annotations

from chalicelib import bootstrap
from chalicelib.services.publishing import publish_tournament
from tests.api.play import Recording, close, draw, enter_and_confirm, people, setup_event


def test_only_changed_pages_are_written(api, moto_repos):
    cfg = {"name": "掼蛋", "game": "guandan", "entry": "pair", "capacity": 40, "fee": {"amount": 0},
           "stages": [{"format": "swiss", "rounds": 3}]}
    tid, eid, ids = setup_event(api, cfg, people(12, 2, "队"))
    rnd = draw(api, eid)
    for t in rnd["tables"]:
        a, b = (s["entry_id"] for s in t["sides"])
        enter_and_confirm(api, eid, rnd, t, {"final": {"levels": {a: 10, b: 8}}})
    close(api, eid, 1)
    d = bootstrap.deps()
    d.publisher = sink = Recording()
    first = publish_tournament(d, tid)
    assert first["written"] == first["files"] > 30
    again = publish_tournament(d, tid)
    assert again["files"] == first["files"] and again["written"] <= 12  # index/feeds carry the time
    rnd2 = draw(api, eid, seed=2)
    publish_tournament(d, tid)  # the draw adds a row to every entry's history
    t = rnd2["tables"][0]
    a, b = (s["entry_id"] for s in t["sides"])
    sink.written.clear()
    enter_and_confirm(api, eid, rnd2, t, {"final": {"levels": {a: 11, b: 9}}})  # publishes once it is confirmed
    changed = set(sink.written)
    after = publish_tournament(d, tid)
    assert after["written"] <= 4  # nothing new since: the index pages and feeds only (they carry the time)
    assert f"t/{tid}/{eid}/entry-{a}.html" in changed and f"en/t/{tid}/{eid}/entry-{b}.html" in changed
    others = [e for e in ids if e not in (a, b)]
    assert all(f"t/{tid}/{eid}/entry-{e}.html" not in changed for e in others)
    live = {k for k in changed if k.startswith("live/")}   # the table's phones' JSON, by the requests (issue 43)
    assert len(live) == 1
    changed -= live
    pages = {k for k in changed if "/.manifest" not in k}
    # two entries, the round, standings, indexes, feeds, in three languages: not the whole field; and the audit chain
    # (audit.json, the corrections pages' head: docs/audit-chain.md); and, once started, the link card names the
    # leaders (issue 39): the day's prize page in each language is written again too
    assert len(pages) <= 37 and f"t/{tid}/{eid}/audit.json" in pages
    # the manifests' indexes (the event's and, the leaders having moved, the tournament-wide pages': a manifest per
    # lease since issue 43) and the parts holding those pages' lines (the event's, two entry parts, the tournament's)
    assert len(changed - pages) <= 3 * 6
    # A renamed entry: its own page and its opponents' pages (which name it) are rewritten, no others
    before = d.repos.entries.get(eid, a)
    d.repos.entries.transition(before, before.model_copy(update={"name": "改名队"}), take_place=False)
    sink.written.clear()
    publish_tournament(d, tid)
    renamed = set(sink.written)
    opponents_of_a = {s["entry_id"] for r in (rnd, rnd2) for t in r["tables"] if a in [x["entry_id"] for x in t["sides"]]
                      for s in t["sides"]} - {a}
    assert opponents_of_a and {f"t/{tid}/{eid}/entry-{e}.html" for e in opponents_of_a | {a}} <= renamed
    assert all(f"t/{tid}/{eid}/entry-{e}.html" not in renamed for e in ids if e not in opponents_of_a | {a})
    assert publish_tournament(d, tid, force=True)["written"] == after["files"]
