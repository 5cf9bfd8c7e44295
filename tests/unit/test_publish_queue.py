"""The publish queue is a port in Deps (issue 37): a service asks `deps.publish_queue`, never boto3; SQS in AWS
(the client made on the first ask), inline elsewhere; a failed ask never fails the change that made it."""
from __future__ import annotations

import ast
import json
import logging
from pathlib import Path

import pytest

from chalicelib import bootstrap
from chalicelib.config import get_settings
from chalicelib.publish.queue import InlinePublishQueue, SqsPublishQueue, queue_from_settings
from chalicelib.services.publish_requests import HALL_CHANGE, request_publish, table_change

ROOT = Path(__file__).resolve().parents[2]


class Asked:
    inline = False   # a worker publishes (as SQS): this request only asks

    def __init__(self):
        self.asks = []

    def ask(self, deps, tid, changes, scope=None):
        self.asks.append((deps, tid, changes, scope))


def test_request_publish_asks_the_queue_in_deps():
    """A message per publish scope (issue 43): a table's its event's; the clock's and "*" every scope's, which the
    consumer fans out (the request reads nothing of the tournament)."""
    queue = Asked()
    d = bootstrap.Deps(repos=None, publish_queue=queue)
    request_publish(d, "T1", table_change("E1", 0, 2, 7))
    request_publish(d, "T1", HALL_CHANGE)
    request_publish(d, "T1")
    assert queue.asks == [(d, "T1", ["table:E1:0:2:7"], "E1"), (d, "T1", ["hall"], "*"), (d, "T1", ["*"], "*")]


def test_a_failed_ask_is_logged_not_raised(caplog):
    class Down:
        inline = False

        def ask(self, deps, tid, changes, scope=None):
            raise ConnectionError("no route")
    with caplog.at_level(logging.ERROR, logger="cardgames.publish"):
        request_publish(bootstrap.Deps(repos=None, publish_queue=Down()), "T9")
    assert "publishing tournament T9 failed" in caplog.text


def test_inline_queue_publishes_here():
    seen = []
    InlinePublishQueue(lambda deps, tid, changes: seen.append((tid, changes))).ask(None, "T2", ["*"])
    assert seen == [("T2", ["*"])]


def test_sqs_queue_sends_one_message_and_makes_its_client_on_the_first_ask(monkeypatch):
    monkeypatch.setenv("AWS_DEFAULT_REGION", "ap-east-1")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "q")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "q")
    import boto3
    from moto import mock_aws
    with mock_aws():
        sqs = boto3.client("sqs")
        url = sqs.create_queue(QueueName="publish")["QueueUrl"]
        made = []
        queue = SqsPublishQueue(url, client_factory=lambda: made.append(1) or boto3.client("sqs"))
        assert made == []   # a container that asks nothing makes no client
        queue.ask(None, "T3", ["table:E:0:1:4"])
        queue.ask(None, "T3", ["*"])
        assert made == [1]
        bodies = [json.loads(m["Body"]) for m in sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]]
    assert sorted(b["changes"][0] for b in bodies) == ["*", "table:E:0:1:4"]
    assert {b["tournament_id"] for b in bodies} == {"T3"}


def test_the_settings_choose_the_adapter(monkeypatch):
    monkeypatch.setenv("PUBLISH_QUEUE_URL", "https://sqs.example/1/publish")
    get_settings.cache_clear()
    try:
        assert isinstance(queue_from_settings(), SqsPublishQueue)
        assert isinstance(bootstrap.Deps(repos=None).publish_queue, SqsPublishQueue)
        monkeypatch.delenv("PUBLISH_QUEUE_URL")
        get_settings.cache_clear()
        assert isinstance(bootstrap.Deps(repos=None).publish_queue, InlinePublishQueue)
    finally:
        get_settings.cache_clear()


@pytest.mark.parametrize("module", ["publish_requests", "publishing"])
def test_no_boto3_in_the_publishing_services(module):
    tree = ast.parse((ROOT / "chalicelib" / "services" / f"{module}.py").read_text(encoding="utf-8"))
    names = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    names |= {(n.module or "").split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert not names & {"boto3", "botocore"}
