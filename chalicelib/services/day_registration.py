"""One registration for several events of a day (api.md v1.1, seed 003): one form, one payment, one manage link.

Each item becomes an entry under its own event, taking its place under that event's rules (capacity,
window, eligibility, roster). All are written in one transaction with the registration record and its one
payment; an item whose event is full is waitlisted instead and not charged (when promoted it gets its own
payment link, as any waitlisted entry). Cancelling one item refunds that item's part only.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import hashlib
import json
from datetime import timedelta

from .. import errors
from ..domain import entry as entry_status
from ..domain.entry import EntryPayment, EntryStatus
if TYPE_CHECKING:   # the type only: the composition root (bootstrap) imports the services, not the reverse
    from ..bootstrap import Deps
from ..ids import hash_secret, new_id, new_token
from ..messages import outbox
from ..models import (
    CheckoutIn,
    DayItemOut,
    DayRegistration,
    DayRegistrationAnswer,
    DayRegistrationIn,
    Entry,
    Member,
    Payment,
    RegistrationIn,
)
from ..store.entries import CountersMoved, Expect, IdempotentReplay, idempotency_item
from . import gateways
from . import registration as single

IDEMPOTENCY_TTL = timedelta(days=7)


def _body_hash(body: DayRegistrationIn) -> str:
    # The registration's identity: who and what. How it is paid may change (POST /registrations/{id}/checkout).
    who = body.model_dump(mode="json", exclude={"checkout"})
    return hashlib.sha256(json.dumps(who, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def register_day_public(deps: Deps, tid: str, body: DayRegistrationIn, idem_key: str | None,
                        client_ip: str) -> DayRegistrationAnswer:
    """A day's registration from the public form: counted first against the client's address, its phones and each
    event's places (services/limits.py: 429 rate_limited past a limit), then registered as any other."""
    from . import limits
    _, events = deps.repos.tournaments.get_with_events(tid)
    asked = {item.event_id for item in body.items}
    phones = [body.contact.phone] + [m.phone for item in body.items for m in item.members]
    taken = limits.registration(deps, client_ip, phones, [e for e in events if e.id in asked])
    answer = register_day(deps, tid, body, idem_key, client_ip=client_ip)   # its manage link queued in its write
    for item in answer.registration.items:
        if item.entry.status == EntryStatus.WAITLISTED:
            limits.not_a_place(deps, taken, item.event_id)
    return answer


def _hold(deps: Deps, holding: list[Entry], payment, *, online: bool, by_id: dict, now) -> None:
    """The places to pay for are held: online for the hold's minutes (tied to the payment opened now, if any);
    paid at the desk or by transfer, for a bounded time."""
    for e in holding:
        if not online:
            e.hold_expires_at = single.offline_hold_until(deps, by_id[e.event_id], now)
            continue
        e.hold_expires_at = now + timedelta(minutes=single.deps_hold_minutes(deps))
        if payment:
            e.payment_id, e.payment_state = payment.id, str(EntryPayment.PENDING)


def _full_event(exc: Exception, by_id: dict, waitlisted: set[str], attempts: int) -> str | None:
    """The event a refused write found full, to wait in its line next time; None: an event was edited meanwhile
    (decide again). Raises when the registration cannot be taken: closed by a draw, full without a waitlist (or
    full again), edited too often."""
    moved = exc.counters if isinstance(exc, CountersMoved) else None
    full = moved["event_id"] if moved else (exc.details or {}).get("event_id")
    if moved and full in by_id:
        event = by_id[full]
        if entry_status.closed_by_draw(moved, event.config.late_entries):
            raise errors.RegistrationClosed(f"「{event.config.name}」已开始抽签，报名已截止 · Registration for "
                                            f"{event.config.name} has closed: its first round is drawn.",
                                            {"event_id": full, "state": "closed"}) from None
        if moved["config_version"] != event.version:   # edited meanwhile: decided again from a fresh read
            if attempts <= 0:
                raise errors.Conflict("报名未能完成，请重试 · The registration could not be completed: "
                                      "try again.") from None
            return None
    if full is None or full in waitlisted or not by_id[full].config.waitlist:
        raise errors.EventFull(f"「{by_id[full].config.name if full in by_id else ''}」名额已满 · The event "
                               "is full.", {"event_id": full}) from None
    return full


