"""Public registration and the participant's manage link."""
from __future__ import annotations

from typing import Literal

from chalice import Blueprint
from pydantic import Field

from ..models import EntryPatch, EntryView, Out, RegistrationAnswer, RegistrationIn, Strict
from ..services import registration as svc
from .routing import route

bp = Blueprint(__name__)
TAG = "registration"


class CheckoutIn(Strict):
    """Without a provider: Stripe's Checkout, as before v1.2."""
    provider: Literal["stripe", "wechat_pay", "alipay"] | None = None
    channel: Literal["native", "jsapi", "h5", "page", "wap"] | None = None
    openid: str | None = Field(default=None, min_length=1, max_length=128, description="JSAPI: the payer's openid")


class CheckoutAnswer(Out):
    checkout_url: str | None = None                 # Stripe
    provider: str = "stripe"
    channel: str | None = None
    code_url: str | None = None                     # WeChat Pay Native: the QR code's content
    jsapi: dict | None = None                       # WeChat Pay JSAPI: WeixinJSBridge's chooseWXPay parameters
    h5_url: str | None = None                       # WeChat Pay H5: send the phone there
    pay_url: str | None = None                      # Alipay page / wap
    expires_at: str | None = None


@route(bp, "/events/{eid}/entries", "POST", summary="Register an entry", body=RegistrationIn,
       response=RegistrationAnswer, status=201, headers=("Idempotency-Key",), tag=TAG,
       errors_=("event_full", "registration_closed", "not_eligible", "roster_size", "phone_required",
                "idempotency_conflict", "payload_too_large"))
def register(ctx, eid):
    return svc.register(ctx.deps, eid, ctx.body, ctx.header("idempotency-key"))


@route(bp, "/entries/{id}", "GET", summary="An entry, by its manage link", auth="manage", response=EntryView, tag=TAG)
def get_entry(ctx, id):
    return svc.view(ctx.deps, svc.entry_for_token(ctx.deps, id, ctx.header("x-manage-token")))


@route(bp, "/entries/{id}", "PATCH", summary="Change roster or contact until the deadline", auth="manage",
       body=EntryPatch, response=EntryView, tag=TAG,
       errors_=("changes_closed", "roster_size", "phone_required", "version_conflict", "entry_closed"))
def patch_entry(ctx, id):
    entry = svc.entry_for_token(ctx.deps, id, ctx.header("x-manage-token"))
    return svc.view(ctx.deps, svc.update_entry(ctx.deps, entry, ctx.body))


@route(bp, "/entries/{id}", "DELETE", summary="Cancel (refund when paid and before the deadline)", auth="manage",
       response=EntryView, tag=TAG)
def cancel_entry(ctx, id):
    entry = svc.entry_for_token(ctx.deps, id, ctx.header("x-manage-token"))
    return svc.view(ctx.deps, svc.cancel_entry(ctx.deps, entry, reason="已取消 · Cancelled by the participant"))


@route(bp, "/entries/{id}/checkout", "POST", summary="Pay online for an entry holding a place", auth="manage",
       body=CheckoutIn, response=CheckoutAnswer, tag=TAG,
       errors_=("online_payment_off", "not_holding_place", "conflict", "payment_unavailable"))
def checkout(ctx, id):
    entry = svc.entry_for_token(ctx.deps, id, ctx.header("x-manage-token"))
    body = ctx.body
    if body.provider in (None, "stripe"):
        return CheckoutAnswer(checkout_url=svc.open_checkout(ctx.deps, entry))
    from ..services.payments import open_provider_checkout
    return CheckoutAnswer(**open_provider_checkout(ctx.deps, entry, body.provider, body.channel, body.openid,
                                                   client_ip=ctx.client))
