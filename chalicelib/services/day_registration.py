"""One registration for several events of a day (api.md v1.1, seed 003): one form, one payment, one manage link.

Each item becomes an entry under its own event, taking its place under that event's rules (capacity,
window, eligibility, roster). All are written in one transaction with the registration record and its one
payment; an item whose event is full is waitlisted instead and not charged (when promoted it gets its own
payment link, as any waitlisted entry). Cancelling one item refunds that item's part only.
"""
from __future__ import annotations

import hashlib
import json
from datetime import timedelta

from .. import errors
from ..bootstrap import Deps
from ..ids import hash_secret, new_id, new_token
from ..models import (
    DayItemOut,
    DayRegistration,
    DayRegistrationAnswer,
    DayRegistrationIn,
    Entry,
    Member,
    Payment,
    RegistrationIn,
)
from ..store.entries import IdempotentReplay, idempotency_item
from . import registration as single

IDEMPOTENCY_TTL = timedelta(days=7)


def _body_hash(body: DayRegistrationIn) -> str:
    return hashlib.sha256(json.dumps(body.model_dump(mode="json"), sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def register_day(deps: Deps, tid: str, body: DayRegistrationIn, idem_key: str | None) -> DayRegistrationAnswer:
    tournament, events = deps.repos.tournaments.get_with_events(tid)
    if tournament is None:
        raise errors.NotFound("tournament not found")
    by_id = {e.id: e for e in events}
    now = deps.clock()
    key_hash = single.idempotency_key_hash(idem_key)
    seen_events = set()
    for item in body.items:
        if item.event_id not in by_id:
            raise errors.NotFound("这项比赛不属于本赛事 · This event is not part of the tournament.",
                                  {"event_id": item.event_id})
        if item.event_id in seen_events:
            raise errors.InvalidRequest("同一项比赛只能报一次 · Each event once per registration.",
                                        {"event_id": item.event_id})
        seen_events.add(item.event_id)
    reg_id = new_id()
    token = _manage_token(idem_key, reg_id) if idem_key else new_token("rt")
    entries: list[Entry] = []
    for item in body.items:
        event = by_id[item.event_id]
        state = single.registration_state(event.config, now, event.counters.drawn)
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
        members = [Member(**m.model_dump()) for m in item.members]
        due = single.amount_due(event, len(members))
        entry_id = new_id()
        entries.append(Entry(
            id=entry_id, event_id=event.id, tournament_id=tid, registration_id=reg_id,
            name=item.name or (members[0].name if len(members) == 1 else members[0].name + "队"), club=item.club,
            members=members, status="confirmed" if due == 0 else "pending_payment", amount_due=due,
            currency=tournament.currency, payment_state="none" if due == 0 else "unpaid", created_at=now,
            updated_at=now, manage_token_hash=hash_secret(token), note=item.note))
    idem = (idempotency_item(f"T{tid}", key_hash, reg_id, _body_hash(body), int((now + IDEMPOTENCY_TTL).timestamp()))
            if key_hash else None)
    waitlisted: set[str] = set()
    for _ in range(len(entries) + 1):
        for e in entries:
            if e.event_id in waitlisted and e.status != "waitlisted":
                e.status, e.waitlist_key, e.hold_expires_at, e.payment_id = "waitlisted", e.id, None, None
                e.payment_state = "none" if e.amount_due == 0 else "unpaid"
        holding = [e for e in entries if e.status == "pending_payment"]
        payment = None
        if holding and deps.payments is not None:
            payment = Payment(id=new_id(), entry_id=holding[0].id, event_id=holding[0].event_id, provider="stripe",
                              state="created", amount=sum(e.amount_due for e in holding), currency=tournament.currency,
                              created_at=now, updated_at=now, registration_id=reg_id,
                              items=[{"event_id": e.event_id, "entry_id": e.id, "amount": e.amount_due} for e in holding])
            for e in holding:
                e.hold_expires_at = now + timedelta(minutes=single.deps_hold_minutes(deps))
                e.payment_id, e.payment_state = payment.id, "pending"
        record = {"id": reg_id, "tournament_id": tid, "contact": body.contact.model_dump(),
                  "items": [{"event_id": e.event_id, "entry_id": e.id} for e in entries],
                  "payment_id": payment.id if payment else None, "manage_token_hash": hash_secret(token),
                  "created_at": now.isoformat(), "currency": tournament.currency}
        try:
            deps.repos.entries.create_many(entries, record, idem=idem, payment=payment)
            break
        except IdempotentReplay:
            return _replay(deps, tid, key_hash, idem_key, body)
        except errors.EventFull as exc:
            full = (exc.details or {}).get("event_id")
            if full is None or full in waitlisted or not by_id[full].config.waitlist:
                raise errors.EventFull(f"「{by_id[full].config.name if full in by_id else ''}」名额已满 · The event "
                                       "is full.", {"event_id": full}) from None
            waitlisted.add(full)
    else:
        raise errors.Conflict("报名未能完成，请重试 · The registration could not be completed: try again.")
    checkout_url = None
    if payment:
        checkout_url = _start_checkout(deps, payment, entries, by_id, tournament, reg_id)
    return DayRegistrationAnswer(registration=registration_view(deps, reg_id), manage_token=token,
                                 checkout_url=checkout_url)


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
    reg = deps.repos.entries.registration(record["entry_id"])
    checkout_url = None
    if reg and reg.get("payment_id"):
        payment = deps.repos.payments.get(reg["payment_id"])
        checkout_url = payment.checkout_url if payment and payment.state in ("created", "pending") else None
    return DayRegistrationAnswer(registration=registration_view(deps, record["entry_id"]),
                                 manage_token=_manage_token(idem_key, record["entry_id"]), checkout_url=checkout_url)


def _start_checkout(deps, payment: Payment, entries, by_id, tournament, reg_id: str) -> str:
    from .links import site_url
    site = site_url()
    holding = [e for e in entries if e.payment_id == payment.id]
    expires = min(e.hold_expires_at for e in holding) - timedelta(minutes=2)
    expires = max(expires, deps.clock() + timedelta(minutes=31))
    lines = [(f"{tournament.name} · {by_id[e.event_id].config.name} · {e.name}", e.amount_due) for e in holding]
    session_id, url = deps.payments.create_checkout(
        payment_id=payment.id, entry_id=holding[0].id, event_id=holding[0].event_id, amount=payment.amount,
        currency=payment.currency, description=tournament.name, lines=lines,
        success_url=f"{site}/entry.html?reg={reg_id}&paid=1", cancel_url=f"{site}/entry.html?reg={reg_id}",
        expires_at=expires)
    pending = payment.model_copy(update={"state": "pending", "session_id": session_id, "checkout_url": url,
                                         "updated_at": deps.clock(), "version": payment.version + 1})
    deps.repos.payments.save(payment, pending)
    return url


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
    if not state.get("rounds") or entry.status not in ("confirmed", "disqualified"):
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
