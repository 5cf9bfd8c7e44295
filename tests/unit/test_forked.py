"""Pipes to forked children (chalicelib/forked.py) beside other forks: a writer sees the end of its input when its
publisher closes it, whatever else forked meanwhile; a frame cut short is never written as a page."""
from __future__ import annotations

import threading

import pytest

from chalicelib.publish.sinks import _FRAME, LocalSink


def _closes_within(writer, seconds: float) -> bool:
    done = threading.Event()
    threading.Thread(target=lambda: (writer.close(), done.set()), daemon=True).start()
    return done.wait(seconds)


def test_a_writer_ends_when_closed_though_later_children_were_forked_while_it_was_open(tmp_path):
    sink = LocalSink(str(tmp_path))
    first = sink.writer()
    first.write("a.html", b"a")
    second = sink.writer()            # forked while the first's pipe was open (another thread's publish, say)
    try:
        assert _closes_within(first, 3), "the first writer waited on a child that kept its pipe open"
        assert sink.read("a.html") == b"a"
    finally:
        second.close()


def test_a_file_cut_short_by_a_dying_renderer_is_not_written(tmp_path):
    sink = LocalSink(str(tmp_path))
    writer = sink.writer()
    writer.write("whole.html", b"whole")
    key = b"half.html"
    writer.out.write(_FRAME.pack(len(key), 3_000_000) + key + b"x" * 1_000_000)   # then the renderer is gone
    with pytest.raises(OSError, match="writing the published files failed"):
        writer.close()
    assert sink.read("whole.html") == b"whole" and sink.read("half.html") is None
