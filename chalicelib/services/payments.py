"""Payments: the providers' notifications, the idempotent confirm(), checkouts and the hold sweeper.

A payment is its own record (chalicelib/domain/payment.py): created → pending → confirmed / failed / cancelled /
refunded. Every provider's notification comes through the port (handle_provider_notification), idempotent per
notification id (recorded in the same transaction as the change) and safe out of order: a completion arriving
after the hold was released takes a free place again or is refunded.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import logging
from datetime import timedelta

from .. import errors
if TYPE_CHECKING:   # the type only: the composition root (bootstrap) imports the services, not the reverse
    from ..bootstrap import Deps
from ..domain import entry as entry_status
from ..domain.entry import HOLD_RELEASED, EntryPayment, EntryStatus
from ..models import Entry, Payment
from ..models.entries import refunded
from ..messages import outbox
from . import gateways, registration
from .payment_events import dispatch

log = logging.getLogger("cardgames.payments")
SEEN_TTL = timedelta(days=30)


def handle_stripe_webhook(deps: Deps, payload: bytes, signature: str | None) -> dict:
    """Stripe's events, through the port like every provider's notification."""
    return handle_provider_notification(deps, "stripe", {"Stripe-Signature": signature or ""}, payload)


def _seen(deps: Deps, event_id: str | None) -> tuple[str, int] | None:
    """A handled notification, remembered for 30 days (the providers' redeliveries come within three)."""
    return (event_id, int((deps.clock() + SEEN_TTL).timestamp())) if event_id else None


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
    raised: list = []   # the entries' own events, after the payment's
    outcomes = [_confirm_part(deps, payment, paid, part, payment_intent, extra if k == 0 else [], now, raised)
                for k, part in enumerate(parts)]
    events += raised
    if payment.items and any(o == "refunded" for o in outcomes):
        fresh = deps.repos.payments.get(payment.id)
        back = sum(p["amount"] for p, o in zip(parts, outcomes, strict=True) if o == "refunded")
        sent_back, more = fresh.refund(back, deps.clock(), reason="paid after the hold ended")
        deps.repos.payments.save(fresh, sent_back)
        events += more
    dispatch(deps, events)
    return next((o for o in outcomes if o != "refunded"), outcomes[0])


def _confirm_part(deps: Deps, payment: Payment, paid: Payment, part: dict, payment_intent: str | None, extra: list,
                  now, raised: list) -> str:
    entry = deps.repos.entries.get(part["event_id"], part["entry_id"])
    amount = part["amount"]
    if entry.holds_place:
        after, events = entry_status.pay(entry, amount, payment.id, now, registration_id=payment.registration_id)
        deps.repos.entries.transition(entry, after, extra=[*extra, *_told_paid(deps, after, payment, events, now)])
        raised += events
        return "confirmed"
    # Out of order: the hold was released (or the entry cancelled) before the payment arrived.
    if entry_status.restorable(entry):
        after, events = entry_status.pay(entry, amount, payment.id, now, registration_id=payment.registration_id)
        try:
            deps.repos.entries.transition(entry, after, extra=[*extra, *_told_paid(deps, after, payment, events, now)])
            raised += events
            return "confirmed_late"
        except errors.EventFull:
            pass
    # No place to give: keep the money only long enough to send it back.
    deps.repos.entries.transition(entry, entry_status.paid_too_late(entry, amount, now)[0], extra=extra,
                                  take_place=False)
    if payment.items:
        gateways.refund(deps, paid, amount, part=entry.id)
    else:
        sent_back, events = paid.refund(payment.amount, now, reason="paid after the hold ended")
        gateways.refund(deps, paid, payment.amount)
        deps.repos.payments.save(paid, sent_back)
        dispatch(deps, events)
    fresh = deps.repos.entries.get(entry.event_id, entry.id)
    sent, _ = entry_status.refund_sent(fresh.model_copy(update=refunded(fresh, amount)), None, settles_owed=False)
    deps.repos.entries.transition(fresh, sent, take_place=False)
    return "refunded"


def _told_paid(deps: Deps, entry: Entry, payment: Payment, events: list, now) -> list:
    """The "fee received, place confirmed" message's outbox items, for the entry's own write (issue 41): only
    when this payment confirmed the place (RegistrationConfirmed among its events)."""
    if not events:
        return []
    return [deps.repos.messages.queue_op(m) for m in outbox.paid_messages(deps, entry, payment.id, now)]


_RELEASED = f"{HOLD_RELEASED}: 付款超时，名额已释放 · Payment time ran out: place released"


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
            if entry is None or entry.status != EntryStatus.PENDING_PAYMENT or entry.payment_id != payment.id:
                continue
            after, events = entry_status.release_hold(entry, now, notice=_RELEASED, payment_id=payment.id)
            from ..store.entries import release_person_ops
            deps.repos.entries.transition(entry, after, extra=([*extra] if not released else []) + release_person_ops(entry))
            dispatch(deps, events)   # HoldReleased: its people told the place went (messages)
            released = True
            registration.promote_waitlist(deps, entry.event_id)
        if not released:
            deps.repos.payments.save(payment, cancelled, stripe_event=_seen(deps, seen))
        return released
    entry = deps.repos.entries.get(payment.event_id, payment.entry_id)
    if entry is None or entry.status != EntryStatus.PENDING_PAYMENT or entry.payment_id != payment.id:
        deps.repos.payments.save(payment, cancelled, stripe_event=_seen(deps, seen))
        return False
    after, events = entry_status.release_hold(entry, now, notice=_RELEASED, payment_id=payment.id)
    from ..store.entries import release_person_ops   # its people may register again, as after a cancellation
    deps.repos.entries.transition(entry, after, extra=[*extra, *release_person_ops(entry)])
    dispatch(deps, events)
    registration.promote_waitlist(deps, entry.event_id)
    return True


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
        if entry and entry.payment_state != EntryPayment.REFUNDED and entry.payment_id == payment.id:
            if entry.holds_place:  # refunded from the provider's dashboard: the entry no longer holds a paid place
                registration.cancel_entry(deps, entry, reason="已退款 · Refunded", refund=False)
                entry = deps.repos.entries.get(part["event_id"], part["entry_id"])
            sent, _ = entry_status.refund_sent(entry.model_copy(update=refunded(entry, entry.amount_paid)), None)
            deps.repos.entries.transition(entry, sent, take_place=False)   # back: nothing owed any more
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
    from ..publish.money_text import money_minor_text
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
            "notices": [*entry.notices, f"部分退款 {money_minor_text(back, payment.currency, 'zh')} · "
                                        f"Partly refunded: {money_minor_text(back, payment.currency, 'en')}"]})))
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
        if entry is None or entry.status != EntryStatus.PENDING_PAYMENT or not entry.hold_expires_at or entry.hold_expires_at > now:
            continue
        payment = deps.repos.payments.get(entry.payment_id) if entry.payment_id else None
        if payment is None:
            released += _release_without_payment(deps, entry)
            continue
        gw = gateways.for_payment(deps, payment)   # the provider (and account) the payer was sent to
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
        if payment.state in ("created", "pending", "failed"):   # failed: its checkout never opened
            released += int(release_hold(deps, payment, reason="hold expired"))
    return {"released": released, "confirmed": confirmed, "failed": failed}


