"""The real stack for browser tests: DynamoDB Local, the API under waitress (as `make run`), the static site server, and Debian's
Chromium driven by Playwright. Started here and stopped at the end of the session."""
from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from playwright.sync_api import expect
from scripts.site_build import built_site
from datetime import UTC

# What a page shows after a write, awaited up to 15 s instead of Playwright's 5: locally a write's answer waits on
# one publish, inline, and with two workers on a loaded machine that publish took longer than 5 s (a pairing edit's
# notice). Timeouts a test gives itself ("within one poll") stay as they are.
expect.set_options(timeout=15_000)

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "test-artifacts" / "screenshots"
CHROMIUM = "/usr/bin/chromium"


@pytest.fixture(scope="session")
def china_fakes():
    """WeChat Pay's and Alipay's servers (tests/fakes_china_http.py), reached by the API through HTTPS_PROXY."""
    from tests.fakes_china_http import ChinaFakes
    fakes = ChinaFakes().start()
    yield fakes
    fakes.stop()


@pytest.fixture(scope="session")
def stack(china_fakes):
    """The stack as `make run` serves it: the API on the embedded store (its SQLite file in a temporary folder),
    which this process also opens for `store` (SQLite's own lock keeps the two processes' writes apart)."""
    from scripts import ddblocal
    table = "e2e"
    publish_dir = tempfile.mkdtemp(prefix="e2e-site-")
    store_path = str(Path(tempfile.mkdtemp(prefix="e2e-store-")) / "store.sqlite3")
    api_port, site_port = ddblocal.free_port(), ddblocal.free_port()
    env = dict(os.environ, STORE="embedded", STORE_PATH=store_path, TABLE_NAME=table, STAGE="local",
               PUBLISH_DIR=publish_dir, API_URL=f"http://127.0.0.1:{api_port}", SITE_URL=f"http://127.0.0.1:{site_port}",
               AWS_DEFAULT_REGION="ap-east-1", AWS_ACCESS_KEY_ID="local", AWS_SECRET_ACCESS_KEY="local")
    env.pop("STRIPE_SECRET_KEY", None)
    env.pop("AWS_ENDPOINT_URL_DYNAMODB", None)
    env.update(china_fakes.env())
    # the message providers' stand-ins, as `make run` starts them: what is sent in a request (a sign-in or reset
    # code) reaches them through the real SDK and is a line of the outbox file a test reads (issue 41)
    from scripts.message_standins import Standins
    standins = Standins().start()
    outbox_file = str(Path(publish_dir).parent / f"{Path(publish_dir).name}-outbox.jsonl")
    env.update(standins.env("tencent", outbox_file))
    with on_store(store_path):
        from chalicelib.store import dynamo, schema
        schema.ensure_table(dynamo.client(), table)
    log = open(ROOT / ".data" / "e2e-api.log", "ab")
    api = subprocess.Popen([sys.executable, "-m", "scripts.api_server", "--host", "127.0.0.1", "--port", str(api_port)],
                           cwd=str(ROOT), env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    site = subprocess.Popen([sys.executable, "-m", "scripts.site_server", "--port", str(site_port), "--frontend",
                             str(built_site()), "--published", publish_dir, "--api", f"http://127.0.0.1:{api_port}"],
                            cwd=str(ROOT), env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    # the outbox's worker, as `make run`'s thread: what is not sent in its request (a reset's code) is sent here
    worker = subprocess.Popen([sys.executable, "-m", "scripts.messages_worker"], cwd=str(ROOT), env=env, stdout=log,
                              stderr=subprocess.STDOUT, start_new_session=True)
    try:
        ddblocal.wait_for_port(api_port, 60)
        ddblocal.wait_for_port(site_port, 30)
        yield {"api": f"http://127.0.0.1:{api_port}", "site": f"http://127.0.0.1:{site_port}", "table": table,
               "publish_dir": publish_dir, "store_path": store_path, "outbox_file": outbox_file}
    finally:
        for p in (api, site, worker):
            ddblocal.stop(p)
        standins.stop()


@contextlib.contextmanager
def on_store(store_path: str):
    """This process on the stack's embedded store for a while (other tests of this worker run on their own)."""
    from chalicelib.store import dynamo
    saved = {k: os.environ.get(k) for k in ("STORE", "STORE_PATH", "AWS_ENDPOINT_URL_DYNAMODB")}
    os.environ.update(STORE="embedded", STORE_PATH=store_path)
    os.environ.pop("AWS_ENDPOINT_URL_DYNAMODB", None)
    dynamo.reset_client()
    try:
        yield
    finally:
        # a publish the changes made here handed to a thread ends here, on this store: left running past it, it
        # would hold the tournament's publish lease on a store it can no longer reach, and the API's next publish
        # would wait for the lease to run out
        from tests.conftest import _join_background_publishes
        _join_background_publishes()
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        dynamo.reset_client()


@pytest.fixture
def store(stack, monkeypatch):
    """Services wired to the e2e table, for setting up data and checking outcomes. What they publish goes where
    the stack's API publishes, with the stack's addresses in its links (a poster's, a card's)."""
    from chalicelib import bootstrap
    from chalicelib.config import get_settings
    monkeypatch.setattr(get_settings(), "site_url", stack["site"])
    monkeypatch.setattr(get_settings(), "api_url", stack["api"])
    from chalicelib.store import dynamo
    from chalicelib.store.repositories import Repos
    from datetime import datetime

    from chalicelib.publish.sinks import LocalSink
    with on_store(stack["store_path"]):
        # what the test does through the services it publishes where the stack's API does, as a second API process
        # would: the site server serves it (the tables' live JSON the phones follow, issue 43; the pages)
        d = bootstrap.Deps(repos=Repos(dynamo.Table(stack["table"])), clock=lambda: datetime.now(UTC),
                           publisher=LocalSink(stack["publish_dir"]))
        bootstrap.override(d)
        try:
            yield d
        finally:
            bootstrap.override(None)


@pytest.fixture(scope="session")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.fail("Debian's chromium is missing: `make test` installs it (apt-get install chromium)")
    from playwright.sync_api import sync_playwright
    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=[
            "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"])
        yield b
        b.close()


class Shots:
    """Saves a screenshot of every page a test visits."""

    def __init__(self, name: str):
        self.name = name
        self.n = 0

    def __call__(self, page, label: str) -> None:
        self.n += 1
        page.screenshot(path=str(SHOTS / f"{self.name}-{self.n:02d}-{label}.png"), full_page=True)


@pytest.fixture
def shot(request):
    return Shots(request.node.name)


def _no_csp_violations(ctx):
    """Collects what the browser reports as blocked by the Content-Security-Policy (an inline script, a frame):
    every page of every test must run under the site's policy (issue 20)."""
    seen: list[str] = []
    ctx.on("console", lambda m: seen.append(m.text) if "Content Security Policy" in m.text else None)
    return seen


@pytest.fixture
def phone(browser):
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True,
                              has_touch=True, locale="zh-CN")
    blocked = _no_csp_violations(ctx)
    yield ctx
    ctx.close()
    assert not blocked, blocked


@pytest.fixture
def desk(browser):
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, locale="zh-CN")
    blocked = _no_csp_violations(ctx)
    yield ctx
    ctx.close()
    assert not blocked, blocked
