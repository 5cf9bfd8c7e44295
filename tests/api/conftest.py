from __future__ import annotations

import pytest
from chalice.test import Client

from chalicelib import bootstrap
from chalicelib.services.organisers import create_organiser
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
    d.payments = StripeGateway("sk_test_123", WEBHOOK_SECRET, http_client=fake, max_retries=0)
    return fake
