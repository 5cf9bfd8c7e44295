"""Python's cyclic collector paused around one big service call (a draw or close of a 10,000-entry round).

Such a call makes hundreds of thousands of short-lived dicts and lists (5,000 tables, their answer, the roster)
that reference counting frees anyway; the collector's full passes walk every one of them each time, measured at
1–1.5 s of a loaded 10,000-entry draw (a fifth of it). Calls in several threads at once share one pause: the
collector runs again once the last of them ends (and only if it was on before the first began).

What the call kept (a publisher's cache: millions of objects) goes straight to the oldest generation when the pause
ends: otherwise the first young collection after it walks every one of them (0.4 s per 2 million objects, measured,
and the collections after it more), which a full pass would do only when the oldest generation has grown by a
quarter. The price: cyclic garbage made during the pause waits for that full pass too — measured, a publish of a
3,000-entry event leaves 120 such objects after the process's first (which leaves its imports' and templates'
once), so the wait costs nothing worth the walk.
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
                gc.freeze()     # every tracked object to the permanent generation (no walk) ...
                gc.unfreeze()   # ... and back into the oldest one
                gc.enable()
