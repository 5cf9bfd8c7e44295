"""Organiser routes for tournaments and their events."""
from __future__ import annotations

from chalice import Blueprint

from ..models import Event, EventConfig, EventPatch, Out, SetupWarning, Tournament, TournamentIn, TournamentPatch
from ..services import tournaments as svc
from ..services.setup_warnings import event_warnings
from .routing import route

bp = Blueprint(__name__)
TAG = "tournaments"
READERS = ("desk", "scorer")   # every staff member sees its tournament and events


class TournamentList(Out):
    tournaments: list[Tournament]


class TournamentDetail(Tournament):
    events: list[Event] = []


class EventList(Out):
    events: list[Event]


class EventSaved(Event):
    warnings: list[SetupWarning] = []   # saved anyway; the console words each code (console.warn_<code>)


class TournamentSaved(Tournament):
    warnings: list[SetupWarning] = []   # its events' warnings after a change of dates, each with its event_id


def _event_saved(ctx, event: Event) -> EventSaved:
    tournament = ctx.deps.repos.tournaments.get(event.tournament_id)
    return EventSaved(**event.model_dump(), warnings=event_warnings(event.config, tournament, ctx.deps.clock()))


@route(bp, "/tournaments", "POST", summary="Create a tournament", auth="organiser", body=TournamentIn,
       response=Tournament, status=201, tag=TAG, owner_only=True)
def create_tournament(ctx):
    return svc.create_tournament(ctx.deps, ctx.organiser, ctx.body)


@route(bp, "/tournaments", "GET", summary="The organiser's tournaments (a staff member: its own)", auth="organiser",
       response=TournamentList, tag=TAG, roles=READERS)
def list_tournaments(ctx):
    found = svc.list_tournaments(ctx.deps, ctx.organiser)
    if ctx.principal.kind == "staff":
        found = [t for t in found if t.id == ctx.principal.tournament_id]
    return TournamentList(tournaments=found)


@route(bp, "/tournaments/{tid}", "GET", summary="A tournament with its events", auth="organiser",
       response=TournamentDetail, tag=TAG, roles=READERS)
def get_tournament(ctx, tid):
    tournament = svc.own_tournament(ctx.deps, ctx.organiser, tid)
    events = ctx.deps.repos.events.list_for_tournament(tid)
    return TournamentDetail(**tournament.model_dump(), events=sorted(events, key=lambda e: e.id))


@route(bp, "/tournaments/{tid}", "PATCH", summary="Change a tournament", auth="organiser", body=TournamentPatch,
       response=TournamentSaved, errors_=("version_conflict",), tag=TAG)
def patch_tournament(ctx, tid):
    tournament = svc.update_tournament(ctx.deps, ctx.organiser, tid, ctx.body)
    now = ctx.deps.clock()
    warnings = [w for e in sorted(ctx.deps.repos.events.list_for_tournament(tid), key=lambda e: e.id)
                for w in event_warnings(e.config, tournament, now, e.id)]
    return TournamentSaved(**tournament.model_dump(), warnings=warnings)


@route(bp, "/tournaments/{tid}/events", "POST", summary="Add an event", auth="organiser", body=EventConfig,
       response=EventSaved, status=201, tag=TAG)
def create_event(ctx, tid):
    return _event_saved(ctx, svc.create_event(ctx.deps, ctx.organiser, tid, ctx.body))


@route(bp, "/tournaments/{tid}/events", "GET", summary="A tournament's events", auth="organiser",
       response=EventList, tag=TAG, roles=READERS)
def list_events(ctx, tid):
    svc.own_tournament(ctx.deps, ctx.organiser, tid)
    return EventList(events=sorted(ctx.deps.repos.events.list_for_tournament(tid), key=lambda e: e.id))


@route(bp, "/events/{eid}", "GET", summary="An event with its counters", auth="organiser", response=Event, tag=TAG,
       roles=READERS)
def get_event(ctx, eid):
    return svc.own_event(ctx.deps, ctx.organiser, eid)


@route(bp, "/events/{eid}", "PATCH", summary="Change an event's configuration", auth="organiser", body=EventPatch,
       response=EventSaved, errors_=("version_conflict", "capacity_below_taken", "locked_once_entries", "locked_once_drawn"),
       tag=TAG)
def patch_event(ctx, eid):
    return _event_saved(ctx, svc.update_event(ctx.deps, ctx.organiser, eid, ctx.body))
