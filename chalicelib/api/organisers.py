"""The signed-in organiser: who am I, and its API tokens (list, issue, revoke)."""
from __future__ import annotations

from chalice import Blueprint
from pydantic import Field

from ..models import Organiser, Out, Strict
from ..services import organisers as svc
from .routing import route

bp = Blueprint(__name__)


class NewTokenIn(Strict):
    label: str = Field(default="", max_length=100, description="what the token is for, e.g. 'results script'")


class TokenInfo(Out):
    id: str
    label: str
    parent: str = ""
    created_at: str
    current: bool = False


class NewToken(Out):
    id: str
    token: str


class TokenList(Out):
    tokens: list[TokenInfo]


class Revoked(Out):
    revoked: list[str]


@route(bp, "/organiser", "GET", summary="The signed-in organiser", auth="organiser", response=Organiser,
       tag="organiser")
def me(ctx):
    return ctx.organiser


@route(bp, "/organiser/tokens", "GET", summary="Every API token of this organiser (none of their secrets)",
       auth="organiser", response=TokenList, tag="organiser")
def list_tokens(ctx):
    return TokenList(tokens=svc.list_tokens(ctx.deps, ctx.organiser.id, ctx.token_id))


@route(bp, "/organiser/tokens", "POST", summary="Issue another token (e.g. for a second device); shown once",
       auth="organiser", body=NewTokenIn, response=NewToken, status=201, tag="organiser")
def new_token(ctx):
    record, secret = svc.issue_token(ctx.deps, ctx.organiser.id, ctx.token_id, ctx.body.label)
    return NewToken(id=record["id"], token=secret)


@route(bp, "/organiser/tokens/current", "DELETE", summary="Revoke the token used for this request (and its heirs)",
       auth="organiser", response=Revoked, tag="organiser")
def revoke_current(ctx):
    return Revoked(revoked=svc.revoke_token(ctx.deps, ctx.organiser.id, ctx.token_id))


@route(bp, "/organiser/tokens/{id}", "DELETE", summary="Revoke a token and every token issued from it",
       auth="organiser", response=Revoked, tag="organiser")
def revoke(ctx, id):
    return Revoked(revoked=svc.revoke_token(ctx.deps, ctx.organiser.id, id))
