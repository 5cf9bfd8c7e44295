"""The publisher's forked path (English in a child process) writes the same files as the serial path."""
from __future__ import annotations

import filecmp
import os
import tempfile

from chalicelib import bootstrap
from chalicelib.publish.sinks import LocalSink
from chalicelib.services.publishing import publish_tournament


def _tree(root):
    out = {}
    for base, _, files in os.walk(root):
        for f in files:
            out[os.path.relpath(os.path.join(base, f), root)] = os.path.join(base, f)
    return out


def test_forked_and_serial_publishing_write_the_same_pages(moto_repos):
    from scripts.demo import load
    demo = load()
    d = bootstrap.deps()
    serial, forked = tempfile.mkdtemp(), tempfile.mkdtemp()
    d.publisher = LocalSink(serial)
    a = publish_tournament(d, demo["tournament_id"], fork_over=10 ** 9)
    d.publisher = LocalSink(forked)
    b = publish_tournament(d, demo["tournament_id"], fork_over=0)
    a.pop("timing"), b.pop("timing")   # figures of how long each took
    assert a == b and a["files"] > 100
    ta, tb = _tree(serial), _tree(forked)
    assert set(ta) == set(tb) and any(k.startswith("en/") for k in ta)
    assert all(filecmp.cmp(ta[k], tb[k], shallow=False) for k in ta)
