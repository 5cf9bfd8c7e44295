"""Stripe Connect in the Stripe stand-in (issue 40): tests/fakes.py's FakeStripe, which also records each request's
Stripe-Account header and answers GET /v1/accounts/{id} for the connected accounts it knows — plugged into the
real stripe library in-process (`http_client=`), or served over HTTP for an API subprocess (STRIPE_API_BASE)."""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.fakes import FakeStripe


class ConnectStripe(FakeStripe):
    def __init__(self, accounts: dict[str, bool]):
        super().__init__()
        self.accounts = accounts            # acct_… → charges_enabled

    def request(self, method, url, headers, post_data=None, *, _usage=None):
        text, status, out = super().request(method, url, headers, post_data, _usage=_usage)
        self.requests[-1]["account"] = (headers or {}).get("Stripe-Account")
        return text, status, out

    def _answer(self, method, path, body):
        if method == "get" and path.startswith("/v1/accounts/"):
            acct = path.rsplit("/", 1)[1]
            if acct not in self.accounts:
                return json.dumps({"error": {"type": "invalid_request_error", "code": "resource_missing",
                                             "message": f"No such account: '{acct}'"}}), 404
            return json.dumps({"id": acct, "object": "account", "charges_enabled": self.accounts[acct]}), 200
        return super()._answer(method, path, body)


class ServedStripe:
    """The stand-in on a local port, for a process that reaches Stripe over HTTP."""

    def __init__(self, fake: FakeStripe):
        self.fake = fake
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def _any(self):
                size = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(size).decode() if size else ""
                text, status, _ = owner.fake.request(self.command.lower(), f"http://stripe{self.path}",
                                                     dict(self.headers.items()), body)
                raw = text.encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            do_GET = do_POST = do_DELETE = _any

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def start(self) -> ServedStripe:
        threading.Thread(target=self.server.serve_forever, daemon=True, name="stripe-standin").start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
