"""Which adapter took (or takes) a payment's money: the one place services choose a provider."""
from __future__ import annotations

from .. import errors
from ..bootstrap import Deps
from ..models import Payment

ONLINE = ("stripe", "wechat_pay", "alipay")


def gateway(deps: Deps, provider: str):
    """The configured adapter of `provider`, or None (cash and transfer have none)."""
    if provider == "stripe":
        return deps.payments
    return (deps.providers or {}).get(provider)


def refund(deps: Deps, payment: Payment, amount: int, part: str = "") -> str:
    """Sends `amount` back through the provider that took it; `part` names an entry of a shared payment."""
    gw = gateway(deps, payment.provider)
    if gw is None:
        raise errors.PaymentError(f"{payment.provider} is not configured: the refund cannot be sent.")
    if payment.provider == "stripe":
        return gw.refund(payment.payment_intent, amount, payment.id, part=part)
    return gw.refund(payment.payment_intent, amount, payment.id, part, total=payment.amount, currency=payment.currency)


def offered_online(deps: Deps, tournament) -> list[str]:
    """The tournament's online providers that can take money here (chosen by the organiser and configured)."""
    return [p for p in tournament.payments.providers if p in ONLINE and gateway(deps, p) is not None]


def check_choice(deps: Deps, tournament, provider: str, channel: str | None, openid: str | None):
    """The adapter for the payer's choice, or the 4xx saying why not (nothing written yet)."""
    gw = gateway(deps, provider)
    if gw is None or provider not in tournament.payments.providers:
        from .tournaments import offered_providers
        raise errors.ProviderNotOffered(f"{provider} is not offered for this tournament.",
                                        {"providers": offered_providers(deps, tournament)})
    if provider != "stripe" and channel not in gw.channels:
        raise errors.InvalidRequest(f"channel must be one of {', '.join(gw.channels)}.", {"field": "channel"})
    if channel == "jsapi" and not openid:
        raise errors.InvalidRequest("JSAPI needs the payer's openid.", {"field": "openid"})
    return gw


def start(deps: Deps, payment: Payment, *, description: str, lines: list[tuple[str, int]], return_url: str,
          cancel_url: str, expires_at, openid: str | None = None, client_ip: str | None = None) -> tuple[str, dict]:
    """Opens the payment's order at its provider: (the provider's reference, what the payer's page needs).
    Stripe's adapter keeps its own names (create_checkout); the others speak the port (payments/port.py)."""
    from datetime import timedelta
    gw = gateway(deps, payment.provider)
    if gw is None:
        raise errors.PaymentsOff(f"{payment.provider} is not configured.")
    if payment.provider == "stripe":
        # Stripe takes expires_at from 30 minutes on
        expires_at = max(expires_at, deps.clock() + timedelta(minutes=31))
        session_id, url = gw.create_checkout(
            payment_id=payment.id, entry_id=payment.entry_id, event_id=payment.event_id, amount=payment.amount,
            currency=payment.currency, description=description, lines=lines, success_url=return_url,
            cancel_url=cancel_url, expires_at=expires_at)
        return session_id, {"checkout_url": url, "expires_at": expires_at.isoformat()}
    started = gw.start(payment_id=payment.id, amount=payment.amount, currency=payment.currency,
                       description=description, channel=payment.channel, expires_at=expires_at,
                       return_url=return_url, openid=openid, client_ip=client_ip)
    return started.reference, {"expires_at": expires_at.isoformat(), **started.answer}
