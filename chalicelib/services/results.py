"""Table results: entered by the organiser or a side's table code, confirmed by the other side, versioned,
and audited (who, when, before, after, reason). After confirmation only the organiser may change them."""
from __future__ import annotations

from typing import TYPE_CHECKING

import hmac
from datetime import timedelta

from .. import errors
if TYPE_CHECKING:   # the type only: the composition root (bootstrap) imports the services, not the reverse
    from ..bootstrap import Deps
from ..domain.actor import Actor
from ..domain.schedule import correction_deadline, correction_open, window_base
from ..domain.table import Forfeit, Table
from ..engine.games import game as game_rules
from ..engine.types import Side
from ..installation import lookup_hash
from ..models import AuditRecord, ResultOut
from .lineups import played_in_rooms
from .registration import event_config
from .rounds import code_hash, load_table, normalise_code
from .tables import audit_row, load, place_of, save, table_view


def resolve_actor(deps: Deps, eid: str, n: int, t: int, principal, code: str | None,
                  table: dict | None = None, client: str = "") -> Actor:
    """Who acts at a table: a signed-in principal (authenticated and authorised by the route layer) or the
    holder of one side's table code. `table`: the table when the caller has read it already.

    The right code is always accepted: wrong ones are counted per client address and per table, and only a
    wrong code past a limit gets 429 — someone guessing at a table can never lock out its real phones (and
    with 50 bits a code is not guessed anyway)."""
    if principal is not None:
        return Actor("organiser", principal.who)
    if not code:
        raise errors.Unauthorized("Sign in as the organiser or give the table code (X-Table-Code).")
    if table is None:   # eventually consistent, as a poll's (a side's code follows from its place, never from
        _, table = _table_for_poll(deps, eid, n, t)   # what is written to the table: a stale copy has the same)
    given = code_hash(code)
    for i, h in enumerate(table.get("code_hashes", [])):
        if hmac.compare_digest(h, given):
            return Actor("side", f"table {t} side {i + 1}", side=i)
    now = int(deps.clock().timestamp())
    window, expires = now // 60, now + 180
    rates = deps.repos.rates
    within = rates.take("tablecode-client", lookup_hash("source", client or "unknown"), window,
                        WRONG_CODES_PER_MINUTE, expires)
    within = rates.take("tablecode", f"{eid}#{n}#{t}", window, WRONG_CODES_PER_MINUTE_PER_TABLE, expires) and within
    if not within:
        exc = errors.RateLimited("桌号码错误次数过多，请一分钟后再试 · Too many wrong table codes: wait a minute and "
                                 "try again.")
        exc.retry_after = 60 - now % 60
        raise exc
    raise errors.Forbidden("这个桌号码不对 · This table code is not valid for this table.")


def find_table(deps: Deps, code: str, client: str = "") -> dict:
    """A printed table code typed on bare score.html (issue 39) → {event_id, round, table}. Unknown codes count
    against the same per-address limit as wrong codes at a table: guessing stays hopeless."""
    found = deps.repos.rounds.find_code(code_hash(code)) if normalise_code(code) else None
    if found:
        return found
    now = int(deps.clock().timestamp())
    if not deps.repos.rates.take("tablecode-client", lookup_hash("source", client or "unknown"), now // 60,
                                 WRONG_CODES_PER_MINUTE, now + 180):
        exc = errors.RateLimited("桌号码错误次数过多，请一分钟后再试 · Too many wrong table codes: wait a minute and "
                                 "try again.")
        exc.retry_after = 60 - now % 60
        raise exc
    raise errors.NotFound("没有这个桌号码，请核对后重试 · No table has this code; check it and try again.")


WRONG_CODES_PER_MINUTE = 5             # per client address
WRONG_CODES_PER_MINUTE_PER_TABLE = 20  # from anyone


def scoring_view(deps: Deps, eid: str, n: int, t: int, principal, code: str | None, client: str = "") -> dict:
    """A phone's poll: who asks, and what the table-side page shows, with the table read once for both."""
    loaded = _table_for_poll(deps, eid, n, t) if principal is None and code else None   # no code: 401 first
    actor = resolve_actor(deps, eid, n, t, principal, code, loaded[1] if loaded else None, client)
    doc, table = loaded or _table_for_poll(deps, eid, n, t)
    return table_for_scoring(deps, eid, n, actor, doc, table, consistent=False)


