"""Python's cyclic collector paused around one big service call (a draw or close of a 10,000-entry round).

Such a call makes hundreds of thousands of short-lived dicts and lists (5,000 tables, their answer, the roster)
that reference counting frees anyway; the collector's full passes walk every one of them each time, measured at
1–1.5 s of a loaded 10,000-entry draw (a fifth of it). Calls in several threads at once share one pause: the
collector runs again once the last of them ends (and only if it was on before the first began).
"""
from __future__ import annotations

import gc
import threading
from contextlib import contextmanager

_lock = threading.Lock()
_depth = 0
_was_enabled = False


@contextmanager
def gc_paused():
    """Also usable as a decorator."""
    global _depth, _was_enabled
    with _lock:
        if _depth == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _was_enabled:
                gc.enable()
