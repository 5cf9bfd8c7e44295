"""Issue 43: a publish request is one message per publish scope (an event's pages, the tournament-wide ones), so in
AWS several consumers publish one tournament's events side by side; asks of one scope in a batch publish it once; a
change of every scope is fanned out by its consumer, a message per scope. SQS through moto, as AWS runs it; the
local queue publishes the request inline, scope by scope."""
from __future__ import annotations

import json
from types import SimpleNamespace

import boto3

from chalicelib import bootstrap
from chalicelib.api import jobs
from chalicelib.publish.queue import InlinePublishQueue, SqsPublishQueue
from chalicelib.services import publishing
from chalicelib.services.publish_requests import HALL_CHANGE, event_change, request_publish, table_change
from tests.api.play import Recording, two_events_drawn

CFG = {"name": "掼蛋", "game": "guandan", "entry": "pair", "capacity": 40, "fee": {"amount": 0},
       "stages": [{"format": "swiss", "rounds": 3}]}


def two_events(api, monkeypatch) -> tuple[str, str, str]:
    return two_events_drawn(api, monkeypatch, CFG, 4)[:3]


def received(sqs, url: str) -> list:
    out = []
    while True:
        got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", [])
        if not got:
            return out
        for m in got:
            sqs.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])
        out += [SimpleNamespace(body=m["Body"]) for m in got]


def scopes(messages) -> list[tuple[str, list[str]]]:
    return sorted((json.loads(m.body)["scope"], json.loads(m.body)["changes"]) for m in messages)


def test_a_message_per_scope_on_sqs_each_consumer_publishing_its_own(api, moto_repos, monkeypatch):
    tid, a_eid, b_eid = two_events(api, monkeypatch)
    d = bootstrap.deps()
    # locally (the inline queue) a request is published here, its scopes only: a table's change its event's pages
    d.publish_queue = InlinePublishQueue()
    d.publisher = sink = Recording()
    request_publish(d, tid, table_change(a_eid, 0, 1, 1))
    assert f"t/{tid}/{a_eid}/round-1.html" in sink.files and f"t/{tid}/{b_eid}/round-1.html" not in sink.files
    seen = []
    InlinePublishQueue(lambda deps, t, changes, **kw: seen.append((t, changes, kw))).ask(d, tid, ["*"], scope=b_eid)
    assert seen == [(tid, ["*"], {"scope": b_eid})]

    sqs = boto3.client("sqs")
    url = sqs.create_queue(QueueName="publish")["QueueUrl"]
    d.publish_queue = SqsPublishQueue(url)
    d.publisher = sink = Recording()
    request_publish(d, tid, table_change(a_eid, 0, 1, 1))
    request_publish(d, tid, table_change(a_eid, 0, 1, 2))
    request_publish(d, tid, event_change(b_eid))
    request_publish(d, tid, HALL_CHANGE)
    messages = received(sqs, url)
    assert scopes(messages) == sorted([(a_eid, [table_change(a_eid, 0, 1, 1)]), (a_eid, [table_change(a_eid, 0, 1, 2)]),
                                       (b_eid, [event_change(b_eid)]), ("*", [HALL_CHANGE])])
    assert not any(k.endswith(".html") for k in sink.files)   # no pages published by the requests themselves

    published = []
    real = publishing.publish_latest

    def counted(deps, t, **kw):
        published.append((t, kw.get("scope"), kw.get("changes")))
        return real(deps, t, **kw)
    monkeypatch.setattr(publishing, "publish_latest", counted)
    by_scope = {}
    for m in messages:
        by_scope.setdefault(json.loads(m.body)["scope"], []).append(m)
    # one consumer's batch: the clock's change, fanned out as a message per scope (no publish here)
    assert jobs.publish_from_queue(by_scope["*"]) == {"published": 1} and published == []
    fanned = received(sqs, url)
    assert scopes(fanned) == sorted([(a_eid, [HALL_CHANGE]), (b_eid, [HALL_CHANGE]), ("", [HALL_CHANGE])])
    # two consumers, each with one event's messages: event A's two results in one batch publish it once
    assert jobs.publish_from_queue(by_scope[a_eid]) == {"published": 1}
    assert published == [(tid, a_eid, [table_change(a_eid, 0, 1, 1), table_change(a_eid, 0, 1, 2)])]
    assert f"t/{tid}/{a_eid}/round-1.html" in sink.files and f"t/{tid}/{b_eid}/round-1.html" not in sink.files
    jobs.publish_from_queue(by_scope[b_eid])
    assert published[-1] == (tid, b_eid, [event_change(b_eid)]) and f"t/{tid}/{b_eid}/round-1.html" in sink.files
    # the fanned-out clock messages of one batch: each scope once
    jobs.publish_from_queue(fanned + fanned)
    assert sorted(p[1] for p in published[2:]) == ["", a_eid, b_eid]
    assert received(sqs, url) == []