_STAGE_OF_ROUND: dict[tuple[str, int], int] = {}


def _table_for_poll(deps: Deps, eid: str, n: int, t: int) -> tuple[dict, dict]:
    """Round n's document and table t in one batch read. Which stage round n belongs to never changes once it is
    drawn, so this process remembers it and skips the event state's read (a hall polls every few seconds); a
    miss reads the state as before. Read eventually consistent (issue 43: half the units on the event's key, which
    every phone's open reads): this only shows the table, a second old at most; whatever writes reads it again
    strongly (load_table) and writes under its version."""
    stage = _STAGE_OF_ROUND.get((eid, n))
    if stage is not None:
        doc, table = deps.repos.rounds.get_table(eid, stage, n, t, consistent=False)
        if doc is not None and table is not None:
            return doc, table
    _, doc, table = load_table(deps, eid, n, t)
    if len(_STAGE_OF_ROUND) > 10_000:
        _STAGE_OF_ROUND.clear()
    _STAGE_OF_ROUND[(eid, n)] = doc["stage"]
    return doc, table


def table_for_scoring(deps: Deps, eid: str, n: int, actor: Actor, doc: dict, table: dict, consistent: bool = True) -> dict:
    """What the table-side scoring page shows: the event, the round, the table with names, and whose side. The
    event's name, game and methods come from this process's config cache (30 s; none of them moves once a round
    is drawn); the names are read each time, eventually consistent (half their units on the event's key: they are
    only shown, and move only when the organiser renames an entry). `consistent=False` (a phone opening its table,
    not the live JSON a change writes): its appeals too — one a second late on a page that follows the live JSON."""
    event = event_config(deps, eid)
    ids = [s["entry_id"] for s in table["sides"]]
    early = doc.get("early_finish") or {}
    entries = [e for e in deps.repos.entries.get_many(eid, [*ids, *early], consistent=False) if e]
    names = {e.id: e.name for e in entries}   # this table's (and early finishers')
    view = {"tournament_id": event.tournament_id, "event_id": eid, "event_name": event.config.name, "game": event.config.game, "round": n,
            "round_status": doc["status"], "method": event.config.stages[doc["stage"]].scoring.method,
            "starts_at": doc.get("starts_at"), "ends_at": doc.get("ends_at"),
            "side": actor.side, "table": table_view(table, names),
            "deals_per_round": getattr(event.config.stages[doc["stage"]].scoring, "deals_per_round", None),
            "result_entry": event.config.result_entry, "appeal_window": _appeal_window(deps, event, doc),
            "appeals": _table_appeals(deps, eid, n, table, actor, consistent),
            "early_finish": [{"entry_id": e, "name": names.get(e, ""), **info} for e, info in early.items()],
            "timezone": _tournament_facts(deps, event.tournament_id)[1]}   # times shown in the tournament's zone
    if event.config.game == "tractor":   # the phone's penalty form words each kind in the stage's own numbers
        sc = event.config.stages[doc["stage"]].scoring
        view["penalty_rules"] = {"wrong_play_points_per_card": sc.wrong_play_points_per_card, "penalty_levels": sc.penalty_levels}
    if not table.get("rooms"):   # a pair's players by seat, in the order of its members (issue 39: partners could
        view["seat_names"] = _seat_names(table, entries)   # not tell from the team's name who sits North)
    if table.get("rooms"):   # a team match: the phones pick lineups and players by name (names only, no phones)
        view["members"] = {e.id: [m.name for m in e.members] for e in entries if e.id in ids}
        view["knockout"] = event.config.stages[doc["stage"]].format == "knockout"
    return view


