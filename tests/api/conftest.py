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
