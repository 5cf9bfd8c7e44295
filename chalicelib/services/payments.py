"""Payments: the Stripe webhook, the idempotent confirm(), and the hold sweeper.

A payment is its own record: created → pending → confirmed / failed / cancelled / refunded.
Webhooks are idempotent per Stripe event id (recorded in the same transaction as the change) and
safe out of order: a completion arriving after the hold was released takes a free place again or
is refunded.
"""
from __future__ import annotations

import logging
from datetime import timedelta

from .. import errors
from ..bootstrap import Deps
from ..models import Entry, Payment
from ..models.entries import refunded
from . import gateways, registration
from .payment_events import dispatch

log = logging.getLogger("cardgames.payments")
SEEN_TTL = timedelta(days=30)


def handle_stripe_webhook(deps: Deps, payload: bytes, signature: str | None) -> dict:
    if deps.payments is None:
        raise errors.PaymentsOff("Online payment is off: no webhook is expected.")
    event = deps.payments.verify_webhook(payload, signature)
    if deps.repos.payments.stripe_event_seen(event.id):
        return {"status": "duplicate", "event": event.id}
    handlers = {
        "checkout.session.completed": _session_completed,
        "checkout.session.async_payment_succeeded": _session_completed,
        "checkout.session.expired": _session_expired,
        "checkout.session.async_payment_failed": _session_expired,
        "charge.refunded": _charge_refunded,
    }
    handler = handlers.get(event.type)
    if handler is None:
        return {"status": "ignored", "type": event.type}
    try:
        return handler(deps, event)
    except (errors.RuleViolation, errors.SessionMismatch, errors.NotFound, errors.EntryClosed,
            errors.NotHoldingPlace) as exc:
        # Will never change however often Stripe sends it (an amount that does not match, a session that is not
        # the payment's): answered 2xx so Stripe stops, and logged for the organiser to look at.
        log.error("stripe event %s (%s) not processed: %s", event.id, event.type, exc.code)
        return {"status": "not_processed", "code": exc.code}
    except errors.Conflict:
        if deps.repos.payments.stripe_event_seen(event.id):   # a concurrent delivery of the same event won
            return {"status": "duplicate", "event": event.id}
        raise   # a race with another change: nothing was written, Stripe's retry will find it settled


def _seen(deps: Deps, event_id: str | None) -> tuple[str, int] | None:
    """A handled Stripe event, remembered for 30 days (its redeliveries come within three)."""
    return (event_id, int((deps.clock() + SEEN_TTL).timestamp())) if event_id else None


def _payment_from_metadata(deps: Deps, obj: dict) -> Payment | None:
    payment_id = (obj.get("metadata") or {}).get("payment_id")
    return deps.repos.payments.get(payment_id) if payment_id else None


def _session_completed(deps: Deps, event) -> dict:
    obj = event.obj
    if obj.get("payment_status") not in ("paid", "no_payment_required"):
        return {"status": "ignored", "reason": "not paid yet"}  # async methods: wait for async_payment_succeeded
    payment = _payment_from_metadata(deps, obj)
    if payment is None:
        deps.repos.payments.mark_stripe_event(*_seen(deps, event.id))
        return {"status": "ignored", "reason": "unknown payment"}
    if payment.session_id and obj.get("id") != payment.session_id:
        log.error("session mismatch on payment %s", payment.id)
        raise errors.SessionMismatch("The Checkout session of this event is not the payment's own session.")
    amount, currency = obj.get("amount_total"), (obj.get("currency") or "").upper()
    if amount != payment.amount or currency != payment.currency:
        log.error("amount mismatch on payment %s", payment.id)
        raise errors.AmountMismatch(f"Paid {amount} {currency}; the entry owes {payment.amount} {payment.currency}.")
    state = confirm(deps, payment, obj.get("payment_intent"), seen=event.id)
    return {"status": state}