def _check_each_event_once(body: DayRegistrationIn, by_id: dict) -> None:
    """Every item names one of the tournament's events, each event once."""
    seen_events = set()
    for item in body.items:
        if item.event_id not in by_id:
            raise errors.NotFound("这项比赛不属于本赛事 · This event is not part of the tournament.",
                                  {"event_id": item.event_id})
        if item.event_id in seen_events:
            raise errors.InvalidRequest("同一项比赛只能报一次 · Each event once per registration.",
                                        {"event_id": item.event_id})
        seen_events.add(item.event_id)


def _check_item(event, item, now) -> None:
    """The event's rules for one item: open now, the member code, the roster."""
    state = single.registration_state(event.config, now, event.counters.drawn, event.counters.late_closed)
    if state != "open":
        raise errors.RegistrationClosed(f"「{event.config.name}」不在报名时间内 · Registration for "
                                        f"{event.config.name} is not open.", {"event_id": event.id, "state": state})
    one = RegistrationIn(name=item.name, club=item.club, members=item.members,
                         eligibility_code=item.eligibility_code, note=item.note)
    eligibility = event.config.registration.eligibility
    if eligibility.kind == "codes" and (item.eligibility_code or "").strip().upper() not in eligibility.codes:
        raise errors.NotEligible(f"「{event.config.name}」需要有效的会员码 · {event.config.name} needs a valid "
                                 "member code.", {"event_id": event.id})
    single._check_roster(event, one, False)


def register_day(deps: Deps, tid: str, body: DayRegistrationIn, idem_key: str | None,
                 client_ip: str | None = None, attempts: int = 2) -> DayRegistrationAnswer:
    tournament, events = deps.repos.tournaments.get_with_events(tid)
    if tournament is None:
        raise errors.NotFound("tournament not found")
    choice = _choice(deps, tournament, body.checkout)
    # Places are held for online payment whenever the tournament takes it; the payment itself is opened now
    # when the provider is known (chosen, or Stripe by default), else by POST /registrations/{id}/checkout.
    hold_places = choice is not None or bool(gateways.offered_online(deps, tournament))
    by_id = {e.id: e for e in events}
    now = deps.clock()
    key_hash = single.idempotency_key_hash(idem_key)
    _check_each_event_once(body, by_id)
    reg_id = new_id()
    token = _manage_token(idem_key, reg_id) if idem_key else new_token("rt")
    entries: list[Entry] = []
    for item in body.items:
        event = by_id[item.event_id]
        _check_item(event, item, now)
        # member 1 named as the contact, without a phone of their own, is the contact: their phone counts there
        phones = [m.phone for m in item.members]
        if not phones[0] and item.members[0].name.strip() == body.contact.name.strip():
            phones[0] = body.contact.phone
        single.check_one_place_each(phones)
        members = [Member(**m.model_dump()) for m in item.members]
        due = single.amount_due(event, len(members))
        entry_id = new_id()
        entries.append(entry_status.new_entry(
            entry_id=entry_id, event_id=event.id, tournament_id=tid, registration_id=reg_id, name=item.name,
            members=members, due=due, currency=tournament.currency, now=now, manage_token_hash=hash_secret(token),
            club=item.club, note=item.note))
    idem = (idempotency_item(f"T{tid}", key_hash, reg_id, _body_hash(body), int((now + IDEMPOTENCY_TTL).timestamp()))
            if key_hash else None)
    # The contact's manage link, written with the registration: a retry replays it and writes none again
    from .links import site_url
    told = outbox.day_registration_messages(deps, reg_id, tournament, body.contact.phone,
                                            f"{site_url()}/entry.html?reg={reg_id}#token={token}", now)
    waitlisted: set[str] = set()
    # Each event's counters must still be as read: the config unedited and, as for a single registration, not
    # closed by a draw meanwhile (the first, or with late entries the last a late entry may join)
    expect = {e.id: Expect(e.version, before_draw=not e.config.late_entries, before_late_close=e.config.late_entries)
              for e in by_id.values()}
    for _ in range(len(entries) + 1):
        entries = [entry_status.to_waitlist(e) if e.event_id in waitlisted and e.holds_place else e for e in entries]
        holding = [e for e in entries if e.status == EntryStatus.PENDING_PAYMENT]
        payment = _new_payment(holding, choice, reg_id, now) if holding and choice else None
        _hold(deps, holding, payment, online=hold_places, by_id=by_id, now=now)
        record = {"id": reg_id, "tournament_id": tid, "contact": body.contact.model_dump(),
                  "items": [{"event_id": e.event_id, "entry_id": e.id} for e in entries],
                  "payment_id": payment.id if payment else None, "manage_token_hash": hash_secret(token),
                  "created_at": now.isoformat(), "currency": tournament.currency}
        try:
            deps.repos.entries.create_many(entries, record, idem=idem, payment=payment, expect=expect,
                                           extra=[deps.repos.messages.queue_op(m) for m in told])
            break
        except IdempotentReplay:
            return _replay(deps, tid, key_hash, idem_key, body)
        except errors.DuplicateEntry:   # these people hold places already: their registration, still unpaid?
            resumed = _resume(deps, tournament, body, entries, idem_key, client_ip)
            if resumed is None:
                raise
            return resumed
        except (errors.EventFull, CountersMoved) as exc:
            full = _full_event(exc, by_id, waitlisted, attempts)
            if full is None:   # an event edited meanwhile: decided again from a fresh read
                return register_day(deps, tid, body, idem_key, client_ip, attempts - 1)
            waitlisted.add(full)
    else:
        raise errors.Conflict("报名未能完成，请重试 · The registration could not be completed: try again.")
    checkout = _checkout_or_reason(deps, payment, tournament, reg_id, body.checkout, client_ip) if payment else None
    return DayRegistrationAnswer(registration=registration_view(deps, reg_id), manage_token=token,
                                 checkout_url=checkout.get("checkout_url") if checkout else None, checkout=checkout)


