"""Staff and sign-in (issue 14). The tenancy and role matrix is generated from the route registry: every
route × every role × own/other tournament, so a new route cannot forget its rule."""
from __future__ import annotations

import pytest

from chalicelib import bootstrap
from chalicelib.api.routing import ROUTES
from chalicelib.services.organisers import create_account, create_organiser, reset_password
from tests.api.play import draw, people, setup_event
from tests.factories import Api

ROLES = ("director", "desk", "scorer")


def _world(api):
    cfg = {"name": "掼蛋", "game": "guandan", "entry": "pair", "capacity": 40, "fee": {"amount": 0},
           "stages": [{"format": "swiss", "rounds": 3, "scoring": {"method": "level_points"}}]}
    tid, eid, ids = setup_event(api, cfg, people(4, 2, "队"))
    rnd = draw(api, eid)
    a = rnd["tables"][0]["sides"][0]["entry_id"]
    appeal = api.post(f"/events/{eid}/rounds/1/tables/1/appeals", {"entry_id": a, "text": "申诉",
                                                                   "players_agreed": [0, 1]}).data["id"]
    staff = {}
    for role in ROLES:
        r = api.post(f"/tournaments/{tid}/staff", {"name": f"{role}员", "role": role})
        assert r.status_code == 201, r.data
        staff[role] = r.data
    announcement = api.post(f"/tournaments/{tid}/announcements", {"text": "通知"}).data["id"]
    return {"tid": tid, "eid": eid, "entry": ids[0], "appeal": appeal, "announcement": announcement, "staff": staff}


def _path(route, w):
    return (route.path.replace("{tid}", w["tid"]).replace("{eid}", w["eid"]).replace("{n}", "1").replace("{t}", "1")
            .replace("{id}", w["appeal"] if route.path.startswith("/appeals")
                     else w["announcement"] if route.path.startswith("/announcements") else w["entry"]))


def _guarded(route):
    return route.auth in ("organiser", "table")


def test_role_and_tenancy_matrix_from_the_route_registry(chalice_client):
    _, token = create_organiser(bootstrap.deps(), "矩阵商会")
    api = Api(chalice_client, token)
    mine, theirs = _world(api), _world(api)   # the same organiser's two tournaments
    checked = 0
    for route in ROUTES:
        if not _guarded(route):
            continue
        for role in ROLES:
            staff_token = mine["staff"][role]["token"]
            other = api.call(route.method, _path(route, theirs), body={}, token=staff_token)
            names_a_tournament = any(k in route.path for k in ("{tid}", "{eid}")) or route.path.startswith(("/appeals", "/announcements"))
            if route.owner_only:
                assert other.status_code == 403, (route.method, route.path, role, other.status_code)
            elif names_a_tournament:
                assert other.status_code == 404, (route.method, route.path, role, other.status_code, other.data)
            if route.path.startswith("/announcements"):   # a director's DELETE took the last one down
                mine["announcement"] = api.post(f"/tournaments/{mine['tid']}/announcements", {"text": "通知"}).data["id"]
            own = api.call(route.method, _path(route, mine), body={}, token=staff_token)
            allowed = not route.owner_only and (role == "director" or role in route.roles or route.auth == "table")
            if route.auth == "table":
                allowed = role in ("director", "scorer")
            if allowed:
                assert own.status_code not in (401, 403), (route.method, route.path, role, own.status_code, own.data)
            else:
                assert own.status_code == 403 and own.data["code"] == "forbidden", (route.method, route.path, role,
                                                                                        own.status_code)
            checked += 1
    assert checked >= 3 * 40


def test_removing_a_staff_member_stops_its_access_at_once(chalice_client):
    _, token = create_organiser(bootstrap.deps(), "移除商会")
    api = Api(chalice_client, token)
    w = _world(api)
    scorer = w["staff"]["scorer"]
    assert api.get(f"/events/{w['eid']}/rounds/1", token=scorer["token"]).status_code == 200
    listed = api.get(f"/tournaments/{w['tid']}/staff").data["staff"]
    assert {m["role"] for m in listed} == set(ROLES) and all("token" not in m for m in listed)
    assert api.delete(f"/tournaments/{w['tid']}/staff/{scorer['id']}").status_code == 200
    assert api.get(f"/events/{w['eid']}/rounds/1", token=scorer["token"]).status_code == 401
    # a staff link opens the console signed in; its QR code encodes the same link
    assert w["staff"]["desk"]["link"].endswith("#staff=" + w["staff"]["desk"]["token"])
    assert w["staff"]["desk"]["qr_svg"].startswith("<svg")


