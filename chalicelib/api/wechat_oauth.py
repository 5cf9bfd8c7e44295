"""Inside WeChat, JSAPI pays with the payer's openid: the page sends the payer through WeChat's web
authorisation (silent, snsapi_base) and hands the returned one-use `code` here for the openid. The openid must be
of the AppID the order is placed with: given the tournament, a chamber's direct account authorises at its own
AppID (its AppSecret); otherwise the platform's official account does (partner mode's sp_openid). The player
page (我的) reuses the same redirect, without a tournament, to sign in (POST /players/sign-in {"wechat_code"})."""
from __future__ import annotations

import secrets

from chalice import Blueprint
from pydantic import Field

from .. import errors
from ..models import Out, Strict
from ..services import gateways, limits
from ..services.links import site_url
from .routing import route

bp = Blueprint(__name__)
TAG = "payments"
# Per client address a minute: a payer needs one of each; a hall's Wi-Fi (one address) still fits many payers.
# /openid calls WeChat's API with the official account's secret each time: unbounded, anyone could spend its quota.
AUTHORIZE_PER_MINUTE = 30
OPENID_PER_MINUTE = 30


TOURNAMENT = Field(default=None, min_length=1, max_length=40,
                   description="the tournament paid for: its organiser's direct account authorises at its own AppID")


class AuthorizeIn(Strict):
    return_to: str = Field(min_length=1, max_length=1000, description="the site's page WeChat sends the payer back to")
    tournament_id: str | None = TOURNAMENT


class AuthorizeAnswer(Out):
    url: str
    state: str


class OpenidIn(Strict):
    code: str = Field(min_length=1, max_length=256)
    tournament_id: str | None = TOURNAMENT


class OpenidAnswer(Out):
    openid: str


def _oauth(deps, tournament_id: str | None):
    gw = gateways.wechat_oauth(deps, tournament_id)
    if gw is None:   # no merchant values, or no official-account AppSecret (docs/payments.md)
        raise errors.PaymentsOff("WeChat Pay's JSAPI is not configured here (app_secret).")
    return gw


@route(bp, "/wechat-pay/authorize", "POST", summary="WeChat web authorisation URL (for JSAPI's openid)",
       body=AuthorizeIn, response=AuthorizeAnswer, tag=TAG, errors_=("online_payment_off", "not_found", "rate_limited"))
def authorize(ctx):
    limits.per_client(ctx.deps, "wechat-authorize", ctx.client, AUTHORIZE_PER_MINUTE)
    gw = _oauth(ctx.deps, ctx.body.tournament_id)
    site = site_url()
    back = ctx.body.return_to
    if not back.startswith(site + "/"):   # only back to our own pages
        raise errors.InvalidRequest("return_to must be a page of this site.", {"field": "return_to"})
    state = secrets.token_urlsafe(12)
    return AuthorizeAnswer(url=gw.oauth_url(back, state), state=state)


@route(bp, "/wechat-pay/openid", "POST", summary="The payer's openid for WeChat's one-use authorisation code",
       body=OpenidIn, response=OpenidAnswer, tag=TAG,
       errors_=("online_payment_off", "not_found", "wechat_code_invalid", "payment_unavailable", "rate_limited"))
def openid(ctx):
    limits.per_client(ctx.deps, "wechat-openid", ctx.client, OPENID_PER_MINUTE)
    return OpenidAnswer(openid=_oauth(ctx.deps, ctx.body.tournament_id).openid(ctx.body.code))
