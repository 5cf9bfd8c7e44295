"""make run's messages (scripts/dev.py start_messages): the providers' stand-ins are started, the environment
names them, and the worker thread sends what is queued into them and into .data/outbox.jsonl."""
from __future__ import annotations

import json
import time

from chalicelib import bootstrap
from chalicelib.messages import record
from chalicelib.messages.outbox import queue


def test_the_runner_starts_the_stand_ins_and_a_worker_that_sends(moto_repos, monkeypatch, tmp_path, clock):
    from scripts import dev
    for name in ("MESSAGES_CONFIG", "AWS_ENDPOINT_URL_SNS"):
        monkeypatch.setenv(name, "")    # restored after the test: start_messages sets them for the API
    monkeypatch.setattr(dev, "MESSAGES_EVERY_S", 0.1)
    standins, stop = dev.start_messages(tmp_path)
    try:
        for to, kind in (("13812345678", "sign_in_code"), ("+84912345678", "sign_in_code")):
            queue(bootstrap.deps(), record.new(id=f"m{to}", cause=f"code:{to}", kind=kind, channel="sms", to=to,
                                               now=clock(), params={"code": "246810"}))
        deadline = time.monotonic() + 20
        outbox = tmp_path / "outbox.jsonl"
        while time.monotonic() < deadline and len(outbox.read_text().splitlines() if outbox.exists() else []) < 2:
            time.sleep(0.1)
    finally:
        stop.set()
        standins.stop()
    lines = [json.loads(x) for x in outbox.read_text().splitlines()]
    assert sorted(x["to"] for x in lines) == ["+84912345678", "13812345678"]
    assert {x["template"] for x in lines} == {"sign_in_code"} and all("246810" in x["text"] for x in lines)
    assert sorted(s["provider"] for s in standins.sms) == ["sns", "tencent"]