# A day's registration found again only while nothing in it was paid: places held, or waiting in line.
RESUMABLE = (EntryStatus.PENDING_PAYMENT, EntryStatus.WAITLISTED)


def _resume(deps: Deps, tournament, body: DayRegistrationIn, asked: list[Entry], idem_key: str | None,
            client_ip: str | None) -> DayRegistrationAnswer | None:
    """Registering again with the same contact, events and rosters while that registration still waits for
    payment (its first answer never reached them): it is found and resumed with a new manage link. Only when
    everything is the same and nothing was paid: a phone number alone never hands a registration over."""
    def roster(e: Entry):
        return sorted((m.name.strip(), m.phone or "") for m in e.members)
    found: dict[str, Entry] = {}
    for e in asked:
        phones = [m.phone for m in e.members if m.phone] + [body.contact.phone]
        entry_id = next((x for x in (deps.repos.entries.entry_of_person(e.event_id, p) for p in phones) if x), None)
        held = deps.repos.entries.get(e.event_id, entry_id) if entry_id else None
        if held is None or roster(held) != roster(e):
            return None
        found[e.event_id] = held
    reg_ids = {e.registration_id for e in found.values()}
    reg = deps.repos.entries.registration(reg_ids.pop()) if len(reg_ids) == 1 and None not in reg_ids else None
    if (reg is None or reg["contact"].get("phone") != body.contact.phone
            or (reg["contact"].get("name") or "").strip() != body.contact.name.strip()
            or {i["event_id"] for i in reg["items"]} != set(found)
            or any(e.status not in RESUMABLE or e.amount_paid for e in found.values())):
        return None
    payment = deps.repos.payments.get(reg["payment_id"]) if reg.get("payment_id") else None
    if payment is not None and payment.state not in ("created", "pending", "failed"):
        return None
    token = _manage_token(idem_key, reg["id"]) if idem_key else new_token("rt")
    now = deps.clock()
    notice = "再次报名：已找回待付款的报名 · Registered again: your pending registration was resumed"
    deps.repos.entries.transition_many([(e, e.model_copy(update={
        "manage_token_hash": hash_secret(token), "version": e.version + 1, "updated_at": now,
        "notices": [*e.notices, notice]})) for e in found.values()])
    deps.repos.entries.update_registration(reg["id"], "SET manage_token_hash = :h", {":h": hash_secret(token)})
    checkout = None
    if payment is not None and payment.state == "pending":
        checkout = _answer_of(payment)
    elif payment is not None:
        checkout = _checkout_or_reason(deps, payment, tournament, reg["id"], body.checkout, client_ip)
    return DayRegistrationAnswer(registration=registration_view(deps, reg["id"]), manage_token=token,
                                 checkout_url=checkout.get("checkout_url") if checkout else None, checkout=checkout,
                                 resumed=True)


