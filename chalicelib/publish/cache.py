"""The publisher's state between publishes in one process (issue 29), as one object held by `Deps.publish_cache`
rather than module globals: two containers (two Lambdas, or two test apps) each hold their own, and what a page
shows never depends on which one answered — the cache only spares reading and working out again what it can
prove unchanged (the same objects, the same revisions, the same ask count)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class TournamentCache:
    """One tournament's state in this publisher, for the sink it was written to (another sink: started again)."""
    sink: Any
    # per event: its records as last read (entries, state, rounds and their revs), each round's worded rows, the
    # standings, the audit records kept for the corrections page, its page data and its pages' inputs
    # (services/publishing.py and publish/site_data.py say which key is what)
    events: dict[str, dict] = field(default_factory=dict)
    # per scope (an event's id, or "" for the tournament-wide pages) and language, as this process last wrote it
    manifests: dict[tuple[str, str], dict] = field(default_factory=dict)
    # per scope: the lease's ask count this cache is current with (absent: unknown, read everything)
    asked: dict[str, int] = field(default_factory=dict)
    # per event: (its lease's ask count when read, its data) as its publisher last published it — the
    # tournament-wide pages are built from it while no ask for the event came in since
    published: dict[str, tuple[int, dict]] = field(default_factory=dict)
    wide_memo: dict = field(default_factory=dict)   # services/publishing.wide_digest's, per event
    draw_keys: dict = field(default_factory=dict)                  # who sits where, per event and table


@dataclass
class PublishCache:
    # per tournament: each event's data and the reads it was worked out from, the manifests as last written, the
    # ask count the publisher is current with (services/publishing.py `_by_event` says when it is used)
    tournaments: dict[str, TournamentCache] = field(default_factory=dict)
    # the last publish's figures per tournament (benches, logs)
    last_stats: dict[str, dict] = field(default_factory=dict)
    # each entry's place after a prefix of closed rounds, by a digest of their results (services/charts_data.py)
    places: dict[tuple, dict[str, int]] = field(default_factory=dict)

    def tournament(self, tid: str) -> TournamentCache | None:
        return self.tournaments.get(tid)

    def fresh(self, tid: str, sink) -> TournamentCache:
        """A tournament's state started again (first publish here, or another sink: nothing held stands for it)."""
        self.tournaments[tid] = TournamentCache(sink=sink)
        return self.tournaments[tid]

    def drop(self, tid: str, scope: str | None = None) -> None:
        """A publish failed half way: the next one (of that scope: an event's, "" the tournament-wide pages') reads
        everything. Another scope's publish running beside it keeps what it holds."""
        warm = self.tournaments.get(tid)
        if scope is None or warm is None:
            self.tournaments.pop(tid, None)
            return
        warm.asked.pop(scope, None)
        for key in [k for k in warm.manifests if k[0] == scope]:
            warm.manifests.pop(key, None)
        if scope:
            warm.events.pop(scope, None)
            warm.published.pop(scope, None)

    def forget(self) -> None:
        """As a new publisher process (a cold Lambda container) starts."""
        self.tournaments.clear()
        self.places.clear()
