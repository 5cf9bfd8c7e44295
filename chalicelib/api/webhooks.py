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
# retries); Alipay wants the plain text "success". A direct account's notifications (issue 40) come to the URL naming
# its organiser (the adapter's notify_url_for), verified with that chamber's own keys.

@route(bp, "/webhooks/wechat-pay", "POST", summary="WeChat Pay API v3 notifications (platform-certificate signature, "
       "AES-256-GCM resource)", tag="payments", errors_=("invalid_signature", "stale_signature", "online_payment_off"))
def wechat_pay_webhook(ctx):
    return _wechat_pay(ctx, None)


@route(bp, "/webhooks/wechat-pay/{organiser_id}", "POST", summary="WeChat Pay notifications of an organiser's direct "
       "account (its own keys verify them)", tag="payments",
       errors_=("invalid_signature", "stale_signature", "not_found"))
def wechat_pay_account_webhook(ctx, organiser_id):
    return _wechat_pay(ctx, organiser_id)


def _wechat_pay(ctx, organiser_id):
    headers = {k: v for k, v in (ctx.request.headers or {}).items() if k.lower().startswith("wechatpay-")}
    outcome = svc.handle_provider_notification(ctx.deps, "wechat_pay", headers, ctx.request.raw_body or b"",
                                               organiser_id)
    return {"code": "SUCCESS", "message": outcome["status"]}


@route(bp, "/webhooks/alipay", "POST", summary="Alipay notifications (RSA2 sign verified with Alipay's public key)",
       tag="payments", errors_=("invalid_signature", "online_payment_off"))
def alipay_webhook(ctx):
    return _alipay(ctx, None)


@route(bp, "/webhooks/alipay/{organiser_id}", "POST", summary="Alipay notifications of an organiser's direct account "
       "(its own Alipay public key verifies them)", tag="payments", errors_=("invalid_signature", "not_found"))
def alipay_account_webhook(ctx, organiser_id):
    return _alipay(ctx, organiser_id)


def _alipay(ctx, organiser_id):
    svc.handle_provider_notification(ctx.deps, "alipay", {}, ctx.request.raw_body or b"", organiser_id)
    return Response(body="success", status_code=200, headers={"Content-Type": "text/plain; charset=utf-8"})
