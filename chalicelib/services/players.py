"""Sign-in by phone and SMS code (api.md v1.3 "Players"): a 6-digit code, valid 10 minutes, used once, compared in
constant time; limited per phone (1 a minute, 10 a day) and per client address (20 an hour) against SMS bombing,
by services/limits.py's token buckets; a wrong code counts against it (5 and it is gone). The code goes out at
once through the outbox (the worker retries it if the provider is down); it is never logged."""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING

from .. import errors
from ..domain.contacts import ERASED_ADDRESS, erase_contacts, tournament_ended
from ..domain.entry import CLOSED, EntryStatus
from ..ids import hash_secret, new_id, new_token
from ..installation import lookup_hash, phone_hash as keyed_phone_hash   # phone_hash: the local names'
from ..messages.record import masked
from ..models import Entry, Event, Tournament
from ..phones import same
from . import gateways, registration, sms_codes

if TYPE_CHECKING:
    from ..bootstrap import Deps

log = logging.getLogger("cardgames.players")

SESSION_DAYS = 30   # the code's rules and limits are services/sms_codes.py's (shared with the password reset)



def send_code(deps: Deps, raw_phone: str, client: str | None, lang: str | None = None) -> dict:
    phone = sms_codes.phone_given(raw_phone)
    phone_hash = keyed_phone_hash(phone)
    sms_codes.limit_client(deps, client)
    sms_codes.limit_phone(deps, phone_hash)
    sms_codes.issue(deps, phone_hash, phone, lang)
    return {"retry_after": int(sms_codes.PHONE_MINUTE[1])}


def sign_in(deps: Deps, raw_phone: str, code: str, binding_ticket: str | None = None) -> dict:
    """The phone and its SMS code; with a `binding_ticket` (a WeChat sign-in answered wechat_phone_required) the
    ticket's openid is bound to this phone's player too, for good — refused before the code is spent when either
    is already another's."""
    phone = sms_codes.phone_given(raw_phone)
    phone_hash = keyed_phone_hash(phone)
    now = deps.clock()
    wechat = _ticket(deps, binding_ticket, phone_hash, now) if binding_ticket else None   # (openid, hash, stale)
    sms_codes.use(deps, phone_hash, code)
    player = deps.repos.players.get_or_create(phone_hash, new_id(), phone, now.isoformat())
    if wechat is not None:
        deps.repos.players.bind_wechat(phone_hash, wechat[1], wechat[0], hash_secret(binding_ticket.strip()),
                                       int(now.timestamp()), stale=wechat[2])
        log.info("player %s bound to a WeChat openid", player["id"])
    return _session(deps, player, phone_hash, now)


def _session(deps: Deps, player: dict, phone_hash: str, now) -> dict:
    token = new_token("pt")
    expires = now + timedelta(days=SESSION_DAYS)
    deps.repos.players.add_session(hash_secret(token), player["id"], phone_hash, int(expires.timestamp()))
    return {"token": token, "expires_at": expires,
            "player": {"id": player["id"], "phone_masked": masked(player["phone"])}}


# --------------------------------------------------------------------------- inside WeChat: web authorisation
# The page sends the player through the official account's silent authorisation (snsapi_base: the same redirect
# as JSAPI's, POST /wechat-pay/authorize) and hands the one-use code here. The openid is the platform's official
# account's (its AppID + AppSecret: the platform's WeChat Pay adapter), the one its template messages go to. It
# never leaves the server: not in an answer, not in a log line; only its keyed hash names the binding.
WECHAT_TICKET_MINUTES = 10


def _official_account(deps: Deps):
    gw = gateways.wechat_oauth(deps)
    if gw is None:
        raise errors.WeChatSignInOff()
    return gw


def sign_in_wechat(deps: Deps, wechat_code: str) -> dict:
    """A bound openid signs in alone; one not yet bound is 409 wechat_phone_required with a ticket (10 minutes) to send
    once with a phone and its SMS code (sign_in)."""
    openid = _official_account(deps).openid(wechat_code.strip())
    openid_hash = lookup_hash("wechat", openid)
    now = deps.clock()
    binding = deps.repos.players.by_wechat(openid_hash)
    player = deps.repos.players.by_phone_hash(binding["phone_hash"]) if binding else None
    if player is not None and player.get("wechat_hash") == openid_hash:
        return _session(deps, player, binding["phone_hash"], now)
    ticket = new_token("wt")
    expires = now + timedelta(minutes=WECHAT_TICKET_MINUTES)
    deps.repos.players.put_wechat_ticket(hash_secret(ticket), openid, int(expires.timestamp()))
    raise errors.WeChatPhoneRequired("请验证一次手机号，之后微信内直接登录 · Confirm your phone once; then WeChat "
                                     "signs you in.", {"binding_ticket": ticket, "expires_at": expires.isoformat()})


