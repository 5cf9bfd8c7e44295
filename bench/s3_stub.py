"""A stand-in for S3 on this machine (no AWS here): objects kept in memory, each answer after `delay` seconds (S3's
own latency, which the publisher's pool of PUTs waits on), path-style requests as botocore sends them to an
endpoint given by AWS_ENDPOINT_URL_S3. It runs in a process of its own, so the publisher's CPU is measured without
it. Only what the S3 sink uses: PUT, GET (404 NoSuchKey when absent).

    python bench/s3_stub.py PORT DELAY_MS
"""
from __future__ import annotations

import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

OBJECTS: dict[str, bytes] = {}
LOCK = threading.Lock()
NO_SUCH_KEY = (b'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>NoSuchKey</Code>'
               b'<Message>The specified key does not exist.</Message></Error>')


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"   # keep-alive, as S3 does: botocore's pool reuses its connections
    delay = 0.0
    disable_nagle_algorithm = True   # else each answer's body waits for the client's delayed ACK (40 ms)

    def log_message(self, *args) -> None:
        pass

    def _answer(self, status: int, body: bytes = b"", headers: dict | None = None) -> None:
        time.sleep(self.delay)
        self.send_response(status)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_PUT(self) -> None:
        size = int(self.headers.get("Content-Length", "0"))
        if self.headers.get("Expect", "").lower() == "100-continue":
            self.send_response_only(100)
            self.end_headers()
        body = self.rfile.read(size)
        with LOCK:
            OBJECTS[self.path.split("?")[0]] = body
        self._answer(200, headers={"ETag": f'"{hash(body) & 0xffffffff:08x}"'})

    def do_GET(self) -> None:
        with LOCK:
            body = OBJECTS.get(self.path.split("?")[0])
        if body is None:
            self._answer(404, NO_SUCH_KEY, {"Content-Type": "application/xml"})
        else:
            self._answer(200, body, {"Content-Type": "application/octet-stream"})


def main() -> None:
    port, delay_ms = int(sys.argv[1]), float(sys.argv[2])
    Handler.delay = delay_ms / 1000
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    server.request_queue_size = 256
    print("ready", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
