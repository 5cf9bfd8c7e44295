"""Static server for the local stack: the front end at /, the published pages at /t/, /en/t/ and /vi/t/.

It serves files, not folders: no folder is ever listed (`/t/` would name every tournament of every organiser) and
no name starting with a dot is served (the publisher keeps its own state beside the pages: `.manifest.json`,
`.places.json`; it reads them from its sink, never over HTTP). A client that hangs up is no traceback."""
from __future__ import annotations

import argparse
import functools
import gzip
import http.server
import os
import re
import sys
from pathlib import Path
from urllib.parse import unquote

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from chalicelib.security_headers import built_pages, inline_script_hashes, site_headers, with_api  # noqa: E402
from chalicelib.publish.live import CACHE_CONTROL as LIVE_CACHE_CONTROL  # noqa: E402


_SERVICE_WORKER = re.compile(r"/sw-[\w-]+\.js")


class SiteHandler(http.server.SimpleHTTPRequestHandler):
    frontend: Path
    published: Path
    api: str = ""
    security: dict = {}
    # A connection that sends nothing for 20 s is closed: each one holds a thread here.
    timeout = 20

    def do_GET(self):
        if self._send_page() or self._send_gzipped():
            return
        if self.path.startswith("/live/"):   # a table's live JSON can be rewritten within the second its last copy
            del self.headers["If-Modified-Since"]   # was served: Last-Modified's whole seconds would answer 304
        super().do_GET()

    def _send_page(self) -> bool:
        """A front-end page, told where the API is (its <meta name="api">), gzipped when the phone accepts it."""
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            path = path / "index.html"
        if path.suffix != ".html" or path.parent != self.frontend or not path.is_file():
            return False
        body = with_api(path.read_text(encoding="utf-8"), self.api).encode()
        gzipped = "gzip" in self.headers.get("Accept-Encoding", "")
        if gzipped:
            body = gzip.compress(body, 6)
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        if gzipped:
            self.send_header("Content-Encoding", "gzip")
        self.send_header("Vary", "Accept-Encoding")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        return True

    def _send_gzipped(self) -> bool:
        """The build writes page.js.gz beside page.js: a phone that accepts gzip gets it (as CloudFront does)."""
        if "gzip" not in self.headers.get("Accept-Encoding", ""):
            return False
        path = self.translate_path(self.path)
        if os.path.isdir(path):
            path = os.path.join(path, "index.html")
        if not os.path.isfile(path + ".gz"):
            return False
        with open(path + ".gz", "rb") as f:
            body = f.read()
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(path))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Vary", "Accept-Encoding")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        return True

    def translate_path(self, path: str) -> str:
        clean = path.split("?", 1)[0].split("#", 1)[0]
        if clean.startswith(("/t/", "/en/t/", "/vi/t/", "/live/")):   # /live/: the tables' live JSON (issue 43)
            root = self.published
        else:
            root = self.frontend
        rel = Path(os.path.normpath(unquote(clean).lstrip("/")))
        if rel.parts and (rel.parts[0] == ".." or any(part.startswith(".") for part in rel.parts)):
            return str(root / "__nope__")   # above the root, or a dotfile / dot-folder: not found
        return str(root / rel)

    def list_directory(self, path):
        """A folder without index.html is not found, never listed."""
        self.send_error(404, "File not found")
        return None

    def end_headers(self):
        for name, value in self.security.items():
            self.send_header(name, value)
        # feed.json is polled by open pages: never cache it; nor the offline pages' service workers (a phone must
        # see a new build's worker at its next visit); the build's assets carry their hash: cache them long.
        clean = self.path.split("?")[0]
        if clean.endswith("feed.json") or _SERVICE_WORKER.fullmatch(clean):
            self.send_header("Cache-Control", "no-cache")
        elif clean.startswith("/live/"):
            self.send_header("Cache-Control", LIVE_CACHE_CONTROL)   # as the CDN's copy says (publish/live.py)
        elif self.path.startswith("/assets/"):
            self.send_header("Cache-Control", "public, max-age=31536000, immutable")
        else:
            self.send_header("Cache-Control", "max-age=5")
        super().end_headers()

    def log_message(self, fmt, *args):  # quiet: the dev runner prints what matters
        pass


class SiteServer(http.server.ThreadingHTTPServer):
    request_queue_size = 1024   # a hall of phones opening pages at once

    def handle_error(self, request, client_address):
        """A phone that leaves mid-answer (reload, lost Wi-Fi) is no error of ours: no traceback for it."""
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)


def serve(port: int, frontend: str, published: str, api: str = "", host: str = "127.0.0.1") -> None:
    from urllib.parse import urlsplit

    parts = urlsplit(api)
    frontend_dir = Path(frontend).resolve()
    security = site_headers(f"{parts.scheme}://{parts.netloc}" if parts.netloc else "", inline_script_hashes(built_pages(frontend_dir)))
    handler = type("H", (SiteHandler,), {"frontend": frontend_dir, "published": Path(published).resolve(),
                                         "api": api, "security": security})
    handler.extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                              ".js": "application/javascript; charset=utf-8", ".html": "text/html; charset=utf-8",
                              ".json": "application/json; charset=utf-8", ".css": "text/css; charset=utf-8",
                              ".woff2": "font/woff2", ".svg": "image/svg+xml"}
    from scripts.guarded_waitress import raise_open_files_limit
    raise_open_files_limit()   # a connection is a descriptor and a thread here: 1,024 is a hall's phones and a few
    with SiteServer((host, port), functools.partial(handler)) as httpd:
        httpd.serve_forever()


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, default=8080)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--frontend", default="frontend/dist", help="the built front end (make site)")
    p.add_argument("--published", default=".data/site")
    p.add_argument("--api", default="", help="API base URL written into each page's <meta name=\"api\">")
    a = p.parse_args()
    os.makedirs(a.published, exist_ok=True)
    serve(a.port, a.frontend, a.published, a.api, a.host)
