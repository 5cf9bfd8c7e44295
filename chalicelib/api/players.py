"""Players (api.md v1.3 "Players"): sign-in by phone and SMS code, and "我的" — every registration and entry of
the phone across tournaments and organisers, the history, the profile, the export and the erasure."""
from __future__ import annotations

from chalice import Blueprint

from ..models.players import CodeIn, CodeSent, Erased, PlayerMe, PlayerPatch, PlayerSession, PlayerSignInIn
from ..services import limits
from ..services import players as svc
from .routing import route

bp = Blueprint(__name__)
TAG = "players"
TOKEN = ("X-Player-Token",)
WECHAT_SIGN_IN_PER_MINUTE = 30   # per client address, as the JSAPI openid's (api/wechat_oauth.py)


@route(bp, "/players/codes", "POST", summary="Send a 6-digit sign-in code by SMS (10 minutes, once)", body=CodeIn,
       response=CodeSent, status=202, tag=TAG, errors_=("rate_limited",))
def send_sign_in_code(ctx):
    return CodeSent(**svc.send_code(ctx.deps, ctx.body.phone, ctx.client, ctx.body.lang))


@route(bp, "/players/sign-in", "POST", summary="Sign in with the phone and its code, or inside WeChat with the "
       "official account's authorisation code (bound to a phone once: 409 wechat_phone_required gives the binding "
       "ticket to send with the phone and code): a 30-day player session", body=PlayerSignInIn, response=PlayerSession,
       tag=TAG, errors_=("unauthorized", "wechat_phone_required", "binding_ticket_invalid", "wechat_already_bound",
                         "wechat_code_invalid", "wechat_sign_in_off", "payment_unavailable", "rate_limited"))
def player_sign_in(ctx):
    body = ctx.body
    if body.wechat_code is not None:
        # each call spends one of the official account's API calls at WeChat: limited like /wechat-pay/openid
        limits.per_client(ctx.deps, "wechat-sign-in", ctx.client, WECHAT_SIGN_IN_PER_MINUTE)
        return PlayerSession(**svc.sign_in_wechat(ctx.deps, body.wechat_code))
    return PlayerSession(**svc.sign_in(ctx.deps, body.phone, body.code, body.binding_ticket))


@route(bp, "/players/me", "GET", summary="我的: the player, every registration and entry of its phone (any "
       "organiser, newest first, with what may be done now) and its history of places and points", response=PlayerMe,
       tag=TAG, headers=TOKEN, errors_=("unauthorized",))
def player_me(ctx):
    return PlayerMe(**svc.me(ctx.deps, ctx.header("x-player-token")))


@route(bp, "/players/me", "PATCH", summary="The player's name, e-mail, language and channels", body=PlayerPatch,
       response=PlayerMe, tag=TAG, headers=TOKEN, errors_=("unauthorized",))
def patch_player_me(ctx):
    return PlayerMe(**svc.update_me(ctx.deps, ctx.header("x-player-token"), ctx.body.model_dump(exclude_unset=True)))


@route(bp, "/players/me/export", "GET", summary="Everything the platform holds about this phone (JSON)", tag=TAG,
       headers=TOKEN, errors_=("unauthorized",))
def export_player_me(ctx):
    return svc.export(ctx.deps, ctx.header("x-player-token"))


@route(bp, "/players/me", "DELETE", summary="Erasure: the phone (and e-mail, openid) removed from every entry and "
       "registration of this phone; names and results stay. 409 while a tournament it is in is not over", tag=TAG,
       response=Erased, headers=TOKEN, errors_=("unauthorized", "tournament_not_finished"))
def erase_player_me(ctx):
    return Erased(**svc.erase(ctx.deps, ctx.header("x-player-token")))
