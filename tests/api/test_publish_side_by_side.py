"""Issue 43: two events of one tournament publish side by side (each under its own lease), while two publishes of
the same event still take turns and an ask made while one runs is published by it."""
from __future__ import annotations

import threading

from chalicelib import bootstrap
from chalicelib.services import publishing
from chalicelib.services.publish_requests import event_change
from tests.api.play import Recording, draw, enter_and_confirm, people, setup_event, two_events_drawn

CFG = {"name": "掼蛋", "game": "guandan", "entry": "pair", "capacity": 40, "fee": {"amount": 0},
       "stages": [{"format": "swiss", "rounds": 3}]}


def test_two_events_publish_at_once_and_one_event_takes_turns_losing_nothing(api, moto_repos, monkeypatch):
    tid, a_eid, b_eid, rnd = two_events_drawn(api, monkeypatch, CFG, 8)
    d = bootstrap.deps()
    d.publisher = sink = Recording()
    publishing.publish_latest(d, tid)

    # Two events at once: each one's read waits until the other's has begun. Under one lease per tournament the
    # second would leave its ask to the first, and the first would wait here for a read that never comes.
    real_read = publishing.event_site_data
    both_reading = threading.Barrier(2, timeout=30)
    waited = set()

    def meeting(deps, event, tournament, *a, **k):
        if event.id not in waited:
            waited.add(event.id)
            both_reading.wait()
        return real_read(deps, event, tournament, *a, **k)

    monkeypatch.setattr(publishing, "event_site_data", meeting)
    out = {}
    runs = [threading.Thread(target=lambda e=e: out.__setitem__(e, publishing.publish_latest(
        d, tid, changes=[event_change(e)]))) for e in (a_eid, b_eid)]
    for t in runs:
        t.start()
    for t in runs:
        t.join(60)
    assert not both_reading.broken and set(out) == {a_eid, b_eid}
    assert all(out[e] is not None and out[e]["by_event"] is None for e in out)   # each published its own event

    # The same event twice: the second ask (a result confirmed, published inline) finds the lease held and leaves
    # its ask to the holder, which publishes once more after its first publish: the result is on the page.
    inside, go_on, reads, running = threading.Event(), threading.Event(), [], [0]

    def held(deps, event, tournament, *a, **k):
        if event.id == a_eid:
            running[0] += 1
            reads.append(running[0])
            if len(reads) == 1:
                inside.set()
                go_on.wait(30)
            running[0] -= 1
        return real_read(deps, event, tournament, *a, **k)

    monkeypatch.setattr(publishing, "event_site_data", held)
    first = threading.Thread(target=lambda: out.__setitem__("first", publishing.publish_latest(
        d, tid, changes=[event_change(a_eid)])))
    first.start()
    assert inside.wait(30)
    t1 = rnd["tables"][0]
    x, y = (s["entry_id"] for s in t1["sides"])
    enter_and_confirm(api, a_eid, rnd, t1, {"final": {"levels": {x: 12, y: 9}}})   # asks while the first holds A
    assert len(reads) == 1                    # its publish was left to the holder: nothing read beside it
    go_on.set()
    first.join(60)
    assert reads == [1, 1]                    # the holder read A once more, after its first publish ended
    page = sink.files[f"t/{tid}/{a_eid}/round-1.html"].decode()
    assert "已确认" in page.split(f'<td class="n">{t1["number"]}</td>')[1].split("</tr>")[0]
    assert d.repos.publish_leases.holder(tid, scope=a_eid) is None and d.repos.publish_leases.holder(tid) is None


def test_the_tournament_wide_pages_read_an_event_again_once_it_was_asked_for_elsewhere(api, moto_repos, monkeypatch):
    """The board is built from each event's data as its publisher here last published it — only while no ask for
    the event came in since (another container's, say); then the event is read again."""
    from chalicelib.services import publish_requests
    with monkeypatch.context() as m:
        m.setattr(publish_requests, "request_publish", lambda *a, **k: None)
        tid, eid, ids = setup_event(api, CFG, people(8, 2, "甲队"))
        draw(api, eid)
    d = bootstrap.deps()
    d.publisher = sink = Recording()
    publishing.publish_latest(d, tid)
    before = d.repos.entries.get(eid, ids[0])
    d.repos.entries.transition(before, before.model_copy(update={"name": "改名队"}), take_place=False)
    publishing.publish_tournament(d, tid, scope=publishing.WIDE)
    assert "改名队" not in sink.files[f"t/{tid}/hall.html"].decode()   # its data here is current by the count
    d.repos.publish_leases.ask(tid, ["*"], scope=eid)                 # asked elsewhere: not current any more
    publishing.publish_tournament(d, tid, scope=publishing.WIDE)
    assert "改名队" in sink.files[f"t/{tid}/hall.html"].decode()
