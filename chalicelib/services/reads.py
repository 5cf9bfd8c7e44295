"""Reads shared by the steps of one draw or close: an event's 10,000 entries are a second's read and parse, and
a draw needs them in five places (participants, who is still in, clubs, names, seating)."""
from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from contextvars import ContextVar

_ENTRIES: ContextVar[dict | None] = ContextVar("entries_read_once", default=None)


def entries_of(deps, eid: str) -> list:
    """The event's entries: read once inside `entries_read_once`, else read now."""
    memo = _ENTRIES.get()
    if memo is None:
        return deps.repos.entries.list(eid)
    if eid not in memo:
        memo[eid] = deps.repos.entries.list(eid)
    return memo[eid]


def roster_of(deps, eid: str) -> list:
    """The event's entries as a draw or close needs them (status, check-in, name, club, members' genders:
    EntryRepo.roster, a tenth of the bytes of whole entries): read once inside `entries_read_once`."""
    memo = _ENTRIES.get()
    if memo is None:
        return deps.repos.entries.roster(eid)
    key = ("roster", eid)
    if key not in memo:
        memo[key] = deps.repos.entries.roster(eid)
    elif isinstance(memo[key], Future):
        memo[key] = memo[key].result()
    return memo[key]


def prefetch_roster(deps, eid: str, known: list[str] = ()) -> None:
    """Starts reading the roster (cut at `known` ids) while the caller reads other things: inside
    `entries_read_once`, roster_of then waits for it."""
    memo = _ENTRIES.get()
    if memo is None or ("roster", eid) in memo:
        return
    pool = ThreadPoolExecutor(max_workers=1)
    memo[("roster", eid)] = pool.submit(deps.repos.entries.roster, eid, list(known))
    pool.shutdown(wait=False)


@contextmanager
def entries_read_once():
    """Around one service call (also usable as a decorator): its reads of an event's entries share one."""
    token = _ENTRIES.set({})
    try:
        yield
    finally:
        _ENTRIES.reset(token)


@contextmanager
def entries_known(eid: str, entries: list):
    """Around work on entries already read (the publisher's cache): reads of that event's entries get them."""
    memo = dict(_ENTRIES.get() or {})
    memo[eid] = memo[("roster", eid)] = entries   # whole entries have every field a roster has
    token = _ENTRIES.set(memo)
    try:
        yield
    finally:
        _ENTRIES.reset(token)
