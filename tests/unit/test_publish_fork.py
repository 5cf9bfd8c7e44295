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


def test_past_a_size_the_languages_are_rendered_here_not_in_children(moto_repos, monkeypatch):
    """A child per language holds its own copy of the publisher's cache (issue 43 item 2): a big event's languages
    are rendered one after the other in the publisher's process (the writer process stays: it touches no cache)."""
    from scripts.demo import load
    from chalicelib.services import publishing
    demo = load()
    d = bootstrap.deps()
    forks = []
    real = publishing._run_forked
    monkeypatch.setattr(publishing, "_run_forked", lambda run: forks.append(1) or real(run))
    d.publisher = LocalSink(tempfile.mkdtemp())
    publishing.forget_warm(d)
    assert publish_tournament(d, demo["tournament_id"], fork_over=0)["files"] > 100 and forks   # children below it
    forks.clear()
    monkeypatch.setattr(publishing, "LANGUAGE_CHILDREN_UP_TO", 5)   # the demo's events are past it
    d.publisher = LocalSink(tempfile.mkdtemp())
    publishing.forget_warm(d)
    stats = publish_tournament(d, demo["tournament_id"], fork_over=0)
    assert not forks and stats["files"] > 100


def test_a_language_child_that_never_answers_is_stopped_and_fails_the_publish(monkeypatch):
    """A child forked while another thread held a lock it needs (Jinja's template cache, say) would wait forever:
    past the deadline it is killed and reaped, and the publish fails (its lease is then given back)."""
    import time

    import pytest

    from chalicelib.services import publishing
    monkeypatch.setattr(publishing, "FORKED_LANGUAGE_S", 1)

    def run(lang):
        if lang != "zh":
            time.sleep(60)   # stuck in the child
        return {"files": 1, "written": 1, "bytes": 1, "largest": ["x", 1]}

    before = _forks_of_this_process()
    t0 = time.monotonic()
    with pytest.raises(RuntimeError, match="en, vi"):
        publishing._run_forked(run)
    assert time.monotonic() - t0 < 10
    assert _forks_of_this_process() <= before   # both children killed and reaped (no zombie, none running)


def _forks_of_this_process() -> set[int]:
    """This process's children that are forks of it (same command line; a test worker may have others)."""
    from pathlib import Path
    mine = Path("/proc/self/cmdline").read_bytes()
    pids = set()
    for task in Path("/proc/self/task").iterdir():
        try:
            pids.update(int(x) for x in (task / "children").read_text().split())
        except FileNotFoundError:   # a thread (a store's worker, say) ended since the listing: it has none
            pass
    out = set()
    for pid in pids:
        try:
            if Path(f"/proc/{pid}/cmdline").read_bytes() in (mine, b""):   # a zombie's command line is empty
                out.add(pid)
        except FileNotFoundError:
            pass
    return out
