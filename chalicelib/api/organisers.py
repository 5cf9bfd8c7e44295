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
    kind: str = "api"              # "api" (scripts) or "session" (a signed-in device)
    label: str
    parent: str = ""
    created_at: str
    expires_at: int | None = None
    current: bool = False


class NewToken(Out):
    id: str
    token: str


class TokenList(Out):
    tokens: list[TokenInfo]


class Revoked(Out):
    revoked: list[str]
    staff_removed: list[str] = Field(default=[], description="staff links those tokens had created, ended with them")


class Me(Organiser):
    kind: str = "organiser"
    role: str = "owner"
    tournament_id: str | None = None
    staff_name: str = ""


@route(bp, "/organiser", "GET", summary="Who is signed in: the organiser, or a staff member with its role and tournament",
       auth="organiser", response=Me, tag="organiser", roles=("desk", "scorer"))
def me(ctx):
    p = ctx.principal
    return Me(**p.organiser.model_dump(), kind=p.kind, role=p.role, tournament_id=p.tournament_id, staff_name=p.name)


@route(bp, "/organiser/tokens", "GET", summary="Every API token of this organiser (none of their secrets)",
       auth="organiser", response=TokenList, tag="organiser", owner_only=True)
def list_tokens(ctx):
    return TokenList(tokens=svc.list_tokens(ctx.deps, ctx.organiser.id, ctx.token_id))


@route(bp, "/organiser/tokens", "POST", summary="Issue another token (e.g. for a second device); shown once",
       auth="organiser", body=NewTokenIn, response=NewToken, status=201, tag="organiser", owner_only=True)
def new_token(ctx):
    record, secret = svc.issue_token(ctx.deps, ctx.organiser.id, ctx.token_id, ctx.body.label)
    return NewToken(id=record["id"], token=secret)


@route(bp, "/organiser/tokens/current", "DELETE", summary="Revoke the token used for this request (and its heirs)",
       auth="organiser", response=Revoked, tag="organiser", owner_only=True)
def revoke_current(ctx):
    revoked, staff = svc.revoke_token(ctx.deps, ctx.organiser.id, ctx.token_id)
    return Revoked(revoked=revoked, staff_removed=staff)


@route(bp, "/organiser/sessions", "DELETE", summary="Sign out everywhere: every session, what they issued and the "
       "staff links they created", auth="organiser", response=Revoked, tag="organiser", owner_only=True)
def sign_out_everywhere(ctx):
    revoked, staff = svc.end_sessions(ctx.deps, ctx.organiser.id)
    return Revoked(revoked=revoked, staff_removed=staff)


@route(bp, "/organiser/tokens/{id}", "DELETE", summary="Revoke a token and every token issued from it",
       auth="organiser", response=Revoked, tag="organiser", owner_only=True)
def revoke(ctx, id):
    revoked, staff = svc.revoke_token(ctx.deps, ctx.organiser.id, id)
    return Revoked(revoked=revoked, staff_removed=staff)