def _choice(deps: Deps, tournament, asked: CheckoutIn | None) -> tuple[str, str | None] | None:
    """(provider, channel) the registration's payment opens with now, or None (no online payment yet)."""
    if asked is not None:
        provider, channel, _ = gateways.check_choice(deps, tournament, asked.provider, asked.channel, asked.openid)
        return provider, channel
    provider = gateways.hosted(deps, tournament)   # Stripe's Checkout, as before v1.2 (or the demo cashier)
    return (provider, None) if provider else None


def _new_payment(holding: list[Entry], choice: tuple[str, str | None], reg_id: str, now) -> Payment:
    provider, channel = choice
    return Payment(id=new_id(), entry_id=holding[0].id, event_id=holding[0].event_id, provider=provider,
                   channel=channel, state="created", amount=sum(e.amount_due for e in holding),
                   currency=holding[0].currency, created_at=now, updated_at=now, registration_id=reg_id,
                   items=[{"event_id": e.event_id, "entry_id": e.id, "amount": e.amount_due} for e in holding])


def _manage_token(idem_key: str, reg_id: str) -> str:
    import base64
    import hmac
    mac = hmac.new(idem_key.encode("utf-8"), f"registration:{reg_id}".encode(), hashlib.sha256).digest()
    return "rt_" + base64.urlsafe_b64encode(mac).decode().rstrip("=")


def _replay(deps: Deps, tid: str, key_hash: str, idem_key: str, body: DayRegistrationIn) -> DayRegistrationAnswer:
    record = deps.repos.entries.idempotency(f"T{tid}", key_hash)
    if record is None:
        raise errors.Conflict("请重试 · Try again.")
    if record.get("body_hash") != _body_hash(body):
        raise errors.IdempotencyConflict()
    reg_id = record["entry_id"]
    reg = deps.repos.entries.registration(reg_id)
    checkout = None
    payment = deps.repos.payments.get(reg["payment_id"]) if reg and reg.get("payment_id") else None
    if payment and payment.state == "pending":
        checkout = _answer_of(payment)
    elif payment and payment.state in ("created", "failed"):   # the provider was not reached the first time: again
        tournament = deps.repos.tournaments.get(tid)
        checkout = _checkout_or_reason(deps, payment, tournament, reg_id, body.checkout, None)
    return DayRegistrationAnswer(registration=registration_view(deps, reg_id), manage_token=_manage_token(idem_key, reg_id),
                                 checkout_url=checkout.get("checkout_url") if checkout else None, checkout=checkout)


def _answer_of(payment: Payment) -> dict:
    """What the payer's page was given when the order opened (Stripe's before v1.2: its URL only)."""
    return payment.checkout_answer or {"provider": payment.provider, "checkout_url": payment.checkout_url,
                                       "amount": payment.amount, "currency": payment.currency,
                                       "entry_ids": [i["entry_id"] for i in payment.items] or [payment.entry_id]}


