"""What services call on their dependencies (typed `Deps`, bootstrap.py): the repositories' methods the
day's services use, the publisher's sink, the clock and the message sender. The store (store/*.py) and the
in-memory repositories of the unit tests (tests/memory_repos.py) both fit these; an IDE follows
`deps.repos.rounds.save_table` here. Repositories no typed service uses yet stay `Any` on `Repos`."""
from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class RoundsRepo(Protocol):
    """Rounds, their tables (in packs), appeals and the audit log of an event."""

    def state(self, eid: str) -> dict: ...
    def state_head(self, eid: str) -> dict: ...
    def get_round(self, eid: str, stage: int, n: int) -> tuple[dict | None, list[dict]]: ...
    def get_table(self, eid: str, stage: int, n: int, t: int,
                  consistent: bool = True) -> tuple[dict | None, dict | None]: ...
    def table(self, eid: str, stage: int, n: int, t: int) -> dict | None: ...
    def save_table(self, eid: str, stage: int, n: int, table: dict, expected_version: int, audit: dict) -> None:
        """The table and its audit record in one transaction, only if the table is still at `expected_version`
        (else errors.VersionConflict)."""
    def create_round(self, eid: str, round_doc: dict, tables: list[dict], state: dict, expected_version: int, *,
                     closes_late_entries: bool = False, audit: dict | None = None) -> None: ...
    def delete_round(self, eid: str, stage: int, n: int, tables: list[dict], state: dict, expected_version: int) -> None: ...
    def edit_round(self, eid: str, round_doc: dict, changed: list[tuple[dict, int | None]], removed: list[tuple[int, int]],
                   state: dict, expected_version: int, audit: dict) -> None: ...
    def add_audit(self, eid: str, record: dict) -> None: ...
    def audited_write(self, eid: str, record: dict, write: Callable[[list], None]) -> None:
        """`write(ops)`: another repository's change, carrying `ops` (the audit record of it) in its own
        transaction; neither is written without the other."""
    def audit(self, eid: str, since: str | None = None) -> list[dict]: ...
    def create_appeal(self, appeal: dict, audit: dict) -> None: ...
    def save_appeal(self, appeal: dict, expected_version: int, audit: dict, extra: list = ()) -> None: ...
    def appeal(self, appeal_id: str) -> dict | None: ...
    def appeals(self, eid: str, consistent: bool = True) -> list[dict]: ...
    def find_code(self, code_hash: str) -> dict | None: ...


@runtime_checkable
class EventsRepo(Protocol):
    def get(self, eid: str) -> Any: ...   # models.Event | None
    def get_with_tournament(self, eid: str) -> tuple[Any, Any]: ...   # (Event, Tournament), or (None, None)


@runtime_checkable
class TournamentsRepo(Protocol):
    def get(self, tid: str) -> Any: ...   # models.Tournament | None


@runtime_checkable
class EntriesRepo(Protocol):
    def get(self, eid: str, entry_id: str) -> Any: ...   # models.Entry | None
    def get_many(self, eid: str, entry_ids: list[str], consistent: bool = True) -> list[Any]: ...
    def list(self, eid: str) -> list[Any]: ...


@runtime_checkable
class RatesRepo(Protocol):
    def take(self, scope: str, key: str, window: int, limit: int, expires_epoch: int) -> bool: ...


@runtime_checkable
class HallRepo(Protocol):
    def clock(self, eid: str, n: int) -> dict | None: ...
    def save_clock(self, eid: str, n: int, clock: dict, expected_version: int, extra: list = ()) -> None: ...
    def add_announcement(self, tid: str, ann: dict) -> None: ...
    def announcements(self, tid: str) -> list[dict]: ...
    def delete_announcement(self, tid: str, ann_id: str) -> None: ...


class Repos(Protocol):
    rounds: RoundsRepo
    events: EventsRepo
    tournaments: TournamentsRepo
    entries: EntriesRepo
    rates: RatesRepo
    hall: HallRepo
    # not typed yet (their services are other lanes' or untouched): organisers, staff, payments, publish_leases …
    def __getattr__(self, name: str) -> Any: ...


@runtime_checkable
class Publisher(Protocol):
    """Where published pages go (publish/sinks.py: S3, a folder, memory)."""

    def write(self, key: str, body: bytes) -> None: ...
    def read(self, key: str) -> bytes | None: ...


class Clock(Protocol):
    def __call__(self) -> datetime: ...


@runtime_checkable
class MessageSender(Protocol):
    """A message to a player (issue "players": SMS, WeChat): a placeholder until that issue's adapters come."""

    def send(self, to: str, template: str, params: dict) -> None: ...
