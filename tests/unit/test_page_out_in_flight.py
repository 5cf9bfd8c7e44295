"""A publish to a sink slower than the rendering (S3's PUTs) holds at most IN_FLIGHT pages in memory waiting to
be written (issue 43: at 100,000 entries the queue was every page of the site), and still writes every page."""
from __future__ import annotations

import threading
import time

from chalicelib.publish.site_pages import IN_FLIGHT, PageOut


class SlowSink:
    parallel = True
    THREADS = 2

    def __init__(self):
        self.files: dict[str, bytes] = {}
        self.lock = threading.Lock()

    def write(self, key: str, body: bytes) -> None:
        time.sleep(0.0002)
        with self.lock:
            self.files[key] = body


def test_the_pages_waiting_for_a_slow_sink_are_bounded():
    sink = SlowSink()
    out = PageOut(sink, "zh", {}, many=False)
    most = 0
    for k in range(4 * IN_FLIGHT):
        out.write(f"t/x/entry-{k}.html", f"<p>{k}</p>")
        most = max(most, len(out.pending))
    out.close()
    assert most <= IN_FLIGHT
    assert len(sink.files) == 4 * IN_FLIGHT and sink.files["t/x/entry-7.html"] == b"<p>7</p>"
