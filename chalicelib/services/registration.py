"""Registration: entries, places, holds, the waitlist, the manage link and the organiser's desk work.

Every change of an entry is one conditional transaction with the event's counters (store/entries.py),
so places are never oversold and a retry never double-counts.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import base64
import hashlib
import hmac
import json
import re
from collections.abc import Callable
from datetime import datetime, timedelta

from .. import errors
if TYPE_CHECKING:   # the type only: the composition root (bootstrap) imports the services, not the reverse
    from ..bootstrap import Deps
from ..domain import entry as entry_status
from ..domain.entry import CLOSED, EntryPayment, EntryStatus
from ..ids import hash_secret, new_id, new_token, same_secret
from ..messages import outbox
from ..models.entries import normalise_phone, refunded
from ..phones import key_form
from ..publish.money_text import money_minor_text
from ..models import (
    Entry,
    EntryPatch,
    EntryView,
    Event,
    JoinIn,
    Member,
    OfflinePaymentIn,
    Payment,
    RegistrationAnswer,
    RefundPaidIn,
    RegistrationIn,
    Tournament,
    WithdrawIn,
)
from ..store.dynamo import TransientConflict
from ..store.entries import CountersMoved, Expect, IdempotentReplay, idempotency_item
from . import gateways
from .payment_events import dispatch
from .tournaments import registration_state

IDEMPOTENCY_TTL = timedelta(hours=24)


# --------------------------------------------------------------------------- helpers

def _event_and_tournament(deps: Deps, eid: str) -> tuple[Event, Tournament]:
    event, tournament = deps.repos.events.get_with_tournament(eid)
    if event is None or tournament is None:
        raise errors.NotFound("event not found")
    return event, tournament


_CONFIG_CACHE: dict[str, tuple[float, Event, Tournament]] = {}
CONFIG_CACHE_SECONDS = 30.0


def _cached_config(eid: str) -> tuple[Event, Tournament] | None:
    """The event and tournament this process read lately, with the counters as last seen. Used only to write
    without reading first: the write itself checks the config's version and the places against the counters
    (store/entries.Expect), so a stale copy costs one failed transaction, never a wrong entry."""
    import time
    hit = _CONFIG_CACHE.get(eid)
    if hit and time.monotonic() - hit[0] < CONFIG_CACHE_SECONDS:
        return hit[1], hit[2]
    return None


def event_config(deps: Deps, eid: str) -> Event:
    """The event as this process read it lately (for what a page shows, not for decisions on places)."""
    cached = _cached_config(eid)
    return cached[0] if cached else _read_config(deps, eid)[0]


def _read_config(deps: Deps, eid: str) -> tuple[Event, Tournament]:
    import time
    event, tournament = _event_and_tournament(deps, eid)
    _CONFIG_CACHE[eid] = (time.monotonic(), event, tournament)
    if len(_CONFIG_CACHE) > 256:
        try:
            _CONFIG_CACHE.pop(next(iter(_CONFIG_CACHE)), None)
        except (StopIteration, RuntimeError):   # another thread changed it meanwhile: trim next time
            pass
    return event, tournament


def _learn_counters(eid: str, event: Event, counters: dict) -> Event:
    """Counters seen in a failed write (or moved by our own) become the cached event's, for the next request."""
    from ..models import Counters
    known = event.model_copy(update={"counters": Counters(**{k: counters.get(k, 0) for k in
                                                             ("taken", "confirmed", "held", "waitlisted")},
                                                          drawn=bool(counters.get("drawn")),
                                                          late_closed=bool(counters.get("late_closed")))})
    hit = _CONFIG_CACHE.get(eid)
    if hit and hit[1].version == event.version:
        _CONFIG_CACHE[eid] = (hit[0], known, hit[2])
    return known


class _Shards:
    """Which of a sharded event's counter shards this process saw full (kept as long as the cached config), so a
    registration goes to a shard with places without a read, and to the waitlist once every shard is full."""
    _FULL: dict[tuple[str, int], tuple[float, set[int]]] = {}

    def __init__(self, eid: str, event: Event):
        import time
        self.n, self.key = event.counters.shards, (eid, event.version)
        seen = self._FULL.get(self.key)
        if seen is None or time.monotonic() - seen[0] > CONFIG_CACHE_SECONDS:
            seen = self._FULL[self.key] = (time.monotonic(), set())
        self.full = seen[1]

    def all_full(self) -> bool:
        return len(self.full) >= self.n

    def learn(self, shard: int, full: bool) -> None:
        (self.full.add if full else self.full.discard)(shard)

    def after_refused(self, counters: dict, *, waitlist: bool, tried: set[int]) -> bool:
        """A shard's counters as a refused write saw them: marked (and `tried` when full); answers whether the
        registration waits now. Without a waitlist, "full" only once every shard's write said so."""
        full = counters["taken"] >= counters["cap"]
        self.learn(counters["shard"], full)
        if full:
            tried.add(counters["shard"])
        if waitlist:
            return self.all_full()
        if len(tried) >= self.n:
            raise errors.EventFull("名额已满 · The event is full.") from None
        return False

    def pick(self, *, full: bool, avoid: set[int] = frozenset()) -> int:
        """A shard to write to: one seen full (for a waitlist write, which checks that), else one with places, not
        one this request found full already (the process's view may be old: then any it has not tried)."""
        import random
        if full:
            return random.choice(sorted(self.full) or range(self.n))
        pool = [k for k in range(self.n) if k not in self.full and k not in avoid]
        return random.choice(pool or [k for k in range(self.n) if k not in avoid] or range(self.n))


