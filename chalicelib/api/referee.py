"""The referee's routes (api.md v1.1): arrivals (lateness), appeals (申诉) and prizes."""
from __future__ import annotations

from chalice import Blueprint

from ..models import (AppealDecisionIn, AppealFeeIn, AppealIn, Appeal, AppealList, ArrivalIn, ArrivalOut, DisqualifyIn, Entry,
                      PrizesOut, SubstitutionIn)
from ..services import disqualification as dq_svc
from ..services import prizes as prize_svc
from ..services import referee as svc
from ..services import results as res
from ..services.tournaments import own_event
from .routing import route

bp = Blueprint(__name__)
TAG = "referee"


def _organiser_actor(ctx) -> res.Actor:
    return res.Actor("organiser", ctx.principal.who)


@route(bp, "/events/{eid}/rounds/{n}/tables/{t}/arrival", "POST", summary="Record an arrival; the lateness rule applies",
       auth="organiser", body=ArrivalIn, response=ArrivalOut, tag=TAG, errors_=("already_confirmed", "arrival_in_future"))
def arrival(ctx, eid, n, t):
    own_event(ctx.deps, ctx.organiser, eid)
    return svc.record_arrival(ctx.deps, eid, int(n), int(t), ctx.body.entry_id, ctx.body.arrived_at,
                              _organiser_actor(ctx))


@route(bp, "/events/{eid}/rounds/{n}/tables/{t}/appeals", "POST", summary="Lodge an appeal (申诉) within the window",
       auth="table", body=AppealIn, response=Appeal, status=201, tag=TAG,
       errors_=("appeal_window_closed", "forbidden", "captain_consent_required", "players_consent_required"))
def lodge(ctx, eid, n, t):
    n, t = int(n), int(t)
    actor = res.resolve_actor(ctx.deps, eid, n, t, ctx.principal, ctx.header("x-table-code"), client=ctx.client)
    return svc.lodge_appeal(ctx.deps, eid, n, t, ctx.body.entry_id, ctx.body.text, actor,
                            captain_consent=ctx.body.captain_consent, players_agreed=ctx.body.players_agreed)


@route(bp, "/events/{eid}/appeals", "GET", summary="The event's appeals", auth="organiser", response=AppealList, tag=TAG)
def list_appeals(ctx, eid):
    own_event(ctx.deps, ctx.organiser, eid)
    return AppealList(appeals=svc.list_appeals(ctx.deps, eid))


def _appeal_tournament(deps, params) -> str:
    appeal = deps.repos.rounds.appeal(params["id"])
    event = deps.repos.events.get(appeal["event_id"]) if appeal else None
    return event.tournament_id if event else ""


@route(bp, "/appeals/{id}/fee", "POST", summary="Record the appeal fee paid at the desk", auth="organiser",
       body=AppealFeeIn, response=Appeal, tag=TAG, errors_=("conflict",), roles=("desk",), scope=_appeal_tournament)
def appeal_fee(ctx, id):
    return svc.record_appeal_fee(ctx.deps, ctx.organiser, id, ctx.body.method, _organiser_actor(ctx))


@route(bp, "/appeals/{id}/decision", "POST", summary="Decide an appeal; upheld: refund the fee, apply the result",
       auth="organiser", body=AppealDecisionIn, response=Appeal, tag=TAG,
       errors_=("conflict", "invalid_result", "version_conflict"), roles=(), scope=_appeal_tournament)
def appeal_decision(ctx, id):
    b = ctx.body
    return svc.decide_appeal(ctx.deps, ctx.organiser, id, b.outcome, b.ruling, b.result, _organiser_actor(ctx))


@route(bp, "/events/{eid}/prizes", "GET", summary="Prizes by final place (shrunk for small events, seed 003)",
       auth="organiser", response=PrizesOut, tag=TAG, roles=("desk",))
def prizes(ctx, eid):
    return prize_svc.event_prizes(ctx.deps, own_event(ctx.deps, ctx.organiser, eid))


@route(bp, "/events/{eid}/entries/{id}/disqualify", "POST", summary="Disqualify an entry (取消比赛资格): open tables "
       "to the opponents, not ranked, no prize", auth="organiser", body=DisqualifyIn, response=Entry, tag=TAG,
       errors_=("conflict", "not_found"), roles=())
def disqualify(ctx, eid, id):
    from .desk import _strip
    return _strip(dq_svc.disqualify(ctx.deps, ctx.organiser, eid, id, ctx.body))


@route(bp, "/events/{eid}/entries/{id}/substitutions", "POST", summary="A substitute between rounds (替补), approved by "
       "the chief referee; the roster keeps its history", auth="organiser", body=SubstitutionIn, response=Entry,
       status=201, tag=TAG, errors_=("substitution_not_allowed", "conflict", "not_found", "version_conflict"), roles=())
def substitution(ctx, eid, id):
    from ..services import substitutions
    from .desk import _strip
    return _strip(substitutions.substitute(ctx.deps, ctx.organiser, eid, id, ctx.body))