def confirm(deps: Deps, payment: Payment, payment_intent: str | None, seen: str | None = None) -> str:
    """Idempotent: confirming a confirmed payment changes nothing."""
    if payment.state in ("confirmed", "refunded"):
        if seen:
            deps.repos.payments.mark_stripe_event(*_seen(deps, seen))
        return "already_confirmed"
    now = deps.clock()
    paid, events = payment.confirm(payment_intent, now)
    extra = deps.repos.payments.ops(payment, paid, _seen(deps, seen))
    # One payment may cover a day's entries in several events: each entry takes its own part.
    parts = payment.items or [{"event_id": payment.event_id, "entry_id": payment.entry_id, "amount": payment.amount}]
    outcomes = [_confirm_part(deps, payment, paid, part, payment_intent, extra if k == 0 else [], now)
                for k, part in enumerate(parts)]
    if payment.items and any(o == "refunded" for o in outcomes):
        fresh = deps.repos.payments.get(payment.id)
        back = sum(p["amount"] for p, o in zip(parts, outcomes, strict=True) if o == "refunded")
        sent_back, more = fresh.refund(back, deps.clock(), reason="paid after the hold ended")
        deps.repos.payments.save(fresh, sent_back)
        events += more
    dispatch(deps, events)
    return next((o for o in outcomes if o != "refunded"), outcomes[0])


def _confirm_part(deps: Deps, payment: Payment, paid: Payment, part: dict, payment_intent: str | None, extra: list,
                  now) -> str:
    entry = deps.repos.entries.get(part["event_id"], part["entry_id"])
    amount = part["amount"]
    update = {"amount_paid": entry.amount_paid + amount, "payment_state": "paid", "payment_id": payment.id,
              "hold_expires_at": None, "version": entry.version + 1, "updated_at": now}
    if entry.status in ("pending_payment", "confirmed"):
        after = entry.model_copy(update={**update, "status": "confirmed"})
        deps.repos.entries.transition(entry, after, extra=extra)
        return "confirmed"
    # Out of order: the hold was released (or the entry cancelled) before the payment arrived.
    restorable = entry.status == "waitlisted" or (
        entry.status == "cancelled" and any(n.startswith("hold_released") for n in entry.notices))
    if restorable:
        after = entry.model_copy(update={**update, "status": "confirmed", "waitlist_key": None,
                                         "notices": [*entry.notices, "付款已到，名额已恢复 · Payment received: place restored"]})
        try:
            deps.repos.entries.transition(entry, after, extra=extra)
            return "confirmed_late"
        except errors.EventFull:
            pass
    # No place to give: keep the money only long enough to send it back.
    deps.repos.entries.transition(entry, entry.model_copy(update={
        "amount_paid": entry.amount_paid + amount, "payment_state": "refund_due", "version": entry.version + 1,
        "updated_at": now, "notices": [*entry.notices, "付款晚于名额释放，将全额退款 · Paid after the hold ended: refunded"]}),
        extra=extra, take_place=False)
    if payment.items:
        gateways.refund(deps, paid, amount, part=entry.id)
    else:
        sent_back, events = paid.refund(payment.amount, now, reason="paid after the hold ended")
        gateways.refund(deps, paid, payment.amount)
        deps.repos.payments.save(paid, sent_back)
        dispatch(deps, events)
    fresh = deps.repos.entries.get(entry.event_id, entry.id)
    deps.repos.entries.transition(fresh, fresh.model_copy(update={"payment_state": "refunded", **refunded(fresh, amount),
                                                                   "version": fresh.version + 1}), take_place=False)
    return "refunded"


def _session_expired(deps: Deps, event) -> dict:
    payment = _payment_from_metadata(deps, event.obj)
    if payment is None or payment.state not in ("created", "pending"):
        deps.repos.payments.mark_stripe_event(*_seen(deps, event.id))
        return {"status": "ignored"}
    released = release_hold(deps, payment, reason="checkout expired", seen=event.id)
    return {"status": "released" if released else "cancelled"}