def _money(minor: int, currency: str, lang: str = "zh") -> str:
    """An amount as people read it (¥40.00, JP¥2,000): money() in the currency's unit, in the pages' one format."""
    return money_minor_text(minor, currency, lang)


def amount_due(event: Event, members: int) -> int:
    fee = event.config.fee
    return fee.amount * members if fee.per == "person" else fee.amount


def change_deadline(event: Event) -> datetime | None:
    """Roster changes and refunds are allowed until registration closes (or the refund deadline)."""
    return event.config.registration.closes_at


def refund_deadline(event: Event) -> datetime | None:
    return event.config.fee.refund_until or event.config.registration.closes_at


def refund_rule_text(event: Event, tz: str) -> str | None:
    if event.config.fee.amount == 0:
        return None
    deadline = refund_deadline(event)
    if deadline is None:
        return "全额退款，直至赛事开始 · Full refund until the event starts"
    from zoneinfo import ZoneInfo
    local = deadline.astimezone(ZoneInfo(tz)).strftime("%Y-%m-%d %H:%M")
    return f"{local} 前取消全额退款，之后不退 · Full refund if cancelled before {local}; none after"


def _derive_manage_token(idem_key: str, entry_id: str) -> str:
    """With an Idempotency-Key the token is derived from it, so a retry can be answered with the same token
    although only its hash is stored. The key is the client's secret; it must be long."""
    mac = hmac.new(idem_key.encode("utf-8"), f"manage:{entry_id}".encode(), hashlib.sha256).digest()
    return "mt_" + base64.urlsafe_b64encode(mac).decode().rstrip("=")


