"""The outbox's worker and the one function per cause that queues its messages.

`queue_<cause>(deps, …)` builds the cause's messages (one per channel the participant has) and writes each once
(store/messages.py: keyed by cause and channel). `deliver_due(deps, now)` sends what is due: run by a thread
locally (scripts/dev.py) and by a scheduled function on AWS. Log lines name a message by its id, kind and state
only — never its address, its text or a code."""
from __future__ import annotations

import functools
import json
import logging
import os
import re
import secrets
import threading
from datetime import datetime, timedelta

from ..ids import new_id
from . import record
from .nudge import nudger
from .record import Message
from .setup import messaging
from .templates import language, render

log = logging.getLogger("cardgames.messages")
LEASE = timedelta(minutes=2)     # a try's provider call is bounded by the adapters' 5-s timeouts
_file_lock = threading.Lock()


def after_the_fact(fn):
    """A cause's messages queued after its change is saved (a bus handler): a message that cannot be queued must
    not fail that change — its request would answer 5xx for what was done, and its retry would find it done.
    Logged (type only) and counted as nothing queued. The causes that must not lose theirs (a registration, a
    promotion, a payment, a refund) write them in their own transaction instead (docs/messages.md)."""
    @functools.wraps(fn)
    def hooked(deps, *args, **kw):
        try:
            return fn(deps, *args, **kw)
        except Exception as exc:   # noqa: BLE001 — any failure: the change that called it stands
            log.error("messages: %s queued nothing (%s)", fn.__name__, type(exc).__name__)
            return 0
    return hooked


def queue(deps, message: Message) -> bool:
    written = deps.repos.messages.queue(message)
    log.info("message %s %s: %s", message.id if written else "-", message.kind,
             "queued" if written else "already queued for this cause")
    if written and message.channel == "job" and message.kind in record.URGENT:
        # done within seconds, not at the scheduled pass's next minute (messages/nudge.py); never fails the caller
        nudger(deps).wake(message.kind)
    return written


def deliver_due(deps, now: datetime | None = None, limit: int = 50) -> dict:
    """One pass over the due messages: each claimed, tried once, settled. Returns the counts by outcome. Without
    `now` each try reads the clock itself: a pass of slow providers outlasts a lease taken at its start."""
    senders = messaging(deps)
    worker = secrets.token_hex(8)
    counts = {"sent": 0, "retry": 0, "failed": 0, "skipped": 0}
    for _ in range(2):   # a fan-out job queues messages due now: they go in this pass's second look
        jobs = 0
        for message, seen in deps.repos.messages.due(now or deps.clock(), limit):
            outcome = _try(deps, senders, message, seen, worker, now or deps.clock())
            if message.channel == "job":
                jobs += 1
                if outcome == "sent":
                    continue     # a job done is not a message sent
            counts[outcome] += 1
        if not jobs:
            break
    return counts


def collect_reports(deps) -> dict:
    """The providers' delivery reports since the last pull: each sent message they name becomes delivered, or
    failed ("undelivered") when the phone never got it."""
    from .. import errors
    counts = {"delivered": 0, "undelivered": 0}
    for sender in messaging(deps).senders.values():
        for report in (sender.reports() if hasattr(sender, "reports") else []):
            message = deps.repos.messages.by_provider_id(report.provider, report.provider_id)
            if message is None or message.state != "sent":
                continue
            try:
                if report.delivered:
                    deps.repos.messages.mark_delivered(message)
                else:
                    deps.repos.messages.mark_undelivered(message)
            except errors.Conflict:   # moved on meanwhile (another pass took the same report)
                continue
            counts["delivered" if report.delivered else "undelivered"] += 1
            log.info("message %s %s: %s", message.id, message.kind, "delivered" if report.delivered else "undelivered")
    return counts


def send_now(deps, message: Message) -> str:
    """Queues it and tries it at once in this request (a sign-in code cannot wait for the worker's next pass);
    a failed try is left to the worker's retries. Returns "sent", "retry", "failed" or "skipped"."""
    if not queue(deps, message):
        return "skipped"
    now = deps.clock()
    return _try(deps, messaging(deps), message, deps.repos.messages.position(message), secrets.token_hex(8), now)