def _seat_names(table: dict, entries: list) -> dict[str, str]:
    """Seat → player's name for the sides that fill more than one seat: member i sits at the side's seat i."""
    by_id = {e.id: e for e in entries}
    out = {}
    for s in table["sides"]:
        e = by_id.get(s["entry_id"])
        if e and len(s["seats"]) > 1 and len(e.members) >= len(s["seats"]):
            out.update({str(seat): m.name for seat, m in zip(s["seats"], e.members, strict=False) if m.name})
    return out


_FACTS: dict[str, tuple[str, str]] = {}


def _tournament_facts(deps: Deps, tid: str) -> tuple[str, str]:
    """The tournament's currency and time zone: a hall polls every few seconds, so they are read once per process
    (neither moves once a round is drawn)."""
    facts = _FACTS.get(tid)
    if facts is None:
        tournament = deps.repos.tournaments.get(tid)
        facts = _FACTS[tid] = ((tournament.currency, tournament.timezone) if tournament else ("CNY", "Asia/Shanghai"))
    return facts


def _appeal_window(deps: Deps, event, doc: dict) -> dict:
    """What the phone shows before an appeal: the fee, the window and, once the round has a scheduled end or
    has closed, the deadline it counts down to (rules.md §7; seed 001: 5 minutes, 200 CNY)."""
    base = window_base(doc)
    cfg = event.config.appeals
    currency = _tournament_facts(deps, event.tournament_id)[0]
    return {"minutes": cfg.window_minutes, "fee": {"amount": cfg.fee, "currency": currency},
            "refund_if_upheld": cfg.refund_if_upheld,
            "deadline": (base + timedelta(minutes=cfg.window_minutes)).isoformat() if base else None,
            "captain_consent": event.config.game == "guandan" and event.config.entry.kind == "team",
            # seed 000 "双人赛必须两名运动员均同意" (Guandan's seed, as the captain's consent): the phone asks both players
            "players_consent": event.config.game == "guandan" and event.config.entry.kind == "pair"}


def _table_appeals(deps: Deps, eid: str, n: int, table: dict, actor: Actor, consistent: bool = True) -> list[dict]:
    """This table's appeals (text, fee, status, ruling) for its own phones; the organiser sees them in the console."""
    if actor.kind != "side":
        return []
    keep = ("id", "entry_id", "text", "status", "outcome", "ruling", "lodged_at", "decided_at", "deadline", "fee",
            "fee_status")
    return [{k: a.get(k) for k in keep} for a in sorted(deps.repos.rounds.appeals(eid, consistent), key=lambda a: a["lodged_at"])
            if a["round"] == n and a["table"] == table["number"]]


def submit_result(deps: Deps, eid: str, n: int, t: int, body: dict, actor: Actor, appeal_id: str | None = None) -> ResultOut:
    """A table's result: a side's entry, the director's correction (past the window with an override and a
    reason), or the settling of a dispute. Load → `Table.entering` / the engine's score → `Table.enter` → save
    with the audit row → dispatch the events (a correction or a settling is published)."""
    event = deps.repos.events.get(eid)
    if event is None:
        raise errors.NotFound("event not found")
    state, doc, table = load(deps, eid, n, t)
    version = body.get("version")
    reason = body.get("reason", "") or ""
    now = deps.clock()
    try:
        how = table.entering(actor, round_closed=doc["status"] == "closed", sent_version=version,
                             result_entry=getattr(event.config, "result_entry", "north_south"),
                             window_open=correction_open(event, doc, now), override=body.get("override") is True,
                             reason=reason, deadline=correction_deadline(event, doc))
    except errors.VersionConflict:
        deps.repos.rounds.add_audit(eid, audit_row(deps, actor, "rejected_stale_version", n, t,
                                                   after={"sent_version": version, "current": table.version}))
        raise
    result = table.scored_result(body)
    stage = event.config.stages[doc["stage"]]
    played = None
    if table.rooms and isinstance(result.get("rooms"), dict):   # a team match: who sat in each room, checked
        played = played_in_rooms(deps, eid, table.to_item(), result, actor, reason)   # against the lineups
    sides = [Side(s.entry_id, tuple(s.seats)) for s in table.sides]
    score = game_rules(event.config.game).score(result, sides, stage.scoring, knockout=stage.format == "knockout")
    after, events = table.enter(actor, how, result, score, place=place_of(event, doc), reason=reason, played=played)
    record = audit_row(deps, actor, events[0].action, n, t, before=table.snapshot(), after=after.snapshot(),
                       reason=reason)
    if appeal_id:
        record["appeal"] = appeal_id
    if how.settling:
        record["dispute"] = table.to_item().get("dispute")
    try:
        save(deps, eid, doc, table, after, record)
    except errors.VersionConflict:
        deps.repos.rounds.add_audit(eid, audit_row(deps, actor, "rejected_stale_version", n, t,
                                                   after={"sent_version": version}))
        raise
    deps.dispatch(events)
    return ResultOut(table=table_view(after), status=after.status, version=after.version, points=score.points,
                     redraw_offered=how.correcting and _redraw_offered(state, doc, n))