def _ticket(deps: Deps, ticket: str, phone_hash: str, now) -> tuple[str, str, str | None]:
    """(openid, its keyed hash, a stale binding's phone hash) of a fresh ticket, when it may be bound to this
    phone's player. A binding whose player is gone, or no longer holds this openid, binds no one: replaceable."""
    held = deps.repos.players.wechat_ticket(hash_secret(ticket.strip()))
    if held is None or int(held.get("expires_at", 0)) <= now.timestamp():
        raise errors.BindingTicketInvalid()
    openid_hash = lookup_hash("wechat", held["openid"])
    binding = deps.repos.players.by_wechat(openid_hash)
    stale = None
    if binding is not None and binding["phone_hash"] != phone_hash:
        holder = deps.repos.players.by_phone_hash(binding["phone_hash"])
        if holder is None or holder.get("wechat_hash") != openid_hash:
            stale = binding["phone_hash"]
    if binding is not None and binding["phone_hash"] != phone_hash and stale is None:
        raise errors.WeChatAlreadyBound("这个微信已绑定另一个手机号 · This WeChat is bound to another phone.",
                                        {"reason": "wechat_bound_to_another_phone"})
    player = deps.repos.players.by_phone_hash(phone_hash)
    if player is not None and player.get("wechat_hash") not in (None, openid_hash):
        raise errors.WeChatAlreadyBound("这个手机号已绑定另一个微信 · This phone is bound to another WeChat.",
                                        {"reason": "phone_bound_to_another_wechat"})
    return held["openid"], openid_hash, stale


# --------------------------------------------------------------------------- "我的": the signed-in player

def _signed_in(deps: Deps, token: str | None) -> tuple[dict, dict]:
    """(session, player) of a live X-Player-Token; 401 otherwise (an erased player's session is gone)."""
    session = deps.repos.players.session(hash_secret(token.strip())) if token else None
    if session is None or int(session.get("expires_at", 0)) <= deps.clock().timestamp():
        raise errors.Unauthorized("请先登录 · Sign in first.")
    player = deps.repos.players.by_phone_hash(session["phone_hash"])
    if player is None or session.get("player_id") != player["id"]:   # an erased player's other devices stay out,
        raise errors.Unauthorized("请先登录 · Sign in first.")        # even once the phone signs in again
    return session, player


def _phone_of(entry: Entry, phone: str) -> bool:
    return any(same(m.phone, phone) for m in entry.members)


def entry_for_player(deps: Deps, entry_id: str, token: str | None) -> Entry:
    """The entry, if the signed-in player may act on it as its manage link does: one of its members has the
    player's phone, or it is part of a day's registration whose contact has it. Any other looks missing."""
    _, player = _signed_in(deps, token)
    entry = deps.repos.entries.find(entry_id)
    if entry is not None and _phone_of(entry, player["phone"]):
        return entry
    reg = deps.repos.entries.registration(entry.registration_id) if entry and entry.registration_id else None
    if reg is not None and same((reg.get("contact") or {}).get("phone"), player["phone"]):
        return entry
    raise errors.NotFound("找不到该报名，请检查链接 · Entry not found (check the link).")


@dataclass
class _Held:
    """What the index finds for a phone, read: entries, day registrations, their tournaments and events."""
    entries: list[Entry] = field(default_factory=list)
    registrations: list[dict] = field(default_factory=list)
    tournaments: dict[str, Tournament] = field(default_factory=dict)
    events: dict[str, Event] = field(default_factory=dict)
    organisers: dict[str, str] = field(default_factory=dict)


def _held(deps: Deps, phone_hash: str) -> _Held:
    """What the index points to, each still holding this phone when read (an entry or a registration whose
    phone was erased or changed by a write that did not move the index is not the player's any more)."""
    def has_phone(phone: str | None) -> bool:
        return bool(phone) and keyed_phone_hash(phone) == phone_hash

    held = _Held()
    rows = deps.repos.players.holdings(phone_hash)
    wanted = {(r["event_id"], r["entry_id"]) for r in rows if r["kind"] == "phone_entry"}
    by_contact: set[str] = set()
    for r in rows:
        if r["kind"] == "phone_registration":
            reg = deps.repos.entries.registration(r["registration_id"])
            if reg is not None and has_phone((reg.get("contact") or {}).get("phone")):
                held.registrations.append(reg)
                wanted |= {(i["event_id"], i["entry_id"]) for i in reg.get("items", [])}
                by_contact |= {i["entry_id"] for i in reg.get("items", [])}
    by_event: dict[str, list[str]] = {}
    for eid, entry_id in sorted(wanted):
        by_event.setdefault(eid, []).append(entry_id)
    for eid, ids in by_event.items():
        held.entries += [e for e in deps.repos.entries.get_many(eid, ids)
                         if e is not None and (e.id in by_contact or any(has_phone(m.phone) for m in e.members))]
    for tid in sorted({e.tournament_id for e in held.entries} | {r["tournament_id"] for r in held.registrations}):
        tournament, events = deps.repos.tournaments.get_with_events(tid)
        if tournament is None:
            continue
        held.tournaments[tid] = tournament
        held.events.update({ev.id: ev for ev in events})
        if tournament.organiser_id not in held.organisers:
            organiser = deps.repos.organisers.get(tournament.organiser_id)
            held.organisers[tournament.organiser_id] = organiser.name if organiser else ""
    held.entries = [e for e in held.entries if e.tournament_id in held.tournaments and e.event_id in held.events]
    held.entries.sort(key=lambda e: (e.created_at, e.id), reverse=True)   # newest first
    return held


