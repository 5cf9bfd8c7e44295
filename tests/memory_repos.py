"""In-memory repositories fitting chalicelib/ports.py, for fast unit tests of the domain and the services.

They live with the tests, not in chalicelib/store/: no request ever runs them, so they stay out of the Lambda
package. They keep what the services rely on from the store: a table is saved only at the version expected
(else VersionConflict), with its audit record in the same step (nothing written when the condition fails),
and what is read is a fresh copy of what was stored as JSON (no aliasing between a service and the "store")."""
from __future__ import annotations

import copy
import json

from chalicelib import errors


def _frozen(value) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)   # as store/rounds.py writes a table


class MemoryRounds:
    def __init__(self):
        self.states: dict[str, dict] = {}
        self.docs: dict[tuple[str, int, int], dict] = {}
        self.tables: dict[tuple[str, int, int, int], str] = {}
        self.audits: dict[str, list[dict]] = {}
        self.appeal_items: dict[str, str] = {}

    # -- seeding (what a draw would have written)
    def seed_round(self, eid: str, doc: dict, tables: list[dict]) -> None:
        state = self.states.setdefault(eid, {"version": 0, "rounds": [], "open_round": 0, "plans": {}})
        stage, n = doc["stage"], doc["number"]
        state["rounds"] = [*state["rounds"], {"n": n, "stage": stage, "stage_round": doc["stage_round"]}]
        state["open_round"] = n if doc["status"] == "open" else state["open_round"]
        self.docs[(eid, stage, n)] = copy.deepcopy(doc)
        for t in tables:
            self.tables[(eid, stage, n, t["number"])] = _frozen(t)

    # -- reads
    def state(self, eid: str) -> dict:
        return copy.deepcopy(self.states.get(eid, {"version": 0, "rounds": [], "open_round": 0}))

    state_head = state

    def get_round(self, eid: str, stage: int, n: int) -> tuple[dict | None, list[dict]]:
        doc = self.docs.get((eid, stage, n))
        tables = [json.loads(v) for (e, s, r, _), v in sorted(self.tables.items()) if (e, s, r) == (eid, stage, n)]
        return copy.deepcopy(doc), tables

    def table(self, eid: str, stage: int, n: int, t: int) -> dict | None:
        return self.get_table(eid, stage, n, t)[1]

    def get_table(self, eid: str, stage: int, n: int, t: int,
                  consistent: bool = True) -> tuple[dict | None, dict | None]:
        item = self.tables.get((eid, stage, n, t))
        return copy.deepcopy(self.docs.get((eid, stage, n))), (json.loads(item) if item else None)

    def find_code(self, code_hash: str) -> dict | None:
        return None

    # -- writes
    def save_table(self, eid: str, stage: int, n: int, table: dict, expected_version: int, audit: dict) -> None:
        key = (eid, stage, n, table["number"])
        stored = json.loads(self.tables[key])
        if stored.get("version", 0) != expected_version:
            raise errors.VersionConflict("The result was changed by someone else; reload.")
        self.tables[key] = _frozen(table)
        self.add_audit(eid, audit)

    def create_round(self, eid, round_doc, tables, state, expected_version, *, closes_late_entries=False,
                     audit=None) -> None:
        self._state_at(eid, expected_version)
        self.states[eid] = {**copy.deepcopy(state), "version": expected_version + 1}
        self.docs[(eid, round_doc["stage"], round_doc["number"])] = copy.deepcopy(round_doc)
        for t in tables:
            self.tables[(eid, round_doc["stage"], round_doc["number"], t["number"])] = _frozen(t)
        if audit is not None:
            self.add_audit(eid, audit)

    def delete_round(self, eid, stage, n, tables, state, expected_version) -> None:
        self._state_at(eid, expected_version)
        self.states[eid] = {**copy.deepcopy(state), "version": expected_version + 1}
        self.docs.pop((eid, stage, n), None)
        for t in tables:
            self.tables.pop((eid, stage, n, t["number"]), None)

    def edit_round(self, eid, round_doc, changed, removed, state, expected_version, audit) -> None:
        self._state_at(eid, expected_version)
        stage, n = round_doc["stage"], round_doc["number"]
        for table, version in changed:
            old = self.tables.get((eid, stage, n, table["number"]))
            if (json.loads(old)["version"] if old else None) != version:
                raise errors.VersionConflict("A table changed meanwhile; reload.")
        for t, _ in removed:
            self.tables.pop((eid, stage, n, t), None)
        for table, _ in changed:
            self.tables[(eid, stage, n, table["number"])] = _frozen(table)
        self.docs[(eid, stage, n)] = copy.deepcopy(round_doc)
        self.states[eid] = {**copy.deepcopy(state), "version": expected_version + 1}
        self.add_audit(eid, audit)

    def close_round(self, eid, round_doc, state, expected_version, totals=None, audit=None) -> None:
        self._state_at(eid, expected_version)
        self.docs[(eid, round_doc["stage"], round_doc["number"])] = copy.deepcopy(round_doc)
        self.states[eid] = {**copy.deepcopy(state), "version": expected_version + 1}
        if audit is not None:
            self.add_audit(eid, audit)

    def _state_at(self, eid: str, expected_version: int) -> None:
        if self.states.get(eid, {}).get("version", 0) != expected_version:
            raise errors.VersionConflict("The event's rounds changed meanwhile; reload.")

    # -- audit and appeals
    def add_audit(self, eid: str, record: dict) -> None:
        self.audits.setdefault(eid, []).append(json.loads(_frozen(record)))

    def audited_write(self, eid: str, record: dict, write) -> None:
        write([])   # the change first: when it is refused, no record
        self.add_audit(eid, record)

    def audit(self, eid: str, since: str | None = None) -> list[dict]:
        return [r for r in self.audits.get(eid, []) if since is None or r["id"] >= since]

    def create_appeal(self, appeal: dict, audit: dict) -> None:
        if appeal["id"] in self.appeal_items:
            raise errors.DuplicateEntry()
        self.appeal_items[appeal["id"]] = _frozen(appeal)
        self.add_audit(appeal["event_id"], audit)

    def save_appeal(self, appeal: dict, expected_version: int, audit: dict, extra: list = ()) -> None:
        if json.loads(self.appeal_items[appeal["id"]])["version"] != expected_version:
            raise errors.VersionConflict("The appeal changed meanwhile; reload.")
        self.appeal_items[appeal["id"]] = _frozen(appeal)
        self.add_audit(appeal["event_id"], audit)

    def appeal(self, appeal_id: str) -> dict | None:
        item = self.appeal_items.get(appeal_id)
        return json.loads(item) if item else None

    def appeals(self, eid: str, consistent: bool = True) -> list[dict]:
        return [a for a in map(json.loads, self.appeal_items.values()) if a["event_id"] == eid]