def _body_hash(body: RegistrationIn) -> str:
    return hashlib.sha256(json.dumps(body.model_dump(mode="json"), sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def view(deps: Deps, entry: Entry, event: Event | None = None, tournament: Tournament | None = None,
         position: int | None = None, count_position: bool = True) -> EntryView:
    """`count_position=False`: no waitlist position unless given (counting it reads a growing index)."""
    if position is None and count_position and entry.status == EntryStatus.WAITLISTED and entry.waitlist_key:
        position = deps.repos.entries.waitlist_position(entry.event_id, entry.waitlist_key)
    if event is None:
        event, tournament = _event_and_tournament(deps, entry.event_id)
    return EntryView(**entry.model_dump(exclude={"manage_token_hash", "refund_owed"}), refund_owed=entry.owed,
                     waitlist_position=position,
                     online_payment=tournament is not None and gateways.hosted(deps, tournament) is not None,
                     can_edit_until=change_deadline(event),
                     refund_rule=refund_rule_text(event, tournament.timezone if tournament else "Asia/Shanghai"))


def _check_roster(event: Event, body: RegistrationIn | EntryPatch, partner_wanted: bool) -> None:
    size = event.config.entry.members
    members = body.members or []
    if partner_wanted:
        if size == 1:
            raise errors.RosterSize("This is an individual event: there is no partner to find.")
        if not event.config.allow_partner_wanted:
            raise errors.RosterSize("This event does not match partners: register a full roster.")
        if len(members) != 1:
            raise errors.RosterSize("Looking for a partner: register yourself only (one member).")
    elif not event.config.entry.fewest <= len(members) <= size:
        fewest = event.config.entry.fewest
        takes = f"{fewest} to {size}" if fewest != size else f"{size}"
        raise errors.RosterSize(f"This event takes {takes} member(s) per entry; the roster has {len(members)}.",
                                {"expected": size, "min": fewest, "got": len(members)})
    if not any(m.phone for m in members):
        raise errors.PhoneRequired()
    check_mixed(event, [m.gender for m in members], complete=not partner_wanted)
    check_one_place_each([m.phone for m in members])


def check_mixed(event: Event, genders: list, *, complete: bool = True) -> None:
    """rules.md §9 (seed 000): a mixed-pairs event takes one man and one woman; a mixed-team event every member's
    gender and at least two men and two women (a lineup is a men's pair and a women's pair). Registration, the
    desk, the roster import, joining partners and substitutions all come here."""
    from ..engine.formats.mixed_pairs import pair_problem, team_problem
    if event.config.mixed_pairs:
        problem = pair_problem(genders, complete=complete)
        if problem:
            raise errors.MixedPairGenders(details={"problem": problem, "genders": list(genders)})
    if getattr(event.config, "mixed_team", False) and complete:
        problem = team_problem(genders)
        if problem:
            raise errors.MixedTeamGenders(details={"problem": problem, "genders": list(genders)})


def check_one_place_each(phones: list[str | None]) -> None:
    """One person, one place in a roster: two places with the same phone (compared by its digits, whatever the
    spacing or a +86) are refused, naming both (0-based)."""
    seen: dict[str, int] = {}
    for i, phone in enumerate(phones):
        digits = re.sub(r"\D", "", phone or "")
        if digits.startswith("86") and len(digits) == 13:
            digits = digits[2:]
        if not digits:
            continue
        if digits in seen:
            raise errors.SamePersonTwice(None, {"members": [seen[digits], i]})
        seen[digits] = i


# --------------------------------------------------------------------------- register

def register(deps: Deps, eid: str, body: RegistrationIn, idem_key: str | None, *, fresh: bool = False,
             attempts: int = 3, desk: bool = False, audit: Callable[[Entry], dict | None] | None = None
             ) -> RegistrationAnswer:
    """One entry, in one transaction in the common case: with the event's config cached by this process, the
    write goes out without a read and its conditions check what the cache assumed (config version; a place
    free, or for the waitlist every place taken). A refusal is never made on a cached config.

    `desk=True` (the secretariat's roster import): the same places, eligibility and one-person-once rules, but
    no registration window (the list is often handed in after the form closes) and no online checkout (the
    secretariat collected the money, or will at the desk).

    `audit`: the audit record of the new entry as it is about to be written (None: none), written in the
    entry's own transaction (a retry answered from the first one records nothing)."""
    now = deps.clock()
    # No read first: the idempotency record is written in the entry's own transaction, so a retry's write
    # fails on it and is answered from it (IdempotentReplay below). Saves a round trip each time.
    key_hash = idempotency_key_hash(idem_key)
    cached = None if fresh or body.partner_wanted else _cached_config(eid)
    if cached and registration_refusal(cached[0], body, now, window=not desk) is None:
        event, tournament = cached
    else:
        event, tournament = _read_config(deps, eid)
        refused = _refused(deps, event, tournament, body, now, desk, key_hash, idem_key)
        if refused is not None:
            return refused

    entry_id = new_id()
    token = _derive_manage_token(idem_key, entry_id) if idem_key else new_token("mt")
    members = [Member(**m.model_dump()) for m in body.members]
    due = 0 if body.partner_wanted else amount_due(event, len(members))
    # The tournament's hosted page (Stripe, the demo cashier) opens at once; a provider with channels (WeChat Pay,
    # Alipay) waits for the payer's choice (POST …/checkout). The desk's own entries pay at the desk.
    hosted = None if desk else gateways.hosted(deps, tournament)
    entry = entry_status.new_entry(
        entry_id=entry_id, event_id=eid, tournament_id=event.tournament_id, name=body.name, members=members,
        due=due, currency=tournament.currency, now=now, manage_token_hash=hash_secret(token), club=body.club,
        note=body.note, partner_wanted=body.partner_wanted,
        hold_until=None if desk else hold_until(deps, event, tournament, now))
    payment = new_payment(entry, hosted, now) if hosted and entry.status == EntryStatus.PENDING_PAYMENT else None
    if payment:
        entry.payment_id, entry.payment_state = payment.id, str(EntryPayment.PENDING)
    waiting = entry_status.to_waitlist(entry) if entry.holds_place else entry
    # The desk's entries have their people at the desk; the public's are told their manage link (issue 41)
    from .links import site_url
    messages = [] if desk else outbox.registration_messages(
        deps, entry, event.config.name, f"{site_url()}/entry.html?id={entry.id}#token={token}", now,
        tournament.timezone)
    idem = None
    if key_hash:
        idem = idempotency_item(eid, key_hash, entry_id, _body_hash(body), int((now + IDEMPOTENCY_TTL).timestamp()))
    shards = _Shards(eid, event) if event.counters.shards > 1 else None
    tried: set[int] = set()     # shards this request's own writes found full
    wait = entry_status.waits_for_place(entry, taken=event.counters.taken, capacity=event.config.capacity,
                                        waitlist=event.config.waitlist, all_shards_full=bool(shards and shards.all_full()))
    if shards:   # a rush's event: its places are spread over counter shards (store/counters.py)
        entry.shard = waiting.shard = shards.pick(full=wait)
    for _ in range(4 + (event.counters.shards if shards else 0)):
        if wait and not event.config.waitlist:
            raise errors.EventFull("名额已满 · The event is full.")
        try:
            entry, payment = _create(deps, event, waiting if wait else entry, None if wait else payment, idem=idem,
                                     waits=wait, learn=not shards, messages=messages, audit=audit)
            break
        except CountersMoved as moved:
            if moved.counters["config_version"] != event.version:   # the event was edited: decide again on it
                if attempts <= 0:
                    raise errors.Conflict("报名设置刚刚改动，请重试 · The event changed meanwhile; try again.") from None
                return register(deps, eid, body, idem_key, fresh=True, attempts=attempts - 1, desk=desk, audit=audit)
            if shards:   # this shard's counters only: mark it, and try a shard with a place (or wait if none)
                wait = shards.after_refused(moved.counters, waitlist=event.config.waitlist, tried=tried)
                entry.shard = waiting.shard = shards.pick(full=wait, avoid=tried)
                continue
            event = _learn_counters(eid, event, moved.counters)
            if entry_status.closed_by_draw(moved.counters, event.config.late_entries):   # closed meanwhile
                raise registration_refusal(event, body, now) from None
            wait = moved.counters["taken"] >= moved.counters["cap"]
        except IdempotentReplay:  # a retry, or a concurrent request with the same key won the race
            return _replay(deps, event, tournament, key_hash, idem_key, body)
        except errors.DuplicateEntry:   # these people hold a place already: theirs, still waiting for payment?
            resumed = None if desk else _resume(deps, event, tournament, body, idem_key)
            if resumed is None:
                raise
            return resumed
    else:
        raise TransientConflict("名额变动频繁，请重试 · Places are changing fast; try again.")
    if shards and entry.status == EntryStatus.WAITLISTED:
        _promote_if_freed(deps, eid)
    checkout_url, checkout = _checkout_or_reason(deps, entry, payment, tournament)
    # No waitlist position in the answer: this process's counters may be old, and counting the index is a read
    # that grows with the waitlist on every registration. The manage page counts it exactly.
    return RegistrationAnswer(entry=view(deps, entry, event, tournament, count_position=False), manage_token=token,
                              checkout_url=checkout_url, checkout=checkout)


def _checkout_or_reason(deps: Deps, entry: Entry, payment: Payment | None, tournament: Tournament
                        ) -> tuple[str | None, dict | None]:
    """(the hosted page's URL, None), or (None, {"error": code}) when the provider cannot be reached: the entry
    stands and holds its place for the normal hold (then released by the sweeper), the payer has the manage link
    and tries again, another provider or the desk. Never a 502 that loses the manage link (issue 40)."""
    if payment is None:
        return None, None
    try:
        return start_checkout(deps, entry, payment, tournament), None
    except errors.PaymentError as exc:
        return None, {"error": exc.code, "provider": payment.provider}


def _resume(deps: Deps, event: Event, tournament: Tournament, body: RegistrationIn, idem_key: str | None
            ) -> RegistrationAnswer | None:
    """Registering again with the same people while their entry still waits for payment (the first answer, or
    its manage link, never reached them: a checkout that could not start, a lost connection): that entry is
    found and resumed with a new manage link — only when the roster is the same names and phones and nothing
    was paid, so a phone number alone never hands anyone else's entry over."""
    members = [Member(**m.model_dump()) for m in body.members]
    phones = [m.phone for m in members if m.phone]
    found = next((x for x in (deps.repos.entries.entry_of_person(event.id, p) for p in phones) if x), None)
    entry = deps.repos.entries.get(event.id, found) if found else None
    def same(ms):
        return sorted((m.name.strip(), m.phone or "") for m in ms)
    if (entry is None or entry.status != EntryStatus.PENDING_PAYMENT or entry.amount_paid or entry.partner_wanted
            or same(entry.members) != same(members)):
        return None
    payment = deps.repos.payments.get(entry.payment_id) if entry.payment_id else None
    if payment is not None and payment.state not in ("created", "pending", "failed"):
        return None
    token = _derive_manage_token(idem_key, entry.id) if idem_key else new_token("mt")
    now = deps.clock()
    after = entry.model_copy(update={
        "manage_token_hash": hash_secret(token), "version": entry.version + 1, "updated_at": now,
        "notices": [*entry.notices, "再次报名：已找回待付款的报名 · Registered again: your pending entry was resumed"]})
    deps.repos.entries.transition(entry, after)
    checkout_url, checkout = _checkout_or_reason(deps, after, payment, tournament)
    return RegistrationAnswer(entry=view(deps, after, event, tournament), manage_token=token,
                              checkout_url=checkout_url, checkout=checkout, resumed=True)


def register_public(deps: Deps, eid: str, body: RegistrationIn, idem_key: str | None, client: str) -> RegistrationAnswer:
    """A registration from the public form: first counted against the client's address, its phones and the
    event's places (services/limits.py: 429 rate_limited past a limit), then registered as any other."""
    from . import limits
    event = event_config(deps, eid)
    taken = limits.registration(deps, client, [m.phone for m in body.members],
                                [] if body.partner_wanted else [event])
    answer = register(deps, eid, body, idem_key)   # its manage link is queued in the entry's own transaction
    if answer.entry.status == EntryStatus.WAITLISTED:
        limits.not_a_place(deps, taken, eid)
    return answer


def registration_refusal(event: Event, body: RegistrationIn, now: datetime, *, window: bool = True) -> errors.DomainError | None:
    """Why this registration cannot be taken by the event's rules (deadline, eligibility, roster), or None."""
    state = registration_state(event.config, now, event.counters.drawn, event.counters.late_closed)
    if window and state != "open":
        when = event.config.registration.opens_at if state == "not_yet_open" else event.config.registration.closes_at
        return errors.RegistrationClosed(
            "报名尚未开始 · Registration has not opened yet." if state == "not_yet_open"
            else "比赛已开始抽签，报名已截止 · The first round is drawn: registration has closed."
            if (event.counters.drawn or event.counters.late_closed) and (not when or now < when)
            else "报名已截止 · Registration has closed.", {"state": state, "at": when.isoformat() if when else None,
                                                      "drawn": event.counters.drawn})
    eligibility = event.config.registration.eligibility
    if eligibility.kind == "codes":
        code = (body.eligibility_code or "").strip().upper()
        if code not in eligibility.codes:
            return errors.NotEligible("需要有效的会员码 · A valid member code is required for this event."
                                      if not code else "会员码无效 · This member code is not valid for this event.")
    try:
        _check_roster(event, body, body.partner_wanted)
    except errors.DomainError as exc:
        return exc
    return None


def idempotency_key_hash(idem_key: str | None) -> str | None:
    if idem_key is None:
        return None
    if not 16 <= len(idem_key) <= 200:
        raise errors.InvalidRequest("Idempotency-Key must be 16 to 200 characters (use a UUID).")
    return hash_secret(idem_key)


def deps_hold_minutes(deps: Deps) -> int:
    return int(deps.extra.get("hold_minutes", 35))


def hold_until(deps: Deps, event: Event, tournament: Tournament, now: datetime) -> datetime:
    """Until when a new place to be paid is held: online, as with Stripe, whichever provider the payer then picks
    (POST …/checkout); paid at the desk or by transfer, for a bounded time too."""
    if gateways.offered_online(deps, tournament):
        return now + timedelta(minutes=deps_hold_minutes(deps))
    return offline_hold_until(deps, event, now)


def _create(deps: Deps, event: Event, entry: Entry, payment: Payment | None, *, idem, waits: bool, learn: bool,
            messages: list = (), audit: Callable[[Entry], dict | None] | None = None) -> tuple[Entry, Payment | None]:
    """One write of a new entry: a place (or, `waits`, a place in the waitlist's line, which checks that every
    place is still taken); it fails once a draw has closed registration (the first draw, or with late entries the
    last they may join). `learn`: the counters it moved become this process's cached ones. `audit`: register's."""
    closing = {"before_draw": not event.config.late_entries, "before_late_close": event.config.late_entries}
    c = event.counters
    told = [deps.repos.messages.queue_op(m) for m in messages]   # the manage link's outbox items, in the same write
    expect = Expect(event.version, full=True, **closing) if waits else Expect(event.version, **closing)
    write = lambda ops: deps.repos.entries.create(entry, idem=idem, payment=None if waits else payment,  # noqa: E731
                                                  expect=expect, extra=[*told, *ops])
    record = audit(entry) if audit else None
    if record is None:
        write([])
    else:
        deps.repos.rounds.audited_write(event.id, record, write)
    if waits:
        known = c.model_dump() | {"waitlisted": c.waitlisted + 1}
    else:
        known = c.model_dump() | {"taken": c.taken + int(entry.holds_place)}
    if learn:
        _learn_counters(event.id, event, known)
    return entry, payment


def _promote_if_freed(deps: Deps, eid: str) -> None:
    """A sharded waitlist write saw only its own shard full: a place freed meanwhile on another shard goes to the
    waitlist's first entry now (cancelling a place also promotes, so between the two no place stays idle)."""
    counters = deps.repos.entries.counters(eid)
    if counters["taken"] < counters["cap"]:
        promote_waitlist(deps, eid)


def _refused(deps: Deps, event: Event, tournament: Tournament, body: RegistrationIn, now: datetime, desk: bool,
             key_hash: str | None, idem_key: str | None) -> RegistrationAnswer | None:
    """None when the event's rules take this registration; a retry after the deadline answered as the first time;
    else raises the refusal."""
    refusal = registration_refusal(event, body, now, window=not desk)
    if refusal is None:
        return None
    if key_hash and isinstance(refusal, errors.RegistrationClosed):
        replay = _replay(deps, event, tournament, key_hash, idem_key, body)   # a retry after the deadline
        if replay:
            return replay
    raise refusal


def offline_hold_until(deps: Deps, event: Event, now: datetime) -> datetime:
    """Until when a place to be paid offline (at the desk, by transfer) is held: the event's offline_hold_hours
    (48 by default), never past the registration deadline; once the deadline has passed (a place given from the
    waitlist on the day), the online hold's minutes. Then the sweeper releases it as any unpaid hold."""
    until = now + timedelta(hours=event.config.fee.offline_hold_hours)
    closes = event.config.registration.closes_at
    if closes is not None:
        until = min(until, closes)
    return until if until > now else now + timedelta(minutes=deps_hold_minutes(deps))


def new_payment(entry: Entry, provider: str, now: datetime, channel: str | None = None) -> Payment:
    """A created payment for what the entry owes, at `provider` (not reached yet)."""
    return Payment(id=new_id(), entry_id=entry.id, event_id=entry.event_id, provider=provider, channel=channel,
                   state="created", amount=entry.amount_due, currency=entry.currency, created_at=now, updated_at=now)


def _replay(deps, event, tournament, key_hash, idem_key, body) -> RegistrationAnswer | None:
    record = deps.repos.entries.idempotency(event.id, key_hash)
    if record is None:
        return None
    if record.get("body_hash") != _body_hash(body):
        raise errors.IdempotencyConflict()
    entry = deps.repos.entries.get(event.id, record["entry_id"])
    if entry is None:  # cannot happen: the record is written in the entry's transaction
        raise errors.NotFound("entry not found")
    checkout_url = checkout = None
    if entry.status == EntryStatus.PENDING_PAYMENT and entry.payment_id:
        payment = deps.repos.payments.get(entry.payment_id)
        if payment and payment.state in ("created", "pending", "failed"):   # failed: the retry tries again
            checkout_url, checkout = _checkout_or_reason(deps, entry, payment, tournament)
    return RegistrationAnswer(entry=view(deps, entry, event, tournament), manage_token=_derive_manage_token(
        idem_key, entry.id), checkout_url=checkout_url, checkout=checkout)


def start_checkout(deps: Deps, entry: Entry, payment: Payment, tournament: Tournament) -> str:
    """Opens (or re-opens: the provider's idempotency key is the payment's id) the hosted page of a created
    payment (Stripe's Checkout Session, the demo cashier) and answers its URL."""
    if payment.state == "pending" and payment.checkout_url:
        return payment.checkout_url
    from .links import site_url
    site = site_url()
    now = deps.clock()
    expires = min(entry.hold_expires_at or now + timedelta(minutes=35), now + timedelta(hours=23)) - timedelta(minutes=2)
    description = f"{tournament.name} · {entry.name}"
    answer = gateways.open_order(
        deps, payment, description=description, lines=[(description, payment.amount)],
        return_url=f"{site}/entry.html?id={entry.id}&paid=1", cancel_url=f"{site}/entry.html?id={entry.id}",
        expires_at=expires, answer={"provider": payment.provider, "channel": None},
        before_save=lambda: _fault("after_checkout_created"))
    return answer.get("checkout_url")


# Fault injection for tests of crash recovery: tests set a name here to raise at that step.
FAULTS: set[str] = set()


class InjectedFault(Exception):
    pass


def _fault(name: str) -> None:
    if name in FAULTS:
        raise InjectedFault(name)


def register_demo(deps: Deps, eid: str, raw: dict) -> RegistrationAnswer:
    """Used by the demo loader: registers (as the desk does: no checkout opened) and, for paid events, records a
    cash payment."""
    answer = register(deps, eid, RegistrationIn.model_validate(raw), None, desk=True)
    if answer.entry.status == EntryStatus.PENDING_PAYMENT:
        entry = deps.repos.entries.get(eid, answer.entry.id)
        record_offline(deps, entry, OfflinePaymentIn(method="cash", amount=entry.amount_due))
    return answer


# --------------------------------------------------------------------------- manage link

def entry_for_token(deps: Deps, entry_id: str, token: str | None) -> Entry:
    entry = deps.repos.entries.find(entry_id)
    # A wrong token looks exactly like a missing entry.
    if entry is None or not token or not same_secret(token, entry.manage_token_hash):
        raise errors.NotFound("entry not found (check the link)")
    return entry


def change_refusal(event: Event, entry: Entry, now: datetime) -> errors.DomainError | None:
    """Why the entry's roster or contact cannot change now (None: it can)."""
    deadline = change_deadline(event)
    if deadline and now >= deadline:
        return errors.ChangesClosed()
    if entry_status.is_closed(entry):
        return errors.EntryClosed()
    return None


def manage_actions(deps: Deps, entry: Entry, event: Event, tournament: Tournament, now: datetime) -> dict[str, bool]:
    """What the entry's manage link may do now (the player's "我的" shows the same): pay online (a place held
    waiting for payment, a provider offered), withdraw (cancel_entry: not already out), change it (update_entry)."""
    return {"pay": entry.status == EntryStatus.PENDING_PAYMENT and bool(gateways.offered_online(deps, tournament)),
            "withdraw": entry.status not in CLOSED,
            "manage": change_refusal(event, entry, now) is None}


def update_entry(deps: Deps, entry: Entry, patch: EntryPatch) -> Entry:
    event, _ = _event_and_tournament(deps, entry.event_id)
    refused = change_refusal(event, entry, deps.clock())
    if refused:
        raise refused
    if patch.version is not None and patch.version != entry.version:
        raise errors.VersionConflict()
    changes: dict = {}
    if patch.members is not None:
        _check_roster(event, patch, entry.partner_wanted)
        changes["members"] = [Member(**m.model_dump()) for m in patch.members]
    if patch.name is not None:
        changes["name"] = patch.name
    if patch.club is not None:
        changes["club"] = patch.club
    after = entry.model_copy(update={**changes, "version": entry.version + 1, "updated_at": deps.clock()})
    deps.repos.entries.transition(entry, after)
    return after


def refund_by_rule(event: Event, entry: Entry, now: datetime) -> int:
    """What the event's rule gives back on a withdrawal now: all that was paid before the refund deadline
    (default: registration close), nothing after."""
    deadline = refund_deadline(event)
    return entry.amount_paid if deadline is None or now < deadline else 0


def cancel_entry(deps: Deps, entry: Entry, *, status: EntryStatus = EntryStatus.CANCELLED, reason: str = "",
                 refund: bool | None = None, refund_amount: int | None = None, refund_reason: str = "") -> Entry:
    """Cancels (participant) or withdraws (organiser); refunds when paid and before the deadline. The director may
    give another amount (`refund_amount`, up to what was paid) with a reason; what cash or transfer owes stays
    on the entry as 应退 (`refund_owed`) until the desk pays it back (mark_refund_paid)."""
    if entry.status in CLOSED:
        return entry  # idempotent: a retried cancel changes nothing
    event, _ = _event_and_tournament(deps, entry.event_id)
    now = deps.clock()
    rule = refund_by_rule(event, entry, now)
    owed = rule if refund is None else (entry.amount_paid if refund else 0)
    if refund_amount is not None:
        if refund_amount > entry.amount_paid:
            raise errors.InvalidRequest("退款不能多于已付 · The refund cannot be more than was paid.",
                                        {"field": "refund_amount", "paid": entry.amount_paid})
        if refund_amount != rule and not refund_reason.strip():
            raise errors.InvalidRequest("改动退款金额需写明理由 · Another amount than the rule's needs a reason.",
                                        {"field": "refund_reason", "rule": rule})
        owed = refund_amount
    notices = list(entry.notices)
    if reason:
        notices.append(reason)
    if refund_amount is not None and refund_amount != rule:
        notices.append(f"退款 {_money(owed, entry.currency)}（规则 {_money(rule, entry.currency)}）：{refund_reason.strip()}")
    after, _ = entry_status.cancel(entry, now, status=status, notices=notices, owed=owed)
    refund_due = owed > 0
    from ..store.entries import release_person_ops
    deps.repos.entries.transition(entry, after, extra=release_person_ops(entry))
    if refund_due:
        after = _refund(deps, after)
    elif entry.status == EntryStatus.PENDING_PAYMENT and entry.payment_id:
        cancel_open_checkout(deps, entry.payment_id)
    if entry.holds_place:
        promote_waitlist(deps, entry.event_id)
    return after


def _refund(deps: Deps, entry: Entry) -> Entry:
    payment = deps.repos.payments.get(entry.payment_id) if entry.payment_id else None
    if payment and payment.state == "confirmed" and gateways.online(deps, payment.provider):
        # back through the provider that took the money
        owed = entry.owed or entry.amount_paid
        if payment.items:   # one payment for several events: refund this entry's part only
            part = next((i["amount"] for i in payment.items if i["entry_id"] == entry.id), entry.amount_paid)
            back = min(part, owed, payment.refundable)
            saved, events = payment.refund(back, deps.clock(), part=entry.id)   # refused before any money moves
            gateways.refund(deps, payment, back, part=entry.id)
        else:
            back = min(owed, payment.refundable)
            saved, events = payment.refund(back, deps.clock())
            gateways.refund(deps, payment, back)
        after, _ = entry_status.refund_sent(entry.model_copy(update=refunded(entry, back)), deps.clock())
        # The payment's record, the entry's and the player's "refunded" message in one write: never "refunded"
        # on the payment while the entry still shows it owed (the desk would pay it again in cash), nor a refund
        # nobody is told of. Failing, all stay as they were and the provider's refund notification records it
        # (the provider's refund number is the same on a retry; its PaymentRefunded handler queues the message).
        event, tournament = _event_and_tournament(deps, entry.event_id)
        told = outbox.refund_messages(deps, after, event.config.name, back, saved.amount_refunded, payment.id,
                                      deps.clock(), tournament.timezone)
        deps.repos.entries.transition(entry, after, extra=[*deps.repos.payments.ops(payment, saved),
                                                           *(deps.repos.messages.queue_op(m) for m in told)])
        dispatch(deps, events)
        return after
    return entry  # cash/transfer: 'refund_due' until the organiser hands it back


def cancel_open_checkout(deps: Deps, payment_id: str) -> None:
    payment = deps.repos.payments.get(payment_id)
    if not payment or payment.state not in ("created", "pending", "failed"):
        return
    gw = gateways.for_payment(deps, payment)
    if payment.session_id and gw:
        try:
            gw.expire(payment.session_id)
        except errors.PaymentError:
            pass  # already expired or completed: the webhook or the sweeper settles it
    deps.repos.payments.save(payment, payment.cancel(deps.clock())[0])


# --------------------------------------------------------------------------- waitlist

def promote_waitlist(deps: Deps, eid: str, limit: int = 50) -> list[str]:
    """Gives free places to the first waiting entries, in order. Safe to run concurrently: each move is a
    conditional transaction, and a stale index read only costs a skipped candidate."""
    event, tournament = _event_and_tournament(deps, eid)
    promoted: list[str] = []
    for _ in range(limit):
        counters = deps.repos.entries.counters(eid)
        if counters["taken"] >= counters["cap"]:
            break
        candidates = deps.repos.entries.waitlist(eid, limit=5)
        if not candidates:
            break
        moved = False
        for entry_id in candidates:
            entry = deps.repos.entries.get(eid, entry_id)
            if entry is None or entry.status != EntryStatus.WAITLISTED:
                continue
            now = deps.clock()
            paid = entry.amount_due > 0 and entry.amount_paid < entry.amount_due
            online = bool(gateways.offered_online(deps, tournament))   # any provider the tournament takes online
            notice = ("候补转正：请在 {} 前付款 · A place is yours: pay by {}" if paid and online else
                      "候补转正：请在 {} 前到报名台付款 · A place is yours: pay at the desk by {}" if paid else
                      "候补转正，报名已确认 · A place is yours: your entry is confirmed")
            hold = (now + timedelta(minutes=deps_hold_minutes(deps)) if online else offline_hold_until(deps, event, now)
                    ) if paid else None
            if hold:
                from zoneinfo import ZoneInfo
                local = hold.astimezone(ZoneInfo(tournament.timezone)).strftime("%H:%M" if online else "%m-%d %H:%M")
                notice = notice.format(local, local)
            after, promoted_events = entry_status.promote(entry, now, hold=hold, notice=notice)
            told = outbox.waitlist_messages(deps, after, event, hold, tournament.timezone, now)   # its deadline
            try:
                deps.repos.entries.transition(entry, after, extra=[deps.repos.messages.queue_op(m) for m in told])
            except errors.EventFull:
                if event.counters.shards == 1:
                    return promoted
                moved = True   # the shard it was given filled meanwhile: read the counters again
                break
            except errors.Conflict:
                continue  # changed meanwhile (cancelled, or promoted by someone else)
            promoted.append(entry_id)
            dispatch(deps, promoted_events)
            moved = True
            break
        if not moved:
            break
    return promoted


# --------------------------------------------------------------------------- organiser desk

def list_entries(deps: Deps, eid: str, q: str | None = None, status: str | None = None) -> list[Entry]:
    entries = sorted(deps.repos.entries.list(eid), key=lambda e: e.id)
    if status:
        entries = [e for e in entries if e.status == status]
    if q:
        needle = q.strip().lower()
        number = _phone_or_none(q)   # a whole number, however typed (+86, 0086, dashes): found in any stored form
        entries = [e for e in entries if needle in e.name.lower() or needle in e.club.lower()
                   or any(needle in m.name.lower() or (m.phone and (needle in m.phone or (
                       number is not None and key_form(m.phone) == number))) for m in e.members)]
    return entries


def _phone_or_none(text: str) -> str | None:
    try:
        return normalise_phone(text)
    except ValueError:
        return None


def own_entry(deps: Deps, eid: str, entry_id: str) -> Entry:
    entry = deps.repos.entries.get(eid, entry_id)
    if entry is None:
        raise errors.NotFound("entry not found")
    return entry


def check_in(deps: Deps, eid: str, entry_id: str) -> Entry:
    entry = own_entry(deps, eid, entry_id)
    if entry.status != EntryStatus.CONFIRMED or entry.checked_in:   # refused, or a retry answered as it is
        return entry_status.check_in(entry, deps.clock(), joins_from_round=None)[0]
    from .rounds import joins_from_round
    event = deps.repos.events.get(eid)
    joins = joins_from_round(deps, event) if event else None   # after a draw: the next round, or 409 late_entry_closed
    after, _ = entry_status.check_in(entry, deps.clock(), joins_from_round=joins)
    deps.repos.entries.transition(entry, after)
    return after


def record_offline_payment(deps: Deps, eid: str, entry_id: str, body: OfflinePaymentIn) -> Entry:
    return record_offline(deps, own_entry(deps, eid, entry_id), body)


def record_offline(deps: Deps, entry: Entry, body: OfflinePaymentIn, audit: dict | None = None) -> Entry:
    """`audit`: a record written in the payment's own transaction (the desk's walk-in)."""
    if not entry.holds_place:
        raise errors.NotHoldingPlace(f"Entry status is {entry.status}: it holds no place to pay for.")
    now = deps.clock()
    payment = Payment(id=new_id(), entry_id=entry.id, event_id=entry.event_id, provider=body.method,
                      state="confirmed", amount=body.amount, currency=entry.currency, reference=body.reference,
                      created_at=now, updated_at=now)
    old_payment = entry.payment_id if entry.payment_state == EntryPayment.PENDING else None
    after, _ = entry_status.record_offline(entry, body.amount, payment.id, now)
    if audit is None:
        deps.repos.entries.record_payment(entry, after, payment)
    else:
        deps.repos.rounds.audited_write(entry.event_id, audit, lambda ops: deps.repos.entries.record_payment(
            entry, after, payment, extra=ops))
    if old_payment:  # paid at the desk while a checkout was open: close it so nobody pays twice
        cancel_open_checkout(deps, old_payment)
    return after


def withdraw(deps: Deps, eid: str, entry_id: str, body: WithdrawIn) -> Entry:
    entry = own_entry(deps, eid, entry_id)
    return cancel_entry(deps, entry, status=EntryStatus.WITHDRAWN, reason=body.reason or "退赛 · Withdrawn by the organiser",
                        refund=body.refund, refund_amount=body.refund_amount, refund_reason=body.refund_reason)


def mark_refund_paid(deps: Deps, eid: str, entry_id: str, body: RefundPaidIn) -> Entry:
    """The desk hands back what a withdrawal owes (cash or transfer): 应退 goes to 已退. A retry after it was
    recorded answers the entry as it is."""
    entry = own_entry(deps, eid, entry_id)
    owed = entry.owed
    if owed == 0:
        if entry.payment_state == EntryPayment.REFUNDED:
            return entry
        raise errors.Conflict("这个报名没有应退款 · Nothing is owed back on this entry.", {"owed": 0})
    if body.amount != owed:
        raise errors.InvalidRequest(f"应退 {_money(owed, entry.currency)} · The amount owed is "
                                    f"{_money(owed, entry.currency, 'en')}.", {"field": "amount", "owed": owed})
    how = "现金" if body.method == "cash" else "转账"
    after, _ = entry_status.refund_paid(entry, deps.clock(), amount=owed, notice=(
        f"已{how}退款 {_money(owed, entry.currency)}" + (f"：{body.note.strip()}" if body.note.strip() else "")))
    deps.repos.entries.transition(entry, after)
    return after


def join_partners(deps: Deps, eid: str, body: JoinIn) -> tuple[Entry, str]:
    """商会协调组队: joins partner seekers into one pair/team entry, which takes a place."""
    event, tournament = _event_and_tournament(deps, eid)
    size = event.config.entry.members
    if len(set(body.entry_ids)) != len(body.entry_ids):
        raise errors.InvalidRequest("An entry is listed twice.")
    sources = [own_entry(deps, eid, i) for i in body.entry_ids]
    if any(s.status != EntryStatus.PARTNER_WANTED for s in sources):
        raise errors.Conflict("Only entries looking for a partner can be joined.")
    members = [m for s in sources for m in s.members]
    if len(members) != size:
        raise errors.RosterSize(f"An entry here has {size} members; these seekers make {len(members)}.")
    check_mixed(event, [m.gender for m in members])
    now = deps.clock()
    token = new_token("mt")
    due = amount_due(event, size)
    new = entry_status.new_entry(
        entry_id=new_id(), event_id=eid, tournament_id=event.tournament_id,
        name=body.name or "、".join(m.name for m in members), members=members, due=due, currency=tournament.currency,
        now=now, manage_token_hash=hash_secret(token), club=sources[0].club)
    new = new.model_copy(update={"merged_from": [s.id for s in sources],
                                 "notices": ["商会协调组队 · Partnered by the organiser"]})
    merged = [entry_status.merge(s, new, now)[0] for s in sources]
    try:
        deps.repos.entries.merge(sources, merged, new)
    except errors.EventFull:
        raise errors.EventFull("名额已满，无法组队 · No place left for the new entry.") from None
    return new, token