def _registration_rows(deps: Deps, held: _Held) -> list[dict]:
    now = deps.clock()
    out = []
    for e in held.entries:
        if e.status == EntryStatus.MERGED:
            continue   # joined into another entry, listed itself
        t, ev = held.tournaments[e.tournament_id], held.events[e.event_id]
        out.append({"entry_id": e.id, "registration_id": e.registration_id, "tournament_id": t.id,
                    "tournament": t.name, "organiser": held.organisers.get(t.organiser_id, ""), "event_id": ev.id,
                    "event": ev.config.name, "game": ev.config.game, "date": t.starts_on, "timezone": t.timezone, "name": e.name,
                    "status": e.status, "payment_state": e.payment_state, "amount_due": e.amount_due,
                    "amount_paid": e.amount_paid, "amount_refunded": e.amount_refunded, "currency": e.currency, "created_at": e.created_at,
                    "hold_expires_at": e.hold_expires_at,
                    "can": registration.manage_actions(deps, e, ev, t, now)})
    return out


def _history(deps: Deps, held: _Held) -> list[dict]:
    """Final places and points of the events played, from their standings (as the public pages show them)."""
    from .standings import event_standings
    out = []
    for e in held.entries:
        if e.status not in (EntryStatus.CONFIRMED, EntryStatus.DISQUALIFIED):
            continue
        ev, t = held.events[e.event_id], held.tournaments[e.tournament_id]
        head = deps.repos.rounds.state_head(ev.id)
        if not (head.get("plans") or {}).get(str(len(ev.config.stages) - 1)) or head.get("open_round"):
            continue   # not played out yet (cheap first: the last stage not drawn, or a round open)
        standings = event_standings(deps, ev)
        row = next((r for r in standings.standings if r.entry_id == e.id), None)
        if not standings.final or row is None:
            continue
        first = next(iter(row.points.values()), None)
        out.append({"tournament": t.name, "event": ev.config.name, "date": t.starts_on, "place": row.rank,
                    "of": len(standings.standings), "points": first, "entry_id": e.id, "event_id": ev.id})
    return sorted(out, key=lambda r: r["date"], reverse=True)


def _profile(player: dict, held: _Held) -> dict:
    name = player.get("name") or next((m.name for e in held.entries for m in e.members if same(m.phone, player["phone"])), "")
    return {"id": player["id"], "phone_masked": masked(player["phone"]), "name": name, "email": player.get("email"),
            "lang": player.get("lang") or "zh-CN", "notify": {**DEFAULT_NOTIFY, **(player.get("notify") or {})}}


DEFAULT_NOTIFY = {"sms": True, "email": True, "wechat": True}


def me(deps: Deps, token: str | None) -> dict:
    """GET /players/me: the player, every registration and entry of its phone (any organiser), newest first,
    with what may be done now (the manage link's rules), and its history."""
    session, player = _signed_in(deps, token)
    held = _held(deps, session["phone_hash"])
    return {**_profile(player, held), "registrations": _registration_rows(deps, held), "history": _history(deps, held)}


def update_me(deps: Deps, token: str | None, patch: dict) -> dict:
    """PATCH /players/me: name, e-mail ("" removes it), language (messages use it: `lang`), channels."""
    session, _ = _signed_in(deps, token)
    changes = {k: v for k, v in patch.items() if v is not None}
    if changes.get("email") == "":
        changes["email"] = None
    deps.repos.players.update_profile(session["phone_hash"], changes)
    return me(deps, token)