def release_hold(deps: Deps, payment: Payment, reason: str, seen: str | None = None) -> bool:
    """Cancels the payment and frees the entry's place (back to the end of nothing: the entry is cancelled
    with a notice; it may register again). Then the first waiting entry is promoted."""
    now = deps.clock()
    cancelled, _ = payment.cancel(now, reason)
    extra = deps.repos.payments.ops(payment, cancelled, _seen(deps, seen))
    if payment.items:   # a day's registration: every entry the payment held a place for
        released = False
        for part in payment.items:
            entry = deps.repos.entries.get(part["event_id"], part["entry_id"])
            if entry is None or entry.status != "pending_payment" or entry.payment_id != payment.id:
                continue
            after = entry.model_copy(update={
                "status": "cancelled", "hold_expires_at": None, "payment_state": "unpaid", "version": entry.version + 1,
                "updated_at": now, "notices": [*entry.notices, "hold_released: 付款超时，名额已释放 · Payment time ran out: place released"]})
            from ..store.entries import release_person_ops
            deps.repos.entries.transition(entry, after, extra=([*extra] if not released else []) + release_person_ops(entry))
            released = True
            registration.promote_waitlist(deps, entry.event_id)
        if not released:
            deps.repos.payments.save(payment, cancelled, stripe_event=_seen(deps, seen))
        return released
    entry = deps.repos.entries.get(payment.event_id, payment.entry_id)
    if entry is None or entry.status != "pending_payment" or entry.payment_id != payment.id:
        deps.repos.payments.save(payment, cancelled, stripe_event=_seen(deps, seen))
        return False
    after = entry.model_copy(update={
        "status": "cancelled", "hold_expires_at": None, "payment_state": "unpaid", "version": entry.version + 1,
        "updated_at": now, "notices": [*entry.notices, "hold_released: 付款超时，名额已释放 · Payment time ran out: place released"]})
    from ..store.entries import release_person_ops   # its people may register again, as after a cancellation
    deps.repos.entries.transition(entry, after, extra=[*extra, *release_person_ops(entry)])
    registration.promote_waitlist(deps, entry.event_id)
    return True


def _charge_refunded(deps: Deps, event) -> dict:
    payment = _payment_from_metadata(deps, event.obj)
    if payment is None:
        deps.repos.payments.mark_stripe_event(*_seen(deps, event.id))
        return {"status": "ignored"}
    refunded_amount = event.obj.get("amount_refunded")
    full = bool(event.obj.get("refunded")) or (isinstance(refunded_amount, int) and refunded_amount >= payment.amount)
    return _apply_refund(deps, payment, refunded_amount if isinstance(refunded_amount, int) else 0, full, event.id)


def _apply_refund(deps: Deps, payment: Payment, total_refunded: int, full: bool, seen: str) -> dict:
    """The provider reports money sent back (`total_refunded` so far): recorded once, whoever asked for it."""
    if not full:
        return _partial_refund(deps, payment, total_refunded, seen)
    sent_back, events = payment.refund_reported(total_refunded, True, deps.clock())
    if events:
        deps.repos.payments.save(payment, sent_back, stripe_event=_seen(deps, seen))
        dispatch(deps, events)
    else:
        deps.repos.payments.mark_stripe_event(*_seen(deps, seen))
    # A day's payment covers several entries: each one it paid for is refunded (those cancelled already were)
    parts = payment.items or [{"event_id": payment.event_id, "entry_id": payment.entry_id}]
    for part in parts:
        entry = deps.repos.entries.get(part["event_id"], part["entry_id"])
        if entry and entry.payment_state != "refunded" and entry.payment_id == payment.id:
            if entry.holds_place:  # refunded from the provider's dashboard: the entry no longer holds a paid place
                registration.cancel_entry(deps, entry, reason="已退款 · Refunded", refund=False)
                entry = deps.repos.entries.get(part["event_id"], part["entry_id"])
            deps.repos.entries.transition(entry, entry.model_copy(update={   # back: nothing owed any more
                "payment_state": "refunded", "refund_owed": 0, "version": entry.version + 1,
                **refunded(entry, entry.amount_paid)}), take_place=False)
    return {"status": "refunded"}


