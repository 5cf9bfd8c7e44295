"""A big field's standings worked out in a forked child beside the rest of a publish's reading (issue 29,
services/beside.py): the pages are byte for byte those of the standings worked out in the publisher itself."""
from __future__ import annotations

from chalicelib import bootstrap
from chalicelib.config import get_settings
from chalicelib.publish.sinks import MemorySink
from chalicelib.services import beside, publishing
from tests.api.play import close, draw, enter_and_confirm, people, setup_event


def test_standings_from_a_child_publish_the_same_pages(api, monkeypatch, caplog):
    cfg = {"name": "掼蛋", "game": "guandan", "entry": "pair", "capacity": 16, "fee": {"amount": 0},
           "stages": [{"format": "swiss", "rounds": 3}]}
    tid, eid, _ = setup_event(api, cfg, people(10, 2, "队"))
    rnd = draw(api, eid)
    for k, table in enumerate(rnd["tables"]):
        a, b = (s["entry_id"] for s in table["sides"])
        enter_and_confirm(api, eid, rnd, table, {"final": {"levels": {a: 14 - k, b: 3 + k}}})
    close(api, eid, 1)
    rnd2 = draw(api, eid)
    t = rnd2["tables"][0]
    a, b = (s["entry_id"] for s in t["sides"])
    enter_and_confirm(api, eid, rnd2, t, {"final": {"levels": {a: 5, b: 14}}})

    d = bootstrap.deps()
    here, there = MemorySink(), MemorySink()
    monkeypatch.setattr(get_settings(), "publish_beside_min", 10 ** 9)
    publishing.forget_warm(d)
    d.publisher = here
    publishing.publish_tournament(d, tid, force=True)

    monkeypatch.setattr(get_settings(), "publish_beside_min", 0)
    answered_by_child = []
    real = beside.Beside.result
    monkeypatch.setattr(beside.Beside, "result", lambda self: answered_by_child.append(self.pid is not None) or real(self))
    publishing.forget_warm(d)
    d.publisher = there
    publishing.publish_tournament(d, tid, force=True)

    assert answered_by_child == [True] and "work beside failed" not in caplog.text
    assert here.files.keys() == there.files.keys()
    assert [k for k in here.files if here.files[k] != there.files[k]] == []
    standings = there.files[f"t/{tid}/{eid}/standings.html"].decode()
    assert standings.count("entry-") >= 10   # every pair ranked
