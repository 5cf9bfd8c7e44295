"""Serves the API locally with waitress, a production WSGI server: a worker pool, a large listen backlog and
many open connections, where `chalice local` (http.server) reset connections under a hall's load.

    python -m scripts.api_server --host 0.0.0.0 --port 8000 [--threads 32] [--fd N]

--fd: serve on an inherited listening socket instead of binding one: scripts/dev.py makes the API's socket once
and hands it to every API process it starts, so phones' connections wait in its queue while a crashed API is
started again, instead of being refused.

The environment (table, endpoints, stage) comes from scripts/dev.py's local_env()."""
from __future__ import annotations

import argparse
import gc
import logging
import os
import socket
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--threads", type=int, default=int(os.environ.get("API_THREADS", "32")))
    parser.add_argument("--fd", type=int, default=None, help="an inherited listening socket to serve on")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("STAGE", "local")
    logging.basicConfig(level=logging.WARNING)
    # waitress warns "Task queue depth is N" for every request that waits for a free thread: under a hall's load
    # thousands of lines a minute, written from the loop that serves every connection, saying only "busy".
    logging.getLogger("waitress.queue").setLevel(logging.ERROR)
    import app
    from chalicelib.store import dynamo
    from scripts.guarded_waitress import serve
    from scripts.wsgi import MAX_REQUEST_BYTES, wsgi_app
    dynamo.client()   # built once before the first phone arrives, not by the first burst of requests
    # What exists now (modules, route table, pydantic schemas, the boto3 client) lives as long as the process:
    # moved out of the cyclic collector's reach, so its full passes stop walking it on every request.
    gc.collect()
    gc.freeze()
    _json_server_errors()
    # backlog: connections the kernel queues while every thread is busy (a hall of phones at the same moment).
    # per_address: a phone's browser opens at most 6 connections, a desk laptop a few tabs' worth; 256 lets a
    # hall's router that puts phones behind one address (or the 256-client bench) through, and stops one client
    # from holding the thousands of places the rest of the hall needs.
    # channel_timeout: an open page polls every few seconds, so its connection is never idle that long; a
    # connection silent for 15 s is a phone asleep or a client holding places, and closing it costs a phone one
    # TCP handshake on its next request (browsers resend a request that meets a connection closed while idle).
    # Checked every third of that (cleanup_interval), so a silent connection lives 15–20 s, not waitress's 120–150.
    idle = int(os.environ.get("API_IDLE_TIMEOUT_S", "15"))
    serve(wsgi_app(app.app), host=args.host, port=args.port, threads=args.threads, backlog=2048,
          per_address=int(os.environ.get("API_CONNECTIONS_PER_ADDRESS", "256")), channel_timeout=idle,
          cleanup_interval=max(1, idle // 3), clear_untrusted_proxy_headers=True, ident="cardgames",
          max_request_body_size=MAX_REQUEST_BYTES + 1,
          sock=socket.socket(fileno=args.fd) if args.fd is not None else None)


def _json_server_errors() -> None:
    """Answers waitress writes itself (a body over the cap, a malformed request) carry {code, message} like
    every other (api.md v1.1): a Content-Length over the cap is refused here, before a byte of it is read."""
    import json

    from waitress import utilities

    from chalicelib.api.errorshape import PAYLOAD_TOO_LARGE_BODY
    codes = {413: PAYLOAD_TOO_LARGE_BODY, 431: {"code": "invalid_request", "message": "请求头过大 · The request headers are too large."}}

    def to_response(self, ident=None):
        body = codes.get(self.code) or {"code": "invalid_request" if self.code < 500 else "internal_error",
                                        "message": self.reason}
        data = json.dumps(body, ensure_ascii=False).encode()
        return f"{self.code} {self.reason}", [("Content-Type", "application/json; charset=utf-8")], data

    utilities.Error.to_response = to_response


if __name__ == "__main__":
    main()