def _partial_refund(deps: Deps, payment: Payment, total_refunded: int, seen: str) -> dict:
    """Part of the money went back (a refund from the Stripe dashboard, say): the amount is recorded and
    the entry keeps its place. Stripe reports the running total, so a redelivery changes nothing."""
    now = deps.clock()
    after, events = payment.refund_reported(total_refunded, False, now)
    if not events:
        deps.repos.payments.mark_stripe_event(*_seen(deps, seen))
        return {"status": "partial_refund", "amount_refunded": payment.amount_refunded}
    delta = events[0].amount
    extra = deps.repos.payments.ops(payment, after, _seen(deps, seen))
    from ..money import money
    # A day's payment: the money back goes to its items in order, each up to what it paid (all of it on the
    # first one would cap there and lose the rest); recorded with the payment in one transaction.
    parts = payment.items or [{"event_id": payment.event_id, "entry_id": payment.entry_id}]
    left, changes = delta, []
    for part in parts:
        entry = deps.repos.entries.get(part["event_id"], part["entry_id"])
        back = (min(left, entry.amount_paid) if payment.items else left) if entry else 0
        if back <= 0:
            continue
        left -= back
        changes.append((entry, entry.model_copy(update={
            **refunded(entry, back), "version": entry.version + 1, "updated_at": now,
            "notices": [*entry.notices, f"部分退款 {money(back, payment.currency)} {payment.currency} · "
                                        f"Partly refunded: {money(back, payment.currency)} {payment.currency}"]})))
    if changes:
        deps.repos.entries.transition_many(changes, extra=extra)
    else:
        deps.repos.payments.save(payment, after, stripe_event=_seen(deps, seen))
    dispatch(deps, events)
    return {"status": "partial_refund", "amount_refunded": total_refunded}


def sweep_expired_holds(deps: Deps, limit: int = 200) -> dict:
    """The scheduled job: releases holds whose time ran out even when no webhook came. A session that was
    in fact paid (webhook lost) is confirmed instead."""
    now = deps.clock()
    released = confirmed = failed = 0
    for eid, entry_id in deps.repos.entries.expired_holds(now.strftime("%Y-%m-%dT%H:%M:%SZ"), limit=limit):
        entry = deps.repos.entries.get(eid, entry_id)
        if entry is None or entry.status != "pending_payment" or not entry.hold_expires_at or entry.hold_expires_at > now:
            continue
        payment = deps.repos.payments.get(entry.payment_id) if entry.payment_id else None
        if payment is None:
            released += _release_without_payment(deps, entry)
            continue
        gw = gateways.gateway(deps, payment.provider)   # the provider the payer was sent to
        if payment.session_id and gw:
            try:
                status, intent, amount, currency = gw.session_status(payment.session_id)
            except errors.PaymentError:
                failed += 1  # Stripe unreachable: keep the hold, try again next sweep
                continue
            if status == "complete" and amount == payment.amount and currency == payment.currency:
                if confirm(deps, payment, intent) in ("confirmed", "confirmed_late"):
                    confirmed += 1
                continue
            if status == "open":
                try:
                    gw.expire(payment.session_id)
                except errors.PaymentError:
                    continue  # try again next sweep rather than release a possibly-paid hold
        if payment.state in ("created", "pending"):
            released += int(release_hold(deps, payment, reason="hold expired"))
    return {"released": released, "confirmed": confirmed, "failed": failed}


def _release_without_payment(deps: Deps, entry: Entry) -> int:
    after = entry.model_copy(update={"status": "cancelled", "hold_expires_at": None, "version": entry.version + 1,
                                     "updated_at": deps.clock(),
                                     "notices": [*entry.notices, "hold_released: 付款超时 · Payment time ran out"]})
    from ..store.entries import release_person_ops   # its people may register again, as after a cancellation
    try:
        deps.repos.entries.transition(entry, after, extra=release_person_ops(entry))
    except errors.Conflict:
        return 0
    registration.promote_waitlist(deps, entry.event_id)
    return 1


# --------------------------------------------------------------------------- China's providers (v1.2)
# Notifications are deduplicated like Stripe's events (the provider's notification id, prefixed, recorded in
# the transaction of the change) and go through the same confirm(), holds, waitlist and refunds.

