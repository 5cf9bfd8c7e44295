"""Inside WeChat, JSAPI pays with the payer's openid: the page sends the payer through WeChat's web
authorisation (silent, snsapi_base) and hands the returned one-use `code` here for the openid."""
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


class AuthorizeIn(Strict):
    return_to: str = Field(min_length=1, max_length=1000, description="the site's page WeChat sends the payer back to")


class AuthorizeAnswer(Out):
    url: str
    state: str


class OpenidIn(Strict):
    code: str = Field(min_length=1, max_length=256)


class OpenidAnswer(Out):
    openid: str


def _oauth(deps):
    gw = gateways.gateway(deps, "wechat_pay")
    if gw is None or not gw.oauth:   # no merchant values, or no official-account AppSecret (docs/payments.md)
        raise errors.PaymentsOff("WeChat Pay's JSAPI is not configured here (app_secret).")
    return gw


@route(bp, "/wechat-pay/authorize", "POST", summary="WeChat web authorisation URL (for JSAPI's openid)",
       body=AuthorizeIn, response=AuthorizeAnswer, tag=TAG, errors_=("online_payment_off", "rate_limited"))
def authorize(ctx):
    limits.per_client(ctx.deps, "wechat-authorize", ctx.client, AUTHORIZE_PER_MINUTE)
    gw = _oauth(ctx.deps)
    site = site_url()
    back = ctx.body.return_to
    if not back.startswith(site + "/"):   # only back to our own pages
        raise errors.InvalidRequest("return_to must be a page of this site.", {"field": "return_to"})
    state = secrets.token_urlsafe(12)
    return AuthorizeAnswer(url=gw.oauth_url(back, state), state=state)


@route(bp, "/wechat-pay/openid", "POST", summary="The payer's openid for WeChat's one-use authorisation code",
       body=OpenidIn, response=OpenidAnswer, tag=TAG,
       errors_=("online_payment_off", "wechat_code_invalid", "payment_unavailable", "rate_limited"))
def openid(ctx):
    limits.per_client(ctx.deps, "wechat-openid", ctx.client, OPENID_PER_MINUTE)
    return OpenidAnswer(openid=_oauth(ctx.deps).openid(ctx.body.code))
