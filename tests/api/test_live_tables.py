"""Issue 43: every change to a table writes its phones' live JSON beside the published pages (the local site folder
here, on the embedded store the venue runs), under a name only the table's code holders learn; the phones poll it
through the CDN instead of the API."""
from __future__ import annotations

import json
import re

import pytest
from chalice.test import Client

from chalicelib import bootstrap
from chalicelib.publish import live
from chalicelib.publish.sinks import LocalSink, cache_control
from chalicelib.services.organisers import create_organiser
from tests.api.play import draw, people, setup_event
from tests.factories import Api

CFG = {"name": "掼蛋", "game": "guandan", "entry": "pair", "capacity": 8, "fee": {"amount": 0},
       "stages": [{"format": "swiss", "rounds": 3}]}


@pytest.fixture
def venue(embedded_repos, tmp_path):
    """The API on the embedded store, publishing into a local site folder (what `make venue` serves)."""
    from app import app
    site = tmp_path / "site"
    bootstrap.deps().publisher = LocalSink(str(site))
    with Client(app) as client:
        _, token = create_organiser(bootstrap.deps(), "本地裁判组")
        yield Api(client, token), site


def _as(code: str) -> dict:
    return {"token": None, "headers": {"X-Table-Code": code}}


def _read(site, path: str) -> dict:
    return json.loads((site / path.lstrip("/")).read_text(encoding="utf-8"))


def test_each_change_to_a_table_writes_its_live_json(venue):
    api, site = venue
    entries = people(4, 2, "对")
    tid, eid, _ = setup_event(api, CFG, entries)
    rnd = draw(api, eid)
    t1, t2 = rnd["tables"]
    base = f"/events/{eid}/rounds/1/tables/{t1['number']}"
    opened = api.get(base, **_as(t1["codes"][0]))
    assert opened.status_code == 200 and opened.data["side"] == 0
    path = opened.data["live"]
    assert re.fullmatch(rf"/live/{eid}/[0-9a-f]{{32}}\.json", path)
    assert _read(site, path)["table"]["status"] == "pending"          # the draw wrote it

    a, b = (s["entry_id"] for s in t1["sides"])
    put = api.put(f"{base}/result", {"version": 0, "final": {"levels": {a: 10, b: 8}}}, **_as(t1["codes"][0]))
    assert put.status_code == 200
    entered = _read(site, path)
    assert (entered["table"]["status"], entered["table"]["version"]) == ("entered", 1)
    assert entered["table"]["entered_side"] == 0 and entered["table"]["points"]

    raw = (site / path.lstrip("/")).read_text(encoding="utf-8")
    for c in (*t1["codes"], *t2["codes"]):   # nothing secret: no table code, no phone, no side of whoever asks
        assert c not in raw
    for p in entries:
        for m in p["members"]:
            assert not m.get("phone") or m["phone"] not in raw
    assert "side" not in entered and "codes" not in entered["table"]
    assert len(entered["table"]["sides"]) == 2 and {s["name"] for s in entered["table"]["sides"]} <= {"对0", "对1", "对2", "对3"}

    api.post(f"{base}/dispute", {"reason": "第三副记错了"}, **_as(t1["codes"][1]))
    disputed = _read(site, path)
    assert disputed["table"]["status"] == "disputed" and disputed["table"]["dispute"]["reason"] == "第三副记错了"

    # the other table's file is another name, unchanged by this table's changes
    other = api.get(f"/events/{eid}/rounds/1/tables/{t2['number']}", **_as(t2["codes"][0])).data["live"]
    assert other != path and _read(site, other)["table"]["status"] == "pending"

    # the director settles (a published change, through request_publish): the file follows
    settle = api.put(f"{base}/result", {"version": 2, "final": {"levels": {a: 10, b: 9}}, "reason": "核对记分卡"})
    assert settle.status_code == 200
    assert _read(site, path)["table"]["status"] == "confirmed"


def test_the_name_is_keyed_by_the_installation_and_differs_per_table():
    one, other = b"installation one secret", b"installation two secret"
    names = {live.live_name(one, "e1", n, t) for n in (1, 2) for t in (1, 2, 3)}
    assert len(names) == 6                                          # per round and table
    assert live.live_name(one, "e1", 1, 1) != live.live_name(other, "e1", 1, 1)   # per installation
    assert live.live_name(one, "e1", 1, 1) != live.live_name(one, "e2", 1, 1)     # per event
    assert all(re.fullmatch(r"[0-9a-f]{32}", n) for n in names)     # 128 bits: not guessed, not listed
    assert live.live_key(one, "e1", 1, 1).startswith("live/e1/")