def handle_provider_notification(deps: Deps, provider: str, headers: dict, body: bytes) -> dict:
    gw = gateways.gateway(deps, provider)
    if gw is None:
        raise errors.PaymentsOff(f"{provider} is not configured: no notification is expected.")
    note = gw.verify_notification(headers, body, deps.clock())
    if deps.repos.payments.stripe_event_seen(note.id):
        return {"status": "duplicate"}
    try:
        if note.kind == "paid":
            return _provider_paid(deps, provider, note)
        if note.kind == "refund":
            return _provider_refund(deps, provider, note)
        if note.kind == "closed":
            return _provider_closed(deps, provider, note)
        return {"status": "ignored", "type": note.raw_type}
    except (errors.RuleViolation, errors.SessionMismatch, errors.NotFound, errors.EntryClosed,
            errors.NotHoldingPlace) as exc:
        # Will never change however often it is resent: acknowledged (the provider stops) and logged.
        log.error("%s notification %s not processed: %s", provider, note.id, exc.code)
        return {"status": "not_processed", "code": exc.code}
    except errors.Conflict:
        if deps.repos.payments.stripe_event_seen(note.id):   # a concurrent delivery of the same notification won
            return {"status": "duplicate"}
        raise


def _provider_payment(deps: Deps, provider: str, note) -> Payment | None:
    payment = deps.repos.payments.get(note.payment_id) if note.payment_id else None
    if payment is None:
        deps.repos.payments.mark_stripe_event(*_seen(deps, note.id))
        return None
    if payment.provider != provider:
        raise errors.SessionMismatch("The notification's order is not this provider's payment.")
    return payment


def _provider_paid(deps: Deps, provider: str, note) -> dict:
    payment = _provider_payment(deps, provider, note)
    if payment is None:
        return {"status": "ignored", "reason": "unknown payment"}
    if note.amount != payment.amount or (note.currency or "").upper() != payment.currency:
        log.error("amount mismatch on payment %s", payment.id)
        raise errors.AmountMismatch(f"Paid {note.amount} {note.currency}; the entry owes {payment.amount} {payment.currency}.")
    entry = deps.repos.entries.get(payment.event_id, payment.entry_id)
    if (payment.state not in ("confirmed", "refunded") and entry is not None and entry.payment_id != payment.id
            and entry.payment_state == "paid"):
        # Paid through a checkout the payer had left for another one that was paid too: sent back whole.
        # Nothing is saved before the refund is accepted: a failed refund leaves the notification to be resent
        # and the refund asked again (the same out_refund_no, so never twice).
        paid, events = payment.confirm(note.transaction_id, deps.clock())
        gateways.refund(deps, paid, paid.amount)
        sent_back, more = paid.refund(paid.amount, deps.clock(), reason="paid twice")
        deps.repos.payments.save(payment, sent_back, stripe_event=_seen(deps, note.id))
        dispatch(deps, events + more)
        return {"status": "refunded", "reason": "entry already paid"}
    return {"status": confirm(deps, payment, note.transaction_id, seen=note.id)}


def _provider_refund(deps: Deps, provider: str, note) -> dict:
    payment = _provider_payment(deps, provider, note)
    if payment is None:
        return {"status": "ignored"}
    total = note.refunded or 0
    if provider == "wechat_pay" and total < payment.amount:
        # WeChat reports each refund's own amount, not the running total: a part refund we asked for is recorded
        # when asked; one made in the merchant platform is only logged (docs/payments.md).
        deps.repos.payments.mark_stripe_event(*_seen(deps, note.id))
        log.info("wechat pay partial refund noted on payment %s", payment.id)
        return {"status": "refund_noted"}
    return _apply_refund(deps, payment, total, total >= payment.amount, note.id)


def _provider_closed(deps: Deps, provider: str, note) -> dict:
    """The trade timed out or was closed unpaid: like an expired Stripe session."""
    payment = _provider_payment(deps, provider, note)
    if payment is None or payment.state not in ("created", "pending"):
        deps.repos.payments.mark_stripe_event(*_seen(deps, note.id))
        return {"status": "ignored"}
    released = release_hold(deps, payment, reason="checkout closed", seen=note.id)
    return {"status": "released" if released else "cancelled"}


