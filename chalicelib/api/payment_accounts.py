"""The organiser's own merchant accounts (issue 40, api.md v1.3): organiser only, secrets write-only."""
from __future__ import annotations

from typing import Annotated, Literal

from chalice import Blueprint
from pydantic import Field

from ..models import Out, Strict
from ..services import payment_accounts as svc
from .routing import route

bp = Blueprint(__name__)

_KEY = 8000   # a PEM private key is ~1.7 KB; a bound, not a format


class AccountIn(Strict):
    """The fields of every provider and mode (which ones apply: services/payment_accounts.py). Secrets are never
    answered back."""
    mode: str | None = Field(default=None, max_length=20, description="wechat_pay: partner | direct; alipay: "
                             "app_auth | direct; stripe: connect (default)")
    sub_mchid: str | None = Field(default=None, max_length=20, description="WeChat partner: the 特约商户's 子商户号")
    sub_appid: str | None = Field(default=None, max_length=40)
    mchid: str | None = Field(default=None, max_length=20, description="WeChat direct: 商户号")
    appid: str | None = Field(default=None, max_length=40)
    cert_serial_no: str | None = Field(default=None, max_length=64, description="secret (write-only)")
    apiv3_key: str | None = Field(default=None, max_length=64, description="secret (write-only)")
    private_key: str | None = Field(default=None, max_length=_KEY, description="secret (write-only)")
    public_key: str | None = Field(default=None, max_length=_KEY)
    public_key_id: str | None = Field(default=None, max_length=80)
    app_secret: str | None = Field(default=None, max_length=64, description="WeChat direct: the official "
                                   "account's AppSecret, for JSAPI's openid at its AppID (optional; write-only)")
    auth_app_id: str | None = Field(default=None, max_length=20, description="Alipay app_auth: the chamber's APPID "
                                    "(optional: the check learns it from the token; a different one fails the check)")
    app_auth_token: str | None = Field(default=None, max_length=200, description="secret (write-only)")
    app_private_key: str | None = Field(default=None, max_length=_KEY, description="secret (write-only)")
    alipay_public_key: str | None = Field(default=None, max_length=_KEY)
    sandbox: bool | None = None
    account: str | None = Field(default=None, max_length=64, description="Stripe Connect: acct_…")
    clear: list[Annotated[str, Field(min_length=1, max_length=40)]] | None = Field(
        default=None, max_length=8, description="optional secrets to erase (wechat_pay direct: app_secret, "
        "public_key); an optional secret neither sent nor named here is kept. A required secret or an answered "
        "setting: 400 payment_account_invalid, reason cannot_clear")


class AccountOut(Out):
    provider: str
    mode: str
    id: str
    public: dict = {}
    state: Literal["unchecked", "ok", "failed"]
    checked_at: str | None = None
    code: str | None = None
    secrets_set: list[str] | None = Field(default=None, description="the names of the secrets stored (never a "
                                          "value): the console offers to clear an optional one only when set; "
                                          "null for an account saved before the names were stored")


class AccountList(Out):
    accounts: list[AccountOut]
    offerable: list[str] = Field(default=[], description="what this organiser's tournaments may offer now: the "
                                 "desk's, the demo (local), and providers whose account is ok")
    retired: int = Field(default=0, description="accounts replaced or deleted but kept, sealed, for the refunds and "
                         "queries of the orders opened on them (never listed)")


class CheckOut(Out):
    state: Literal["unchecked", "ok", "failed"]
    checked_at: str
    code: str | None = None
    message: str = ""
    id: str | None = Field(default=None, description="the account's id as stored (Alipay app_auth: the auth_app_id "
                           "the token query named, when the organiser left it out)")


class Deleted(Out):
    deleted: str


@route(bp, "/organiser/payment-accounts", "GET", summary="The organiser's merchant accounts and their states "
       "(never a secret)", auth="organiser", response=AccountList, tag="payments", owner_only=True)
def list_accounts(ctx):
    return AccountList(**svc.list_accounts(ctx.deps, ctx.organiser.id))


@route(bp, "/organiser/payment-accounts/{provider}", "PUT", summary="Connect (or change) the account at a provider: "
       "state unchecked until checked", auth="organiser", body=AccountIn, response=AccountOut, tag="payments",
       owner_only=True, errors_=("payment_account_invalid", "not_found"))
def put_account(ctx, provider):
    return AccountOut(**svc.put_account(ctx.deps, ctx.organiser.id, provider, ctx.body.model_dump(exclude_none=True)))


@route(bp, "/organiser/payment-accounts/{provider}/check", "POST", summary="Ask the provider whether the account "
       "can take money (ok | failed, a code and words)", auth="organiser", response=CheckOut, tag="payments",
       owner_only=True, errors_=("not_found",))
def check_account(ctx, provider):
    return CheckOut(**svc.check_account(ctx.deps, ctx.organiser.id, provider))


@route(bp, "/organiser/payment-accounts/{provider}", "DELETE", summary="Disconnect the account: the provider is "
       "no longer offered for this organiser's tournaments", auth="organiser", response=Deleted, tag="payments",
       owner_only=True, errors_=("not_found",))
def delete_account(ctx, provider):
    svc.delete_account(ctx.deps, ctx.organiser.id, provider)
    return Deleted(deleted=provider)