def test_the_cdn_caches_it_briefly_and_serves_stale_while_it_fetches():
    cc = cache_control("live/e1/0123456789abcdef0123456789abcdef.json")
    assert "max-age=2" in cc and "stale-while-revalidate=" in cc and "public" in cc
    assert "immutable" not in cc


def test_the_s3_object_carries_that_cache_control():
    import boto3
    from moto import mock_aws

    from chalicelib.publish.sinks import S3Sink
    with mock_aws():
        boto3.client("s3", region_name="us-east-1").create_bucket(Bucket="results")
        sink = S3Sink("results")
        sink.write("live/e1/0123456789abcdef0123456789abcdef.json", b'{"table":{}}')
        head = sink.client().head_object(Bucket="results", Key="live/e1/0123456789abcdef0123456789abcdef.json")
    assert head["CacheControl"] == live.CACHE_CONTROL and head["ContentType"].startswith("application/json")


def test_two_changes_at_once_never_leave_the_older_table_in_the_file(venue):
    """A three-seat table's two confirmations at once: the request that read the table first may finish its PUT
    last. The file must end with the table as it is, not as the slower request first read it."""
    api, site = venue
    cfg = {"name": "二打一", "game": "doudizhu", "entry": "individual", "capacity": 6, "fee": {"amount": 0},
           "stages": [{"format": "swiss", "rounds": 3}]}
    _, eid, _ = setup_event(api, cfg, people(3))
    t = draw(api, eid)["tables"][0]
    base = f"/events/{eid}/rounds/1/tables/1"
    assert api.put(f"{base}/result", {"version": 0, "deals": [{"landlord": "W", "bid": 3, "winner": "landlord"}]},
                   **_as(t["codes"][1])).status_code == 200
    path = api.get(base, **_as(t["codes"][0])).data["live"]
    sink = bootstrap.deps().publisher
    real, other = sink.write, []

    def slow_write(key, body):   # the first confirmation's PUT lands only after the second confirmation's
        if key == path.lstrip("/") and not other and json.loads(body)["table"]["confirmed_sides"] == [0]:
            other.append(api.post(f"{base}/confirm", **_as(t["codes"][2])).data["status"])
        real(key, body)
    sink.write = slow_write
    assert api.post(f"{base}/confirm", **_as(t["codes"][0])).data["status"] == "entered"
    assert other == ["confirmed"]
    final = _read(site, path)["table"]
    assert (final["status"], final["confirmed_sides"]) == ("confirmed", [0, 2])


def test_a_draw_writes_every_table_of_a_big_round_with_its_names(venue):
    """A round-wide change reads the round's names once (in batches the store accepts) for all its tables."""
    api, site = venue
    _, eid, _ = setup_event(api, {**CFG, "capacity": 120}, people(120, 2, "对"))
    rnd = draw(api, eid)
    assert len(rnd["tables"]) == 60                          # 120 entries: more than one batch of names
    files = sorted((site / "live" / eid).glob("*.json"))
    assert len(files) == 60
    for f in files:
        table = json.loads(f.read_text(encoding="utf-8"))["table"]
        assert table["status"] == "pending" and all(s["name"].startswith("对") for s in table["sides"])


def test_in_aws_the_queue_worker_writes_a_round_wide_change(venue):
    """With a publish queue the draw's request sends a message only; the queue's worker (api/jobs.py) writes the
    round's tables."""
    from types import SimpleNamespace

    from chalicelib.api import jobs
    from chalicelib.services import live_tables
    api, site = venue
    tid, eid, _ = setup_event(api, CFG, people(4, 2, "对"))
    draw(api, eid)
    for f in (site / "live" / eid).glob("*.json"):   # as if the request had written nothing (AWS: the queue's part)
        f.unlink()
    live_tables._written.clear()                       # the worker is another process there
    jobs.publish_from_queue([SimpleNamespace(body=json.dumps({"tournament_id": tid, "changes": ["*"]}))])
    assert len(list((site / "live" / eid).glob("*.json"))) == 2
