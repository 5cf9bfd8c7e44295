"""Helpers that run an event through the HTTP routes, as the organiser and the tables would."""
from __future__ import annotations

from chalicelib.publish.sinks import MemorySink
from tests.factories import tournament_body


def setup_event(api, config: dict, entries: list[dict], tournament: dict | None = None) -> tuple[str, str, list[str]]:
    tid = api.post("/tournaments", tournament or tournament_body()).data["id"]
    r = api.post(f"/tournaments/{tid}/events", config)
    assert r.status_code == 201, r.data
    eid = r.data["id"]
    ids = []
    for body in entries:
        reg = api.post(f"/events/{eid}/entries", body, token=None)
        assert reg.status_code == 201, reg.data
        entry_id = reg.data["entry"]["id"]
        if reg.data["entry"]["status"] == "pending_payment":
            api.post(f"/events/{eid}/entries/{entry_id}/payments", {"method": "cash", "amount": reg.data["entry"]["amount_due"]})
        assert api.post(f"/events/{eid}/entries/{entry_id}/check-in").status_code == 200
        ids.append(entry_id)
    return tid, eid, ids


def people(n: int, size: int = 1, prefix: str = "选手") -> list[dict]:
    out = []
    for i in range(n):
        members = [{"name": f"{prefix}{i}-{m}", **({"phone": f"139{i:04d}{m:04d}"} if m == 0 else {})} for m in range(size)]
        out.append({"name": f"{prefix}{i}", "club": f"商会{i % 3}", "members": members})
    return out


def two_events_drawn(api, monkeypatch, config: dict, pairs: int) -> tuple[str, str, str, dict]:
    """Two events of one tournament, `pairs` checked-in pairs each, round 1 drawn in both, with no publish asked
    while they are set up: (tournament id, first event, second event, the first's round)."""
    from chalicelib.services import publish_requests
    with monkeypatch.context() as m:
        m.setattr(publish_requests, "request_publish", lambda *a, **k: None)
        tid, a_eid, _ = setup_event(api, config, people(pairs, 2, "甲队"))
        b_eid = api.post(f"/tournaments/{tid}/events", {**config, "name": config["name"] + "二"}).data["id"]
        for body in people(pairs, 2, "乙队"):
            reg = api.post(f"/events/{b_eid}/entries", body, token=None)
            api.post(f"/events/{b_eid}/entries/{reg.data['entry']['id']}/check-in")
        rnd = draw(api, a_eid)
        draw(api, b_eid)
    return tid, a_eid, b_eid, rnd


def draw(api, eid: str, seed: int = 1) -> dict:
    r = api.post(f"/events/{eid}/rounds", {"seed": seed})
    assert r.status_code == 201, r.data
    return r.data


def enter_and_confirm(api, eid: str, rnd: dict, table: dict, body: dict) -> dict:
    """Side 1 (N–S) enters with its table code, every other side confirms with its own (both others at a
    three-seat table)."""
    n, t = rnd["number"], table["number"]
    codes = table["codes"]
    put = api.put(f"/events/{eid}/rounds/{n}/tables/{t}/result", {"version": 0, **body}, token=None,
                  headers={"X-Table-Code": codes[0]})
    assert put.status_code == 200, put.data
    for i, code in enumerate(codes[1:], 2):
        ok = api.post(f"/events/{eid}/rounds/{n}/tables/{t}/confirm", token=None, headers={"X-Table-Code": code})
        assert ok.status_code == 200, ok.data
        assert ok.data["status"] == ("confirmed" if i == len(codes) else "entered"), ok.data
    return ok.data


def close(api, eid: str, n: int) -> dict:
    r = api.post(f"/events/{eid}/rounds/{n}/close")
    assert r.status_code == 200, r.data
    return r.data


class Recording(MemorySink):
    """A memory sink that lists the keys written, in order (what a publish wrote)."""

    def __init__(self):
        super().__init__()
        self.written = []

    def write(self, key, body):
        self.written.append(key)
        super().write(key, body)
