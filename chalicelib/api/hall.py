"""The hall's routes (api.md v1.2, issue 28): the round clock and announcements."""
from __future__ import annotations

from chalice import Response
from chalice import Blueprint

from ..models import Announcement, AnnouncementIn, AnnouncementList, ClockIn, ClockOut
from ..services import hall as svc
from .routing import route

bp = Blueprint(__name__)
TAG = "hall"


@route(bp, "/events/{eid}/rounds/{n}/clock", "POST", summary="Start, pause, resume or extend the round clock",
       auth="organiser", body=ClockIn, response=ClockOut, tag=TAG, roles=(), errors_=("clock_state", "version_conflict"))
def run_clock(ctx, eid, n):
    return ClockOut(**svc.run_clock(ctx.deps, ctx.organiser, eid, int(n), ctx.body.action, ctx.body.minutes))


@route(bp, "/events/{eid}/rounds/{n}/clock", "GET", summary="The round clock as published", auth="organiser",
       response=ClockOut, tag=TAG, roles=("desk", "scorer"))
def get_clock(ctx, eid, n):
    return ClockOut(**svc.get_clock(ctx.deps, ctx.organiser, eid, int(n)))


@route(bp, "/tournaments/{tid}/announcements", "POST", summary="Announce to the hall board and the table phones",
       auth="organiser", body=AnnouncementIn, response=Announcement, status=201, tag=TAG, roles=())
def announce(ctx, tid):
    return Announcement(**svc.announce(ctx.deps, ctx.organiser, tid, ctx.body.text))


@route(bp, "/tournaments/{tid}/announcements", "GET", summary="The announcements shown in the hall", auth="organiser",
       response=AnnouncementList, tag=TAG, roles=("desk", "scorer"))
def list_announcements(ctx, tid):
    return AnnouncementList(announcements=svc.list_announcements(ctx.deps, ctx.organiser, tid))


def _announcement_tournament(deps, params) -> str:
    return deps.repos.hall.announcement_tournament(params["id"]) or ""


@route(bp, "/announcements/{id}", "DELETE", summary="Take an announcement down everywhere", auth="organiser",
       tag=TAG, status=204, roles=(), scope=_announcement_tournament)
def withdraw_announcement(ctx, id):
    svc.withdraw(ctx.deps, ctx.organiser, id)
    return Response(body="", status_code=204)