def preview_result(deps: Deps, eid: str, n: int, t: int, body: dict) -> dict:
    """Scores a result without saving it: the table-side page shows running levels/points from the engine."""
    event = deps.repos.events.get(eid)
    _, doc, table = load(deps, eid, n, t)
    stage = event.config.stages[doc["stage"]]
    sides = [Side(s.entry_id, tuple(s.seats)) for s in table.sides]
    rules = game_rules(event.config.game)
    result = table.scored_result(body)
    running = None
    if hasattr(rules, "running") and isinstance(result.get("deals"), list):
        running = rules.running(result, sides, stage.scoring)   # checks every deal; raises on a bad one
    try:
        score = rules.score(result, sides, stage.scoring, knockout=False)
    except errors.PlayOn:
        raise
    except errors.InvalidResult:
        if running is None or running["decided"] or result.get("time_up_leader"):
            raise
        # Tractor, still being played: no points yet, but the running state stays on the phone.
        return {"points": {}, "details": {}, "winner": None, "running": running}
    return {"points": score.points, "details": score.details, "winner": score.winner, "running": running}


def _redraw_offered(state: dict, doc: dict, n: int) -> bool:
    """A correction after the next round was drawn, in the last two rounds of a stage (rules.md §5)."""
    later = [r for r in state["rounds"] if r["n"] > n and r["stage"] == doc["stage"]]
    plan = state.get("plans", {}).get(str(doc["stage"]), {})
    return bool(later) and doc["stage_round"] >= plan.get("rounds", 0) - 1


def confirm_result(deps: Deps, eid: str, n: int, t: int, actor: Actor) -> ResultOut:
    event = deps.repos.events.get(eid)
    _, doc, table = load(deps, eid, n, t)
    after, events = table.confirm(actor, place=place_of(event, doc))
    save(deps, eid, doc, table, after, audit_row(deps, actor, events[0].action, n, t, before=table.snapshot(),
                                                 after=after.snapshot()))
    deps.dispatch(events)
    return ResultOut(table=table_view(after), status=after.status, version=after.version, points=after.points)


def draw_score(game: str, ids: list[str], scoring) -> tuple[dict, dict]:
    """Force majeure (rules.md §5): a match that cannot be replayed counts as a draw."""
    if game == "tractor":
        return ({e: {"group_points": 0.5, "games_won": 0.0} for e in ids}, {e: 0.5 for e in ids})
    if game == "guandan":
        result = {"final": {"levels": {e: 2 for e in ids}}}
    elif game == "gouji":
        result = {"games": [{"order": [1, 2, 4, 3, 6, 5]}] * scoring.games_per_match}   # 11:11 a game
    else:
        result = {"final": {"small_points": {e: 0 for e in ids}}}
    seats = game_rules(game).side_seats(len(ids))
    score = game_rules(game).score(result, [Side(e, tuple(seats[i])) for i, e in enumerate(ids)], scoring)
    return score.points, {e: 0.5 for e in ids}


