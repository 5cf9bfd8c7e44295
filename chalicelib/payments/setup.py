"""The payment providers' registry (bootstrap's `Deps.providers`): every adapter behind the one port.

The desk's (offline: cash, transfer) always. Stripe from its keys (environment, or Secrets Manager read once per
cold start); WeChat Pay and Alipay from the merchant's values: an environment variable holding JSON, a Secrets
Manager secret (AWS), or locally `.data/<provider>.json`. The demo provider (演示支付) on the local stage only.
A provider without values is absent: tournaments that list it cannot take its payments (checkout answers 409
online_payment_off)."""
from __future__ import annotations

import json
import logging
from pathlib import Path

log = logging.getLogger("cardgames.payments")
DATA = Path(__file__).resolve().parents[2] / ".data"


def _values(inline: str | None, arn: str | None, name: str) -> dict | None:
    text = inline
    if not text and arn:
        from ..config import secret_string
        text = secret_string(arn)
    if not text and (DATA / f"{name}.json").is_file():
        text = (DATA / f"{name}.json").read_text(encoding="utf-8")
    if not text:
        return None
    try:
        values = json.loads(text)
    except ValueError:
        log.error("%s values are not JSON: the provider is off", name)
        return None
    return values if isinstance(values, dict) else None


def china_providers(settings) -> dict:
    providers: dict = {}
    wx = _values(settings.wechat_pay_config, settings.wechat_pay_secret_arn, "wechat_pay")
    if wx:
        from .wechat_pay import WeChatPayGateway
        providers["wechat_pay"] = WeChatPayGateway(
            mchid=wx["mchid"], appid=wx["appid"], private_key=wx["private_key"], cert_serial_no=wx["cert_serial_no"],
            apiv3_key=wx["apiv3_key"], notify_url=wx.get("notify_url") or f"{settings.api_url}/webhooks/wechat-pay",
            cert_dir=wx.get("cert_dir"), public_key=wx.get("public_key"), public_key_id=wx.get("public_key_id"),
            app_secret=wx.get("app_secret"))
    ali = _values(settings.alipay_config, settings.alipay_secret_arn, "alipay")
    if ali:
        from .alipay import AlipayGateway
        providers["alipay"] = AlipayGateway(
            appid=ali["appid"], app_private_key=ali["app_private_key"], alipay_public_key=ali["alipay_public_key"],
            notify_url=ali.get("notify_url") or f"{settings.api_url}/webhooks/alipay", sandbox=bool(ali.get("sandbox")))
    return providers


def stripe_provider(settings):
    """Stripe when keys are configured, else None: entries pay another way or at the desk."""
    key, secret = settings.stripe_secret_key, settings.stripe_webhook_secret
    if not key and settings.stripe_secret_arn:
        from ..config import secret_string
        try:
            data = json.loads(secret_string(settings.stripe_secret_arn) or "{}")
        except ValueError:
            data = {}
        key, secret = data.get("secret_key"), data.get("webhook_secret")
    if not key:
        return None
    from .stripe_gateway import StripeGateway
    return StripeGateway(key, secret, api_base=settings.stripe_api_base)


def payment_providers(settings) -> dict:
    from .offline import desk_gateways
    providers = desk_gateways()
    stripe = stripe_provider(settings)
    if stripe is not None:
        providers["stripe"] = stripe
    providers.update(china_providers(settings))
    demo = demo_provider(settings)
    if demo is not None:
        providers["demo"] = demo
    return providers


def demo_provider(settings):
    """The demo cashier (演示支付) on the local stage only: never in an AWS stage, whatever else is set."""
    if settings.stage != "local":
        return None
    from .demo import DemoGateway
    return DemoGateway.for_installation(settings)
