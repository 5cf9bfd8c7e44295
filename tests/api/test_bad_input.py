"""Every route answers bad input with a 4xx and a stable code, never a 5xx."""
from __future__ import annotations

import pytest

from chalicelib.api.routing import ROUTES
from tests.factories import guandan_event, tournament_body

BAD_BODIES = [
    ("not json", "{nope"),
    ("array", "[1,2,3]"),
    ("string", '"hello"'),
    ("wrong types", '{"name": 5, "capacity": "many", "starts_on": 7, "stages": "x", "members": 3}'),
    ("deep nonsense", '{"name": {"a": [1, {"b": null}]}, "game": ["guandan"]}'),
    ("huge", '{"name": "' + "x" * 200_000 + '"}'),
    ("bad utf8", b'{"name": "\xff\xfe"}'),
]


@pytest.fixture
def ids(api):
    tid = api.post("/tournaments", tournament_body()).data["id"]
    eid = api.post(f"/tournaments/{tid}/events", guandan_event()).data["id"]
    return tid, eid


def _path(r, tid, eid, unknown=False):
    if unknown:
        tid = eid = "01JZZZZZZZZZZZZZZZZZZZZZZZ"
    return (r.path.replace("{tid}", tid).replace("{eid}", eid).replace("{id}", "01JAAAAAAAAAAAAAAAAAAAAAAA")
            .replace("{n}", "1").replace("{t}", "1"))


@pytest.mark.parametrize("label, raw", BAD_BODIES, ids=[b[0] for b in BAD_BODIES])
def test_bad_bodies_never_5xx(api, ids, label, raw):
    for r in ROUTES:
        if r.method not in ("POST", "PUT", "PATCH"):
            continue
        resp = api.call(r.method, _path(r, *ids), raw=raw)
        assert resp.status_code < 500, (r.method, r.path, label, resp.status_code, resp.body[:200])
        if r.body is not None:  # a route that reads a body must refuse this one
            assert 400 <= resp.status_code < 500, (r.method, r.path, label, resp.status_code)
            assert resp.data and "code" in resp.data and "message" in resp.data


def test_unknown_ids_are_404(api, ids):
    for r in ROUTES:
        if "{" not in r.path:
            continue
        resp = api.call(r.method, _path(r, *ids, unknown=True), body={})
        assert resp.status_code in (400, 404), (r.method, r.path, resp.status_code)
        assert resp.data["code"] in ("not_found", "invalid_request")


def test_huge_body_is_413(api):
    resp = api.post("/tournaments", raw='{"name": "' + "x" * 200_000 + '"}')
    assert resp.status_code == 413 and resp.data["code"] == "payload_too_large"


def test_malformed_json_is_400_invalid_request(api):
    resp = api.post("/tournaments", raw="{nope")
    assert resp.status_code == 400 and resp.data["code"] == "invalid_request"


def test_field_errors_are_listed(api):
    resp = api.post("/tournaments", {"name": "", "timezone": "Mars/Base", "currency": "XXX", "starts_on": "soon"})
    assert resp.status_code == 400
    fields = {d["field"] for d in resp.data["details"]}
    assert {"name", "timezone", "currency", "starts_on"} <= fields


def test_openapi_covers_every_route(api):
    from app import app
    spec = api.get("/openapi.json", token=None).data
    assert spec["openapi"].startswith("3.1")
    for path, methods in app.routes.items():
        for method in methods:
            assert method.lower() in spec["paths"].get(path, {}), (method, path)
    assert "EventConfig" in spec["components"]["schemas"]
    from openapi_spec_validator import validate
    validate(spec)  # a valid OpenAPI 3.1 document
