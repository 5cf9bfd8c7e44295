"""A fake Stripe HTTP endpoint plugged into the real `stripe` library (http_client=...)."""
from __future__ import annotations

import itertools
import json
import threading
from urllib.parse import parse_qsl, urlparse

from stripe import HTTPClient


def _nest(pairs):
    """Stripe form encoding (a[b][c]=v, a[0]=v) back into dicts."""
    out: dict = {}
    for key, value in pairs:
        parts = key.replace("]", "").split("[")
        cur = out
        for p in parts[:-1]:
            cur = cur.setdefault(p, {})
        cur[parts[-1]] = value
    return out


class FakeStripe(HTTPClient):
    name = "fake"

    def __init__(self):
        super().__init__()
        self.requests: list[dict] = []
        self.sessions: dict[str, dict] = {}
        self.by_idem: dict[str, tuple[str, int]] = {}
        self.refunds: list[dict] = []
        self.line_items: dict[str, list] = {}
        self.fail_next = 0
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def request(self, method, url, headers, post_data=None, *, _usage=None):
        with self._lock:
            path = urlparse(url).path
            body = _nest(parse_qsl(post_data or "", keep_blank_values=True)) if isinstance(post_data, str) else {}
            idem = (headers or {}).get("Idempotency-Key")
            self.requests.append({"method": method, "path": path, "body": body, "idempotency_key": idem})
            if self.fail_next:
                self.fail_next -= 1
                return json.dumps({"error": {"type": "api_error", "message": "boom"}}), 500, {}
            if idem and idem in self.by_idem:
                text, status = self.by_idem[idem]
                return text, status, {"Idempotent-Replayed": "true"}
            text, status = self._answer(method, path, body)
            if idem:
                self.by_idem[idem] = (text, status)
            return text, status, {}

    def _answer(self, method, path, body):
        if method == "post" and path == "/v1/checkout/sessions":
            sid = f"cs_test_{next(self._ids)}"
            lines = [body["line_items"][k] for k in sorted(body["line_items"], key=int)]
            item = lines[0]["price_data"]
            self.line_items[sid] = [(x["price_data"]["product_data"]["name"], int(x["price_data"]["unit_amount"])) for x in lines]
            session = {"id": sid, "object": "checkout.session", "url": f"https://checkout.stripe.com/c/pay/{sid}",
                       "status": "open", "payment_status": "unpaid",
                       "amount_total": sum(int(x["price_data"]["unit_amount"]) * int(x.get("quantity", 1)) for x in lines),
                       "currency": item["currency"], "metadata": body.get("metadata", {}), "payment_intent": None}
            self.sessions[sid] = session
            return json.dumps(session), 200
        if path.startswith("/v1/checkout/sessions/"):
            sid = path.split("/")[4]
            session = self.sessions.get(sid)
            if session is None:
                return json.dumps({"error": {"type": "invalid_request_error", "message": "no such session"}}), 404
            if method == "post" and path.endswith("/expire"):
                if session["status"] != "open":
                    return json.dumps({"error": {"type": "invalid_request_error", "message": "not open"}}), 400
                session["status"] = "expired"
            return json.dumps(session), 200
        if method == "post" and path == "/v1/refunds":
            refund = {"id": f"re_{next(self._ids)}", "object": "refund", "amount": int(body["amount"]),
                      "payment_intent": body["payment_intent"], "status": "succeeded"}
            self.refunds.append(refund)
            return json.dumps(refund), 200
        return json.dumps({"error": {"type": "invalid_request_error", "message": f"unknown {method} {path}"}}), 404

    def pay(self, sid: str, intent: str | None = None) -> dict:
        """The customer pays at Stripe: the session completes."""
        s = self.sessions[sid]
        s.update(status="complete", payment_status="paid", payment_intent=intent or f"pi_{sid}")
        return s

    def close(self):
        pass


def stripe_event(event_id: str, type_: str, obj: dict) -> bytes:
    return json.dumps({"id": event_id, "object": "event", "type": type_, "api_version": "2024-06-20",
                       "created": 1, "data": {"object": obj}}).encode()
