"""The signed-in organiser: who am I, and its tokens."""
from __future__ import annotations

from chalice import Blueprint

from ..models import Organiser, Out
from ..services import organisers as svc
from .routing import route

bp = Blueprint(__name__)


class NewToken(Out):
    token: str


@route(bp, "/organiser", "GET", summary="The signed-in organiser", auth="organiser", response=Organiser,
       tag="organiser")
def me(ctx):
    return ctx.organiser


@route(bp, "/organiser/tokens", "POST", summary="Issue another token (e.g. for a second device)",
       auth="organiser", response=NewToken, status=201, tag="organiser")
def new_token(ctx):
    return NewToken(token=svc.issue_token(ctx.deps, ctx.organiser.id))


@route(bp, "/organiser/tokens/current", "DELETE", summary="Revoke the token used for this request",
       auth="organiser", tag="organiser")
def revoke_current(ctx):
    token = ctx.header("authorization").partition(" ")[2].strip()
    svc.revoke_token(ctx.deps, token)
    return {"revoked": True}