def _try(deps, senders, message: Message, seen: str, worker: str, now: datetime) -> str:
    trying = record.tried(message, now)
    if not deps.repos.messages.claim(trying, seen, worker, now + LEASE):
        return "skipped"     # another worker has it
    if trying.channel == "job":
        text, outcome = "", _run_job(deps, trying)
    else:
        text = render(trying.kind, trying.lang, trying.params)
        sender = senders.senders.get(trying.channel)
        outcome = sender.send(trying, text) if sender else None
    if outcome is not None and outcome.ok:
        done = record.sent(trying, now, outcome.provider, outcome.provider_id)
        if trying.channel != "job":
            _append_local(senders.outbox_file, trying, text, now)
    else:
        error, permanent = (outcome.error, outcome.permanent) if outcome else ("no_sender", False)
        done = record.failed_try(trying, now, error, permanent=permanent)
    if not deps.repos.messages.settle(done, worker):
        return "skipped"     # its lease ran out and another worker took it over
    log.info("message %s %s: %s after try %d%s", done.id, done.kind, done.state, done.tries,
             f" ({done.error})" if done.error else "")
    return "sent" if done.state == "sent" else "failed" if done.state == "failed" else "retry"


def _append_local(path: str | None, message: Message, text: str, now: datetime) -> None:
    """Locally every message sent is also a line of `.data/outbox.jsonl` (api.md v1.3), so an organiser
    rehearsing the day reads what players would get."""
    if not path:
        return
    line = json.dumps({"channel": message.channel, "to": message.to, "template": message.kind, "text": text,
                       "at": now.isoformat(), "tournament_id": message.tournament_id}, ensure_ascii=False)
    with _file_lock, open(path, "a", encoding="utf-8") as f:
        f.write(line + "\n")
    os.chmod(path, 0o600)   # phones and links: this user's alone, like the rest of .data/


# --------------------------------------------------------------------------- the causes
def _contacts(entry, deps=None, urgent: bool = False) -> list[tuple[str, str]]:
    """(channel, address) of an entry: each member's phone once (SMS), its e-mail if it has one, and — given
    `deps` — the WeChat openid its player bound by signing in inside WeChat (a template message in the chat beside
    the SMS: the SMS still goes, as a player may not follow the account). The openid comes only from that
    verified binding, found by the member's phone; it is never copied onto the entry. Given `deps`, each member's
    choice of channels (notify) is honoured: member_channels."""
    seen, out, chats = set(), [], []
    for member in entry.members:
        phone, email = getattr(member, "phone", None), getattr(member, "email", None)
        if deps is None:   # a rush's registration: one write without a read (its own answer: the manage link)
            found = [("sms", phone), ("email", email)]
        else:
            found = member_channels(deps, phone, email, urgent)
        for channel, address in found:
            if channel == "wechat":
                chats.append(address)
            elif address and address not in seen:
                seen.add(address)
                out.append((channel, address))
    for openid in chats:
        if openid not in seen:
            seen.add(openid)
            out.append(("wechat", openid))
    return out


def member_channels(deps, phone: str | None, email: str | None, urgent: bool,
                    player: dict | None = None) -> list[tuple[str, str]]:
    """The channels a message to one member goes by, as its player chose in 我的 (notify: sms, email, wechat; on
    unless turned off). A channel turned off is not used — for an urgent message too, whenever another channel the
    player left on reaches them: the player said how to be told, and WeChat or e-mail tells them as well.
    Only an urgent message (record.URGENT: their table, their place's deadline, a result waiting for them, the
    director's notice) to a player who turned off every channel they have goes by SMS even so: the choice was how
    to be told, not to lose a place or a game unaware — the way a bank's or an airline's service alerts stay on.
    A code is not this function's: the player asked for it, to that phone, this minute (send_code)."""
    player = _player_of(deps, phone) if player is None else player
    allows = {"sms": True, "email": True, **(player.get("notify") or {})}
    openid = bound_openid(deps, phone, player)
    chosen = [(c, a) for c, a in (("sms", phone), ("email", email), ("wechat", openid)) if a and allows.get(c) is not False]
    if not chosen and urgent and phone:
        chosen = [("sms", phone)]
    return chosen