def record_forfeit(deps: Deps, eid: str, n: int, t: int, loser: str | None, reason: str, actor: Actor,
                   excused: bool = False, force_majeure: bool = False) -> ResultOut:
    event = deps.repos.events.get(eid)
    _, doc, table = load(deps, eid, n, t)
    ids = table.ids
    if loser is not None and loser not in ids:
        raise errors.InvalidRequest("entry_id is not at this table")
    rules = game_rules(event.config.game)
    scoring = event.config.stages[doc["stage"]].scoring
    if force_majeure:
        # seed 000 §36 "缺赛者按平手计分，其对手的分数按第三十四条计分": the absent entry a draw, its opponent(s) as
        # against a forfeit (rules.md §9; the event may score them a draw too)
        points, outcome = draw_score(event.config.game, ids, scoring)
        winner = None
        if loser is not None and getattr(event.config, "force_majeure_opponent", "forfeit_win") == "forfeit_win":
            won, won_outcome, winner = _forfeit_score(rules, ids, loser, scoring)
            for e in ids:
                if e != loser:
                    points[e], outcome[e] = won[e], won_outcome[e]
        return _save_forfeit(deps, event, doc, table, actor, points, outcome, winner,
                             Forfeit(entry_id=loser, excused=True, force_majeure=True, reason=reason),
                             {"force_majeure": loser})
    points, outcome, winner = _forfeit_score(rules, ids, loser, scoring)
    return _save_forfeit(deps, event, doc, table, actor, points, outcome, winner,
                         Forfeit(entry_id=loser, excused=excused, force_majeure=False, reason=reason),
                         {"forfeit": loser})


def _forfeit_score(rules, ids: list[str], loser: str | None, scoring) -> tuple[dict, dict, str | None]:
    """Points, outcome and winner of a table where `loser` does not play (None: nobody does)."""
    if loser is None:  # both absent: each scores a forfeit
        points, outcome = {}, {}
        for e in ids:
            s = rules.forfeit(None, e, scoring)
            points.update(s.points)
            outcome.update(s.outcome)
        return points, outcome, None
    if len(ids) == 3:  # Dou Dizhu: the absent player forfeits; the other two score the round as played
        s = rules.forfeit(None, loser, scoring)
        points, outcome = dict(s.points), dict(s.outcome)
        for e in ids:
            if e != loser:
                # rules.md is silent: the two present share the top two places (4 each with 5/3/1).
                points[e] = {"table_points": (scoring.places[0] + scoring.places[1]) / 2, "small_points": 0.0,
                             "landlord_deals": 0.0}
                outcome[e] = 1.0
        return points, outcome, None
    winner = next(e for e in ids if e != loser)
    s = rules.forfeit(winner, loser, scoring)
    return dict(s.points), dict(s.outcome), winner


def _save_forfeit(deps: Deps, event, doc: dict, table: Table, actor: Actor, points: dict, outcome: dict,
                  winner: str | None, forfeit: Forfeit, result: dict) -> ResultOut:
    after, events = table.record_forfeit(actor, points=points, outcome=outcome, winner=winner, forfeit=forfeit,
                                         result=result, force_majeure=forfeit.force_majeure, place=place_of(event, doc))
    save(deps, event.id, doc, table, after, audit_row(deps, actor, events[0].action, doc["number"], table.number,
                                                      before=table.snapshot(), after=after.snapshot(),
                                                      reason=forfeit.reason))
    deps.dispatch(events)
    return ResultOut(table=table_view(after), status=after.status, version=after.version, points=points)


def dispute_result(deps: Deps, eid: str, n: int, t: int, reason: str, actor: Actor) -> ResultOut:
    """The other side does not agree: the table is held in `disputed` with the reason, for the referee (console,
    both phones); nobody can confirm it; the organiser settles it by entering the result."""
    event = deps.repos.events.get(eid)
    _, doc, table = load(deps, eid, n, t)
    after, events = table.raise_dispute(actor, reason, now=deps.clock(), place=place_of(event, doc))
    save(deps, eid, doc, table, after, audit_row(deps, actor, events[0].action, n, t, before=table.snapshot(),
                                                 after=after.snapshot(), reason=reason))
    deps.dispatch(events)
    return ResultOut(table=table_view(after), status=after.status, version=after.version, points=table.points)


def audit_log(deps: Deps, eid: str) -> list[AuditRecord]:
    return [AuditRecord(**r) for r in deps.repos.rounds.audit(eid)]
