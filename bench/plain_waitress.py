"""The API served as it was before issue 36, for bench/api_server.py's comparison only: waitress's own serve() with
its select() loop, 2,000 connections, 60 s idle connections, no cap per client address (scripts/api_server.py
serves the app the same way otherwise).

    python -m bench.plain_waitress --port 8000"""
from __future__ import annotations

import argparse
import gc
import logging
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    os.environ.setdefault("STAGE", "local")
    logging.basicConfig(level=logging.WARNING)
    from waitress import serve

    import app
    from chalicelib.store import dynamo
    from scripts.api_server import _json_server_errors
    from scripts.wsgi import MAX_REQUEST_BYTES, wsgi_app
    dynamo.client()
    gc.collect()
    gc.freeze()
    _json_server_errors()
    serve(wsgi_app(app.app), host="127.0.0.1", port=args.port, threads=int(os.environ.get("API_THREADS", "32")),
          backlog=2048, connection_limit=2000, channel_timeout=60, clear_untrusted_proxy_headers=True,
          ident="cardgames", max_request_body_size=MAX_REQUEST_BYTES + 1)


if __name__ == "__main__":
    main()
