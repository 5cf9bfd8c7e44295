"""The Protocols of typed Deps (chalicelib/ports.py) fit both the store's repositories and the in-memory ones."""
from __future__ import annotations

from chalicelib import ports
from chalicelib.publish.sinks import MemorySink
from chalicelib.store.entries import EntryRepo
from chalicelib.store.hall import HallRepo
from chalicelib.store.repositories import EventRepo, RateRepo, TournamentRepo
from chalicelib.store.rounds import RoundRepo
from tests.memory_repos import MemoryRepos


def test_the_store_and_the_memory_repositories_fit_the_protocols():
    memory = MemoryRepos()
    for proto, store, mem in ((ports.RoundsRepo, RoundRepo(None), memory.rounds),
                              (ports.EventsRepo, EventRepo(None), memory.events),
                              (ports.TournamentsRepo, TournamentRepo(None), memory.tournaments),
                              (ports.EntriesRepo, EntryRepo(None), memory.entries),
                              (ports.RatesRepo, RateRepo(None), memory.rates),
                              (ports.HallRepo, HallRepo(None), memory.hall)):
        assert isinstance(store, proto), (proto.__name__, "store")
        assert isinstance(mem, proto), (proto.__name__, "memory")
    assert isinstance(MemorySink(), ports.Publisher)
    assert not isinstance(object(), ports.RoundsRepo)   # the check can fail
