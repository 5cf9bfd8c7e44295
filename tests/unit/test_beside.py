"""Work done in a forked child beside the caller's (services/beside.py): its result comes back; where the child
fails, dies or hangs, or no fork is wanted, the caller does the work itself; no child is left behind; a child
makes its own store client."""
from __future__ import annotations

import os
import time

import pytest

from chalicelib.services.beside import Beside


def _gone(pid: int) -> bool:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def test_the_work_runs_in_a_child_and_its_result_comes_back_whole():
    me = os.getpid()
    big = list(range(300_000))   # more than a pipe holds: the child writes while the caller reads
    with Beside(lambda: (os.getpid(), big, {"a": [1.5, None]})) as job:
        pid = job.pid
        assert pid and pid != me
        got_pid, got, extra = job.result()
    assert got_pid == pid and got == big and extra == {"a": [1.5, None]}
    assert job.result()[0] == pid      # asked again: the same result, not the work again
    assert _gone(pid)


@pytest.mark.parametrize("how", ["raises", "dies", "hangs"])
def test_a_child_that_fails_is_replaced_by_the_caller_doing_the_work(how):
    me = os.getpid()

    def work():
        if os.getpid() != me:   # only in the child
            if how == "raises":
                raise RuntimeError("in the child")
            if how == "dies":
                os._exit(3)
            time.sleep(30)
        return os.getpid()

    t0 = time.monotonic()
    job = Beside(work, timeout=0.5)
    pid = job.pid
    assert job.result() == me
    assert time.monotonic() - t0 < 10
    assert _gone(pid)


def test_an_error_of_the_work_itself_reaches_the_caller():
    def work():
        raise ValueError("bad input")

    with pytest.raises(ValueError, match="bad input"):
        with Beside(work) as job:
            job.result()


def test_without_fork_the_work_is_done_when_asked_and_a_result_not_taken_leaves_no_child():
    calls = []
    job = Beside(lambda: calls.append(os.getpid()) or "done", fork=False)
    assert job.pid is None and calls == []
    assert job.result() == "done" and calls == [os.getpid()]
    with Beside(lambda: time.sleep(30)) as job:
        pid = job.pid
    assert _gone(pid)


def test_a_forked_child_makes_its_own_store_client():
    from chalicelib.store import dynamo
    dynamo.reset_client()
    parent_client = dynamo.client()
    with Beside(lambda: (dynamo._client is None, id(dynamo.client()))) as job:
        fresh, child_client = job.result()
    assert fresh and dynamo.client() is parent_client


def test_on_the_embedded_store_the_work_stays_in_the_caller(monkeypatch):
    """SQLite's lock records would cross the fork without the locks themselves (services/beside.py)."""
    monkeypatch.setenv("STORE", "embedded")
    job = Beside(lambda: os.getpid())
    assert job.pid is None and job.result() == os.getpid()