def test_staff_cannot_make_tournaments_staff_or_tokens(chalice_client):
    _, token = create_organiser(bootstrap.deps(), "权限商会")
    api = Api(chalice_client, token)
    w = _world(api)
    director = w["staff"]["director"]["token"]
    assert api.post("/tournaments", {"name": "x", "starts_on": "2026-12-12"}, token=director).status_code == 403
    assert api.post(f"/tournaments/{w['tid']}/staff", {"name": "y", "role": "director"}, token=director).status_code == 403
    assert api.post("/organiser/tokens", {}, token=director).status_code == 403
    me = api.get("/organiser", token=w["staff"]["desk"]["token"]).data
    assert (me["kind"], me["role"], me["tournament_id"], me["staff_name"]) == ("staff", "desk", w["tid"], "desk员")
    assert [t["id"] for t in api.get("/tournaments", token=director).data["tournaments"]] == [w["tid"]]


def test_the_audit_log_names_the_staff_member(chalice_client):
    _, token = create_organiser(bootstrap.deps(), "审计商会")
    api = Api(chalice_client, token)
    w = _world(api)
    scorer = w["staff"]["scorer"]["token"]
    rnd = api.get(f"/events/{w['eid']}/rounds/1").data
    t1 = rnd["tables"][0]
    a, b = (s["entry_id"] for s in t1["sides"])
    r = api.put(f"/events/{w['eid']}/rounds/1/tables/1/result", {"version": 0, "final": {"levels": {a: 10, b: 8}}},
                token=scorer)
    assert r.status_code == 200 and r.data["status"] == "entered"
    audit = api.get(f"/events/{w['eid']}/audit").data["audit"]
    assert any(x["who"].startswith("staff:") and "scorer员" in x["who"] for x in audit)



# api.md v1.2 (issue 24): the director's routes, written out from the contract (not read from the registry), so
# a route that drifts back to the scorer or the desk fails here.
DIRECTOR_ONLY = {
    ("POST", "/events/{eid}/rounds"), ("POST", "/events/{eid}/rounds/{n}/close"),
    ("POST", "/events/{eid}/rounds/{n}/redraw"), ("POST", "/events/{eid}/rounds/{n}/tables/{t}/forfeit"),
    ("POST", "/events/{eid}/entries/{id}/disqualify"), ("POST", "/appeals/{id}/decision"),
    ("PATCH", "/events/{eid}/rounds/{n}"), ("POST", "/events/{eid}/entries/{id}/substitutions"),
}
SCORER_MAY = {
    ("PUT", "/events/{eid}/rounds/{n}/tables/{t}/result"), ("POST", "/events/{eid}/rounds/{n}/tables/{t}/confirm"),
    ("POST", "/events/{eid}/rounds/{n}/tables/{t}/preview"), ("POST", "/events/{eid}/rounds/{n}/tables/{t}/arrival"),
}


def test_the_registry_gives_the_directors_routes_to_the_director_alone(chalice_client):
    # chalice_client imports app, which fills the registry: alone in a worker the test saw none
    by_key = {(r.method, r.path): r for r in ROUTES}
    for key in DIRECTOR_ONLY:
        assert key in by_key, key
        assert by_key[key].auth == "organiser" and by_key[key].roles == (), (key, by_key[key].roles)
    for key in SCORER_MAY:
        r = by_key[key]
        assert r.auth == "table" or "scorer" in r.roles, (key, r.roles)


