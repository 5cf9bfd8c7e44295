"""Stripe webhook: signature verified with the raw body. 4xx only for a bad signature: whatever will never change
(a duplicate, an amount that does not match) is answered 2xx and logged, so Stripe does not retry it for days."""
from __future__ import annotations

from chalice import Blueprint

from ..services import payments as svc
from .routing import route

bp = Blueprint(__name__)


@route(bp, "/webhooks/stripe", "POST", summary="Stripe events (Stripe-Signature verified)", auth="stripe",
       tag="payments", errors_=("invalid_signature", "stale_signature", "online_payment_off"))
def stripe_webhook(ctx):
    raw = ctx.request.raw_body or b""
    return svc.handle_stripe_webhook(ctx.deps, raw, ctx.header("stripe-signature"))
