"""One lazily made SQS client (chalicelib/aws_clients.py) for both queues a request writes to: the messages' nudge
(messages/nudge.py, short timeouts) and the publish queue (publish/queue.py). Each was its own copy of "make the
client on the first use"; now neither module makes an SQS client itself."""
from __future__ import annotations

import ast
import json
import threading
from pathlib import Path

from chalicelib.aws_clients import LazyClient
from chalicelib.messages.nudge import SqsNudge
from chalicelib.publish.queue import SqsPublishQueue

ROOT = Path(__file__).resolve().parents[2]


def _makes_a_boto3_client(path: Path) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "client"
               and isinstance(n.func.value, ast.Name) and n.func.value.id == "boto3" for n in ast.walk(tree))


def test_neither_queue_makes_its_own_sqs_client():
    for module in ("messages/nudge.py", "publish/queue.py"):
        assert not _makes_a_boto3_client(ROOT / "chalicelib" / module), module
    assert isinstance(SqsNudge("u")._sqs, LazyClient) and isinstance(SqsPublishQueue("u")._sqs, LazyClient)


def test_the_client_is_made_once_on_first_use_even_by_threads_at_once():
    made, gate = [], threading.Barrier(8)
    lazy = LazyClient("sqs", factory=lambda: made.append(object()) or made[-1])
    assert made == []                          # a cold start that sends nothing makes none

    def first():
        gate.wait()
        got.append(lazy())
    got: list = []
    threads = [threading.Thread(target=first) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(made) == 1 and all(c is made[0] for c in got)


def test_both_queues_send_through_it_under_moto_with_their_own_timeouts(moto_repos):
    import boto3
    sqs = boto3.client("sqs")
    nudges, publishes = (sqs.create_queue(QueueName=n)["QueueUrl"] for n in ("messages", "publish"))
    nudge, queue = SqsNudge(nudges), SqsPublishQueue(publishes)
    assert nudge.wake("organiser_reset") is True
    queue.ask(None, "T1", ["*"], scope="E1")
    got = {u: [json.loads(m["Body"]) for m in sqs.receive_message(QueueUrl=u, MaxNumberOfMessages=10)["Messages"]]
           for u in (nudges, publishes)}
    quick, plain = nudge._sqs().meta.config, queue._sqs().meta.config
    assert got == {nudges: [{"due": "now"}], publishes: [{"tournament_id": "T1", "changes": ["*"], "scope": "E1"}]}
    # a request never waits long on the messages queue (a nudge is a hint); the publish queue keeps boto3's defaults
    assert (quick.connect_timeout, quick.read_timeout, quick.retries) == (2, 2, {"mode": "standard", "total_max_attempts": 3})
    assert plain.read_timeout == 60
