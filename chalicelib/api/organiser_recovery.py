"""The organiser's password reset by SMS code (忘记密码) and the account's phone for it (issue 41 item 4)."""
from __future__ import annotations

from typing import Literal

from chalice import Blueprint
from pydantic import Field

from ..models import Out, Strict
from ..services import organiser_recovery as svc
from .routing import route

bp = Blueprint(__name__)
TAG = "staff"   # beside /auth/sign-in


class ResetAskIn(Strict):
    login: str = Field(min_length=1, max_length=200, description="the account's phone number or e-mail")
    lang: Literal["zh-CN", "en", "vi"] | None = None


class ResetIn(Strict):
    login: str = Field(min_length=1, max_length=200)
    code: str = Field(min_length=1, max_length=12, description="the 6 digits sent by SMS")
    password: str = Field(min_length=1, max_length=200, description="the new password (at least 8 characters)")


class PhoneAskIn(Strict):
    phone: str = Field(min_length=1, max_length=30)
    lang: Literal["zh-CN", "en", "vi"] | None = None


class PhoneIn(Strict):
    phone: str = Field(min_length=1, max_length=30)
    code: str = Field(min_length=1, max_length=12)


class CodeAsked(Out):
    retry_after: int = Field(description="seconds before another code may be asked for")


class ResetDone(Out):
    reset: bool = True


class AccountPhone(Out):
    phone_masked: str | None = None


@route(bp, "/auth/password-reset", "POST", summary="Forgot the password: a code by SMS to the account's phone "
       "(the same answer whether or not the account exists)", body=ResetAskIn, response=CodeAsked, status=202,
       tag=TAG, errors_=("rate_limited",))
def ask_reset(ctx):
    return CodeAsked(**svc.request_reset(ctx.deps, ctx.body.login, ctx.client, ctx.body.lang))


@route(bp, "/auth/password-reset/confirm", "POST", summary="The code and a new password: every session of the "
       "account ends", body=ResetIn, response=ResetDone, tag=TAG, errors_=("unauthorized",))
def confirm_reset(ctx):
    return ResetDone(**svc.confirm_reset(ctx.deps, ctx.body.login, ctx.body.code, ctx.body.password))


@route(bp, "/organiser/phone", "GET", summary="The account's phone for a password reset (masked)", auth="organiser",
       response=AccountPhone, tag="organiser", owner_only=True)
def account_phone(ctx):
    from ..messages.record import masked
    phone = svc.account_phone(ctx.deps, ctx.organiser.id)
    return AccountPhone(phone_masked=masked(phone) if phone else None)


@route(bp, "/organiser/phone/code", "POST", summary="A code by SMS to the phone the account is to use",
       auth="organiser", body=PhoneAskIn, response=CodeAsked, status=202, tag="organiser", owner_only=True,
       errors_=("rate_limited",))
def ask_phone_code(ctx):
    return CodeAsked(**svc.request_phone_code(ctx.deps, ctx.organiser, ctx.body.phone, ctx.client, ctx.body.lang))


@route(bp, "/organiser/phone", "PUT", summary="The account's phone, confirmed by its code", auth="organiser",
       body=PhoneIn, response=AccountPhone, tag="organiser", owner_only=True, errors_=("unauthorized",))
def set_phone(ctx):
    return AccountPhone(**svc.confirm_phone(ctx.deps, ctx.organiser, ctx.body.phone, ctx.body.code))