def _release_without_payment(deps: Deps, entry: Entry) -> int:
    after, events = entry_status.release_hold(entry, deps.clock(), notice="hold_released: 付款超时 · Payment time ran out",
                                              mark_unpaid=False)
    from ..store.entries import release_person_ops   # its people may register again, as after a cancellation
    try:
        deps.repos.entries.transition(entry, after, extra=release_person_ops(entry))
    except errors.Conflict:
        return 0
    dispatch(deps, events)
    registration.promote_waitlist(deps, entry.event_id)
    return 1


# --------------------------------------------------------------------------- every provider's notifications
# Deduplicated by the provider's notification id (prefixed but Stripe's, recorded in the transaction of the
# change); all go through the same confirm(), holds, waitlist and refunds.

def handle_provider_notification(deps: Deps, provider: str, headers: dict, body: bytes,
                                 organiser_id: str | None = None) -> dict:
    """A provider's notification, verified by the platform's adapter — or, posted to the URL naming an organiser
    (`organiser_id`: a direct account's, in the chamber's own keys), by the adapter bound to that organiser's
    account; then it touches only that organiser's payments."""
    if organiser_id is None:
        gw = gateways.gateway(deps, provider)
        if gw is None:
            raise errors.PaymentsOff(f"{provider} is not configured: no notification is expected.")
        return _handle_verified(deps, provider, gw.verify_notification(headers, body, deps.clock()), organiser_id)
    # the organiser's account now, then the ones it replaced or deleted (their orders' notifications, in their keys)
    adapters = gateways.notification_adapters(deps, organiser_id, provider)
    if not adapters:   # no such organiser, or none of its accounts there: this URL names nothing
        raise errors.NotFound(f"No account of this organiser at {provider} takes notifications here.")
    *earlier, last = adapters
    for gw in earlier:
        try:
            note = gw.verify_notification(headers, body, deps.clock())
            break
        except errors.InvalidSignature:
            continue
    else:
        note = last.verify_notification(headers, body, deps.clock())   # its refusal is the answer
    return _handle_verified(deps, provider, note, organiser_id)


