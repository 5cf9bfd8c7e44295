"""The scheduled hold sweeper and the queue publisher, invoked as Lambda would (chalice.test.Client)."""
from __future__ import annotations

import json

from chalicelib import bootstrap
from tests.api.play import draw, people, setup_event


def test_publish_from_queue_handler_publishes_each_tournament_once(chalice_client, api):
    tid, eid, ids = setup_event(api, {"name": "掼蛋", "game": "guandan", "entry": "pair", "capacity": 8,
                                      "fee": {"amount": 0}, "stages": [{"format": "swiss", "rounds": 2}]}, people(4, 2))
    draw(api, eid)
    sink = bootstrap.deps().publisher
    sink.files.clear()
    event = chalice_client.events.generate_sqs_event(
        message_bodies=[json.dumps({"tournament_id": tid})] * 3, queue_name="cardgames-publish")
    result = chalice_client.lambda_.invoke("publish_from_queue", event)
    assert result.payload == {"published": 1}
    assert f"t/{tid}/index.html" in sink.files and f"en/t/{tid}/{eid}/round-1.html" in sink.files


def test_sweep_holds_handler_runs_the_sweeper(chalice_client, api, fake_stripe, clock):
    tid = api.post("/tournaments", {"name": "赛", "starts_on": "2026-12-12"}).data["id"]
    eid = api.post(f"/tournaments/{tid}/events", {"name": "付费", "game": "guandan", "entry": "pair", "capacity": 2,
                                                 "fee": {"amount": 1000}, "stages": [{"format": "swiss", "rounds": 1}]}).data["id"]
    reg = api.post(f"/events/{eid}/entries", {"members": [{"name": "甲", "phone": "13800000000"}, {"name": "乙"}]}, token=None)
    assert reg.data["entry"]["status"] == "pending_payment"
    clock.advance(minutes=40)
    result = chalice_client.lambda_.invoke("sweep_holds", chalice_client.events.generate_cw_event(
        source="aws.events", detail_type="Scheduled Event", detail={}, resources=[]))
    assert result.payload == {"released": 1, "confirmed": 0, "failed": 0,   # and the retention sweep's (nothing due)
                              "retention": {"tournaments": 0, "entries": 0, "registrations": 0, "messages": 0,
                                            "players": 0, "more": False}}
    assert api.get(f"/events/{eid}").data["counters"]["taken"] == 0


def test_a_failed_queue_publish_logs_and_raises_no_personal_data(api, monkeypatch, caplog):
    """A publish that fails raises (the batch goes back to the queue, then the DLQ) and is logged by its type and
    its frames, never its message: a pydantic error quotes the input (a member's phone), and the Lambda runtime
    logs whatever the handler raises, with its chain."""
    import logging
    import traceback

    from chalicelib.api import jobs
    from chalicelib.services import publishing

    phone, mail = "138" + "00138000", "someone@" + "example.com"   # not in the source line the stack shows

    def broken(deps, tid, **kw):
        raise ValueError(f"members.0.phone: bad input {phone} ({mail})")
    monkeypatch.setattr(publishing, "publish_latest", broken)
    records = [type("Record", (), {"body": json.dumps({"tournament_id": "T1"})})()]   # as SQS records read
    with caplog.at_level(logging.ERROR, logger="cardgames.publish"):
        try:
            jobs.publish_from_queue(records)
            raised = None
        except Exception as exc:   # noqa: BLE001 — what the runtime would print
            raised = "".join(traceback.format_exception(exc))
    assert raised and "T1" in raised and "ValueError" in raised
    logged = "\n".join(r.getMessage() + (logging.Formatter().formatException(r.exc_info) if r.exc_info else "")
                       for r in caplog.records)
    assert "T1" in logged and "ValueError" in logged and "test_jobs.py" in logged   # where it broke
    for text in (raised, logged):
        assert phone not in text and mail not in text