def open_provider_checkout(deps: Deps, entry: Entry, provider: str, channel: str | None, openid: str | None = None,
                           client_ip: str | None = None) -> dict:
    """POST /entries/{id}/checkout with a China provider: a payment record of its own (created → pending), the
    entry's hold as with Stripe, and what the payer's page needs (QR payload, JSAPI parameters or a URL).
    Asking again for the same provider and channel answers the same order; another one closes the old order
    at its provider first, so that only one can take money."""
    from datetime import timedelta as _td

    from ..ids import new_id
    from .links import site_url
    gw = gateways.gateway(deps, provider)
    _, tournament = registration._event_and_tournament(deps, entry.event_id)
    if gw is None or provider not in tournament.payments.providers:
        from .tournaments import offered_providers
        raise errors.ProviderNotOffered(f"{provider} is not offered for this tournament.",
                                        {"providers": offered_providers(deps, tournament)})
    if channel not in gw.channels:
        raise errors.InvalidRequest(f"channel must be one of {', '.join(gw.channels)}.", {"field": "channel"})
    if channel == "jsapi" and not openid:
        raise errors.InvalidRequest("JSAPI needs the payer's openid.", {"field": "openid"})
    if entry.status != "pending_payment":
        raise errors.NotHoldingPlace("Only an entry holding a place and waiting for payment can pay.")
    now = deps.clock()
    current = deps.repos.payments.get(entry.payment_id) if entry.payment_id else None
    if current and current.state in ("created", "pending") and (current.provider, current.channel) == (provider, channel):
        if current.state == "pending" and current.checkout_answer:
            return current.checkout_answer
        payment = current   # created but the provider was not reached: the same order again
    else:
        if current and current.state in ("created", "pending"):
            _close_at_provider(deps, current)
        payment = Payment(id=new_id(), entry_id=entry.id, event_id=entry.event_id, provider=provider, channel=channel,
                          state="created", amount=entry.amount_due, currency=entry.currency, created_at=now, updated_at=now)
        deps.repos.payments.put_new(payment)
        after = entry.model_copy(update={"payment_id": payment.id, "payment_state": "pending", "version": entry.version + 1,
                                         "hold_expires_at": entry.hold_expires_at or now + _td(minutes=registration.deps_hold_minutes(deps)),
                                         "updated_at": now})
        deps.repos.entries.transition(entry, after)   # version-checked: a concurrent checkout loses here
        if current and current.state in ("created", "pending"):
            deps.repos.payments.save(current, current.cancel(now, "another checkout")[0])
        entry = after
    hold = entry.hold_expires_at or now + _td(minutes=registration.deps_hold_minutes(deps))
    expires = max(min(hold, now + _td(hours=23)) - _td(minutes=2), now + _td(minutes=5))
    site = site_url()
    started = gw.start(payment_id=payment.id, amount=payment.amount, currency=payment.currency,
                       description=f"{tournament.name} · {entry.name}", channel=channel, expires_at=expires,
                       return_url=f"{site}/entry.html?id={entry.id}&paid=1", openid=openid, client_ip=client_ip)
    answer = {"provider": provider, "channel": channel, "expires_at": expires.isoformat(), **started.answer}
    opened, _ = payment.start(
        reference=started.reference, answer=answer, now=deps.clock(),
        checkout_url=started.answer.get("pay_url") or started.answer.get("h5_url") or started.answer.get("code_url"))
    try:
        deps.repos.payments.save(payment, opened)
    except errors.VersionConflict:   # a retry saved the same order first
        pass
    return answer


def _close_at_provider(deps: Deps, payment: Payment) -> None:
    """Before another checkout: the old order must be unable to take money. A provider that cannot say so
    (unreachable, or the order was just paid) keeps the old one: the payer is told to wait for it."""
    gw = gateways.gateway(deps, payment.provider)
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
