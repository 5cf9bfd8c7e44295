"""Players' sign-in by phone and SMS code (api.md v1.3 "Players"); "我的" follows."""
from __future__ import annotations

from chalice import Blueprint

from ..models.players import CodeIn, CodeSent, PlayerOut, PlayerSession, PlayerSignInIn
from ..services import players as svc
from .routing import route

bp = Blueprint(__name__)
TAG = "players"


@route(bp, "/players/codes", "POST", summary="Send a 6-digit sign-in code by SMS (10 minutes, once)", body=CodeIn,
       response=CodeSent, status=202, tag=TAG, errors_=("rate_limited",))
def send_sign_in_code(ctx):
    return CodeSent(**svc.send_code(ctx.deps, ctx.body.phone, ctx.client, ctx.body.lang))


@route(bp, "/players/sign-in", "POST", summary="Sign in with the phone and its code: a 30-day player session",
       body=PlayerSignInIn, response=PlayerSession, tag=TAG, errors_=("unauthorized",))
def player_sign_in(ctx):
    return PlayerSession(**svc.sign_in(ctx.deps, ctx.body.phone, ctx.body.code))


@route(bp, "/players/me", "GET", summary="The signed-in player (X-Player-Token)", response=PlayerOut, tag=TAG,
       headers=("X-Player-Token",), errors_=("unauthorized",))
def player_me(ctx):
    return PlayerOut(**svc.me(ctx.deps, ctx.header("x-player-token")))