def _checkout_or_reason(deps, payment: Payment, tournament, reg_id: str, asked: CheckoutIn | None,
                        client_ip: str | None) -> dict:
    """The opened checkout, or why it could not open ({"error": code}): the registration stands, its places held
    for the normal hold, and the manage link is answered all the same (issue 40)."""
    try:
        return _start_checkout(deps, payment, tournament, reg_id, asked, client_ip)
    except errors.PaymentError as exc:
        return {"error": exc.code, "provider": payment.provider, "channel": payment.channel, "amount": payment.amount,
                "currency": payment.currency, "entry_ids": list(payment.entry_ids)}


def _start_checkout(deps, payment: Payment, tournament, reg_id: str, asked: CheckoutIn | None,
                    client_ip: str | None) -> dict:
    """Opens the payment's order at its provider (any of them, through gateways.start) and records it pending."""
    from .links import site_url
    site = site_url()
    now = deps.clock()
    parts = payment.items or [{"event_id": payment.event_id, "entry_id": payment.entry_id, "amount": payment.amount}]
    holding = [e for e in (deps.repos.entries.get(p["event_id"], p["entry_id"]) for p in parts) if e]
    names = {e.id: (e.name, single.event_config(deps, e.event_id).config.name) for e in holding}
    holds = [e.hold_expires_at for e in holding if e.hold_expires_at] or [now + timedelta(minutes=single.deps_hold_minutes(deps))]
    # The order closes just before the first hold runs out (WeChat Pay and Alipay take up to a day)
    expires = max(min(min(holds), now + timedelta(hours=23)) - timedelta(minutes=2), now + timedelta(minutes=5))
    lines = [(f"{tournament.name} · {names[p['entry_id']][1]} · {names[p['entry_id']][0]}", p["amount"])
             for p in parts if p["entry_id"] in names]
    return gateways.open_order(
        deps, payment, description=tournament.name, lines=lines, return_url=f"{site}/entry.html?reg={reg_id}&paid=1",
        cancel_url=f"{site}/entry.html?reg={reg_id}", expires_at=expires,
        answer={"provider": payment.provider, "channel": payment.channel, "amount": payment.amount,
                "currency": payment.currency, "entry_ids": [p["entry_id"] for p in parts]},
        openid=asked.openid if asked else None, client_ip=client_ip)


def checkout(deps: Deps, reg_id: str, token: str | None, asked: CheckoutIn, client_ip: str | None = None) -> dict:
    """POST /registrations/{id}/checkout: one payment for every item of the registration holding a place and
    waiting for payment, through the provider and channel asked. Asked again the same way: the same order.
    Asked another way: the open order is closed at its provider first, so that only one can take money."""
    reg = own_registration(deps, reg_id, token)
    return checkout_items(deps, reg, asked, client_ip)


def open_shared_payment(deps: Deps, entry: Entry) -> dict | None:
    """The registration whose open payment (several items) holds this entry's place, if any."""
    payment = deps.repos.payments.get(entry.payment_id) if entry.payment_id else None
    if payment and payment.items and payment.registration_id and payment.state in ("created", "pending", "failed") \
            and entry.status == EntryStatus.PENDING_PAYMENT:
        return deps.repos.entries.registration(payment.registration_id)
    return None