def test_a_scorer_enters_and_confirms_but_does_not_settle_or_override(chalice_client, clock):
    _, token = create_organiser(bootstrap.deps(), "裁定商会")
    api = Api(chalice_client, token)
    w = _world(api)
    scorer, director = w["staff"]["scorer"]["token"], w["staff"]["director"]["token"]
    eid = w["eid"]
    t1 = api.get(f"/events/{eid}/rounds/1").data["tables"][0]
    a, b = (s["entry_id"] for s in t1["sides"])
    assert api.put(f"/events/{eid}/rounds/1/tables/1/result", {"version": 0, "final": {"levels": {a: 10, b: 8}}},
                   headers={"X-Table-Code": t1["codes"][0]}, token=None).status_code == 200
    assert api.post(f"/events/{eid}/rounds/1/tables/1/dispute", {"reason": "A 没有打过"},
                    headers={"X-Table-Code": t1["codes"][1]}, token=None).status_code == 200
    version = lambda: api.get(f"/events/{eid}/rounds/1").data["tables"][0]["version"]  # noqa: E731
    settle = {"version": version(), "final": {"levels": {a: 9, b: 8}}, "reason": "裁定：A 未过"}
    refused = api.put(f"/events/{eid}/rounds/1/tables/1/result", settle, token=scorer)
    assert refused.status_code == 403 and refused.data["code"] == "forbidden", refused.data
    settled = api.put(f"/events/{eid}/rounds/1/tables/1/result", settle, token=director)
    assert settled.status_code == 200 and settled.data["status"] == "confirmed", settled.data
    # a scorer may not draw or close either (the table above is confirmed now)
    assert api.post(f"/events/{eid}/rounds/1/close", {}, token=scorer).status_code == 403
    # past the correction window only the director overrides
    for tb in api.get(f"/events/{eid}/rounds/1").data["tables"][1:]:
        x, y = (s["entry_id"] for s in tb["sides"])
        api.put(f"/events/{eid}/rounds/1/tables/{tb['number']}/result", {"version": 0, "final": {"levels": {x: 6, y: 4}}})
        assert api.post(f"/events/{eid}/rounds/1/tables/{tb['number']}/confirm", token=scorer).status_code == 200
    assert api.post(f"/events/{eid}/rounds/1/close", {}, token=director).status_code == 200
    clock.advance(hours=2)
    override = {"version": version(), "final": {"levels": {a: 8, b: 9}}, "override": True, "reason": "记错了"}
    late = api.put(f"/events/{eid}/rounds/1/tables/1/result", override, token=scorer)
    assert late.status_code == 403 and late.data["code"] == "forbidden", late.data
    ok = api.put(f"/events/{eid}/rounds/1/tables/1/result", override, token=director)
    assert ok.status_code == 200, ok.data


# ----------------------------------------------------------------------------- organiser sign-in

def test_sign_in_with_a_password_sessions_and_devices(chalice_client, clock):
    org, _ = create_account(bootstrap.deps(), "密码商会", "138 0000 1111", "correct horse")
    api = Api(chalice_client, None)
    bad = api.post("/auth/sign-in", {"login": "13800001111", "password": "wrong pass"})
    unknown = api.post("/auth/sign-in", {"login": "13900009999", "password": "wrong pass"})
    assert bad.status_code == unknown.status_code == 401 and bad.data["message"] == unknown.data["message"]
    ok = api.post("/auth/sign-in", {"login": "13800001111", "password": "correct horse", "device": "裁判长的手机"})
    assert ok.status_code == 200 and ok.data["organiser"]["id"] == org.id
    session = ok.data["token"]
    assert api.get("/tournaments", token=session).status_code == 200
    devices = api.get("/organiser/tokens", token=session).data["tokens"]
    phone = next(d for d in devices if d["current"])
    assert phone["kind"] == "session" and phone["label"] == "裁判长的手机" and phone["expires_at"]
    # a session expires after 12 hours
    clock.advance(hours=13)
    assert api.get("/tournaments", token=session).status_code == 401
    # and can be revoked from another device
    s2 = api.post("/auth/sign-in", {"login": "13800001111", "password": "correct horse"}).data
    s3 = api.post("/auth/sign-in", {"login": "13800001111", "password": "correct horse"}).data
    assert api.delete(f"/organiser/tokens/{s3['id']}", token=s2["token"]).status_code == 200
    assert api.get("/tournaments", token=s3["token"]).status_code == 401
    # the operator resets a password
    reset_password(bootstrap.deps(), "13800001111", "a new password")
    assert api.post("/auth/sign-in", {"login": "13800001111", "password": "a new password"}).status_code == 200


