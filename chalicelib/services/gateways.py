"""Which adapter took (or takes) a payment's money: the one place services find a provider.

Every provider — Stripe, WeChat Pay, Alipay, the desk (cash, transfer) and the local stage's demo — speaks the
payments port (payments/port.py) and comes from the registry built in bootstrap (`Deps.providers`). Nothing
here or in the services asks which provider it is: what differs is said by the adapter (`online`, `channels`).

Each chamber's own merchant account (issue 40, payments/accounts.py): the registry holds the platform's adapter;
a tournament's money goes through the adapter bound to its organiser's account at that provider (`for_account`).
A new order needs that account in state ok; an order already open (query, close, refund, notifications) goes
through the account it was opened on: the organiser's account now, or — replaced or deleted since — that account
as it was, kept sealed (store/payment_accounts.py `retired`). With no account of that provider, the installation's own keys take the money in
a single-chamber installation (PAYMENT_ACCOUNTS=single, the v1.2 behaviour and the local default) and nothing
does on a platform (PAYMENT_ACCOUNTS=platform, every AWS stage).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .. import errors
if TYPE_CHECKING:   # the type only: the composition root (bootstrap) imports the services, not the reverse
    from ..bootstrap import Deps
from ..models import Payment
from ..payments.accounts import AccountAware, PaymentAccount
from ..payments.port import Notification, Provider

# The providers that take money for a chamber through its own account (the desk's and the demo's take none)
ACCOUNT_PROVIDERS = ("wechat_pay", "alipay", "stripe")


def gateway(deps: Deps, provider: str) -> Provider | None:
    """The registered adapter of `provider`, or None (not configured here)."""
    return (deps.providers or {}).get(provider)


def online(deps: Deps, provider: str) -> Provider | None:
    """The adapter when it moves money itself (not the desk's cash and transfer), else None."""
    gw = gateway(deps, provider)
    return gw if gw is not None and gw.online else None


def platform_mode() -> bool:
    from ..config import get_settings
    return get_settings().payment_accounts == "platform"


def account(deps: Deps, organiser_id: str, provider: str, *, with_secrets: bool = True) -> PaymentAccount | None:
    """The organiser's account at `provider` (secrets opened, in memory only, only when asked), or None."""
    if provider not in ACCOUNT_PROVIDERS:
        return None
    return deps.repos.payment_accounts.get(organiser_id, provider, with_secrets=with_secrets)


def takes_new_orders(deps: Deps, organiser_id: str, provider: str) -> bool:
    """Whether an order at `provider` could be opened for this organiser now — decided without opening the
    account's secrets (a public page's offers must not cost a KMS decrypt, nor break when a seal will not open)."""
    gw = online(deps, provider)
    if gw is None:
        return False
    if provider not in ACCOUNT_PROVIDERS:
        return True
    acct = account(deps, organiser_id, provider, with_secrets=False)
    if acct is None:
        return not platform_mode()
    return acct.state == "ok" and isinstance(gw, AccountAware)


def _bound_account(deps: Deps, organiser_id: str, provider: str, *, new_order: bool
                   ) -> tuple[Provider | None, str | None]:
    """(adapter, the organiser's account id it speaks for — None: the platform's own keys)."""
    gw = online(deps, provider)
    if gw is None or provider not in ACCOUNT_PROVIDERS:
        return gw, None
    acct = account(deps, organiser_id, provider)
    if acct is None:
        return (None if platform_mode() else gw), None
    if (new_order and acct.state != "ok") or not isinstance(gw, AccountAware):
        return None, None
    return gw.for_account(acct), acct.id


def _bound(deps: Deps, organiser_id: str, provider: str, *, new_order: bool) -> Provider | None:
    return _bound_account(deps, organiser_id, provider, new_order=new_order)[0]


def for_tournament(deps: Deps, tournament, provider: str) -> Provider | None:
    """The online adapter that takes this tournament's new orders at `provider`, or None (it cannot here)."""
    return _bound(deps, tournament.organiser_id, provider, new_order=True)


def wechat_oauth(deps: Deps, tournament_id: str | None = None) -> Provider | None:
    """The WeChat Pay adapter whose official account authorises a payer (JSAPI's openid) or a player: the
    platform's, or — for a tournament — the one its new orders go through, since a JSAPI order's openid must be
    of the appid the order is placed with: a direct account's own AppID (+ its AppSecret), the platform's for a
    partner one (sp_openid). None when that account cannot authorise (no AppSecret)."""
    if tournament_id is None:
        gw = gateway(deps, "wechat_pay")
    else:
        tournament = deps.repos.tournaments.get(tournament_id)
        if tournament is None:
            raise errors.NotFound("tournament not found")
        gw = for_tournament(deps, tournament, "wechat_pay")
    return gw if gw is not None and getattr(gw, "oauth", False) else None


# What a tournament may name (models.tournaments.ProviderName), in the order the console lists them
_ALL = ("wechat_pay", "alipay", "stripe", "demo", "offline")


def offerable(deps: Deps, organiser_id: str) -> list[str]:
    """What this organiser's tournaments may offer now: the desk's, the demo (local), and each online provider
    that would take a new order (its account ok; single-chamber: or the installation's keys, with no account)."""
    names = [n for n in _ALL if n in (deps.providers or {})]
    return [n for n in names if not gateway(deps, n).online or takes_new_orders(deps, organiser_id, n)]


def check_offered(deps: Deps, organiser_id: str, providers: list[str]) -> None:
    """A platform's tournament names only providers its organiser may offer (409 provider_not_offered names
    them); a single chamber's may name any (what it cannot take is left out when paying, as in v1.2)."""
    if not platform_mode():
        return
    can = offerable(deps, organiser_id)
    missing = [p for p in providers if p not in can and p in ACCOUNT_PROVIDERS]
    if missing:
        raise errors.ProviderNotOffered(f"{', '.join(missing)}: 先在「收款账户」接入并检查通过 · connect and check the "
                                        "account first.", {"providers": can, "missing": missing})


def organiser_of(deps: Deps, payment: Payment) -> str | None:
    """The organiser whose tournament the payment is for (None: its event is gone)."""
    _, tournament = deps.repos.events.get_with_tournament(payment.event_id)
    return tournament.organiser_id if tournament is not None else None


def for_organiser_notifications(deps: Deps, organiser_id: str, provider: str) -> Provider | None:
    """The adapter that verifies what the provider posts to the URL naming this organiser (`notify_url_for`: a
    direct account's notifications, signed and encrypted with the chamber's own keys): the one bound to its
    account now, whatever the account's state (an order already open is still paid and refunded). None: the
    organiser has no account there (nothing of its can be verified)."""
    gw = online(deps, provider)
    if gw is None or provider not in ACCOUNT_PROVIDERS or not isinstance(gw, AccountAware):
        return None
    acct = account(deps, organiser_id, provider)
    if acct is None:
        return None
    try:
        return gw.for_account(acct)
    except errors.InvalidRequest:   # an account missing what its mode needs: nothing can be verified with it
        return None


def notification_adapters(deps: Deps, organiser_id: str, provider: str) -> list[Provider]:
    """What may verify a notification posted to the URL naming this organiser: the adapter bound to its account
    now (`for_organiser_notifications`), then those bound to the accounts it replaced or deleted (an order opened
    on one is still paid, closed or refunded, and told so in that account's keys)."""
    gw = online(deps, provider)
    if gw is None or provider not in ACCOUNT_PROVIDERS or not isinstance(gw, AccountAware):
        return []
    now = for_organiser_notifications(deps, organiser_id, provider)
    out = [now] if now is not None else []
    for acct in deps.repos.payment_accounts.retired_all(organiser_id, provider):
        try:
            out.append(gw.for_account(acct))
        except errors.InvalidRequest:
            continue
    return out


def for_payment_account(deps: Deps, payment: Payment, *, retired: bool = True) -> tuple[Provider | None, str | None]:
    """(adapter, account id) of a payment's order: the registry's for the desk; an order already opened goes
    through the account it was opened on — the organiser's now, or the one it replaced or deleted since, kept
    sealed (never another account's: no adapter when that one is not kept); one not opened yet through its
    organiser's account now. `retired=False`: not through a retired account (an order is never opened on one)."""
    gw = gateway(deps, payment.provider)
    if gw is None or not gw.online or payment.provider not in ACCOUNT_PROVIDERS:
        return gw, None
    if payment.session_id and payment.account is None:
        return gw, None   # opened on the platform's own keys (v1.2, a single chamber's installation)
    oid = organiser_of(deps, payment)
    if oid is None:
        return None, None
    bound, account_id = _bound_account(deps, oid, payment.provider, new_order=False)
    if payment.session_id and account_id != payment.account:
        if not retired:
            return None, None
        return _retired(deps, gw, oid, payment.provider, payment.account), payment.account
    return bound, account_id


def _retired(deps: Deps, gw: Provider, organiser_id: str, provider: str, account_id: str | None) -> Provider | None:
    """The adapter bound to a replaced or deleted account of the organiser, kept for its orders; None if not kept."""
    if not account_id or not isinstance(gw, AccountAware):
        return None
    acct = deps.repos.payment_accounts.retired(organiser_id, provider, account_id)
    if acct is None:
        return None
    try:
        return gw.for_account(acct)
    except errors.InvalidRequest:
        return None


def for_payment(deps: Deps, payment: Payment) -> Provider | None:
    return for_payment_account(deps, payment)[0]


def notification_account_matches(deps: Deps, payment: Payment, note: Notification) -> bool:
    """A verified notification is for the account the payment's order was opened on (None: the platform's own
    keys) — one naming another organiser's account never touches this payment."""
    if payment.provider not in ACCOUNT_PROVIDERS:
        return True
    gw = gateway(deps, payment.provider)
    named = gw.account_of(note) if isinstance(gw, AccountAware) else note.account
    if payment.session_id:
        return named == payment.account
    oid = organiser_of(deps, payment)
    acct = account(deps, oid, payment.provider, with_secrets=False) if oid else None
    return named == (acct.id if acct is not None else None)


def refund(deps: Deps, payment: Payment, amount: int, part: str = "") -> str:
    """Sends `amount` back through the provider that took it; `part` names an entry of a shared payment."""
    gw = for_payment(deps, payment)
    if gw is None:
        raise errors.PaymentError(f"{payment.provider} is not configured: the refund cannot be sent.")
    return gw.refund(payment.payment_intent, amount, payment.id, part, total=payment.amount, currency=payment.currency)


def offered_online(deps: Deps, tournament) -> list[str]:
    """The tournament's online providers that can take money here (chosen by the organiser and configured)."""
    return [p for p in tournament.payments.providers if takes_new_orders(deps, tournament.organiser_id, p)]


def offered_providers(deps: Deps, tournament) -> list[str]:
    """The tournament's providers that can take money here (registered; online ones through an account that
    may take them), in the organiser's order."""
    return [p for p in tournament.payments.providers
            if gateway(deps, p) is not None
            and (not gateway(deps, p).online or takes_new_orders(deps, tournament.organiser_id, p))]


def hosted(deps: Deps, tournament) -> str | None:
    """The tournament's first online provider with one hosted page (no channel to choose: Stripe, the demo
    cashier): its order is opened as soon as an entry holds a place, and a checkout that names no provider is
    its. None: the payer picks a provider and channel (WeChat Pay, Alipay) or pays at the desk."""
    return next((p for p in offered_online(deps, tournament) if not online(deps, p).channels), None)


def check_choice(deps: Deps, tournament, provider: str | None, channel: str | None, openid: str | None):
    """(provider, channel, adapter) for the payer's choice — no provider named: the tournament's hosted page —
    or the 4xx saying why not (nothing written yet)."""
    if provider is None:
        provider = hosted(deps, tournament)
        if provider is None:
            raise errors.PaymentsOff(details={"providers": offered_providers(deps, tournament)})
    gw = for_tournament(deps, tournament, provider) if provider in tournament.payments.providers else None
    if gw is None:
        raise errors.ProviderNotOffered(f"{provider} is not offered for this tournament.",
                                        {"providers": offered_providers(deps, tournament)})
    if not gw.channels:
        return provider, None, gw
    if channel not in gw.channels:
        raise errors.InvalidRequest(f"channel must be one of {', '.join(gw.channels)}.", {"field": "channel"})
    if channel == "jsapi" and not openid:
        raise errors.InvalidRequest("JSAPI needs the payer's openid.", {"field": "openid"})
    return provider, channel, gw


def start(deps: Deps, payment: Payment, *, description: str, lines: list[tuple[str, int]], return_url: str,
          cancel_url: str, expires_at, openid: str | None = None, client_ip: str | None = None
          ) -> tuple[str, dict, str | None]:
    """Opens the payment's order at its provider: (the provider's reference, what the payer's page needs, the
    organiser's account it was opened on — None: the platform's own keys).
    Raises errors.PaymentError when the provider cannot be reached (each adapter bounds its wait)."""
    gw, account_id = for_payment_account(deps, payment, retired=False)
    if gw is None:
        raise errors.PaymentsOff(f"{payment.provider} is not configured.")
    started = gw.start(payment_id=payment.id, amount=payment.amount, currency=payment.currency,
                       description=description, channel=payment.channel, expires_at=expires_at,
                       return_url=return_url, cancel_url=cancel_url, now=deps.clock(), entry_id=payment.entry_id,
                       event_id=payment.event_id, lines=lines, openid=openid, client_ip=client_ip)
    return started.reference, {"expires_at": expires_at.isoformat(), **started.answer}, account_id


def open_order(deps: Deps, payment: Payment, *, description: str, lines: list[tuple[str, int]], return_url: str,
               cancel_url: str, expires_at, answer: dict | None = None, openid: str | None = None,
               client_ip: str | None = None, before_save=None) -> dict:
    """Opens a created (or failed) payment's order at its provider and records it pending: what the payer's page
    needs, `answer`'s fields first. A provider that cannot be reached leaves the payment failed (errors.PaymentError
    raised, the code saying why): the place stays held, and asking again opens the same order."""
    from .payment_events import dispatch
    try:
        reference, started, account_id = start(deps, payment, description=description, lines=lines, return_url=return_url,
                                   cancel_url=cancel_url, expires_at=expires_at, openid=openid, client_ip=client_ip)
    except errors.PaymentError as exc:
        failed, events = payment.fail(exc.code, deps.clock())
        try:
            deps.repos.payments.save(payment, failed)
            dispatch(deps, events)
        except errors.VersionConflict:   # a retry got further meanwhile: its state stands
            pass
        raise
    if before_save:
        before_save()
    whole = {**(answer or {}), **started}
    url = started.get("checkout_url") or started.get("pay_url") or started.get("h5_url") or started.get("code_url")
    opened, _ = payment.start(reference=reference, answer=whole, now=deps.clock(), checkout_url=url,
                              account=account_id)
    try:
        deps.repos.payments.save(payment, opened)
    except errors.VersionConflict:   # a retry saved the same order first
        pass
    return whole


def close(deps: Deps, payment: Payment) -> None:
    """Before another checkout: the old order must be unable to take money. A provider that cannot say so
    (unreachable, or the order was just paid) keeps the old one: the payer is told to wait for it."""
    gw = for_payment(deps, payment)
    if gw is None or not payment.session_id:
        return
    try:
        gw.expire(payment.session_id)
        return
    except errors.PaymentError:
        pass
    try:
        status = gw.session_status(payment.session_id)[0]
    except errors.PaymentError:
        status = "unknown"
    if status != "expired":
        raise errors.CheckoutInProgress("上一次付款尚未结束 · The previous checkout may still be paid; try again in a minute.")
