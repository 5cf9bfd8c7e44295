"""The hall's records (issue 28): each round's clock and the director's announcements."""
from __future__ import annotations

import json

from .. import errors
from . import keys
from .dynamo import Op, Table


class HallRepo:
    def __init__(self, table: Table):
        self.t = table

    # -- the round clock: one item a round, versioned (two directors' taps cannot both apply to the same state)
    def clock(self, eid: str, n: int) -> dict | None:
        item = self.t.get(keys.round_clock(eid, n))
        return {**json.loads(item["data"]), "version": item["version"]} if item else None

    def clocks(self, refs: list[tuple[str, int]]) -> list[dict | None]:
        """Several events' clocks in one batch read (the publisher: each event's current round)."""
        items = self.t.get_many([keys.round_clock(eid, n) for eid, n in refs]) if refs else []
        return [{**json.loads(i["data"]), "version": i["version"]} if i else None for i in items]

    def save_clock(self, eid: str, n: int, clock: dict, expected_version: int, extra: list[Op] = ()) -> None:
        """The clock, only if still at `expected_version`; with `extra` (its audit record: RoundRepo.audited_write)
        in one transaction."""
        body = {k: v for k, v in clock.items() if k != "version"}
        item = {**keys.round_clock(eid, n), "kind": "round_clock", "data": json.dumps(body, ensure_ascii=False),
                "version": expected_version + 1}
        moved = lambda: errors.VersionConflict("The clock changed meanwhile; reload.")   # noqa: E731
        condition, values = (("attribute_not_exists(PK)", None) if expected_version == 0
                             else ("version = :v", {":v": expected_version}))
        if extra:
            self.t.transact([Op.put(item, condition=condition, values=values, on_fail=moved), *extra])
        else:
            self.t.put(item, condition=condition, values=values, on_fail=moved)

    # -- announcements
    def add_announcement(self, tid: str, ann: dict) -> None:
        self.t.transact([
            Op.put({**keys.announcement(tid, ann["id"]), "kind": "announcement", "data": json.dumps(ann, ensure_ascii=False)},
                   condition="attribute_not_exists(PK)", on_fail=errors.DuplicateEntry),
            Op.put({**keys.announcement_pointer(ann["id"]), "kind": "announcement_pointer", "tournament_id": tid}),
        ])

    def announcements(self, tid: str) -> list[dict]:
        items = self.t.query(keys.tournament_partition(tid), keys.ANNOUNCEMENT_PREFIX)
        return sorted((json.loads(i["data"]) for i in items), key=lambda a: a["at"], reverse=True)

    def announcement_tournament(self, ann_id: str) -> str | None:
        item = self.t.get(keys.announcement_pointer(ann_id))
        return item["tournament_id"] if item else None

    def delete_announcement(self, tid: str, ann_id: str) -> None:
        self.t.transact([
            Op.delete(keys.announcement(tid, ann_id), condition="attribute_exists(PK)",
                      on_fail=lambda: errors.NotFound("No such announcement.")),
            Op.delete(keys.announcement_pointer(ann_id)),
        ])