_PHONE_LIKE = re.compile(r"[+\d][\d\s()-]{4,}")   # an SMS address, not an e-mail or an openid


def _player_of(deps, phone: str | None) -> dict:
    """The player record of a phone (the sign-in's key: the number in its key form), or {}."""
    players = getattr(deps.repos, "players", None)
    if not phone or not _PHONE_LIKE.fullmatch(phone) or not hasattr(players, "by_phone_hash"):
        return {}
    from ..installation import phone_hash
    try:
        return players.by_phone_hash(phone_hash(phone)) or {}
    except Exception:   # noqa: BLE001 — a language or a second channel is a nicety: never worth a message lost
        return {}


def bound_openid(deps, phone: str | None, player: dict | None = None) -> str | None:
    """The openid the phone's player bound (services/players.sign_in_wechat), unless it turned WeChat off."""
    player = _player_of(deps, phone) if player is None else player
    if (player.get("notify") or {}).get("wechat") is False:
        return None
    return player.get("wechat_openid") or None


def player_language(deps, entry, address: str | None = None, player: dict | None = None) -> str:
    """The language a participant reads: the entry's own, else the one their player record keeps (set in "我的"
    by the phone's owner), else Chinese."""
    lang = getattr(entry, "lang", None)
    if not lang and address:
        lang = (_player_of(deps, address) if player is None else player).get("lang")
    return language(lang)


def registration_messages(deps, entry, event_name: str, link: str, now: datetime, tz: str) -> list[Message]:
    """Registration received: the manage link to each member's phone (and e-mail), keyed by the entry — built
    before the entry is written, so they go in the entry's own transaction (registration.register): a retried
    request replays the entry and writes none again, and a registration is never saved without them."""
    return [record.new(id=new_id(), cause=f"registration:{entry.id}:{address_tag(address)}",
                       kind="registration_received", channel=channel, to=address, now=now,
                       # the entry's language only: a rush's registration is one write without a read (issue 16)
                       lang=language(getattr(entry, "lang", None)), params={"event": event_name, "link": link},
                       secret_params=("link",), tournament_id=entry.tournament_id, tz=tz)
            for channel, address in _contacts(entry)]


def day_registration_messages(deps, reg_id: str, tournament, phone: str | None, link: str, now: datetime
                              ) -> list[Message]:
    """A day's registration (one checkout for several events): its manage link to the contact's phone, keyed by
    the registration, written in the registration's own transaction (day_registration.register_day)."""
    if not phone:
        return []
    return [record.new(id=new_id(), cause=f"day-registration:{reg_id}:{address_tag(phone)}",
                       kind="registration_received", channel="sms", to=phone, now=now,
                       lang=language(None), params={"event": tournament.name, "link": link},
                       secret_params=("link",), tournament_id=tournament.id, tz=tournament.timezone)]


def _entry_link(entry) -> str:
    """The entry's page without its token: the player's phone keeps the token from the first link (the manage
    token is stored only as a hash, so no later message can carry it); signed in by phone, "我的" opens it."""
    from ..services.links import site_url
    return f"{site_url()}/entry.html?id={entry.id}"


def entry_messages(deps, entry, cause: str, kind: str, params: dict, now: datetime, tz: str,
                   secret_params: tuple[str, ...] = ()) -> list[Message]:
    """One message of `kind` to each of the entry's phones and e-mails, keyed by `cause` and the address, in
    each one's language; due now, or when not urgent after the quiet hours of `tz` (the tournament's zone)."""
    return [record.new(id=new_id(), cause=f"{cause}:{address_tag(address)}", kind=kind, channel=channel,
                       to=address, now=now, lang=player_language(deps, entry, address), params=params,
                       secret_params=secret_params, tournament_id=entry.tournament_id, tz=tz)
            for channel, address in _contacts(entry, deps, urgent=kind in record.URGENT)]


def _queue_for_entry(deps, entry, cause: str, kind: str, params: dict, *, tz: str | None = None) -> int:
    tz = tz or _zone(deps, entry.tournament_id)
    return sum(queue(deps, m) for m in entry_messages(deps, entry, cause, kind, params, deps.clock(), tz))


