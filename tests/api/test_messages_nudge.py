"""An urgent job is done within seconds, not at the scheduled pass's next minute (messages/nudge.py): the request
that queues it (an organiser's reset) puts one nudge on the messages queue (moto's SQS here), whose consumer — the
app's SQS handler, as Lambda's poller calls it — runs the worker's pass. A queue that is down fails nothing (the
minute's pass sends it); two consumers at once send the code once (each message is claimed before it is tried)."""
from __future__ import annotations

import json
import logging
import threading

from chalicelib import bootstrap
from chalicelib.messages.nudge import NoNudge, SqsNudge, nudger
from chalicelib.messages.outbox import deliver_due
from chalicelib.messages.setup import from_config
from chalicelib.services.organisers import create_account
from chalicelib.services.organiser_recovery import request_reset

PHONE = "13712345670"


def _codes(standins, phone=PHONE):
    return [s["params"]["code"] for s in standins.sms if s["to"] == "+86" + phone]


def _lambda_batch(nudges) -> dict:
    """What Lambda's SQS poller hands the consumer: the messages received off the queue, as its event."""
    from tests.deploy.artifact import sqs_event
    got = nudges.sqs.receive_message(QueueUrl=nudges.url, MaxNumberOfMessages=10).get("Messages", [])
    arn = nudges.sqs.get_queue_attributes(QueueUrl=nudges.url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    return sqs_event(got, arn)


def test_a_reset_nudges_once_and_the_consumer_sends_the_code_without_waiting_for_the_schedule(api, wired, nudges):
    import app as the_app
    create_account(bootstrap.deps(), "丁商会", PHONE, "old password")
    assert isinstance(nudger(bootstrap.deps()), SqsNudge)        # MESSAGES_QUEUE_URL set, as on AWS
    assert api.post("/auth/password-reset", {"login": PHONE}, token=None).status_code == 202
    assert wired.sms == []                                       # not in the request
    batch = _lambda_batch(nudges)
    assert len(batch["Records"]) == 1 and json.loads(batch["Records"][0]["body"]) == {"due": "now"}
    # the test's clock has not moved: the scheduled minute never came
    result = the_app.deliver_nudged(batch, None)
    assert len(_codes(wired)) == 1 and wired.sms[-1]["kind"] == "organiser_code"
    assert result["failed"] == result["retry"] == 0              # (the code went from the job, at once: send_code)
    # a nudge for nothing due (a second one, or the minute's pass meanwhile): a pass that sends nothing
    assert the_app.deliver_nudged(batch, None) == {"sent": 0, "retry": 0, "failed": 0, "skipped": 0}
    assert len(_codes(wired)) == 1


def test_a_queue_that_is_down_fails_no_request_and_the_minutes_pass_sends_the_code(api, wired, nudges, caplog):
    caplog.set_level(logging.WARNING, logger="cardgames")
    create_account(bootstrap.deps(), "戊商会", PHONE, "old password")
    nudges.sqs.delete_queue(QueueUrl=nudges.url)                 # the queue gone: SendMessage fails
    assert api.post("/auth/password-reset", {"login": PHONE}, token=None).status_code == 202
    assert "not nudged" in caplog.text and PHONE not in caplog.text
    assert _codes(wired) == []
    deliver_due(bootstrap.deps())                                # the scheduled pass, the safety net
    assert len(_codes(wired)) == 1


def test_the_nudge_makes_its_client_on_first_use_and_not_at_all_locally(moto_repos, monkeypatch):
    from chalicelib.config import get_settings
    monkeypatch.delenv("MESSAGES_QUEUE_URL", raising=False)
    get_settings.cache_clear()
    assert isinstance(nudger(bootstrap.Deps(repos=None)), NoNudge)   # locally: the worker looks every second
    made = []
    nudge = SqsNudge("https://sqs.example/1/messages", client_factory=lambda: made.append(1) or _Down())
    assert made == []
    assert nudge.wake("organiser_reset") is False and made == [1]    # the error swallowed, logged
    get_settings.cache_clear()


class _Down:
    def send_message(self, **_):
        raise ConnectionError("the queue does not answer")


def test_two_consumers_at_once_send_the_code_once(any_repos, standins):
    """Both passes read the due job before either claims it (the worst interleaving, forced by a barrier): one
    claim wins, the other pass skips it; one code reaches the phone. On each store backend."""
    from chalicelib.api import jobs
    standins.sms.clear(), standins.refused.clear(), standins.fail_next(0)
    deps = bootstrap.deps()
    deps.extra["messaging"] = from_config(standins.config("tencent"))
    deps.extra["nudge"] = NoNudge()
    create_account(deps, "己商会", PHONE, "old password")
    request_reset(deps, PHONE, "client-a")
    both_read = threading.Barrier(2, timeout=20)
    read = deps.repos.messages.due
    first = threading.local()

    def due(*args, **kw):
        found = read(*args, **kw)
        if not getattr(first, "done", False):      # each pass's first look: both hold the job before a claim
            first.done = True
            assert found and found[0][0].kind == "organiser_reset"
            both_read.wait()
        return found
    deps.repos.messages.due = due
    results = []
    passes = [threading.Thread(target=lambda: results.append(jobs.deliver_nudged())) for _ in range(2)]
    for t in passes:
        t.start()
    for t in passes:
        t.join(60)
    assert len(results) == 2 and all("error" not in r for r in results), results
    assert len(_codes(standins)) == 1
    assert sorted(r["skipped"] for r in results) == [0, 1]      # the raced claim: the other pass skipped the job
