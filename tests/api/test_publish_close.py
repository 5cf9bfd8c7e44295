"""Issue 43 item 2: a round's close writes what changed. The entry pages do not change at a close (their place
chart is in places-<k>.json, publish/place_files.py): the close's publish writes the places files, the standings
and the round's pages, not one entry page. bench/publish.py counts it at 10,000 entries."""
from __future__ import annotations

import json
import re

from chalicelib import bootstrap

from .play import Recording, close, draw, enter_and_confirm, people, setup_event

CFG = {"name": "掼蛋", "game": "guandan", "entry": "pair", "capacity": 40, "fee": {"amount": 0},
       "stages": [{"format": "swiss", "rounds": 4, "early_finish": False}]}


def _play(api, eid: str, n: int) -> None:
    rnd = draw(api, eid, seed=n)
    for k, t in enumerate(rnd["tables"]):
        a, b = (s["entry_id"] for s in t["sides"])
        enter_and_confirm(api, eid, rnd, t, {"final": {"levels": {a: 14, b: 2 + (k + n) % 10}}})


def test_a_close_rewrites_the_places_files_not_the_entry_pages(api, moto_repos):
    d = bootstrap.deps()
    d.publisher = sink = Recording()
    tid, eid, ids = setup_event(api, CFG, people(8, 2, "队"))
    _play(api, eid, 1)
    close(api, eid, 1)
    _play(api, eid, 2)
    entry_pages = {k: v for k, v in sink.files.items() if "/entry-" in k}
    assert len(entry_pages) == 3 * len(ids)
    sink.written.clear()

    close(api, eid, 2)   # its publish is asked for and made inline: the first close with a chart to draw
    written = set(sink.written)
    assert not [k for k in written if "/entry-" in k]                    # not one entry page
    assert {k: sink.files[k] for k in entry_pages} == entry_pages
    for prefix in ("", "en/", "vi/"):                                    # each language's places files moved
        assert any(k.startswith(f"{prefix}t/{tid}/{eid}/places-") for k in written), prefix

    # what the page names holds its chart, drawn from the two closed rounds
    leader = ids[0]
    page = sink.files[f"t/{tid}/{eid}/entry-{leader}.html"].decode()
    src = re.search(r'data-places="(places-\d+\.json)" data-entry="' + leader, page).group(1)
    chart = json.loads(sink.files[f"t/{tid}/{eid}/{src}"])["charts"][leader]
    assert chart.startswith("<svg") and "各轮后名次" in chart
    assert "Place after each round" in json.loads(sink.files[f"en/t/{tid}/{eid}/{src}"])["charts"][leader]
    # every entry is in the file its page names, and in no other
    files = {k: json.loads(v)["charts"] for k, v in sink.files.items() if k.startswith(f"t/{tid}/{eid}/places-")}
    for e in ids:
        named = re.search(r'data-places="(places-\d+\.json)"', sink.files[f"t/{tid}/{eid}/entry-{e}.html"].decode())
        holding = [k for k, charts in files.items() if e in charts]
        assert holding == [f"t/{tid}/{eid}/{named.group(1)}"], e