def test_failed_sign_ins_are_limited_per_account(chalice_client, clock):
    create_account(bootstrap.deps(), "限流商会", "owner@example.org", "right password")
    api = Api(chalice_client, None)
    for _ in range(5):
        assert api.post("/auth/sign-in", {"login": "Owner@Example.org", "password": "nope nope"}).status_code == 401
    # then a progressive delay, not a lockout: the next try waits a second, the one after two, then four …
    limited = api.post("/auth/sign-in", {"login": "owner@example.org", "password": "right password"})
    assert limited.status_code == 429 and limited.data["code"] == "rate_limited" and "1 秒" in limited.data["message"]
    assert limited.headers["Retry-After"] == "1"
    clock.advance(seconds=1)
    assert api.post("/auth/sign-in", {"login": "Owner@Example.org", "password": "nope nope"}).status_code == 401
    again = api.post("/auth/sign-in", {"login": "owner@example.org", "password": "right password"})
    assert again.status_code == 429 and again.headers["Retry-After"] == "2"
    clock.advance(seconds=2)
    assert api.post("/auth/sign-in", {"login": "owner@example.org", "password": "right password"}).status_code == 200
    # the owner is back: the delay is gone
    assert api.post("/auth/sign-in", {"login": "owner@example.org", "password": "right password"}).status_code == 200


def test_a_shared_address_past_its_failures_is_slowed_never_refused_the_right_password(chalice_client, clock,
                                                                                       monkeypatch):
    """A hall's staff behind one router share an address (the test client gives every request the same one): a
    guesser spraying from it must not lock the hall out of accounts that have not themselves failed."""
    from chalicelib.services import organisers
    monkeypatch.setattr(organisers, "FAILED_SIGN_INS_PER_SOURCE", 6)   # 20 in production: fewer argon2 checks here
    FAILED_SIGN_INS_PER_SOURCE = organisers.FAILED_SIGN_INS_PER_SOURCE
    create_account(bootstrap.deps(), "大厅商会", "13800002222", "hall password")
    create_account(bootstrap.deps(), "隔壁商会", "13800003333", "other password")
    create_account(bootstrap.deps(), "第三商会", "13800004444", "third password")
    api = Api(chalice_client, None)
    for i in range(FAILED_SIGN_INS_PER_SOURCE + 1):   # one wrong try each on made-up logins: no account paced
        assert api.post("/auth/sign-in", {"login": f"1390000{i:04d}", "password": "guess guess"}).status_code == 401
    # the right password of an account that has not failed is accepted at once, however many times
    for _ in range(2):
        assert api.post("/auth/sign-in", {"login": "13800002222", "password": "hall password"}).status_code == 200
    # the address is slowed: an account tried from it is paced after its first try instead of its fifth
    assert api.post("/auth/sign-in", {"login": "13800003333", "password": "wrong once"}).status_code == 401
    paced = api.post("/auth/sign-in", {"login": "13800003333", "password": "other password"})
    assert paced.status_code == 429 and paced.headers["Retry-After"] == "1"
    clock.advance(seconds=1)
    assert api.post("/auth/sign-in", {"login": "13800003333", "password": "other password"}).status_code == 200
    # a guesser there gets one try per account, then waits 1, 2, 4 … s per account
    assert api.post("/auth/sign-in", {"login": "13800004444", "password": "guess one"}).status_code == 401
    assert api.post("/auth/sign-in", {"login": "13800004444", "password": "guess two"}).status_code == 429
    # 15 minutes on, the address is no longer slowed: an account's five free tries are back
    clock.advance(minutes=16)
    for _ in range(3):
        assert api.post("/auth/sign-in", {"login": "13800005555", "password": "typo typo"}).status_code == 401


def test_accounts_are_unique_and_passwords_long_enough(moto_repos):
    from chalicelib import errors
    create_account(bootstrap.deps(), "唯一", "13700000000", "long enough")
    with pytest.raises(errors.DuplicateEntry):
        create_account(bootstrap.deps(), "重复", "137-0000-0000", "long enough")
    with pytest.raises(errors.InvalidRequest):
        create_account(bootstrap.deps(), "短", "13700000001", "short")
