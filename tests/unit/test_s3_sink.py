"""The S3 sink in a forked publisher: each process its own client (a parent's pooled connections are not a child's:
two processes on one socket read each other's answers), and one sink per process from the settings."""
from __future__ import annotations

import os

import boto3

from chalicelib.config import get_settings
from chalicelib.publish import sinks


def test_a_forked_child_makes_its_own_client(monkeypatch):
    made = []
    monkeypatch.setattr(boto3, "client", lambda *a, **k: made.append(k) or object())
    sink = sinks.S3Sink("site")
    parent = sink.client()
    assert sink.client() is parent and len(made) == 1   # kept within a process
    assert made[0]["config"].max_pool_connections >= sink.THREADS   # no thread waits for a connection
    pid = os.fork()
    if pid == 0:
        os._exit(0 if sink.client() is not parent and len(made) == 2 else 1)
    assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0
    assert sink.client() is parent


def test_the_settings_sink_is_one_per_process(monkeypatch, tmp_path):
    sinks._sink_for.cache_clear()
    monkeypatch.setenv("PUBLISH_DIR", str(tmp_path))
    get_settings.cache_clear()
    first = sinks.default_sink()
    assert isinstance(first, sinks.LocalSink) and sinks.default_sink() is first
    monkeypatch.setenv("PUBLISH_BUCKET", "site")
    get_settings.cache_clear()
    s3 = sinks.default_sink()
    assert isinstance(s3, sinks.S3Sink) and s3.bucket == "site" and sinks.default_sink() is s3
    sinks._sink_for.cache_clear()
