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
