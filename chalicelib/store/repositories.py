"""Repositories: models in, models out. The only code that knows item shapes besides keys.py."""
from __future__ import annotations

from .. import errors
from ..models import Counters, Event, Organiser, Tournament
from . import keys
from .dynamo import Op, Table


def _doc_item(key: dict, model, kind: str, **extra) -> dict:
    return {**key, "kind": kind, "data": model.model_dump_json(), **extra}


class OrganiserRepo:
    def __init__(self, table: Table):
        self.t = table

    def create(self, organiser: Organiser, token_hash: str) -> None:
        self.t.transact([
            Op.put(_doc_item(keys.organiser(organiser.id), organiser, "organiser"),
                   condition="attribute_not_exists(PK)", on_fail=errors.DuplicateEntry),
            Op.put({**keys.organiser_token(token_hash), "kind": "organiser_token", "organiser_id": organiser.id},
                   condition="attribute_not_exists(PK)", on_fail=errors.DuplicateEntry),
        ])

    def get(self, oid: str) -> Organiser | None:
        item = self.t.get(keys.organiser(oid))
        return Organiser.model_validate_json(item["data"]) if item else None

    def by_token_hash(self, token_hash: str) -> Organiser | None:
        pointer = self.t.get(keys.organiser_token(token_hash))
        if not pointer:
            return None
        organiser = self.get(pointer["organiser_id"])
        if organiser is None or organiser.revoked:
            return None
        return organiser

    def add_token(self, oid: str, token_hash: str) -> None:
        self.t.put({**keys.organiser_token(token_hash), "kind": "organiser_token", "organiser_id": oid},
                   condition="attribute_not_exists(PK)", on_fail=errors.DuplicateEntry)

    def revoke_token(self, token_hash: str) -> None:
        self.t.delete(keys.organiser_token(token_hash), condition="attribute_exists(PK)", on_fail=errors.NotFound)

    def revoke(self, oid: str) -> None:
        """Revoke the organiser: every one of its tokens stops working."""
        organiser = self.get(oid)
        if organiser is None:
            raise errors.NotFound("organiser not found")
        organiser.revoked = True
        self.t.put(_doc_item(keys.organiser(oid), organiser, "organiser"))


class TournamentRepo:
    def __init__(self, table: Table):
        self.t = table

    def create(self, tournament: Tournament) -> None:
        self.t.transact([
            Op.put(_doc_item(keys.tournament(tournament.id), tournament, "tournament",
                             organiser_id=tournament.organiser_id, version=tournament.version),
                   condition="attribute_not_exists(PK)", on_fail=errors.DuplicateEntry),
            Op.put({**keys.organiser_tournament(tournament.organiser_id, tournament.id), "kind": "org_tournament",
                    "tournament_id": tournament.id, "name": tournament.name}),
        ])

    def get(self, tid: str) -> Tournament | None:
        item = self.t.get(keys.tournament(tid))
        return Tournament.model_validate_json(item["data"]) if item else None

    def get_with_events(self, tid: str) -> tuple[Tournament | None, list[Event]]:
        """One query returns the tournament and its event configs; counters come in one more read each."""
        items = self.t.query(keys.tournament_partition(tid))
        tournament, events = None, []
        for item in items:
            if item["SK"] == "META":
                tournament = Tournament.model_validate_json(item["data"])
            elif item["SK"].startswith(keys.EVENT_PREFIX):
                events.append(Event.model_validate_json(item["data"]))
        for event in events:
            counters = self.t.get(keys.event_counters(event.id))
            if counters:
                event.counters = _counters(counters)
        return tournament, events

    def list_for_organiser(self, oid: str) -> list[Tournament]:
        pointers = self.t.query(keys.organiser_partition(oid), "TOURN#")
        out = []
        for p in pointers:
            t = self.get(p["tournament_id"])
            if t:
                out.append(t)
        return out

    def update(self, tournament: Tournament, expected_version: int) -> None:
        self.t.transact([
            Op.put(_doc_item(keys.tournament(tournament.id), tournament, "tournament",
                             organiser_id=tournament.organiser_id, version=tournament.version),
                   condition="version = :v", values={":v": expected_version}, on_fail=errors.VersionConflict),
            Op.put({**keys.organiser_tournament(tournament.organiser_id, tournament.id), "kind": "org_tournament",
                    "tournament_id": tournament.id, "name": tournament.name}),
        ])


def _counters(item: dict) -> Counters:
    return Counters(taken=item.get("taken", 0), confirmed=item.get("confirmed", 0), held=item.get("held", 0),
                    waitlisted=item.get("waitlisted", 0), version=item.get("cversion", 0))


class EventRepo:
    def __init__(self, table: Table):
        self.t = table

    def create(self, event: Event) -> None:
        self.t.transact([
            Op.check(keys.tournament(event.tournament_id), "attribute_exists(PK)", on_fail=errors.NotFound),
            Op.put(_doc_item(keys.event(event.tournament_id, event.id), event, "event", version=event.version),
                   condition="attribute_not_exists(PK)", on_fail=errors.DuplicateEntry),
            Op.put({**keys.event_counters(event.id), "kind": "event_counters", "tournament_id": event.tournament_id,
                    "organiser_id": event.organiser_id, "cap": event.config.capacity,
                    "taken": 0, "confirmed": 0, "held": 0, "waitlisted": 0, "cversion": 0},
                   condition="attribute_not_exists(PK)", on_fail=errors.DuplicateEntry),
        ])

    def get(self, eid: str) -> Event | None:
        counters = self.t.get(keys.event_counters(eid))
        if not counters:
            return None
        item = self.t.get(keys.event(counters["tournament_id"], eid))
        if not item:
            return None
        event = Event.model_validate_json(item["data"])
        event.counters = _counters(counters)
        return event

    def list_for_tournament(self, tid: str) -> list[Event]:
        return TournamentRepo(self.t).get_with_events(tid)[1]

    def update(self, event: Event, expected_version: int) -> None:
        """Writes the config; capacity is mirrored on the counters so the registration condition sees it."""
        self.t.transact([
            Op.put(_doc_item(keys.event(event.tournament_id, event.id), event, "event", version=event.version),
                   condition="version = :v", values={":v": expected_version}, on_fail=errors.VersionConflict),
            Op.update(keys.event_counters(event.id), "SET cap = :cap",
                      condition="taken <= :cap", values={":cap": event.config.capacity},
                      on_fail=lambda: errors.Conflict("capacity is below the places already taken")),
        ])


class Repos:
    """All repositories over one table: what services receive."""

    def __init__(self, table: Table | None = None):
        self.table = table or Table()
        self.organisers = OrganiserRepo(self.table)
        self.tournaments = TournamentRepo(self.table)
        self.events = EventRepo(self.table)
        from .entries import EntryRepo, PaymentRepo
        self.entries = EntryRepo(self.table)
        self.payments = PaymentRepo(self.table)
        from .rounds import RoundRepo
        self.rounds = RoundRepo(self.table)

