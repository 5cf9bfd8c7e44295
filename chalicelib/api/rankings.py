"""Rankings across events (api.md v1.3 "Rankings", issue 42; docs/api-additions.md for what it adds)."""
from __future__ import annotations

import json

from chalice import Blueprint, Response

from ..models import CountEventIn, RankingIn
from ..services import ranking_pages as pages
from ..services import rankings as svc
from .routing import route

bp = Blueprint(__name__)
TAG = "rankings"


@route(bp, "/rankings", "POST", summary="Create a ranking across events (name, game, points table, rating)",
       auth="organiser", body=RankingIn, status=201, tag=TAG, roles=(), owner_only=True)
def create_ranking(ctx):
    return svc.create_ranking(ctx.deps, ctx.organiser, ctx.body)


@route(bp, "/rankings/{rid}", "GET", summary="A ranking of mine and the events it counts", auth="organiser",
       tag=TAG, roles=(), owner_only=True)
def get_ranking(ctx, rid):
    return {**svc.own_ranking(ctx.deps, ctx.organiser, rid), "events": ctx.deps.repos.rankings.events(rid)}


@route(bp, "/rankings/{rid}/events", "POST", summary="Count my event in a ranking (another organiser's ranking: "
       "this is my consent)", auth="organiser", body=CountEventIn, status=201, tag=TAG, roles=(), owner_only=True,
       errors_=("forbidden", "invalid_config"))
def count_event_in_ranking(ctx, rid):
    counted = svc.count_event(ctx.deps, ctx.organiser, rid, ctx.body.event_id)
    pages.publish_ranking(ctx.deps, rid, pages.event_players(ctx.deps, ctx.body.event_id))   # its players' pages only
    return counted


@route(bp, "/rankings/{rid}/rebuild", "POST", summary="Work the ranking out again from every counted event",
       auth="organiser", tag=TAG, roles=(), owner_only=True)
def rebuild_ranking(ctx, rid):
    done = svc.rebuild(ctx.deps, ctx.organiser, rid)
    return {**done, "published": pages.publish_ranking(ctx.deps, rid)}


@route(bp, "/rankings/{rid}/publish", "POST", summary="Publish the ranking's pages and its players' pages again",
       auth="organiser", tag=TAG, roles=(), owner_only=True)
def publish_ranking_pages(ctx, rid):
    svc.own_ranking(ctx.deps, ctx.organiser, rid)
    return pages.publish_ranking(ctx.deps, rid)


@route(bp, "/rankings/{rid}/export", "GET", summary="The open results file: one row per player and event "
       "(?format=csv|json; docs/rankings.md)", auth="organiser", tag=TAG, raw=True, roles=(), owner_only=True,
       query=(("format", {"type": "string", "enum": ["csv", "json"]}),))
def export_ranking(ctx, rid):
    rows = svc.export_rows(ctx.deps, ctx.organiser, rid)
    if (ctx.query("format") or "csv").lower() == "json":
        return Response(body=json.dumps({"fields": list(svc.EXPORT_FIELDS), "rows": rows}, ensure_ascii=False),
                        status_code=200, headers={"Content-Type": "application/json; charset=utf-8"})
    return Response(body=svc.export_csv(rows), status_code=200, headers={
        "Content-Type": "text/csv; charset=utf-8", "Content-Disposition": f'attachment; filename="ranking-{rid}.csv"'})


@route(bp, "/public/rankings/{rid}", "GET", summary="A ranking as published (?page=, 200 players a page)",
       tag=TAG, query=(("page", {"type": "integer", "minimum": 1}),))
def public_ranking_list(ctx, rid):
    page = ctx.query("page") or "1"
    return svc.public_ranking(ctx.deps, rid, int(page) if page.isdigit() and len(page) < 7 else 0)


@route(bp, "/public/players/{pid}", "GET", summary="A player's results and rankings (never a phone)", tag=TAG)
def public_player_page(ctx, pid):
    return svc.public_player(ctx.deps, pid)