def _zone(deps, tournament_id: str | None) -> str:
    tournament = deps.repos.tournaments.get(tournament_id) if tournament_id else None
    return tournament.timezone if tournament else "Asia/Shanghai"


def waitlist_messages(deps, entry, event, deadline: datetime | None, tz: str, now: datetime) -> list[Message]:
    """Off the waitlist: pay by the hold's deadline (in the tournament's time zone), or confirmed when free —
    written in the promotion's own transaction (registration.promote_waitlist): a promoted player never told
    would only see the hold run out."""
    from zoneinfo import ZoneInfo
    if deadline is None:
        return entry_messages(deps, entry, f"promoted:{entry.id}", "waitlist_confirmed",
                              {"event": event.config.name}, now, tz)
    when = deadline.astimezone(ZoneInfo(tz)).strftime("%m-%d %H:%M")
    return entry_messages(deps, entry, f"promoted:{entry.id}:{when}", "waitlist_promoted",
                          {"event": event.config.name, "deadline": when, "link": _entry_link(entry)}, now, tz)


def paid_messages(deps, entry, payment_id: str, now: datetime) -> list[Message]:
    """The fee arrived and the place is confirmed: written in the payment's own transaction with the entry
    (services/payments.py), keyed by entry and payment (a confirmation is written once: the payment's version)."""
    event, tournament = deps.repos.events.get_with_tournament(entry.event_id)
    if event is None:
        return []
    return entry_messages(deps, entry, f"paid:{entry.id}:{payment_id}", "paid", {"event": event.config.name}, now,
                          tournament.timezone if tournament else "Asia/Shanghai")


HOLD_WARNING = timedelta(minutes=10)
_holds_checked_until: datetime | None = None      # this process's last window: each hold is looked at once


def queue_holds_ending(deps, now: datetime) -> int:
    """"Your place is held until 14:35 — 10 minutes left": for every held place whose hold ends within the next
    10 minutes and was not in this process's last look (the worker runs this each pass), once per hold."""
    global _holds_checked_until
    from zoneinfo import ZoneInfo
    after = max(_holds_checked_until or now, now)
    until = now + HOLD_WARNING
    if until <= after:
        return 0
    iso = "%Y-%m-%dT%H:%M:%SZ"
    found = deps.repos.messages.holds_ending(after.strftime(iso), until.strftime(iso))
    _holds_checked_until = until
    written, events, zones = 0, {}, {}
    for eid, entry_id in found:
        entry = deps.repos.entries.get(eid, entry_id)
        if entry is None or entry.status != "pending_payment" or entry.hold_expires_at is None:
            continue
        event = events[eid] = events.get(eid) or deps.repos.events.get(eid)
        if event is None:
            continue
        if event.tournament_id not in zones:
            tournament = deps.repos.tournaments.get(event.tournament_id)
            zones[event.tournament_id] = tournament.timezone if tournament else "Asia/Shanghai"
        tz = zones[event.tournament_id]
        when = entry.hold_expires_at.astimezone(ZoneInfo(tz)).strftime("%H:%M")
        written += _queue_for_entry(deps, entry, f"hold:{entry.id}:{entry.hold_expires_at.isoformat()}",
                                    "hold_ending", {"event": event.config.name, "deadline": when,
                                                    "link": _entry_link(entry)}, tz=tz)
    return written


# Fan-out jobs whose work is the services' (the standings, the prizes): registered by services/reactions.py, so
# this package never imports a service that imports it.
JOBS: dict = {}


def _run_job(deps, job: Message):
    """A fan-out job's work: its messages queued (each once per cause, so a job tried again adds only those a
    failed try left out)."""
    from .port import Outcome
    p = job.params
    try:
        if job.kind == "draw_round":
            on_round_drawn(deps, job.tournament_id or "", p["event_id"], int(p["stage"]), int(p["round"]))
        elif job.kind in JOBS:
            JOBS[job.kind](deps, p)
        else:
            return Outcome("job", error="unknown_job", permanent=True)
    except Exception as exc:   # noqa: BLE001 — tried again after the back-off, like a provider's failure
        return Outcome("job", error=type(exc).__name__)
    return Outcome("job")


