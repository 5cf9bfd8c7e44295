"""Stripe webhook: signature verified with the raw body. 4xx only for a bad signature: whatever will never change
(a duplicate, an amount that does not match) is answered 2xx and logged, so Stripe does not retry it for days."""
from __future__ import annotations

from chalice import Blueprint, Response

from ..services import payments as svc
from .routing import route

bp = Blueprint(__name__)


@route(bp, "/webhooks/stripe", "POST", summary="Stripe events (Stripe-Signature verified)", auth="stripe",
       tag="payments", errors_=("invalid_signature", "stale_signature", "online_payment_off"))
def stripe_webhook(ctx):
    raw = ctx.request.raw_body or b""
    return svc.handle_stripe_webhook(ctx.deps, raw, ctx.header("stripe-signature"))


# v1.2 China's providers: the same rule. WeChat Pay wants {"code": "SUCCESS"} (anything else, or a 4xx/5xx, and it
# retries); Alipay wants the plain text "success".

@route(bp, "/webhooks/wechat-pay", "POST", summary="WeChat Pay API v3 notifications (platform-certificate signature, "
       "AES-256-GCM resource)", tag="payments", errors_=("invalid_signature", "stale_signature", "online_payment_off"))
def wechat_pay_webhook(ctx):
    headers = {k: v for k, v in (ctx.request.headers or {}).items() if k.lower().startswith("wechatpay-")}
    outcome = svc.handle_provider_notification(ctx.deps, "wechat_pay", headers, ctx.request.raw_body or b"")
    return {"code": "SUCCESS", "message": outcome["status"]}


@route(bp, "/webhooks/alipay", "POST", summary="Alipay notifications (RSA2 sign verified with Alipay's public key)",
       tag="payments", errors_=("invalid_signature", "online_payment_off"))
def alipay_webhook(ctx):
    svc.handle_provider_notification(ctx.deps, "alipay", {}, ctx.request.raw_body or b"")
    return Response(body="success", status_code=200, headers={"Content-Type": "text/plain; charset=utf-8"})
