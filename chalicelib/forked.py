"""Forking with a pipe to the child, safe beside other threads that fork too (the venue's API server publishes in
its request threads; a publish forks its languages, their writers and the standings' child).

The end of each pipe a parent keeps is closed in every child forked after it, by whichever thread: otherwise a
writer child forked by another thread holds a copy of this writer's pipe and never sees the end of its input (a
publish waiting forever on it, two of them on each other). The pipe is made and the child forked under one lock,
which every fork in the process also takes (`os.register_at_fork`), so no other thread forks in between.
"""
from __future__ import annotations

import os
import selectors
import threading
import time

_lock = threading.RLock()   # re-entrant: os.fork inside it runs the `before` hook in the same thread
_kept: set[int] = set()     # the pipe ends parents hold: closed in every child


def fork_with_pipe(child_reads: bool) -> tuple[int, int]:
    """(child's pid, this process's end of the pipe) in the parent; (0, the child's end) in the child.
    `child_reads`: the parent writes and the child reads (a writer process), else the other way round."""
    with _lock:
        read_end, write_end = os.pipe()
        try:
            pid = os.fork()
        except OSError:
            os.close(read_end)
            os.close(write_end)
            raise
        if pid == 0:
            mine, other = (read_end, write_end) if child_reads else (write_end, read_end)
        else:
            mine, other = (write_end, read_end) if child_reads else (read_end, write_end)
        _kept.add(mine)   # in a child too: its own children (a language's writer) do not hold its pipe
        os.close(other)
        return pid, mine


def close_kept(fd: int, file=None) -> None:
    """Closes a kept end and stops closing it in children. `file`: a file object made on it with closefd=False
    (flushed first; the descriptor is closed here, never by the file's own finalizer, so a number in `_kept` is never
    one the system gave out again). A failed flush (the reader gone) is raised once the end is closed."""
    failed = None
    if file is not None:
        try:
            file.flush()   # outside the lock: it may wait on the reader
        except OSError as exc:
            failed = exc
        try:
            file.close()   # with closefd=False: marks it closed, leaves the descriptor to us
        except OSError:
            pass
    with _lock:
        _kept.discard(fd)
        os.close(fd)
    if failed is not None:
        raise failed


def read_until(fd: int, deadline: float) -> bytes | None:
    """Everything a child writes to its pipe until it closes it, or None once time.monotonic() passes `deadline`
    (a child stuck, say on a lock some other thread of the parent held when it was forked: the caller kills it)."""
    chunks = []
    with selectors.DefaultSelector() as waiting:
        waiting.register(fd, selectors.EVENT_READ)
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not waiting.select(left):
                return None
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)


def _before_fork() -> None:
    _lock.acquire()


def _after_fork_in_parent() -> None:
    _lock.release()


def _after_fork_in_child() -> None:
    for fd in _kept:
        try:
            os.close(fd)
        except OSError:
            pass
    _kept.clear()
    _lock.release()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=_before_fork, after_in_parent=_after_fork_in_parent,
                        after_in_child=_after_fork_in_child)
