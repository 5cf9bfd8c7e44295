"""Tournaments and events: set-up by organisers, and what the public may see."""
from __future__ import annotations

from typing import TYPE_CHECKING

from datetime import datetime, UTC
from zoneinfo import ZoneInfo

from pydantic import ValidationError

from .. import errors
if TYPE_CHECKING:   # the type only: the composition root (bootstrap) imports the services, not the reverse
    from ..bootstrap import Deps
from ..ids import new_id
from ..models import (
    Event,
    EventConfig,
    EventPatch,
    Organiser,
    PublicEvent,
    PublicTournament,
    Tournament,
    TournamentIn,
    TournamentPatch,
)
from . import gateways
from .validation import validation_details


def create_tournament(deps: Deps, organiser: Organiser, body: TournamentIn) -> Tournament:
    tournament = Tournament(id=new_id(), organiser_id=organiser.id, created_at=deps.clock(),
                            **body.model_dump())
    deps.repos.tournaments.create(tournament)
    return tournament


def own_tournament(deps: Deps, organiser: Organiser, tid: str) -> Tournament:
    tournament = deps.repos.tournaments.get(tid)
    # Someone else's tournament is reported exactly like a missing one: ids do not leak.
    if tournament is None or tournament.organiser_id != organiser.id:
        raise errors.NotFound("tournament not found")
    return tournament


def list_tournaments(deps: Deps, organiser: Organiser) -> list[Tournament]:
    return sorted(deps.repos.tournaments.list_for_organiser(organiser.id), key=lambda t: t.id)


def update_tournament(deps: Deps, organiser: Organiser, tid: str, patch: TournamentPatch) -> Tournament:
    tournament = own_tournament(deps, organiser, tid)
    changes = patch.model_dump(exclude_unset=True)
    if patch.payments is not None:   # platform mode: only providers whose account is ok (issue 40)
        gateways.check_offered(deps, organiser.id, patch.payments.providers)
    merged = tournament.model_dump() | changes
    try:
        TournamentIn.model_validate({k: merged[k] for k in TournamentIn.model_fields})
    except ValidationError as exc:
        raise errors.InvalidRequest("The tournament would not be valid.", validation_details(exc)) from None
    updated = Tournament.model_validate(merged | {"version": tournament.version + 1})
    deps.repos.tournaments.update(updated, tournament.version)
    return updated


def _localise(value: datetime | None, tz: str) -> datetime | None:
    """A time given without an offset is read in the tournament's time zone; stored in UTC."""
    if value is None:
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=ZoneInfo(tz))
    return value.astimezone(UTC)


def _normalise_times(config: EventConfig, tournament: Tournament) -> EventConfig:
    reg = config.registration
    reg.opens_at = _localise(reg.opens_at, tournament.timezone)
    reg.closes_at = _localise(reg.closes_at, tournament.timezone)
    config.fee.refund_until = _localise(config.fee.refund_until, tournament.timezone)
    return config


def create_event(deps: Deps, organiser: Organiser, tid: str, config: EventConfig) -> Event:
    tournament = own_tournament(deps, organiser, tid)
    event = Event(id=new_id(), tournament_id=tid, organiser_id=organiser.id,
                  config=_normalise_times(config, tournament), created_at=deps.clock())
    deps.repos.events.create(event)
    return event


def own_event(deps: Deps, organiser: Organiser, eid: str) -> Event:
    event = deps.repos.events.get(eid)
    if event is None or event.organiser_id != organiser.id:
        raise errors.NotFound("event not found")
    return event


def update_event(deps: Deps, organiser: Organiser, eid: str, patch: EventPatch) -> Event:
    event = own_event(deps, organiser, eid)
    if patch.version is not None and patch.version != event.version:
        raise errors.VersionConflict(f"the event is at version {event.version}, not {patch.version}")
    changes = patch.model_dump(exclude_unset=True, exclude={"version"}, mode="json")
    merged = event.config.model_dump(mode="json") | changes
    try:
        config = EventConfig.model_validate(merged)
    except ValidationError as exc:
        raise errors.InvalidRequest("The event configuration would not be valid.", validation_details(exc)) from None
    _check_locks(deps, event, config)
    tournament = deps.repos.tournaments.get(event.tournament_id)
    updated = event.model_copy(update={"config": _normalise_times(config, tournament), "version": event.version + 1})
    deps.repos.events.update(updated, event.version)
    return updated