def _handle_verified(deps: Deps, provider: str, note, organiser_id: str | None) -> dict:
    if deps.repos.payments.stripe_event_seen(note.id):
        return {"status": "duplicate"}
    try:
        if note.kind == "paid":
            return _provider_paid(deps, provider, note, organiser_id)
        if note.kind == "refund":
            return _provider_refund(deps, provider, note, organiser_id)
        if note.kind == "closed":
            return _provider_closed(deps, provider, note, organiser_id)
        return {"status": "ignored", "type": note.raw_type}
    except (errors.RuleViolation, errors.SessionMismatch, errors.NotFound, errors.EntryClosed,
            errors.NotHoldingPlace, errors.AccountMismatch) as exc:
        # Will never change however often it is resent: acknowledged (the provider stops) and logged.
        log.error("%s notification %s not processed: %s", provider, note.id, exc.code)
        return {"status": "not_processed", "code": exc.code}
    except errors.Conflict:
        if deps.repos.payments.stripe_event_seen(note.id):   # a concurrent delivery of the same notification won
            return {"status": "duplicate"}
        raise


def _provider_payment(deps: Deps, provider: str, note, organiser_id: str | None = None) -> Payment | None:
    payment = deps.repos.payments.get(note.payment_id) if note.payment_id else None
    if payment is None:
        deps.repos.payments.mark_stripe_event(*_seen(deps, note.id))
        return None
    if payment.provider != provider:
        raise errors.SessionMismatch("The notification's order is not this provider's payment.")
    if organiser_id is not None and gateways.organiser_of(deps, payment) != organiser_id:
        # verified with one organiser's keys, about another organiser's payment: never that one's to change
        log.error("%s notification %s on organiser %s's URL names another organiser's payment %s", provider,
                  note.id, organiser_id, payment.id)
        raise errors.AccountMismatch()
    if not gateways.notification_account_matches(deps, payment, note):
        log.error("%s notification %s names another account than payment %s's organiser's", provider, note.id,
                  payment.id)
        raise errors.AccountMismatch()
    return payment


def _provider_paid(deps: Deps, provider: str, note, organiser_id: str | None = None) -> dict:
    payment = _provider_payment(deps, provider, note, organiser_id)
    if payment is None:
        return {"status": "ignored", "reason": "unknown payment"}
    if note.reference and payment.session_id and note.reference != payment.session_id:
        log.error("session mismatch on payment %s", payment.id)
        raise errors.SessionMismatch("The checkout of this notification is not the payment's own.")
    if note.amount != payment.amount or (note.currency or "").upper() != payment.currency:
        log.error("amount mismatch on payment %s", payment.id)
        raise errors.AmountMismatch(f"Paid {note.amount} {note.currency}; the entry owes {payment.amount} {payment.currency}.")
    entry = deps.repos.entries.get(payment.event_id, payment.entry_id)
    if (payment.state not in ("confirmed", "refunded") and entry is not None and entry.payment_id != payment.id
            and entry.payment_state == EntryPayment.PAID):
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


