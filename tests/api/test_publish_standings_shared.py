"""A publish after a close works the stage's standings out once for the places after the closed rounds and the
standings themselves (services/standings.standings_shared): the pages are byte for byte those of each worked out
on its own."""
from __future__ import annotations

from contextlib import nullcontext

from chalicelib import bootstrap
from chalicelib.publish.sinks import MemorySink
from chalicelib.services import publishing, standings
from tests.api.play import close, draw, enter_and_confirm, people, setup_event


def test_the_standings_shared_with_the_places_publish_the_same_pages(api, monkeypatch):
    cfg = {"name": "掼蛋", "game": "guandan", "entry": "pair", "capacity": 16, "fee": {"amount": 0},
           "stages": [{"format": "swiss", "rounds": 2}]}
    tid, eid, _ = setup_event(api, cfg, people(10, 2, "队"))
    for n in (1, 2):
        rnd = draw(api, eid)
        for k, table in enumerate(rnd["tables"]):
            a, b = (s["entry_id"] for s in table["sides"])
            enter_and_confirm(api, eid, rnd, table, {"final": {"levels": {a: 14 - k, b: 2 + k + n}}})
        close(api, eid, n)

    worked: list[int] = []
    real = standings._stage_standings
    monkeypatch.setattr(standings, "_stage_standings", lambda *a, **kw: worked.append(1) or real(*a, **kw))
    d = bootstrap.deps()
    here, there = MemorySink(), MemorySink()
    monkeypatch.setattr(publishing, "standings_shared", nullcontext)
    publishing.forget_warm(d)
    d.publisher = here
    publishing.publish_tournament(d, tid, force=True)
    alone = len(worked)

    monkeypatch.setattr(publishing, "standings_shared", standings.standings_shared)
    worked.clear()
    publishing.forget_warm(d)
    d.publisher = there
    publishing.publish_tournament(d, tid, force=True)

    assert len(worked) == alone - 1   # the ranking after the last closed round: once, not twice
    assert here.files.keys() == there.files.keys()
    assert [k for k in here.files if here.files[k] != there.files[k]] == []
    assert there.files[f"t/{tid}/{eid}/standings.html"].decode().count("entry-") >= 10   # every pair ranked