def export(deps: Deps, token: str | None) -> dict:
    """GET /players/me/export: everything held about this phone — the player, every entry and day registration
    made with it (as stored, less the manage links' hashes), their payments, the messages sent to it about them,
    the history."""
    session, player = _signed_in(deps, token)
    held = _held(deps, session["phone_hash"])
    secret = {"manage_token_hash"}
    payments = []
    for pid in sorted({e.payment_id for e in held.entries if e.payment_id}
                      | {r["payment_id"] for r in held.registrations if r.get("payment_id")}):
        p = deps.repos.payments.get(pid)
        if p is not None:
            payments.append(p.model_dump(mode="json", include={"id", "provider", "channel", "amount", "currency",
                                                                "state", "amount_refunded", "created_at", "items"}))
    return {"exported_at": deps.clock().isoformat(),
            "player": {**_profile(player, held), "phone": player["phone"], "created_at": player.get("created_at"),
                       "wechat_bound": bool(player.get("wechat_hash"))},
            "entries": [{**_others_masked(e.model_dump(mode="json", exclude=secret), player["phone"]),
                         "tournament": held.tournaments[e.tournament_id].name,
                         "event": held.events[e.event_id].config.name} for e in held.entries],
            "registrations": [_others_masked({k: v for k, v in r.items() if k not in secret}, player["phone"])
                              for r in held.registrations],
            "payments": payments, "messages": _messages(deps, held, player["phone"]), "history": _history(deps, held)}


def _others_masked(record, phone: str):
    """The record with everyone else's contact data masked (a partner's phone is theirs, not this player's to
    download); the player's own stays as stored."""
    if isinstance(record, list):
        return [_others_masked(v, phone) for v in record]
    if not isinstance(record, dict):
        return record
    out = {k: _others_masked(v, phone) for k, v in record.items()}
    if out.get("phone") and not same(out["phone"], phone):
        out["phone"] = masked(out["phone"])
        out.update({k: None for k in ("email", "openid", "wechat_openid") if out.get(k)})
    if "members" in out:
        out.pop("wechat_openid", None)   # the entry's WeChat binding: an identifier, nothing the player gave
    return out


def _messages(deps: Deps, held: _Held, phone: str) -> list[dict]:
    """The messages sent to this phone about its tournaments (kind, language, state, when; their parameters less
    the secret ones, which are dropped once sent)."""
    out = []
    for tid in held.tournaments:
        for m in deps.repos.messages.for_tournament(tid):
            if m.channel == "sms" and same(m.to, phone):
                out.append({"tournament_id": tid, "template": m.kind, "lang": m.lang, "state": m.state,
                            "at": m.created_at.isoformat(), "sent_at": m.sent_at.isoformat() if m.sent_at else None,
                            "params": {k: v for k, v in m.params.items() if k not in m.secret_params}})
    return out


def _unaddress_messages(deps: Deps, held: _Held, player: dict) -> int:
    """The outbox's records of the messages sent to this player — to its phone, its own e-mail or WeChat openid —
    keep their kind and state for the console, not the address (as the retention sweep leaves them)."""
    mine = {a for a in (player.get("email"), player.get("wechat_openid")) if a}
    count = 0
    for tid in held.tournaments:
        for m in deps.repos.messages.for_tournament(tid):
            if m.to and ((m.channel == "sms" and same(m.to, player["phone"])) or m.to in mine):
                try:
                    deps.repos.retention.erase_message(m.model_copy(update={"to": ERASED_ADDRESS}))
                except errors.NotFound:
                    continue
                count += 1
    return count


def erase(deps: Deps, token: str | None) -> dict:
    """DELETE /players/me: the phone (and the e-mail, openid where they sit with it) erased from every entry and
    day registration made with it — all of them in tournaments that have ended, or already out with nothing owed;
    names and results stay. Refused (409) while one is still in a tournament not yet over. Then the phone's
    index, the player and this session are gone: the phone signs in again as a new player."""
    session, player = _signed_in(deps, token)
    held = _held(deps, session["phone_hash"])
    now = deps.clock()

    def ended(tid: str) -> bool:
        t = held.tournaments[tid]
        return tournament_ended(t.ends_on, t.timezone, now)

    open_ = [e for e in held.entries if not ended(e.tournament_id) and not (e.status in CLOSED and e.owed == 0)]
    if open_:
        raise errors.TournamentNotFinished(
            "还有未结束的比赛报名，结束后才能删除 · An entry is in a tournament not yet finished: erase after it ends.",
            {"entry_ids": [e.id for e in open_]})
    mine = frozenset({player["phone"]})
    erased = 0
    for e in held.entries:
        data = e.model_dump(mode="json")
        blank = erase_contacts(data, of=mine)
        if blank != data:
            after = Entry.model_validate({**blank, "version": e.version + 1, "updated_at": now.isoformat()})
            deps.repos.entries.erase_contacts(e, after)
            erased += 1
    for r in held.registrations:
        blank = erase_contacts(r, of=mine)
        if blank != r:
            deps.repos.entries.replace_registration(blank)
            erased += 1
    erased += _unaddress_messages(deps, held, player)
    deps.repos.players.forget(session["phone_hash"], hash_secret(token.strip()), [e.id for e in held.entries],
                              [r["id"] for r in held.registrations], wechat_hash=player.get("wechat_hash"))
    log.info("player erased: %d records", erased)
    return {"erased": erased}