def checkout_items(deps: Deps, reg: dict, asked: CheckoutIn, client_ip: str | None = None) -> dict:
    tournament = deps.repos.tournaments.get(reg["tournament_id"])
    provider, channel, _ = gateways.check_choice(deps, tournament, asked.provider, asked.channel, asked.openid)
    entries = [deps.repos.entries.get(i["event_id"], i["entry_id"]) for i in reg["items"]]
    holding = [e for e in entries if e is not None and e.status == EntryStatus.PENDING_PAYMENT]
    if not holding:
        raise errors.NotHoldingPlace("这个报名没有待付款的项目 · Nothing in this registration is waiting for payment.")
    open_ = {}
    for e in holding:
        p = deps.repos.payments.get(e.payment_id) if e.payment_id else None
        if p and p.state in ("created", "pending", "failed"):
            open_[p.id] = p
    ids = {e.id for e in holding}
    if len(open_) == 1:
        (current,) = open_.values()
        covers = {i["entry_id"] for i in current.items} or {current.entry_id}
        same = (current.provider, current.channel) == (provider, channel) and covers == ids \
            and all(e.payment_id == current.id for e in holding)
        if same and current.state == "pending":
            return _answer_of(current)
        if same:   # created, the provider not reached: the same order again
            return _start_checkout(deps, current, tournament, reg["id"], asked, client_ip)
    for p in open_.values():
        gateways.close(deps, p)   # refuses (409) while an old order might still take money
    now = deps.clock()
    payment = _new_payment(holding, (provider, channel), reg["id"], now)
    deps.repos.payments.put_new(payment)
    hold = now + timedelta(minutes=single.deps_hold_minutes(deps))
    # Every item onto the new order in one write, version-checked: a concurrent change loses here whole (its
    # retry closes this order), never leaving the items split between two open orders.
    deps.repos.entries.transition_many([(e, e.model_copy(update={
        "payment_id": payment.id, "payment_state": "pending", "hold_expires_at": e.hold_expires_at or hold,
        "version": e.version + 1, "updated_at": now})) for e in holding])
    for p in open_.values():
        fresh = deps.repos.payments.get(p.id)
        if fresh and fresh.state in ("created", "pending", "failed"):
            deps.repos.payments.save(fresh, fresh.cancel(now, "another checkout")[0])
    deps.repos.entries.update_registration(reg["id"], "SET payment_id = :p", {":p": payment.id})
    return _start_checkout(deps, payment, tournament, reg["id"], asked, client_ip)


# --------------------------------------------------------------------------- the participant's side

def own_registration(deps: Deps, reg_id: str, token: str | None) -> dict:
    import hmac
    reg = deps.repos.entries.registration(reg_id)
    if reg is None or not token or not hmac.compare_digest(reg["manage_token_hash"], hash_secret(token.strip())):
        raise errors.NotFound("找不到这个报名 · No such registration (check the link).")
    return reg


def registration_view(deps: Deps, reg_id: str) -> DayRegistration:
    """Every entry of the registration: status, what was paid for which event, the refund rule, and once the
    day starts where each entry sits now and its results (我的比赛)."""
    reg = deps.repos.entries.registration(reg_id)
    items, due, paid, back = [], 0, 0, 0
    tz = "Asia/Shanghai"
    for it in reg["items"]:
        entry = deps.repos.entries.get(it["event_id"], it["entry_id"])
        event, tournament = single._event_and_tournament(deps, it["event_id"])
        tz = tournament.timezone
        view = single.view(deps, entry, event, tournament)
        due += entry.amount_due if entry.holds_place else 0
        paid += entry.amount_paid
        back += entry.amount_refunded
        now, results, final = _my_day(deps, event, entry)
        items.append(DayItemOut(event_id=event.id, event_name=event.config.name, entry=view, amount=entry.amount_due,
                                refund_rule=single.refund_rule_text(event, tz) or "", now=now, results=results,
                                final=final))
    payment = deps.repos.payments.get(reg["payment_id"]) if reg.get("payment_id") else None
    state = "none" if due == 0 else ("paid" if paid >= due else (payment.state if payment else "unpaid"))
    return DayRegistration(id=reg["id"], tournament_id=reg["tournament_id"],
                           contact={"name": reg["contact"]["name"]}, items=items, amount_due=due, amount_paid=paid, amount_refunded=back,
                           currency=reg["currency"], payment_state=state, created_at=reg["created_at"])


