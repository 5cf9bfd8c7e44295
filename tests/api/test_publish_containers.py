"""Issue 37 item 4: the publisher's state is an object each container holds (`Deps.publish_cache`), and what a page
shows never depends on which container answered. Two containers share the store and the bucket (as two Lambdas
do) but not their caches: after each change, made through one or the other, the bucket holds exactly the pages a
cold publisher (a third container, nothing cached) writes from the same records."""
from __future__ import annotations

import dataclasses
import re

from chalicelib import bootstrap
from chalicelib.publish.cache import PublishCache
from chalicelib.publish.queue import InlinePublishQueue
from chalicelib.publish.sinks import MemorySink
from chalicelib.services import publishing
from chalicelib.services.publish_requests import request_publish
from tests.api.play import close, draw, enter_and_confirm, people, setup_event

CFG = {"name": "掼蛋", "game": "guandan", "entry": "pair", "capacity": 40, "fee": {"amount": 0},
       "stages": [{"format": "swiss", "rounds": 3}]}


# A page kept by its inputs (an entry's, a finished round's, a page of a big round or standings, corrections) is
# written again only when they change (issue 29: after one result, the page holding its table and two entry pages),
# and the link card's description (the leaders and the round, issue 39) is not among them: in its meta tags such a
# page may name older leaders than the event page does, in any container alike (a cold publish writes every page).
# Those three meta tags are left out of the comparison; every other byte counts.
_CARD = re.compile(rb'((?:name|property|itemprop)="(?:og:)?description" content=")[^"]*"')


def _pages(files: dict) -> dict:
    """The published pages (not the publisher's own bookkeeping beside them, nor the tables' live JSON, which
    the result requests write and not the publisher: issue 43)."""
    return {k: _CARD.sub(rb'\1..."', v) if k.endswith(".html") else v for k, v in files.items()
            if "/.manifest" not in k and not k.endswith((".manifest.json", ".places.json")) and not k.startswith("live/")}


def _as_a_cold_container_publishes(first: bootstrap.Deps, bucket: MemorySink, tid: str) -> None:
    cold = dataclasses.replace(first, publisher=MemorySink(), publish_cache=PublishCache())
    publishing.publish_tournament(cold, tid, force=True)
    want, have = _pages(cold.publisher.files), _pages(bucket.files)
    assert sorted(have) == sorted(want)
    differ = [k for k in want if have[k] != want[k]]
    assert not differ, differ[:5]


def test_two_containers_publish_what_a_cold_one_does_after_each_others_changes(api, moto_repos):
    first = bootstrap.deps()
    bucket = first.publisher = MemorySink()   # the bucket both containers write to
    second = dataclasses.replace(first, publish_cache=PublishCache(), publish_queue=InlinePublishQueue())
    assert second.publish_cache is not first.publish_cache
    tid, eid, _ = setup_event(api, CFG, people(8, 2, "队"))
    rnd = draw(api, eid)
    publishing.publish_latest(first, tid)
    publishing.publish_latest(second, tid)   # both caches warm and current with the asks so far
    _as_a_cold_container_publishes(first, bucket, tid)
    t1, t2, t3, t4 = rnd["tables"]

    def result(through: bootstrap.Deps, table: dict, levels: tuple[int, int]) -> None:
        bootstrap.override(through)   # this container answers the requests (and publishes after them)
        a, b = (s["entry_id"] for s in table["sides"])
        enter_and_confirm(api, eid, rnd, table, {"final": {"levels": {a: levels[0], b: levels[1]}}})

    result(second, t1, (12, 9))   # the second container's cache is current: it publishes that event from it
    assert second.publish_cache.last_stats[tid]["by_event"] == [eid]
    _as_a_cold_container_publishes(first, bucket, tid)

    result(first, t2, (13, 6))    # the first's cache predates that change: it reads everything again
    assert first.publish_cache.last_stats[tid]["by_event"] is None
    _as_a_cold_container_publishes(first, bucket, tid)

    result(first, t3, (10, 8))    # current again: from its cache
    assert first.publish_cache.last_stats[tid]["by_event"] == [eid]
    _as_a_cold_container_publishes(first, bucket, tid)

    # an entry renamed through the second (no table change): its name on every page, whoever publishes next
    a = t3["sides"][0]["entry_id"]
    before = second.repos.entries.get(eid, a)
    second.repos.entries.transition(before, before.model_copy(update={"name": "改名队"}), take_place=False)
    request_publish(second, tid)
    _as_a_cold_container_publishes(first, bucket, tid)
    assert "改名队" in bucket.files[f"t/{tid}/{eid}/round-1.html"].decode()

    result(second, t4, (14, 2))   # the round's last result, and the round closed, through the second
    bootstrap.override(second)
    close(api, eid, 1)
    _as_a_cold_container_publishes(first, bucket, tid)

    bootstrap.override(first)     # the next round drawn through the first: new rounds, standings, places
    draw(api, eid, seed=2)
    _as_a_cold_container_publishes(first, bucket, tid)
    bootstrap.override(first)
