"""Small builders for request bodies used across tests."""
from __future__ import annotations

import json


def tournament_body(**kw) -> dict:
    body = {"name": "恒全杯商会联谊赛", "venue": "南宁", "timezone": "Asia/Shanghai", "currency": "CNY",
            "starts_on": "2026-12-12", "ends_on": "2026-12-12"}
    body.update(kw)
    return body


def guandan_event(**kw) -> dict:
    body = {"name": "掼蛋积分赛", "game": "guandan", "entry": {"kind": "pair"}, "capacity": 40,
            "fee": {"amount": 2000, "per": "person"},
            "registration": {"opens_at": "2026-11-01T00:00:00Z", "closes_at": "2026-12-11T12:00:00Z"},
            "stages": [{"name": "积分赛", "format": "swiss", "rounds": 3,
                        "scoring": {"method": "level_points", "pass_a_points": 15}}]}
    body.update(kw)
    return body


def doudizhu_event(**kw) -> dict:
    body = {"name": "二打一个人赛", "game": "doudizhu", "entry": "individual", "capacity": 15,
            "stages": [{"format": "swiss", "rounds": 5}]}
    body.update(kw)
    return body


class Api:
    """chalice.test.Client with JSON in and out and an optional organiser token."""

    def __init__(self, client, token: str | None = None):
        self.c = client
        self.token = token

    def call(self, method: str, path: str, body=None, headers: dict | None = None, token: str | None = "default",
             raw: bytes | str | None = None):
        h = {"Content-Type": "application/json"}
        tok = self.token if token == "default" else token
        if tok:
            h["Authorization"] = f"Bearer {tok}"
        h.update(headers or {})
        payload = raw if raw is not None else (json.dumps(body, ensure_ascii=False) if body is not None else None)
        if isinstance(payload, str):
            payload = payload.encode("utf-8")
        resp = getattr(self.c.http, method.lower())(path, headers=h, body=payload)
        resp.data = json.loads(resp.body) if resp.body and resp.headers.get("Content-Type", "").startswith("application/json") else None
        return resp

    def get(self, path, **kw):
        return self.call("GET", path, **kw)

    def post(self, path, body=None, **kw):
        return self.call("POST", path, body, **kw)

    def patch(self, path, body=None, **kw):
        return self.call("PATCH", path, body, **kw)

    def put(self, path, body=None, **kw):
        return self.call("PUT", path, body, **kw)

    def delete(self, path, **kw):
        return self.call("DELETE", path, **kw)