def queue_job(deps, kind: str, params: dict, secret: tuple[str, ...] = ()) -> bool:
    """A job of `kind` (registered in JOBS) for the worker's next pass, due now. `secret`: params that are
    personal (a login): dropped from the item once the job is done or given up."""
    return queue(deps, record.new(id=new_id(), cause=f"{kind}:{new_id()}", kind=kind, channel="job", to="",
                                  now=deps.clock(), params=params, secret_params=secret))


def queue_draw(deps, tournament_id: str, event_id: str, stage: int, round_no: int) -> bool:
    """RoundDrawn: one job in the outbox (the worker queues each player's table from it), so the draw's request
    writes one item however many play."""
    return queue(deps, record.new(
        # a redrawn round is drawn again (services/rounds.redraw): each draw its own job, and its messages are
        # keyed by the draw's time (on_round_drawn), so the new tables are told and no draw twice
        id=new_id(), cause=f"drawn:{event_id}:{stage}:{round_no}:{new_id()}", kind="draw_round", channel="job", to="",
        now=deps.clock(), params={"event_id": event_id, "stage": stage, "round": round_no},
        tournament_id=tournament_id))


def queue_final_check(deps, tournament_id: str, event_id: str, why: str) -> bool:
    """A round closed or an appeal decided: the worker looks whether the event is over and its places final
    (no appeal open), and then tells each entry its place and prize (queue_prize: once per entry)."""
    return queue(deps, record.new(
        id=new_id(), cause=f"final-check:{event_id}:{why}:{new_id()}", kind="final_places", channel="job", to="",
        now=deps.clock(), params={"event_id": event_id}, tournament_id=tournament_id))


def on_round_drawn(deps, tournament_id: str, event_id: str, stage: int, round_no: int) -> int:
    """RoundDrawn: each player's table, seat and start — "桌 12 · 北 · 14:00" — to the phone of the member
    sitting there (a pair's two members have a seat each). Reads the round and the event's entries: a handler
    for the bus's worker, not for the draw's own request."""
    from zoneinfo import ZoneInfo

    from .templates import SEATS
    event = deps.repos.events.get(event_id)
    tournament = deps.repos.tournaments.get(tournament_id)
    doc, tables = deps.repos.rounds.get_round(event_id, stage, round_no)
    if event is None or tournament is None or doc is None:
        return 0
    entries = {e.id: e for e in deps.repos.entries.list(event_id)}
    tz = tournament.timezone
    starts = datetime.fromisoformat(doc["starts_at"]).astimezone(ZoneInfo(tz)).strftime("%H:%M") \
        if doc.get("starts_at") else ""
    now, written = deps.clock(), 0
    for table in tables:
        for side in table["sides"]:
            entry = entries.get(side["entry_id"])
            if entry is None:
                continue
            for k, member in enumerate(entry.members):
                seat = side["seats"][k] if k < len(side.get("seats") or []) else ""
                if not member.phone:
                    continue
                player = _player_of(deps, member.phone)   # one read: the language and the WeChat binding
                lang = player_language(deps, entry, member.phone, player)
                params = {"event": event.config.name, "round": round_no, "table": table["number"],
                          "seat": SEATS[lang].get(seat, seat), "time": starts}
                cause = f"draw:{event_id}:{stage}:{round_no}:{doc.get('drawn_at', '')}:{entry.id}:"
                # by SMS, and in the chat when signed in inside WeChat: as the player chose (no e-mail for a table)
                for channel, address in member_channels(deps, member.phone, None, "draw" in record.URGENT, player):
                    written += queue(deps, record.new(
                        id=new_id(), cause=cause + address_tag(address), kind="draw", channel=channel, to=address,
                        now=now, lang=lang, tournament_id=tournament_id, tz=tz, params=params))
    return written


@after_the_fact
def on_result_entered(deps, tournament_id: str, event_id: str, stage: int, round_no: int, table_no: int,
                      version: int) -> int:
    """ResultEntered: the sides that did not enter it are asked to confirm, once per version of the result."""
    from ..services.links import site_url
    event = deps.repos.events.get(event_id)
    _, table = deps.repos.rounds.get_table(event_id, stage, round_no, table_no)
    if event is None or table is None or table.get("status") != "entered":
        return 0
    others = [s["entry_id"] for i, s in enumerate(table["sides"]) if i != table.get("entered_side")]
    entries = [e for e in deps.repos.entries.get_many(event_id, others) if e is not None]
    return queue_confirm_result(deps, event, round_no, table_no, entries, version,
                                f"{site_url()}/score.html?e={event_id}&r={round_no}&t={table_no}")