def _my_day(deps: Deps, event, entry) -> tuple[dict | None, list[dict], dict | None]:
    """Where the entry sits while a round is open, its results so far (forfeits and penalties as records the
    page words), and once the event is over its final place, points, prize and bomb bonuses (我的比赛)."""
    state = deps.repos.rounds.state(event.id)
    if not state.get("rounds") or entry.status not in (EntryStatus.CONFIRMED, EntryStatus.DISQUALIFIED):
        return None, [], None
    names = {e.id: e.name for e in deps.repos.entries.list(event.id)}
    results, now = [], None
    rounds = []
    for ref in state["rounds"]:
        doc, tables = deps.repos.rounds.get_round(event.id, ref["stage"], ref["n"])
        rounds.append((doc, tables))
        latest_open = ref["n"] == state["rounds"][-1]["n"] and (doc or {}).get("status") != "closed"
        for b, _ in (doc or {}).get("byes", []):
            if b == entry.id:
                results.append({"round": ref["n"], "bye": True})
                if latest_open:
                    now = {"round": ref["n"], "bye": True, "starts_at": doc.get("starts_at")}
        for t in tables:
            sides = [s["entry_id"] for s in t["sides"]]
            if entry.id not in sides:
                continue
            mine = t["sides"][sides.index(entry.id)]
            others = [names.get(s, "") for s in sides if s != entry.id]
            row = {"round": ref["n"], "table": t["number"], "opponents": others, "status": t["status"],
                   "points": t.get("points", {}).get(entry.id) if t["status"] in ("confirmed", "forfeit") else None}
            forfeit = t.get("forfeit")
            if t["status"] == "forfeit" and forfeit:
                row["forfeit"] = {"mine": forfeit.get("entry_id") in (entry.id, None),
                                  "excused": bool(forfeit.get("excused")),
                                  "force_majeure": bool(forfeit.get("force_majeure"))}
            pens = _penalties_of(t.get("result") or {}, entry.id)
            if pens:
                row["penalties"] = pens
            results.append(row)
            if latest_open:
                now = {"round": ref["n"], "table": t["number"], "seats": mine["seats"], "opponents": others,
                       "starts_at": doc.get("starts_at"), "status": t["status"]}
    return now, results, _final(deps, event, entry, state, rounds)


def _penalties_of(result: dict, entry_id: str) -> list[dict]:
    """The referee's penalties against this entry in a table's result (rules.md §8), as {kind, deal?, cards?}."""
    out = [{"kind": p["kind"], **({"deal": p["deal"]} if p.get("deal") else {})}
           for p in result.get("penalties") or [] if isinstance(p, dict) and p.get("entry_id") == entry_id]
    for n, d in enumerate(result.get("deals") or [], start=1):
        for p in (d.get("penalties") or []) if isinstance(d, dict) else []:
            if isinstance(p, dict) and p.get("entry_id") == entry_id:
                out.append({"kind": p["kind"], "deal": n, **({"cards": p["cards"]} if p.get("cards") else {})})
    return out


def _final(deps: Deps, event, entry, state: dict, rounds: list) -> dict | None:
    """After the last round of the last stage: place, points (by name), prize and bomb bonuses."""
    from .standings import bonuses, event_standings
    entries = deps.repos.entries.list(event.id)
    standings = event_standings(deps, event, len(event.config.stages) - 1, state=state, entries=entries)
    if not standings.final:
        return None
    row = next((r for r in standings.standings if r.entry_id == entry.id), None)
    from ..models import CURRENCY_EXPONENT
    tournament = deps.repos.tournaments.get(event.tournament_id)
    currency = tournament.currency if tournament else "CNY"
    unit = 10 ** CURRENCY_EXPONENT.get(currency.upper(), 2)   # prize tables and bomb bonuses are in whole units
    out = {"rank": row.rank if row else None, "of": len(standings.standings), "points": row.points if row else {},
           "prize": row.prize * unit if row and row.prize else None, "currency": currency, "ranked": row is not None}
    if event.config.game == "doudizhu":
        mine = [p for p in bonuses(deps, event, rounds=rounds, entries=entries).players if p.entry_id == entry.id]
        out["bomb_bonus"] = mine[0].total * unit if mine else 0
    return out


def cancel_item(deps: Deps, reg_id: str, token: str | None, entry_id: str) -> DayRegistration:
    reg = own_registration(deps, reg_id, token)
    item = next((i for i in reg["items"] if i["entry_id"] == entry_id), None)
    if item is None:
        raise errors.NotFound("这个报名里没有这一项 · No such item in this registration.")
    entry = deps.repos.entries.get(item["event_id"], entry_id)
    single.cancel_entry(deps, entry, reason="本人取消 · Cancelled by the participant")
    return registration_view(deps, reg_id)
