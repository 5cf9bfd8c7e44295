from __future__ import annotations

import pytest

from chalicelib import bootstrap
from chalicelib.services.organisers import create_organiser
from tests.factories import guandan_event, tournament_body


@pytest.fixture
def owned(api):
    tid = api.post("/tournaments", tournament_body()).data["id"]
    eid = api.post(f"/tournaments/{tid}/events", guandan_event()).data["id"]
    return tid, eid


def organiser_routes(tid, eid):
    from chalicelib.api.routing import ROUTES
    out = []
    for r in ROUTES:
        if r.auth != "organiser" or ("{tid}" not in r.path and "{eid}" not in r.path):
            continue
        path = r.path.replace("{tid}", tid).replace("{eid}", eid)
        path = path.replace("{id}", "01JAAAAAAAAAAAAAAAAAAAAAAA").replace("{n}", "1").replace("{t}", "1")
        out.append((r.method, path, VALID_BODIES.get((r.method, r.path), {})))
    return out


# A valid body per route, so only ownership can make the call fail.
VALID_BODIES = {
    ("POST", "/tournaments/{tid}/events"): guandan_event(),
    ("PATCH", "/tournaments/{tid}"): {"venue": "x"},
    ("PATCH", "/events/{eid}"): {"capacity": 41},
    ("POST", "/events/{eid}/entries/{id}/payments"): {"method": "cash", "amount": 4000},
    ("PUT", "/events/{eid}/rounds/{n}/tables/{t}/result"): {"version": 0, "deals": [{"order": ["N", "E", "S", "W"]}]},
    ("POST", "/events/{eid}/rounds"): {"seed": 1},
    ("POST", "/events/{eid}/entries/join"): {"entry_ids": ["01JAAAAAAAAAAAAAAAAAAAAAAA", "01JBBBBBBBBBBBBBBBBBBBBBBB"]},
    ("POST", "/events/{eid}/entries/{id}/withdraw"): {"reason": "x"},
    ("POST", "/tournaments/{tid}/messages"): {"text": "x", "to": "all"},
}


def test_other_organiser_gets_404_on_every_route_of_my_tournament(owned, api, other_api):
    tid, eid = owned
    routes = organiser_routes(tid, eid)
    assert len(routes) >= 5
    for method, path, body in routes:
        r = other_api.call(method, path, body=body)
        assert r.status_code == 404, (method, path, r.status_code, r.data)
        assert r.data["code"] == "not_found"
    # and the owner still sees it unchanged
    assert api.get(f"/tournaments/{tid}").data["version"] == 1


def test_no_or_bad_token_is_401_with_the_error_body(owned, api):
    tid, eid = owned
    for method, path, _ in organiser_routes(tid, eid) + [("GET", "/tournaments", None), ("POST", "/tournaments", None)]:
        for token in (None, "nonsense"):
            r = api.call(method, path, body={}, token=token)
            assert r.status_code == 401, (method, path, token)
            assert r.data["code"] == "unauthorized"


def test_revoked_token_stops_at_once(chalice_client):
    from tests.factories import Api
    _, token = create_organiser(bootstrap.deps(), "临时")
    api = Api(chalice_client, token)
    assert api.get("/tournaments").status_code == 200
    second = api.post("/organiser/tokens", {"label": "laptop"}).data
    assert api.delete("/organiser/tokens/current").status_code == 200
    assert api.get("/tournaments").status_code == 401
    # a token issued from the revoked one stops with it (no heirs survive a stolen token)
    assert api.get("/tournaments", token=second["token"]).status_code == 401


def test_organiser_lists_and_revokes_its_tokens(chalice_client):
    from tests.factories import Api
    _, first = create_organiser(bootstrap.deps(), "令牌管理")
    api = Api(chalice_client, first)
    child = api.post("/organiser/tokens", {"label": "results script"}).data
    grandchild = Api(chalice_client, child["token"]).post("/organiser/tokens", {"label": "phone"}).data
    listed = api.get("/organiser/tokens").data["tokens"]
    assert [t["label"] for t in listed] == ["first token", "results script", "phone"]
    assert [t["current"] for t in listed] == [True, False, False]
    assert first not in repr(listed) and child["token"] not in repr(listed)
    revoked = api.delete(f"/organiser/tokens/{child['id']}").data["revoked"]
    assert set(revoked) == {child["id"], grandchild["id"]}
    assert api.get("/tournaments", token=child["token"]).status_code == 401
    assert api.get("/tournaments", token=grandchild["token"]).status_code == 401
    assert api.get("/tournaments").status_code == 200
    assert api.delete(f"/organiser/tokens/{child['id']}").status_code == 404


def test_tokens_are_stored_only_hashed(moto_repos):
    _, token = create_organiser(bootstrap.deps(), "查看存储")
    from chalicelib.store import dynamo
    items = dynamo.client().scan(TableName=moto_repos.table.name)["Items"]
    assert items and token not in repr(items)