def queue_confirm_result(deps, event, round_no: int, table_no: int, entries: list, version: int,
                         link: str) -> int:
    """A result entered at the table waits for the other side: each of `entries` (those who did not enter it)
    is asked to confirm, once per version of the result."""
    return sum(_queue_for_entry(deps, entry, f"confirm:{event.id}:{round_no}:{table_no}:{version}:{entry.id}",
                                "confirm_result", {"event": event.config.name, "round": round_no,
                                                   "table": table_no, "link": link}) for entry in entries)


def refund_messages(deps, entry, event_name: str, amount: int, total_refunded: int, payment_id: str,
                    now: datetime, tz: str) -> list[Message]:
    """Refunded: `amount` in minor units, in the player's language as the pages show money (money_text over
    money()), once per refund: keyed by the payment and its refunded total after it — the same key whether the
    refund's own write carries it (registration._refund) or the PaymentRefunded handler queues it."""
    from ..publish.money_text import money_minor_text
    out = []
    for m in entry_messages(deps, entry, f"refund:{payment_id}:{total_refunded}", "refunded",
                            {"event": event_name, "amount": ""}, now, tz):
        text = money_minor_text(amount, entry.currency, m.lang.split("-")[0])   # "zh", "en", "vi"
        out.append(m.model_copy(update={"params": {**m.params, "amount": text}}))
    return out


def queue_appeal_decided(deps, entry, event, appeal_id: str, outcome: str, ruling: str) -> int:
    """The appellant is told the decision: its outcome in their language, and the ruling as the director wrote it."""
    from .templates import OUTCOMES
    now, tz, written = deps.clock(), _zone(deps, entry.tournament_id), 0
    for m in entry_messages(deps, entry, f"appeal:{appeal_id}:{entry.id}", "appeal_decided",
                            {"event": event.config.name, "decision": ""}, now, tz):
        said = OUTCOMES[m.lang].get(outcome, outcome)
        written += queue(deps, m.model_copy(update={"params": {**m.params,
                                                               "decision": f"{said}：{ruling}" if ruling else said}}))
    return written


def queue_schedule_changed(deps, entries: list, event, change_id: str, when: str, tz: str = "Asia/Shanghai") -> int:
    return sum(_queue_for_entry(deps, e, f"schedule:{change_id}:{e.id}", "schedule_changed",
                                {"event": event.config.name, "when": when}, tz=tz) for e in entries)


def queue_prize(deps, entry, event, place: int, label: str, amount: int, currency: str, tz: str) -> int:
    """The final place, or the prize when there is one (its label, and its amount in whole units as prize tables
    state them, written as the published pages write it); once per entry and event."""
    from ..publish.money_text import money_text
    cause, now, written = f"final:{event.id}:{entry.id}", deps.clock(), 0
    if not (label or amount):
        return _queue_for_entry(deps, entry, cause, "final_place", {"event": event.config.name, "place": place}, tz=tz)
    for m in entry_messages(deps, entry, cause, "prize", {"event": event.config.name, "prize": label}, now, tz):
        worth = money_text(amount, currency, m.lang.split("-")[0]) if amount else ""   # prize tables: whole units
        prize = f"{label}（{worth}）" if label and worth else label or worth
        written += queue(deps, m.model_copy(update={"params": {**m.params, "prize": prize}}))
    return written


def queue_notice(deps, tournament, entries: list, text: str, idem_key: str | None) -> int:
    """The director's notice: once per address even when two of its entries share a phone; a retried request
    (same Idempotency-Key) queues nothing new."""
    from ..installation import lookup_hash
    notice_id = lookup_hash("notice", f"{tournament.id}:{idem_key}")[:20] if idem_key else new_id()
    now, written, seen = deps.clock(), 0, set()
    for entry in entries:
        for channel, address in _contacts(entry, deps, urgent="notice" in record.URGENT):
            if address in seen:
                continue
            seen.add(address)
            message = record.new(id=new_id(), cause=f"notice:{notice_id}:{address_tag(address)}", kind="notice",
                                 channel=channel, to=address, now=now,
                                 lang=player_language(deps, entry, address),
                                 params={"tournament": tournament.name, "text": text},
                                 tournament_id=tournament.id, tz=tournament.timezone)
            written += queue(deps, message)
    return written


