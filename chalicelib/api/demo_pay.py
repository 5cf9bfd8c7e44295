"""The demo provider's cashier (演示支付, the local stage only): a small page served by the local API that plays
the payment provider's site. 确认支付 / 取消 sign a notification with the installation's key and hand it to the
same path as every provider's (services.payments.handle_provider_notification verifies it through the port),
then send the payer back to the manage page. Every screen says it is a demo. On AWS there is no demo adapter
(payments/setup.demo_provider): these routes answer 404."""
from __future__ import annotations

import html

from chalice import Blueprint, Response

from .. import errors
from ..services import payments as svc
from .routing import route

bp = Blueprint(__name__)
TAG = "payments"


def _cashier(ctx):
    gw = ctx.deps.providers.get("demo")
    if gw is None:
        raise errors.NotFound("演示支付只在本地运行时提供 · The demo cashier exists on the local stage only.")
    return gw


def _page(body: str, status: int = 200, go: str | None = None) -> Response:
    from ..config import get_settings
    site = get_settings().public_url or get_settings().site_url
    # The API's own policy forbids forms; this page posts to itself and is then sent back to the site.
    csp = (f"default-src 'none'; style-src 'unsafe-inline'; form-action 'self' {site.rstrip('/')}; "
           "frame-ancestors 'none'; base-uri 'none'")
    headers = {"Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store", "Content-Security-Policy": csp}
    if go:
        headers["Location"] = go
    return Response(body=body, status_code=status, headers=headers)


STYLE = """body{font-family:system-ui,'PingFang SC','Microsoft YaHei',sans-serif;margin:0;background:#f5f5f5;color:#222}
.demo{background:#b45309;color:#fff;padding:10px 16px;font-weight:600;text-align:center}
main{max-width:420px;margin:24px auto;background:#fff;border-radius:12px;padding:20px 20px 24px;
box-shadow:0 1px 4px rgba(0,0,0,.08)}h1{font-size:18px;margin:0 0 4px}.amount{font-size:32px;font-weight:700;
margin:16px 0}.muted{color:#666;font-size:14px}form{display:inline}button{font-size:16px;padding:10px 22px;
border-radius:8px;border:1px solid #ccc;background:#fff;margin:8px 8px 0 0}button.pay{background:#07c160;
border-color:#07c160;color:#fff}a{color:#1677ff}"""


def _html(title: str, inner: str) -> str:
    return (f'<!doctype html><html lang="zh-CN"><head><meta charset="utf-8"><meta name="viewport" '
            f'content="width=device-width,initial-scale=1"><title>{html.escape(title)}</title><style>{STYLE}</style>'
            f'</head><body><div class="demo" role="alert">演示支付 · 不会真实扣款 — Demo payment: no money moves</div>'
            f'<main>{inner}</main></body></html>')


@route(bp, "/demo-pay/{token}", "GET", summary="The demo provider's cashier page (local stage only; HTML)", tag=TAG,
       raw=True)
def demo_cashier(ctx, token):
    from ..publish.money_text import money_minor_text
    gw = _cashier(ctx)
    payment_id, order = gw.order_of(token)
    if order is None:
        return _page(_html("演示支付", "<h1>演示订单已失效</h1><p class='muted'>The demo order is no longer open "
                                   "(the local API restarted, or it expired). 请回到报名页重新付款。</p>"), 404)
    amount = f"{money_minor_text(order['amount'], order['currency'], 'zh')}"
    back = sum(order.get("refunds", {}).values())
    lines = "".join(f"<li>{html.escape(text)}</li>" for text, _ in order.get("lines") or [])
    head = (f"<h1>演示收银台 · Demo cashier</h1><p class='muted'>{html.escape(order.get('description', ''))}</p>"
            f"<ul class='muted'>{lines}</ul><div class='amount'>{html.escape(amount)}</div>")
    if order["status"] == "open":
        action = f"/demo-pay/{html.escape(token)}"
        body = (head + f"<form method='post' action='{action}/pay'><button class='pay' type='submit'>确认支付 · "
                f"Pay (demo)</button></form><form method='post' action='{action}/cancel'><button type='submit'>"
                "取消 · Cancel</button></form><p class='muted'>这是演示：点“确认支付”不会扣款，报名会像真实付款一样确认。"
                "<br>This is a demo: paying here moves no money; the entry is confirmed as by a real payment.</p>")
    else:
        said = "已付款 · Paid (demo)" if order["status"] == "complete" else "已关闭 · Closed"
        if back:
            said += f" · 已退款 {html.escape(money_minor_text(back, order['currency'], 'zh'))} · Refunded (demo)"
        body = head + f"<p><b>{said}</b></p><p><a href='{html.escape(order['return_url'])}'>返回报名页 · Back</a></p>"
    return _page(_html("演示支付 · Demo payment", body))


def _act(ctx, token: str, kind: str) -> Response:
    gw = _cashier(ctx)
    payment_id, order = gw.order_of(token)
    if order is None:
        raise errors.NotFound("演示订单已失效 · The demo order is no longer open.")
    if kind == "paid":
        gw.pay(payment_id)
    else:
        gw.cancel(payment_id)
    # As a provider would: a signed notification to the platform's notification path, verified there.
    headers, body = gw.notification(payment_id, kind)
    svc.handle_provider_notification(ctx.deps, "demo", headers, body)
    go = order["return_url"] if kind == "paid" else order["cancel_url"]
    return _page(_html("演示支付", f"<p><a href='{html.escape(go)}'>返回报名页 · Back</a></p>"), 303, go=go)


@route(bp, "/demo-pay/{token}/pay", "POST", summary="Demo cashier: 确认支付 (signed notification; local stage only)",
       tag=TAG, raw=True, errors_=("not_found", "conflict"))
def demo_pay(ctx, token):
    return _act(ctx, token, "paid")


@route(bp, "/demo-pay/{token}/cancel", "POST", summary="Demo cashier: 取消 (signed notification; local stage only)",
       tag=TAG, raw=True, errors_=("not_found", "conflict"))
def demo_cancel(ctx, token):
    return _act(ctx, token, "closed")


@route(bp, "/webhooks/demo", "POST", summary="The demo provider's notifications (HMAC-SHA256 with the installation's "
       "key; local stage only)", tag=TAG, errors_=("invalid_signature", "stale_signature", "online_payment_off"))
def demo_webhook(ctx):
    headers = {k: v for k, v in (ctx.request.headers or {}).items() if k.lower() == "demo-signature"}
    return svc.handle_provider_notification(ctx.deps, "demo", headers, ctx.request.raw_body or b"")
