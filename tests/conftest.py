"""Shared fixtures: a moto table for speed, DynamoDB Local for the real thing, a fixed clock."""
from __future__ import annotations

import contextlib
import os
import sys
from datetime import datetime, timedelta, UTC
from pathlib import Path

import pytest
from hypothesis import settings

# Property tests judge results, not speed: Hypothesis's 200 ms deadline per example failed them at random on a
# busy 2-core machine (speed has its benchmarks in bench/).
settings.register_profile("project", deadline=None)
settings.load_profile("project")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

os.environ.setdefault("AWS_DEFAULT_REGION", "ap-east-1")
os.environ.setdefault("AWS_ACCESS_KEY_ID", "testing")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "testing")
os.environ.pop("AWS_ENDPOINT_URL_DYNAMODB", None)
os.environ.pop("STRIPE_SECRET_KEY", None)
# chalice.test.Client runs the "dev" stage, which has no built-in table-code secret (issue 12)
os.environ.setdefault("TABLE_CODE_SECRET", "test-only-table-code-secret")

from chalicelib import bootstrap  # noqa: E402
from chalicelib.config import get_settings  # noqa: E402
from chalicelib.store import dynamo, schema  # noqa: E402
from chalicelib.publish.sinks import MemorySink  # noqa: E402
from chalicelib.store.repositories import Repos  # noqa: E402

# The store's 1.5-s read timeout makes a frozen store answer 503 quickly (tested in subprocesses, with the store's
# own settings); in this process it only failed set-ups (a CreateTable, the e2e stack's table) on a loaded machine.
# A module setting, not DDB_READ_TIMEOUT_S: the environment would reach those subprocesses.
dynamo.READ_TIMEOUT_S = max(dynamo.READ_TIMEOUT_S, 10.0)


class Clock:
    """A clock tests can move."""

    def __init__(self, start: datetime):
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **kw) -> None:
        self.now += timedelta(**kw)


@pytest.fixture
def clock():
    return Clock(datetime(2026, 12, 1, 2, 0, tzinfo=UTC))


def _table_name(request) -> str:
    import re
    return "t_" + re.sub(r"[^A-Za-z0-9_.-]", "_", request.node.name)[:200]


@contextlib.contextmanager
def _wired(request, clock):
    """A fresh table on whichever store the environment names, the services wired to it, and afterwards the
    client dropped (each backend's fixture below only says which store)."""
    dynamo.reset_client()
    name = _table_name(request)
    schema.ensure_table(dynamo.client(), name)
    repos = Repos(dynamo.Table(name))
    bootstrap.override(bootstrap.Deps(repos=repos, clock=clock, publisher=MemorySink()))
    try:
        yield repos, name
    finally:
        _join_background_publishes()
        bootstrap.override(None)
        dynamo.reset_client()


@pytest.fixture
def moto_repos(request, clock, monkeypatch):
    from moto import mock_aws
    monkeypatch.delenv("STORE", raising=False)
    with mock_aws(), _wired(request, clock) as (repos, _):
        yield repos


def _join_background_publishes(timeout_s: float = 60.0) -> None:
    """A publish a request handed to a thread (services/publish_requests: asks came in while it published) ends
    inside the test's mocked AWS: after it, its store calls would go to the real endpoint, fail as unreachable,
    and open the store's breaker (store/dynamo.py) under the next test's set-up — seen once as a 503 there."""
    import threading
    import time
    deadline = time.monotonic() + timeout_s
    for thread in threading.enumerate():
        if thread.name.startswith("publish-") and thread is not threading.current_thread():
            thread.join(max(0.0, deadline - time.monotonic()))


@pytest.fixture(scope="session")
def ddb_local_endpoint():
    """DynamoDB Local for the whole session, started and stopped here."""
    from scripts import ddblocal

    port = ddblocal.free_port()
    proc = ddblocal.start(port, log_path=str(ROOT / ".data" / "ddblocal-test.log"))
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        ddblocal.stop(proc)


@pytest.fixture
def local_repos(request, ddb_local_endpoint, clock, monkeypatch):
    monkeypatch.delenv("STORE", raising=False)
    monkeypatch.setenv("AWS_ENDPOINT_URL_DYNAMODB", ddb_local_endpoint)
    with _wired(request, clock) as (repos, name):
        yield repos
        dynamo.client().delete_table(TableName=name)


# -- the embedded store (store/embedded.py, the local and venue stages' store): one SQLite file per test
@pytest.fixture
def embedded_repos(request, tmp_path, clock, monkeypatch):
    monkeypatch.setenv("STORE", "embedded")
    monkeypatch.setenv("STORE_PATH", str(tmp_path / "store" / "store.sqlite3"))
    with _wired(request, clock) as (repos, _):
        yield repos


@pytest.fixture(params=["moto", "ddb_local", "embedded"])
def any_repos(request):
    """Runs a store test on moto, on DynamoDB Local and on the embedded store."""
    return request.getfixturevalue(f"{'local' if request.param == 'ddb_local' else request.param}_repos")


# Figures a test prints after the run (the Lambda package's size, its cold start): a test appends
# ("figure", (section, name, value)) to its node's user_properties, which pytest-xdist carries from the worker
# that ran it to the terminal here.
_FIGURES: dict[str, dict[str, str]] = {}


def pytest_runtest_logreport(report):
    for key, value in report.user_properties:
        if key == "figure":
            section, name, text = value
            _FIGURES.setdefault(section, {})[name] = text


def pytest_terminal_summary(terminalreporter):
    for section, figures in _FIGURES.items():
        terminalreporter.section(section)
        for name, text in figures.items():
            terminalreporter.write_line(f"{name}: {text}")


@pytest.fixture(autouse=True)
def _fresh_settings():
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


# No test's environment reaches a later test: a subprocess started later inherits os.environ whole (an import of
# bench/ once set DDB_READ_TIMEOUT_S=30 in a test and a later venue test's API then held a frozen store's /health
# 30 s). Session fixtures (the e2e stack's endpoint) are set up before this snapshot and so are kept.
_ENV_AFTER_CONFTEST: dict[str, str] = {}
_CHANGED_BY_COLLECTION: list[str] = []


def restore_environment(before: dict[str, str]) -> list[str]:
    """Puts os.environ back to `before`; returns the names that had changed."""
    changed = sorted(k for k in set(before) | set(os.environ)
                     if before.get(k) != os.environ.get(k) and k != "PYTEST_CURRENT_TEST")   # pytest's own
    for k in changed:
        if k in before:
            os.environ[k] = before[k]
        else:
            del os.environ[k]
    return changed


@pytest.fixture(autouse=True)
def _environment_restored():
    if _CHANGED_BY_COLLECTION:
        pytest.fail(f"collecting the tests changed the environment: {', '.join(_CHANGED_BY_COLLECTION)} (set "
                    "variables in a fixture, e.g. monkeypatch.setenv, not when a module is imported)")
    before = dict(os.environ)
    yield
    restore_environment(before)


def pytest_configure(config):
    _ENV_AFTER_CONFTEST.update(os.environ)


def pytest_collection_finish(session):
    # An import of a test module (or of what it imports) that set a variable would be in every test's snapshot
    # above: undone here, and every test fails saying so.
    _CHANGED_BY_COLLECTION.extend(restore_environment(_ENV_AFTER_CONFTEST))