def send_code(deps, phone: str, code: str, lang: str | None, kind: str = "sign_in_code") -> str:
    """A one-time code by SMS (a player's sign-in, an organiser's reset or phone check: `kind`), sent in the
    request; one message per code issued."""
    message = record.new(id=new_id(), cause=f"code:{new_id()}", kind=kind, channel="sms", to=phone,
                         now=deps.clock(), lang=language(lang), params={"code": code}, secret_params=("code",))
    return send_now(deps, message)


def address_tag(address: str) -> str:
    """Which member of a cause a message is for, in its key without the address itself (a keyed hash)."""
    from ..installation import lookup_hash
    return lookup_hash("message-to", address)[:16]


# --------------------------------------------------------------------------- the bus's handlers
# Registered in services/reactions.py: each reads what its message needs and queues it under the cause's key, so a
# dispatch run again (a retried request, a redelivered notification) queues nothing new.

def _entries(deps, entry_ids) -> list:
    return [e for e in (deps.repos.entries.find(i) for i in entry_ids) if e is not None]


def _event_name(deps, event_id: str) -> str:
    found = deps.repos.events.get(event_id)
    return found.config.name if found else ""


def on_payment_failed(deps, event) -> int:
    """PaymentFailed (the order could not be opened or the provider refused it): pay again from the entry's
    page while the place is still held."""
    return sum(_queue_for_entry(deps, e, f"payment-failed:{event.payment_id}", "payment_failed",
                                {"event": _event_name(deps, e.event_id), "link": _entry_link(e)})
               for e in _entries(deps, event.entry_ids) if e.status == "pending_payment")


def on_payment_refunded(deps, event) -> int:
    """PaymentRefunded, whoever asked for it (the player's withdrawal, the director, the provider's own report):
    the amount back, once per refund — a refund whose write already carried its message queues nothing."""
    now, written = deps.clock(), 0
    for entry in _entries(deps, event.entry_ids):
        for m in refund_messages(deps, entry, _event_name(deps, entry.event_id), event.amount, event.total_refunded,
                                 event.payment_id, now, _zone(deps, entry.tournament_id)):
            written += queue(deps, m)
    return written


def on_hold_released(deps, event) -> int:
    """HoldReleased (the sweeper, or the provider said the order closed unpaid): the place went, once per entry."""
    entry = deps.repos.entries.get(event.event_id, event.entry_id)
    if entry is None:
        return 0
    return _queue_for_entry(deps, entry, f"released:{entry.id}", "hold_released",
                            {"event": _event_name(deps, entry.event_id), "link": _entry_link(entry)})


def on_appeal_decided(deps, event) -> int:
    entry = deps.repos.entries.get(event.event_id, event.entry_id) if event.entry_id else None
    found = deps.repos.events.get(event.event_id)
    if entry is None or found is None:
        return 0
    return queue_appeal_decided(deps, entry, found, event.appeal_id, event.outcome, event.ruling)


def on_dispute_settled(deps, event) -> int:
    """DisputeSettled: both sides told the director's entry stands, with the table's page to read it."""
    from ..services.links import site_url
    found = deps.repos.events.get(event.event_id)
    _, table = deps.repos.rounds.get_table(event.event_id, event.stage, event.round_no, event.table_no)
    if found is None or table is None:
        return 0
    link = f"{site_url()}/score.html?e={event.event_id}&r={event.round_no}&t={event.table_no}"
    entries = deps.repos.entries.get_many(event.event_id, [s["entry_id"] for s in table["sides"]])
    return sum(_queue_for_entry(deps, e, f"settled:{event.event_id}:{event.stage}:{event.round_no}:"
                                         f"{event.table_no}:{event.version}:{e.id}", "dispute_settled",
                                {"event": found.config.name, "round": event.round_no, "table": event.table_no,
                                 "link": link}) for e in entries if e is not None)
