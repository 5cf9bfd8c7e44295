"""Limits on the public registration routes (issue 36): one script behind an address is stopped, a hall's players
behind one address (the venue's NAT) all register."""
from __future__ import annotations

import pytest

from chalicelib.config import get_settings
from chalicelib.services import limits
from tests.factories import guandan_event, tournament_body

HALL = "203.0.113.7"


@pytest.fixture
def behind_proxy(monkeypatch):
    """Our own proxy in front of the API (TRUSTED_PROXY_HOPS=1): the test names each request's client address in
    X-Forwarded-For, as that proxy would. (The in-process client's own source is loopback, which is exempt.)"""
    monkeypatch.setattr(get_settings(), "trusted_proxy_hops", 1)


@pytest.fixture
def tid(api):
    return api.post("/tournaments", tournament_body()).data["id"]


def make_event(api, tid, factory=guandan_event, **kw):
    r = api.post(f"/tournaments/{tid}/events", factory(**kw))
    assert r.status_code == 201, r.data
    return r.data["id"]


def player(n: int) -> dict:
    return {"name": f"选手{n}队", "members": [{"name": f"甲{n}", "phone": f"139{n:08d}"}, {"name": f"乙{n}"}]}


def register(api, eid, body, address=HALL):
    return api.post(f"/events/{eid}/entries", body, token=None, headers={"X-Forwarded-For": address})


def taken(api, eid) -> int:
    return api.get(f"/events/{eid}").data["counters"]["taken"]


def test_forty_registrations_at_once_from_one_address_are_limited(api, tid, behind_proxy, clock):
    eid = make_event(api, tid, capacity=100, fee={"amount": 0})
    answers = [register(api, eid, player(n)) for n in range(40)]
    codes = [a.status_code for a in answers]
    assert codes[:limits.ADDRESS_BURST] == [201] * limits.ADDRESS_BURST
    assert set(codes[limits.ADDRESS_BURST:]) == {429}, codes
    refused = answers[-1]
    assert refused.data["code"] == "rate_limited" and refused.data["details"]["limit"] == "address"
    assert "报名过于频繁" in refused.data["message"] and "Too many registrations" in refused.data["message"]
    assert int(refused.headers["Retry-After"]) >= 1
    assert taken(api, eid) == limits.ADDRESS_BURST
    # another address is not held up by this one; this one gets a token back after the sustained interval
    assert register(api, eid, player(100), address="198.51.100.9").status_code == 201
    clock.advance(seconds=limits.ADDRESS_EVERY_S)
    assert register(api, eid, player(101)).status_code == 201
    assert register(api, eid, player(102)).status_code == 429


def test_a_script_cannot_take_a_small_events_places_in_two_seconds(api, tid, behind_proxy, clock):
    """Before: 20 registrations in 1.7 s took 16 of 16 places. Now a burst from one address takes a quarter."""
    eid = make_event(api, tid, capacity=16)
    codes = []
    for n in range(20):   # 20 requests in 2 s, each with its own made-up phone
        codes.append(register(api, eid, player(n)).status_code)
        clock.advance(seconds=0.1)
    assert taken(api, eid) == limits.place_burst(16) == 4
    assert codes.count(201) == 4 and codes.count(429) == 16
    # the hall's other players, later, still find the rest of the places
    clock.advance(minutes=1)
    assert register(api, eid, player(50)).status_code == 201


def test_a_halls_200_players_behind_one_address_all_register_in_ten_minutes(local_api, behind_proxy, clock):
    """A rush of 20 as the QR code goes up, then the other 180 over the rest of the 10 minutes. On DynamoDB Local
    (moto copies its whole table for each transaction: 200 registrations took ~25 s there)."""
    tid = local_api.post("/tournaments", tournament_body()).data["id"]
    eid = make_event(local_api, tid, capacity=200, fee={"amount": 0})
    refused = []
    for n in range(200):
        if n >= 20:
            clock.advance(seconds=570 / 180)
        r = register(local_api, eid, player(n))
        if r.status_code != 201:
            refused.append((n, r.status_code, r.data))
    assert refused == []
    assert taken(local_api, eid) == 200


def test_a_halls_waitlist_does_not_use_the_events_share(api, tid, behind_proxy, clock):
    """A full event's waitlist takes no place: its registrations give their event token back."""
    eid = make_event(api, tid, capacity=4, fee={"amount": 0})
    statuses = []
    for n in range(12):
        r = register(api, eid, player(n))
        assert r.status_code == 201, r.data
        statuses.append(r.data["entry"]["status"])
    assert statuses.count("confirmed") == 4 and statuses.count("waitlisted") == 8


def test_one_phone_from_many_addresses_is_limited(api, tid, behind_proxy):
    eid = make_event(api, tid, capacity=100, fee={"amount": 0})
    codes = [register(api, eid, player(7), address=f"198.51.100.{n}").status_code for n in range(limits.PHONE_BURST + 1)]
    assert codes == [201] + [409] * (limits.PHONE_BURST - 1) + [429]


def test_a_days_registrations_are_limited_by_address(api, tid, behind_proxy, monkeypatch):
    monkeypatch.setattr(limits, "ADDRESS_BURST", 3)   # fewer registrations to write
    eid = make_event(api, tid, capacity=100, fee={"amount": 0})
    codes = []
    for n in range(limits.ADDRESS_BURST + 1):
        body = {"contact": {"name": f"甲{n}", "phone": f"137{n:08d}"},
                "items": [{"event_id": eid, **player(n)}]}
        codes.append(api.post(f"/tournaments/{tid}/registrations", body, token=None,
                              headers={"X-Forwarded-For": HALL}).status_code)
    assert codes == [201] * limits.ADDRESS_BURST + [429]


def test_a_forwarded_for_header_is_not_trusted_without_a_proxy_of_ours():
    """A client writing X-Forwarded-For itself cannot choose its address (and so cannot escape its limit)."""
    from types import SimpleNamespace

    from chalicelib.api.routing import Ctx
    request = SimpleNamespace(headers={"x-forwarded-for": "10.9.9.9"}, context={"identity": {"sourceIp": "198.51.100.4"}})
    assert get_settings().trusted_proxy_hops == 0
    assert Ctx(request=request, deps=None).client == "198.51.100.4"
    assert limits._exempt("127.0.0.1") and limits._exempt("::1") and not limits._exempt("198.51.100.4")


def test_the_local_servers_peer_address_is_the_client_and_a_forged_header_changes_nothing(api, tid, moto_repos,
                                                                                          monkeypatch):
    """Through scripts/wsgi.py (what waitress serves locally): the peer's REMOTE_ADDR is the client; a phone
    rotating X-Forwarded-For is still one client; this machine itself (loopback) is not limited. (A burst of 3
    here: fewer registrations to write.)"""
    monkeypatch.setattr(limits, "ADDRESS_BURST", 3)
    import app
    from werkzeug.test import Client

    from scripts.wsgi import wsgi_app
    eid = make_event(api, tid, capacity=100, fee={"amount": 0})
    client = Client(wsgi_app(app.app))

    def post(n, peer):
        return client.post(f"/events/{eid}/entries", json=player(n), headers={"X-Forwarded-For": f"10.0.0.{n}"},
                           environ_base={"REMOTE_ADDR": peer})
    codes = [post(n, "192.168.1.23").status_code for n in range(limits.ADDRESS_BURST + 1)]
    assert codes == [201] * limits.ADDRESS_BURST + [429]
    assert post(60, "192.168.1.24").status_code == 201
    assert all(post(n, "127.0.0.1").status_code == 201 for n in range(61, 61 + limits.ADDRESS_BURST + 1))
