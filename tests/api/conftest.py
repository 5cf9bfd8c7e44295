from __future__ import annotations

import pytest
from chalice.test import Client

from chalicelib import bootstrap
from chalicelib.messages.setup import from_config
from chalicelib.services.organisers import create_organiser
from scripts.message_standins import Standins
from tests.factories import Api


@pytest.fixture
def chalice_client(moto_repos):
    from app import app
    with Client(app) as client:
        yield client


@pytest.fixture
def api(chalice_client):
    _, token = create_organiser(bootstrap.deps(), "河池商会")
    return Api(chalice_client, token)


@pytest.fixture
def other_api(chalice_client):
    _, token = create_organiser(bootstrap.deps(), "别的商会")
    return Api(chalice_client, token)


WEBHOOK_SECRET = "whsec_test_secret"


@pytest.fixture
def fake_stripe(moto_repos):
    from chalicelib.payments.stripe_gateway import StripeGateway
    from tests.fakes import FakeStripe
    fake = FakeStripe()
    d = bootstrap.deps()
    d.providers["stripe"] = StripeGateway("sk_test_123", WEBHOOK_SECRET, http_client=fake, max_retries=0)
    return fake


@pytest.fixture
def local_api(local_repos):
    """The API on DynamoDB Local, with an organiser signed in."""
    from app import app
    with Client(app) as client:
        _, token = create_organiser(bootstrap.deps(), "本地裁判组")
        yield Api(client, token)


@pytest.fixture(autouse=True)
def _publishing_never_fails(caplog):
    """Publishing errors are logged, not raised (a result must not fail because of them): fail the test here."""
    yield
    failures = [r for r in caplog.records if r.name == "cardgames.publish" and r.levelname == "ERROR"]
    assert not failures, failures[0].getMessage()


@pytest.fixture(autouse=True)
def _roster_copies_kept(request):
    """After every API test on moto: each event's roster copies (what a draw reads) equal its entries' own rows, so a
    write path that changes an entry and forgets its copy fails whichever test walks it (issue 43)."""
    if "moto_repos" not in request.fixturenames:
        yield
        return
    repos = request.getfixturevalue("moto_repos")   # set up before this fixture, so torn down after its check
    yield
    from tests.roster_copies import mismatched_events
    assert mismatched_events(repos) == [], "roster copies differ from their entries' own rows"


# The SMS providers' stand-ins (scripts/message_standins.py), which the real SDKs talk to (issue 41)

@pytest.fixture(scope="module")
def standins():
    s = Standins().start()
    yield s
    s.stop()


@pytest.fixture
def wired(standins, moto_repos):
    """Messages on: Tencent Cloud SMS through its stand-in, the stand-ins' records cleared."""
    standins.sms.clear(), standins.refused.clear(), standins.fail_next(0), standins.wechat.clear()
    bootstrap.deps().extra["messaging"] = from_config(standins.config("tencent"))
    return standins


@pytest.fixture
def nudges(moto_repos, monkeypatch):
    """The messages queue (moto's SQS) that an urgent job's nudge goes to (messages/nudge.py), named to the app as
    on AWS (MESSAGES_QUEUE_URL); yields the client and the queue's URL."""
    from types import SimpleNamespace

    import boto3

    from chalicelib.config import get_settings
    sqs = boto3.client("sqs")
    url = sqs.create_queue(QueueName="cardgames-test-messages")["QueueUrl"]
    monkeypatch.setenv("MESSAGES_QUEUE_URL", url)
    get_settings.cache_clear()
    bootstrap.deps().extra.pop("nudge", None)
    yield SimpleNamespace(sqs=sqs, url=url)
    get_settings.cache_clear()