class MemoryKeyed:
    """tournaments: records by id."""

    def __init__(self):
        self.items: dict[str, object] = {}

    def put(self, record) -> None:
        self.items[record.id] = record

    def get(self, key: str):
        return self.items.get(key)


class MemoryEvents(MemoryKeyed):
    def __init__(self, tournaments: MemoryKeyed):
        super().__init__()
        self.tournaments = tournaments

    def get_with_tournament(self, eid: str):
        event = self.items.get(eid)
        return (event, self.tournaments.get(event.tournament_id)) if event else (None, None)


class MemoryEntries:
    def __init__(self):
        self.items: dict[tuple[str, str], object] = {}

    def put(self, entry) -> None:
        self.items[(entry.event_id, entry.id)] = entry

    def get(self, eid: str, entry_id: str):
        return self.items.get((eid, entry_id))

    def get_many(self, eid: str, entry_ids: list[str], consistent: bool = True) -> list:
        return [self.items.get((eid, e)) for e in entry_ids]

    def list(self, eid: str) -> list:
        return [e for (k, _), e in self.items.items() if k == eid]


class MemoryRates:
    """Every take within the limit (counted, so a test can see a wrong code was counted)."""

    def __init__(self):
        self.taken: dict[tuple, int] = {}

    def take(self, scope: str, key: str, window: int, limit: int, expires_epoch: int) -> bool:
        k = (scope, key, window)
        self.taken[k] = self.taken.get(k, 0) + 1
        return self.taken[k] <= limit


class MemoryHall:
    def __init__(self):
        self.clocks: dict[tuple[str, int], dict] = {}
        self.anns: dict[str, list[dict]] = {}

    def clock(self, eid: str, n: int) -> dict | None:
        return copy.deepcopy(self.clocks.get((eid, n)))

    def save_clock(self, eid: str, n: int, clock: dict, expected_version: int, extra: list = ()) -> None:
        if (self.clocks.get((eid, n)) or {}).get("version", 0) != expected_version:
            raise errors.VersionConflict()
        self.clocks[(eid, n)] = copy.deepcopy(clock)

    def add_announcement(self, tid: str, ann: dict) -> None:
        self.anns.setdefault(tid, []).append(ann)

    def announcements(self, tid: str) -> list[dict]:
        return list(self.anns.get(tid, []))

    def delete_announcement(self, tid: str, ann_id: str) -> None:
        self.anns[tid] = [a for a in self.anns.get(tid, []) if a["id"] != ann_id]


class MemoryRepos:
    def __init__(self):
        self.rounds = MemoryRounds()
        self.tournaments = MemoryKeyed()
        self.events = MemoryEvents(self.tournaments)
        self.entries = MemoryEntries()
        self.rates = MemoryRates()
        self.hall = MemoryHall()
