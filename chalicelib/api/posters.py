"""Posters for WeChat groups: a PNG per tournament and per event, for the organiser to post (the published pages
carry the same images as their link cards)."""
from __future__ import annotations

from chalice import Blueprint, Response

from ..services import posters as svc
from ..services.tournaments import own_event, own_tournament
from .routing import route

bp = Blueprint(__name__)
TAG = "posters"


def _png(body: bytes, name: str) -> Response:
    return Response(body=body, status_code=200, headers={
        "Content-Type": "image/png", "Content-Disposition": f'inline; filename="{name}"',
        "Cache-Control": "private, max-age=60"})


@route(bp, "/tournaments/{tid}/poster.png", "GET", summary="The tournament's poster (PNG, QR code to its registration)",
       auth="organiser", tag=TAG, raw=True, roles=("desk",))
def tournament_poster(ctx, tid):
    tournament = own_tournament(ctx.deps, ctx.organiser, tid)
    _, events = ctx.deps.repos.tournaments.get_with_events(tid)
    return _png(svc.tournament_png(tournament, events), f"poster-{tid}.png")


@route(bp, "/events/{eid}/poster.png", "GET", summary="An event's poster (PNG: name, date, venue, fee, deadline, QR code)",
       auth="organiser", tag=TAG, raw=True, roles=("desk",))
def event_poster(ctx, eid):
    event = own_event(ctx.deps, ctx.organiser, eid)
    tournament = own_tournament(ctx.deps, ctx.organiser, event.tournament_id)
    return _png(svc.event_png(tournament, event), f"poster-{eid}.png")
