"""Work done in a forked child while the caller goes on with its own (issue 29: a cold publish of a 10,000-entry
event works out its standings, ~1 s of one core, beside the rounds' wording instead of after it; two cores).

The result comes back pickled through a pipe (chalicelib/forked.py: its end is closed in other threads' children).
Where the child fails, dies or takes too long, or the platform has no fork, the work is done in the caller instead:
what the caller gets never depends on the fork. The child touches no shared connection (store/dynamo.py gives a
forked child a client of its own) and leaves without running any cleanup.
"""
from __future__ import annotations

import logging
import os
import pickle
import signal
import time
from typing import Generic, TypeVar
from collections.abc import Callable

from ..forked import close_kept, fork_with_pipe, read_until

log = logging.getLogger("cardgames.beside")
T = TypeVar("T")


def _store_in_this_process() -> bool:
    """The venue's embedded store (SQLite in this process): a child forked while another thread holds one of
    SQLite's locks inherits SQLite's record of that lock but not the lock itself (fcntl locks do not cross a fork),
    so its reads could go unprotected from the parent's checkpoints. There the work stays in the caller; the
    venue's events are small."""
    return os.environ.get("STORE") == "embedded"


class Beside(Generic[T]):
    """`with Beside(fn) as job: …; value = job.result()` — fn() runs in a child from the `with` on."""

    # well inside the publish lease (60 s): a child stuck on a lock it inherited never holds a publish past it
    def __init__(self, fn: Callable[[], T], *, timeout: float = 20.0, fork: bool = True):
        self.fn, self.timeout = fn, timeout
        self.pid: int | None = None
        self.fd: int | None = None
        self.done = False
        self.value: T | None = None
        if fork and hasattr(os, "fork") and not _store_in_this_process():
            self._start()

    def _start(self) -> None:
        try:
            pid, fd = fork_with_pipe(child_reads=False)
        except OSError:   # no memory for another process, say: done inline when asked
            return
        if pid == 0:   # the child: work, answer, leave
            code = 1
            try:
                view = memoryview(pickle.dumps(self.fn(), protocol=pickle.HIGHEST_PROTOCOL))
                while view:
                    view = view[os.write(fd, view):]
                code = 0
            except BaseException:   # noqa: BLE001 — the parent does the work again and meets the error itself
                pass
            finally:
                os._exit(code)
        self.pid, self.fd = pid, fd

    def result(self) -> T:
        if self.done:
            return self.value   # type: ignore[return-value]
        body = self._collect() if self.pid is not None else None
        self.value = pickle.loads(body) if body is not None else self.fn()
        self.done = True
        return self.value

    def _collect(self) -> bytes | None:
        body = None
        try:
            body = read_until(self.fd, time.monotonic() + self.timeout)
        finally:
            status = self._reap(kill=body is None)
        if body is None or status != 0 or not body:
            log.warning("work beside failed (%s): done here instead", "timed out" if body is None else f"status {status}")
            return None
        return body

    def _reap(self, kill: bool) -> int:
        pid, self.pid = self.pid, None
        if self.fd is not None:
            close_kept(self.fd)
            self.fd = None
        if pid is None:
            return 0
        if kill:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        return os.waitpid(pid, 0)[1]

    def close(self) -> None:
        """Once the caller is done: a child whose result was not taken (the caller failed) is not left behind."""
        if self.pid is not None:
            self._reap(kill=True)

    def __enter__(self) -> Beside[T]:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
