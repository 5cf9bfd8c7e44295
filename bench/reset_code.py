"""An organiser's reset code: from the request to the code at the SMS provider, through the nudge (an SQS message
whose consumer runs the outbox worker's pass: chalicelib/messages/nudge.py), beside the scheduled path it replaces
(the code waits for the worker's next rate(1 minute) tick), measured in the same run.

moto's SQS in this process; a poller thread long-polls the queue as Lambda's does and calls the consumer
(api/jobs.deliver_nudged); the embedded store; the Tencent Cloud SDK to the local stand-in (a real HTTP call).
The reference: for each request, the wait from its moment to the next whole minute (when EventBridge's rate(1
minute) would start the worker) plus the same pass, timed by itself.

    .venv/bin/python bench/reset_code.py          (RUNS=10 by default; BENCH_RUNS=N to change)
"""
from __future__ import annotations

import os
import statistics
import tempfile
import threading
import time
from pathlib import Path

from common import ROOT  # noqa: F401 — puts the repository on the path, sets the run's environment

RUNS = int(os.environ.get("BENCH_RUNS", "10"))


def main() -> None:
    from moto import mock_aws
    os.environ.update(STORE="embedded", STORE_PATH=str(Path(tempfile.mkdtemp(prefix="bench-nudge-")) / "s.sqlite3"))
    with mock_aws():
        run()


def run() -> None:
    import boto3

    from chalicelib import bootstrap
    from chalicelib.api import jobs
    from chalicelib.config import get_settings
    from chalicelib.messages.outbox import deliver_due
    from chalicelib.messages.setup import from_config
    from chalicelib.services.organiser_recovery import request_reset
    from chalicelib.services.organisers import create_account
    from chalicelib.store import dynamo, schema
    from chalicelib.store.repositories import Repos
    from scripts.message_standins import Standins

    sqs = boto3.client("sqs")
    url = sqs.create_queue(QueueName="bench-messages")["QueueUrl"]
    os.environ["MESSAGES_QUEUE_URL"] = url
    get_settings.cache_clear()
    schema.ensure_table(dynamo.client(), "bench_nudge")
    deps = bootstrap.Deps(repos=Repos(dynamo.Table("bench_nudge")))
    bootstrap.override(deps)
    standins = Standins().start()
    deps.extra["messaging"] = from_config(standins.config("tencent"))
    stop = threading.Event()

    def poller():   # Lambda's SQS poller: long polls, hands a batch to the function, deletes it once handled
        while not stop.is_set():
            got = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=1).get("Messages", [])
            if got:
                jobs.deliver_nudged(got)
                sqs.delete_message_batch(QueueUrl=url, Entries=[
                    {"Id": str(k), "ReceiptHandle": m["ReceiptHandle"]} for k, m in enumerate(got)])
    thread = threading.Thread(target=poller, daemon=True)
    thread.start()
    nudged, scheduled = [], []
    try:
        for k in range(RUNS):
            phone = f"1370000{k:04d}"
            create_account(deps, f"测速商会{k}", phone, "bench password")
            t0 = time.time()
            request_reset(deps, phone, f"bench-client-{k}")
            while not any(s["to"] == "+86" + phone for s in standins.sms):
                if time.time() - t0 > 30:
                    raise SystemExit(f"no code for run {k} after 30 s")
                time.sleep(0.005)
            nudged.append(time.time() - t0)
            # the reference: the same request and pass without the nudge, the pass at the next minute's tick
            reference_phone = f"1380000{k:04d}"
            create_account(deps, f"参照商会{k}", reference_phone, "bench password")
            deps.extra["nudge"] = _Off()
            t0 = time.time()
            request_reset(deps, reference_phone, f"bench-reference-{k}")
            to_tick = 60 - (t0 % 60)
            p0 = time.time()
            deliver_due(deps)
            scheduled.append(to_tick + (time.time() - p0))
            del deps.extra["nudge"]
    finally:
        stop.set()
        thread.join(5)
        standins.stop()
        bootstrap.override(None)
    print(f"reset code, request → provider, {RUNS} runs (moto SQS, embedded store, Tencent SDK to the stand-in):")
    print(f"  nudged (SQS → consumer's pass): median {statistics.median(nudged) * 1000:.0f} ms, "
          f"max {max(nudged) * 1000:.0f} ms")
    print(f"  reference, scheduled pass at the next minute: median {statistics.median(scheduled):.1f} s, "
          f"max {max(scheduled):.1f} s")


class _Off:
    def wake(self, kind):
        return False


if __name__ == "__main__":
    main()