def _check_locks(deps: Deps, event: Event, config: EventConfig) -> None:
    """What may no longer change, and why (stable codes the console words): the capacity below the places taken;
    the game or the entry kind once any entry exists (rosters and fees were taken by them); a stage already
    drawn keeps its format and scoring method (its rounds were made and scored by them)."""
    taken = event.counters.confirmed + event.counters.held
    if config.capacity < taken:
        raise errors.CapacityBelowTaken(
            f"名额不能少于已占用的 {taken} 个 · The capacity cannot go below the {taken} places already taken.",
            {"field": "capacity", "taken": taken, "asked": config.capacity})
    old = event.config
    for name in ("game", "entry"):
        if getattr(config, name) != getattr(old, name) and (taken + event.counters.waitlisted > 0
                                                             or deps.repos.entries.any_for_event(event.id)):
            raise errors.LockedOnceEntries(
                "已有报名，项目和报名方式不能再改 · Entries exist: the game and the entry kind can no longer change.",
                {"field": name, "entries": taken + event.counters.waitlisted})
    if not event.counters.drawn:
        return
    state = deps.repos.rounds.state(event.id)
    started = {r["stage"] for r in state.get("rounds", [])}
    for i in sorted(started):
        before = old.stages[i] if i < len(old.stages) else None
        after = config.stages[i] if i < len(config.stages) else None
        if before is None:
            continue
        if (after is None or after.format != before.format
                or after.scoring.method != before.scoring.method):
            raise errors.LockedOnceDrawn(
                f"第 {i + 1} 阶段已抽签，赛制和计分方式不能再改 · Stage {i + 1} is drawn: its format and scoring stay.",
                {"field": f"stages[{i}]", "stage": i})


def registration_state(config: EventConfig, now: datetime, drawn: bool = False, late_closed: bool = False) -> str:
    """`drawn`: the event's first round is drawn — registration is closed then unless late entries are on;
    `late_closed`: the last round a late entry may join is drawn — closed then all the same."""
    reg = config.registration
    if (drawn and not config.late_entries) or late_closed:
        return "closed"
    if reg.opens_at and now < reg.opens_at:
        return "not_yet_open"
    if reg.closes_at and now >= reg.closes_at:
        return "closed"
    return "open"


def _local_text(value: datetime | None, tz: str) -> str | None:
    return value.astimezone(ZoneInfo(tz)).strftime("%Y-%m-%d %H:%M") if value else None


def public_event(event: Event, tournament: Tournament, now: datetime) -> PublicEvent:
    c = event.config
    taken = event.counters.confirmed + event.counters.held
    return PublicEvent(
        id=event.id, name=c.name, game=c.game, entry=c.entry, capacity=c.capacity,
        places_left=max(0, c.capacity - taken), waitlist=c.waitlist, waitlisted=event.counters.waitlisted,
        fee=c.fee, currency=tournament.currency, registration_state=registration_state(c, now, event.counters.drawn,
                                                                                   event.counters.late_closed),
        opens_at=c.registration.opens_at, closes_at=c.registration.closes_at,
        opens_at_local=_local_text(c.registration.opens_at, tournament.timezone),
        closes_at_local=_local_text(c.registration.closes_at, tournament.timezone),
        eligibility=c.registration.eligibility.kind,
        stages=[{"name": s.name, "format": s.format, "rounds": s.rounds,
                 "scoring": s.scoring.method if s.scoring else None} for s in c.stages],
        prizes=c.prizes,
        mixed="pairs" if c.mixed_pairs else "team" if getattr(c, "mixed_team", False) else None,
        started=event.counters.drawn,
    )


def public_tournament(deps: Deps, tid: str) -> PublicTournament:
    tournament, events = deps.repos.tournaments.get_with_events(tid)
    if tournament is None:
        raise errors.NotFound("tournament not found")
    now = deps.clock()
    return PublicTournament(
        id=tournament.id, name=tournament.name, venue=tournament.venue, timezone=tournament.timezone,
        currency=tournament.currency, starts_on=tournament.starts_on, ends_on=tournament.ends_on,
        events=[public_event(e, tournament, now) for e in sorted(events, key=lambda e: e.id)],
        online_payment=gateways.hosted(deps, tournament) is not None,
        payment_providers=gateways.offered_providers(deps, tournament),
        retention_days=tournament.retention_days,
    )