def _provider_refund(deps: Deps, provider: str, note, organiser_id: str | None = None) -> dict:
    payment = _provider_payment(deps, provider, note, organiser_id)
    if payment is None:
        return {"status": "ignored"}
    total = note.refunded or 0
    if not note.whole and not note.running_total and total < payment.amount:
        # WeChat reports each refund's own amount, not the running total: a part refund we asked for is recorded
        # when asked; one made in the merchant platform is only logged (docs/payments.md).
        deps.repos.payments.mark_stripe_event(*_seen(deps, note.id))
        log.info("%s partial refund noted on payment %s", provider, payment.id)
        return {"status": "refund_noted"}
    return _apply_refund(deps, payment, total, note.whole or total >= payment.amount, note.id)


def _provider_closed(deps: Deps, provider: str, note, organiser_id: str | None = None) -> dict:
    """The trade timed out or was closed unpaid: like an expired Stripe session."""
    payment = _provider_payment(deps, provider, note, organiser_id)
    if payment is None or payment.state not in ("created", "pending"):
        deps.repos.payments.mark_stripe_event(*_seen(deps, note.id))
        return {"status": "ignored"}
    released = release_hold(deps, payment, reason="checkout closed", seen=note.id)
    return {"status": "released" if released else "cancelled"}


def checkout_entry(deps: Deps, entry: Entry, provider: str | None, channel: str | None, openid: str | None = None,
                   client_ip: str | None = None) -> dict:
    """POST /entries/{id}/checkout: a payment record of its own (created → pending) at the provider and channel
    asked — none named: the tournament's hosted page (Stripe, the demo cashier) — the entry's hold kept, and what
    the payer's page needs (a URL, a QR payload, JSAPI parameters). Asking again for the same provider and
    channel answers the same order (a failed one is opened again); another one closes the old order at its
    provider first, so that only one can take money."""
    from .links import site_url
    event, tournament = deps.repos.events.get_with_tournament(entry.event_id)
    if event is None or tournament is None:
        raise errors.NotFound("event not found")
    provider, channel, _ = gateways.check_choice(deps, tournament, provider, channel, openid)
    if entry.status != EntryStatus.PENDING_PAYMENT:
        raise errors.NotHoldingPlace("Only an entry holding a place and waiting for payment can pay.")
    now = deps.clock()
    hold_minutes = timedelta(minutes=registration.deps_hold_minutes(deps))
    current = deps.repos.payments.get(entry.payment_id) if entry.payment_id else None
    reopen = current is not None and current.state in ("created", "pending", "failed")
    if reopen and (current.provider, current.channel) == (provider, channel):
        if current.state == "pending" and (current.checkout_answer or current.checkout_url):
            return current.checkout_answer or {"provider": provider, "checkout_url": current.checkout_url}
        payment = current   # not reached, or unreachable then: the same order again
    else:
        if reopen and current.state != "failed":
            gateways.close(deps, current)
        payment = registration.new_payment(entry, provider, now, channel)
        deps.repos.payments.put_new(payment)
        after = entry.model_copy(update={"payment_id": payment.id, "payment_state": "pending", "version": entry.version + 1,
                                         "hold_expires_at": entry.hold_expires_at or now + hold_minutes,
                                         "updated_at": now})
        deps.repos.entries.transition(entry, after)   # version-checked: a concurrent checkout loses here
        if reopen:
            deps.repos.payments.save(current, current.cancel(now, "another checkout")[0])
        entry = after
    hold = entry.hold_expires_at or now + hold_minutes
    expires = max(min(hold, now + timedelta(hours=23)) - timedelta(minutes=2), now + timedelta(minutes=5))
    site = site_url()
    description = f"{tournament.name} · {entry.name}"
    return gateways.open_order(
        deps, payment, description=description, lines=[(description, payment.amount)],
        return_url=f"{site}/entry.html?id={entry.id}&paid=1", cancel_url=f"{site}/entry.html?id={entry.id}",
        expires_at=expires, answer={"provider": provider, "channel": channel}, openid=openid, client_ip=client_ip)
