"""The tournament day: draw rounds with the pairing engine, stages and their transitions, closing rounds.

The event's running state (rounds drawn, the open round, each stage's plan: entries, numbering, groups,
bracket, carried-over points) is one item updated under a version condition, so two organisers drawing
at once cannot both succeed.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import hashlib
import re
import hmac
import secrets
from bisect import bisect_left
from concurrent.futures import ThreadPoolExecutor

from ..domain.entry import LEFT
from .. import errors
if TYPE_CHECKING:   # the type only: the composition root (bootstrap) imports the services, not the reverse
    from ..bootstrap import Deps
from ..engine.formats import Contestant, draw_round
from ..engine.formats.common import contestant_of, rng_for
from ..engine.formats.knockout import bracket_size, first_round, next_round, redrawn_round, third_place_match
from ..engine.formats.round_robin import number_for_related_first, schedule, snake_groups
from ..engine.formats.stages import advancing, carry_over
from ..engine.games import game as game_rules
from ..ids import new_id
from ..domain.schedule import round_times
from ..domain.events import RoundClosed, RoundDrawn
from ..domain.round import apply_choices, drawn_doc, drawn_state
from ..domain.table import SETTLED, Table, TableStatus
from ..models import Event, Organiser, RoundOut, RoundTable
from .names import ids_in, readable
from ..installation import table_secret
from . import running_totals as totals
from .gc_pause import gc_paused
from .principals import who_of
from .rankings import rating_order
from .reads import entries_read_once, prefetch_roster, roster_of
from .standings import stage_records, stage_standings
from .tournaments import own_event

CODE_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"


# --------------------------------------------------------------------------- table codes

CODE_LENGTH = 10   # 50 bits from 32 symbols: with a handful of guesses a minute per table, hopeless to guess
_CODE_SYMBOLS = bytes(ord(CODE_ALPHABET[b % len(CODE_ALPHABET)]) for b in range(256))   # byte → its symbol


def table_code(eid: str, number: int, table: int, side: int, secret: bytes | None = None) -> str:
    """A side's table code, derived with the server secret so cards can be reprinted; only hashes are stored.
    (`secret`: table_secret(), passed in by callers making thousands.)"""
    digest = hmac.digest(secret or table_secret(), f"{eid}:{number}:{table}:{side}".encode(), hashlib.sha256)
    return digest[:CODE_LENGTH].translate(_CODE_SYMBOLS).decode()


def normalise_code(code: str) -> str:
    return re.sub(r"[\s\-]", "", code or "").upper()


def code_hash(code: str, secret: bytes | None = None) -> str:
    """Keyed with the server secret (HMAC): a leaked table cannot be searched for its codes offline."""
    return hmac.digest(secret or table_secret(), b"code:" + normalise_code(code).encode(), hashlib.sha256).hex()


# --------------------------------------------------------------------------- helpers

def stage_cfg(event: Event, idx: int):
    return event.config.stages[idx]


def scoring_of(event: Event, idx: int):
    return event.config.stages[idx].scoring


def round_ref(state: dict, n: int) -> dict:
    for r in state["rounds"]:
        if r["n"] == n:
            return r
    raise errors.NotFound(f"round {n} not found")


def load_round(deps: Deps, eid: str, n: int) -> tuple[dict, dict, list[dict]]:
    state = deps.repos.rounds.state(eid)
    ref = round_ref(state, n)
    doc, tables = deps.repos.rounds.get_round(eid, ref["stage"], n)
    if doc is None:
        raise errors.NotFound(f"round {n} not found")
    return state, doc, tables


def load_table(deps: Deps, eid: str, n: int, t: int) -> tuple[dict, dict, dict]:
    """The event state's head, round n's document and its table t: small reads, not the whole round (nor, at
    10,000 entries, the stage plan's parts)."""
    state = deps.repos.rounds.state_head(eid)
    ref = round_ref(state, n)
    doc, table = deps.repos.rounds.get_table(eid, ref["stage"], n, t)
    if doc is None:
        raise errors.NotFound(f"round {n} not found")
    if table is None:
        raise errors.NotFound(f"table {t} not found")
    return state, doc, table


def entry_names(deps: Deps, eid: str, only: set[str] | None = None) -> dict[str, dict]:
    """Each entry's name and club by id; `only`: of those ids alone (the rest are not looked up)."""
    if only is not None:
        return {e.id: {"name": e.name, "club": e.club} for e in roster_of(deps, eid) if e.id in only}
    return {e.id: {"name": e.name, "club": e.club} for e in roster_of(deps, eid)}


def answer_ids(doc: dict, tables: list[dict]) -> set[str]:
    """Every entry round_out(doc, tables, names) looks up in `names`: the tables' sides, an avoided rematch's
    entries, the ids in the tables' reasons, the byes and their reasons, the ids in the notes, the early finishers
    and their chasers, the late entries (tests/unit/test_round_answer.py holds the answers equal). A 100,000-entry draw's
    answer shows 5,000 tables: their names, not 100,000 made into dicts and copied again."""
    wanted: set[str] = set()
    for t in tables:
        wanted.update(s["entry_id"] for s in t["sides"])
        wanted.update(ids_in(t.get("reason", "")))
        wanted.update((t.get("why") or {}).get("avoids") or ())
    for b, r in doc.get("byes", []):
        wanted.add(b)
        wanted.update(ids_in(r))
    for x in doc.get("notes", []):
        wanted.update(ids_in(x))
    for e, info in (doc.get("early_finish") or {}).items():
        wanted.update((e, info.get("chaser")))
    wanted.update(x["entry_id"] for x in doc.get("late_entries", []))
    return wanted


_TABLE_FIELDS: frozenset[str] | None = None   # a stored table's fields the answer copies as they are


def _table_fields() -> frozenset[str]:
    global _TABLE_FIELDS
    if _TABLE_FIELDS is None:
        _TABLE_FIELDS = frozenset(RoundTable.model_fields) - {"sides", "codes", "match_name", "reason", "reason_zh",
                                                              "reason_en"}
    return _TABLE_FIELDS


def round_out(doc: dict, tables: list[dict], names: dict[str, dict], with_codes: bool = False,
              codes: list[list[str]] | None = None, total: int | None = None,
              every: list[dict] | None = None) -> RoundOut:
    """The round as the API answers it. Built as plain data and validated in one call (pydantic's core walks the
    5,000 tables of a 10,000-entry round in Rust, not 15,000 model constructors in Python): the same checks, the
    same JSON. `codes`: the tables' codes in table order where the caller has just made them (a draw); `total`: how
    many tables the round has when `tables` are only some of them (the draw's answer: DRAW_ANSWER_TABLES; a page of
    GET …/rounds/{n}), `every` then its every table, for what is said of the whole round (its disputes)."""
    from ..glossary import bye_text, reason_text, term
    plain = {k: v["name"] for k, v in names.items()}
    secret = table_secret() if with_codes and codes is None else None
    fields = _table_fields()
    every = tables if every is None else every
    final_with_third = doc.get("round_name") == "final" and any((t.get("why") or {}).get("third_place") for t in every)
    out_tables = []
    said: dict[tuple[str, str], tuple[str, str, str]] = {}   # a reason in words by its text and why: a round's 50,000
    for k, t in enumerate(tables):                            # tables have a few hundred of them
        why = t.get("why") or {}
        key = (t.get("reason", ""), repr(why))
        words = said.get(key)
        if words is None:
            shown = readable(key[0], names)
            words = said[key] = (shown, reason_text(why, "zh", plain) or shown, reason_text(why, "en", plain) or shown)
        row = {f: v for f, v in t.items() if f in fields}
        row["reason"], row["reason_zh"], row["reason_en"] = words
        row["sides"] = [{"entry_id": s["entry_id"], "seats": s["seats"], "name": plain.get(s["entry_id"], "")}
                        for s in t["sides"]]
        if with_codes:
            row["codes"] = codes[k] if codes is not None else [
                table_code(doc["event_id"], doc["number"], t["number"], i, secret) for i in range(len(t["sides"]))]
        # a knockout table's own name where its round holds two kinds of match: the final and the 3rd-place match
        row["match_name"] = "third_place" if why.get("third_place") else "final" if final_with_third else None
        out_tables.append(row)
    byes = doc.get("byes", [])
    return RoundOut.model_validate({
        "stage": doc["stage"] + 1, "number": doc["number"], "stage_round": doc["stage_round"], "seed": doc["seed"],
        "status": doc["status"], "format": doc["format"], "tables": out_tables,
        "byes": [b for b, _ in byes],
        "bye_reasons": {b: readable(r, names) for b, r in byes},
        "bye_names": {b: plain.get(b, "") for b, _ in byes},
        "bye_reasons_zh": {b: bye_text(doc.get("bye_why", {}).get(b) or _bye_rule(doc), "zh") for b, _ in byes},
        "bye_reasons_en": {b: bye_text(doc.get("bye_why", {}).get(b) or _bye_rule(doc), "en") for b, _ in byes},
        "format_zh": term("format", doc["format"], "zh"), "format_en": term("format", doc["format"], "en"),
        "round_name": doc.get("round_name"),
        "round_name_zh": term("knockout_round", doc["round_name"], "zh") if doc.get("round_name") else "",
        "round_name_en": term("knockout_round", doc["round_name"], "en") if doc.get("round_name") else "",
        "notes": [readable(x, names) for x in doc.get("notes", [])], "drawn_at": doc.get("drawn_at"),
        "starts_at": doc.get("starts_at"), "ends_at": doc.get("ends_at"), "closed_at": doc.get("closed_at"),
        "disputes": [t["number"] for t in every if t.get("status") == TableStatus.DISPUTED],
        "early_finish": [{"entry_id": e, "name": plain.get(e, ""), **info,
                          **({"chaser_name": plain.get(info["chaser"], "")} if info.get("chaser") else {})}
                         for e, info in (doc.get("early_finish") or {}).items()],
        "late_entries": [{**x, "name": plain.get(x["entry_id"], "")} for x in doc.get("late_entries", [])],
        "tables_total": total})


def _bye_rule(doc: dict) -> dict:
    return {"rule": "knockout" if doc["format"] == "knockout" else "schedule" if doc["format"] == "round_robin"
            else "lowest_without_bye"}


# --------------------------------------------------------------------------- stages

def _participants(deps: Deps, event: Event) -> list:
    entries = [e for e in roster_of(deps, event.id) if e.status == "confirmed" and e.checked_in]
    if len(entries) < 2:
        raise errors.NoValidPairing("报到的参赛者不足 · Fewer than two entries are checked in: check entries in first.")
    return entries


def start_stage(deps: Deps, event: Event, idx: int, state: dict, seed: int) -> dict:
    """The plan of a stage: its entries in seeding order, numbering, groups or bracket, carried points."""
    stage = stage_cfg(event, idx)
    clubs: dict[str, str] = {}
    carry: dict[str, dict[str, float]] = {}
    if idx == 0:
        entries = _participants(deps, event)
        clubs = {e.id: e.club for e in entries}
        ids = [e.id for e in sorted(entries, key=lambda e: e.id)]   # ULIDs: the order of registration
        if event.config.seeding != "number":
            rng_for(seed, "seeding").shuffle(ids)  # the draw (抽签): reproducible from the published seed
        if event.config.seeding == "rating":
            ids = rating_order(deps, event, ids)   # issue 42: by the ranking's rating, level ones as drawn
    else:
        previous = stage_standings(deps, event, idx - 1, state)
        adv = stage.advance
        groups = previous["groups"] if previous.get("groups") else [[r["entry_id"] for r in previous["rows"]]]
        withdrawn = {e.id for e in roster_of(deps, event.id) if e.status in LEFT}
        # rules.md §1/§5: an unexcused forfeit in the stage's last round bars the entry from the next stage
        barred = withdrawn | set(previous.get("barred", []))
        groups = [[e for e in g if e not in barred] for g in groups]
        ids = advancing(groups, per_group=adv.per_group if adv else None, total=adv.total if adv else None)
        if not adv or (not adv.per_group and not adv.total):
            ids = [e for g in groups for e in g][: max(2, len(ids))]
        totals = {r["entry_id"]: r["points"] for r in previous["rows"]}
        for e in ids:
            carry[e] = carry_over(totals.get(e, {}), stage.carry_over)
        clubs = {e.id: e.club for e in roster_of(deps, event.id)}
    numbers = {e: i + 1 for i, e in enumerate(ids)}
    plan: dict = {"stage": idx, "format": stage.format, "entries": ids, "numbers": numbers, "carry": carry,
                  "seed": seed}
    if stage.format == "round_robin":
        seeded = [Contestant(id=e, number=numbers[e], club=clubs.get(e, "")) for e in ids]
        groups = snake_groups(seeded, stage.groups or 1)
        plan["groups"] = []
        plan["schedules"] = []
        for g in groups:
            ordered = number_for_related_first(g) if stage.separate_related else g
            plan["groups"].append([c.id for c in ordered])
            plan["schedules"].append(schedule([c.id for c in ordered], stage.double))
        plan["rounds"] = max(len(s) for s in plan["schedules"])
    elif stage.format == "knockout":
        plan["rounds"] = max(1, (bracket_size(len(ids)) - 1).bit_length())
        plan["bracket"] = [list(m) for m in first_round(ids)]
        if stage.double_elimination:
            # Upper and lower brackets and a grand final: at most about twice the single-elimination rounds.
            plan["rounds"] = 2 * plan["rounds"] + 2
            plan["de"] = {"upper": [], "lower": [], "dropped": [], "done": False,
                          "last": {"upper": plan["bracket"], "lower": [], "final": None}}
    elif stage.format == "special_swiss":
        plan["rounds"] = stage.rounds or max(1, (len(ids) - 1).bit_length())
    else:
        plan["rounds"] = stage.rounds
    return plan


def _stage_finished(plan: dict, rounds_done: int, last_tables: list[dict] | None) -> bool:
    if plan.get("de") is not None and last_tables is not None:
        if plan["de"].get("applied") != rounds_done:  # apply each round's results once
            _advance_double(plan, last_tables)
            plan["de"]["applied"] = rounds_done
        return plan["de"]["done"]
    if plan["format"] == "knockout" and last_tables is not None:
        alive = _knockout_alive(plan, last_tables)
        return len(alive) <= 1 or rounds_done >= plan["rounds"]
    return rounds_done >= plan["rounds"]


def event_finished(deps: Deps, event: Event, state: dict) -> bool:
    """Every stage played out and the last round closed: no draw is left (the console then offers results and
    prizes instead of 抽签 and 结束本轮). Read-only: the plan is copied before the finish test updates it."""
    import copy
    rounds_ = state.get("rounds") or []
    stage_idx = state.get("stage", 0)
    plan = (state.get("plans") or {}).get(str(stage_idx))
    if not rounds_ or state.get("open_round") or plan is None or stage_idx + 1 < len(event.config.stages):
        return False
    stage_rounds = [r for r in rounds_ if r["stage"] == stage_idx]
    if not stage_rounds:
        return False
    _, last_tables = deps.repos.rounds.get_round(event.id, stage_idx, stage_rounds[-1]["n"])
    try:
        return _stage_finished(copy.deepcopy(plan), len(stage_rounds), last_tables)
    except errors.RoundOpen:
        return False


def _winner(tables_by_entries: dict, a: str, b: str) -> str:
    table = tables_by_entries.get(frozenset((a, b)))
    if table is None or table.get("winner") is None:
        raise errors.RoundOpen("A knockout match has no winner yet.")
    return table["winner"]


def _advance_double(plan: dict, last_tables: list[dict]) -> None:
    """Double elimination: after a round, upper winners stay up, upper losers drop to the lower bracket,
    lower losers are out (their second loss); the grand final ends the stage. Applied once per round."""
    de = plan["de"]
    by = {frozenset(s["entry_id"] for s in t["sides"]): t for t in last_tables}
    last = de["last"]
    if last.get("final"):
        de["done"] = True
        de["champion"] = _winner(by, *last["final"])
        return
    # An upper bracket down to one entry plays no match that round: it stays as it was.
    upper, dropped, lower = ([] if last["upper"] else list(de["upper"])), [], []
    for a, b in last["upper"]:
        if b is None:
            upper.append(a)
        else:
            w = _winner(by, a, b)
            upper.append(w)
            dropped.append(b if w == a else a)
    for a, b in last["lower"]:
        lower.append(a if b is None else _winner(by, a, b))
    de.update(upper=upper, lower=lower, dropped=dropped)


def _knockout_alive(plan: dict, last_tables: list[dict]) -> list[str]:
    """Winners of the last knockout round, in bracket order (byes advance). The bracket holds the title's
    matches only: a 3rd-place match (三四名决赛, plan["third_place"]) is played beside the final and sends nobody on."""
    by_entries = {frozenset(s["entry_id"] for s in t["sides"]): t for t in last_tables}
    alive = []
    for slot in plan["bracket"]:
        a, b = slot
        if b is None:
            alive.append(a)
            continue
        table = by_entries.get(frozenset((a, b)))
        if table is None or table.get("winner") is None:
            raise errors.RoundOpen("A knockout match has no winner yet.")
        alive.append(table["winner"])
    return alive


# --------------------------------------------------------------------------- drawing

# The draw's answer carries a round's first 5,000 tables (a 10,000-entry pair round whole) and says how many there
# are past that (`tables_total`): all 50,000 of a 100,000-entry round were 39 MB of JSON, over the 6 MB a Lambda
# function may answer (the round committed, its answer a 5xx), and ~1.5 s of the draw's and its route's CPU to
# word, validate and dump. The console reads only the answer's number; GET …/rounds/{n} reads every table.
DRAW_ANSWER_TABLES = 5_000

@gc_paused()
@entries_read_once()
def draw_next(deps: Deps, organiser: Organiser, eid: str, seed: int | None,
              choices: list | None = None) -> tuple[RoundOut, dict]:
    event = own_event(deps, organiser, eid)
    state = deps.repos.rounds.state(eid)
    prefetch_roster(deps, eid, (state.get("plans") or {}).get(str(state.get("stage", 0)), {}).get("entries", ()))
    if state.get("open_round"):
        raise errors.RoundOpen(f"第 {state['open_round']} 轮尚未结束 · Round {state['open_round']} is still open: close it first.")
    seed = seed if seed is not None else secrets.randbelow(2 ** 31)
    stage_idx, plan, stage_rounds, last_tables = _stage_to_draw(deps, event, state, seed)
    n = len(state["rounds"]) + 1
    stage_round = len(stage_rounds) + 1
    stage = stage_cfg(event, stage_idx)
    # a Swiss field's running totals are read while the roster is still coming (prefetch_roster)
    field = _field(deps, event, stage_idx, plan, state) if plan["format"] in ("swiss", "special_swiss") else None
    late = _late_entries(deps, event, stage_idx, plan, stage_round) if stage_rounds else []
    apply_choices(plan, stage, stage_round, choices)
    pairings, byes, notes = _pairings(deps, event, stage_idx, plan, stage_round, state, last_tables, seed, field)
    pairings = _fixed_numbers(pairings, state.get("fixed_tables", {}), notes)
    whys = [p[2] if len(p) > 2 else {} for p in pairings]
    bye_why = byes.pop() if byes and isinstance(byes[-1], dict) else {}
    tournament = deps.repos.tournaments.get(event.tournament_id)
    starts_at, ends_at = round_times(stage, stage_round, tournament.timezone)
    tables, codes = _drawn_tables(eid, n, event, pairings, whys, state.get("fixed_tables", {}), starts_at,
                                  _mixed_seating(deps, event, notes) if event.config.mixed_pairs else None)
    doc = drawn_doc(eid, stage_idx, n, stage_round, seed, plan, stage, tables, byes, bye_why, notes, late,
                    now=deps.clock(), starts_at=starts_at, ends_at=ends_at)
    new_state = drawn_state(state, stage_idx, n, stage_round)
    # with late entries on, registration stays open until the last round a late entry may join is drawn
    closes_late = event.config.late_entries and (stage_idx > 0 or stage_round >= late_entry_until(event))
    shown = tables[:DRAW_ANSWER_TABLES]
    names = entry_names(deps, eid, only=answer_ids(doc, shown))
    with ThreadPoolExecutor(max_workers=1) as pool:   # the answer is made while the store takes the 5,000 tables
        answer = pool.submit(round_out, doc, shown, names, with_codes=True, codes=codes[:len(shown)],
                             total=len(tables) if len(shown) < len(tables) else None)
        deps.repos.rounds.create_round(eid, doc, tables, new_state, state.get("version", 0),
                                       closes_late_entries=closes_late,
                                       audit={"id": new_id(), "at": deps.clock().isoformat(), "who": who_of(organiser),
                                              "action": "round_drawn", "round": n,
                                              "after": {"seed": seed, "tables": len(tables)}})
        out = answer.result()
    deps.dispatch([RoundDrawn(event.tournament_id, eid, stage_idx, n)])
    return out, {"tournament_id": event.tournament_id}


def _stage_to_draw(deps: Deps, event: Event, state: dict, seed: int) -> tuple[int, dict, list[dict], list | None]:
    """The stage the next round belongs to and its plan (a new stage's, once the last one finished), the stage's
    rounds so far and, for a bracket, its last round's tables. Records the plan in `state`."""
    stage_idx = state.get("stage", 0)
    plans = state.setdefault("plans", {})
    plan = plans.get(str(stage_idx))
    stage_rounds = [r for r in state["rounds"] if r["stage"] == stage_idx]
    last_tables = None
    if stage_rounds and plan is not None and plan["format"] == "knockout":   # only a bracket reads its last round
        _, last_tables = deps.repos.rounds.get_round(event.id, stage_idx, stage_rounds[-1]["n"])
    if plan is None:
        plan = start_stage(deps, event, stage_idx, state, seed)
    elif _stage_finished(plan, len(stage_rounds), last_tables):
        if stage_idx + 1 >= len(event.config.stages):
            raise errors.EventFinished("赛事已全部结束 · Every stage of this event is finished.")
        stage_idx += 1
        plan = start_stage(deps, event, stage_idx, state, seed)
        stage_rounds, last_tables = [], None
    plans[str(stage_idx)] = plan
    return stage_idx, plan, stage_rounds, last_tables


def _drawn_tables(eid: str, n: int, event: Event, pairings: list, whys: list, fixed: dict[str, int],
                  starts_at, seat_of) -> tuple[list[dict], list[list[str]]]:
    """Round n's tables as stored (domain `Table.new_item`) and their sides' codes (the answer shows them too)."""
    rules = game_rules(event.config.game)
    team_match = event.config.game == "guandan" and event.config.entry.kind == "team"
    tables, codes, made = [], [], _RoundCodes(eid, n, table_secret())
    seats_of: dict[int, list] = {}   # by the number of sides
    for k, (sides, reason, *_rest) in enumerate(pairings, start=1):
        seats = seats_of.get(len(sides)) or seats_of.setdefault(len(sides), rules.side_seats(len(sides)))
        these = [made.code(k, i) for i in range(len(sides))]
        codes.append(these)
        tables.append(Table.new_item(
            k, [(e, seat_of(e, seats[i]) if seat_of else list(seats[i])) for i, e in enumerate(sides)],
            [made.hash_of(c) for c in these], reason, whys[k - 1], team_match=team_match,
            fixed=(sorted(e for e in sides if fixed.get(e) == k) or None) if fixed else None, starts_at=starts_at))
    return tables, codes


class _RoundCodes:
    """table_code and code_hash of every side of one round, from HMACs keyed once: HMAC-SHA256 (RFC 2104) made of its
    two SHA-256 states, the key's inner block with the common part of the message in and its outer block, each
    copied per code (hashlib's copy(), in C) — the same digests as hmac's, without hashing the key's two blocks again
    for each of a 100,000-entry draw's 200,000, nor hmac.HMAC's copy() and digest() in Python around them
    (tests/unit/test_round_answer.py holds them equal to table_code and code_hash)."""

    def __init__(self, eid: str, number: int, secret: bytes):
        key = (hashlib.sha256(secret).digest() if len(secret) > 64 else secret).ljust(64, b"\0")   # SHA-256's block
        inner, self._outer = hashlib.sha256(key.translate(_IPAD)), hashlib.sha256(key.translate(_OPAD))
        self._place, self._code = inner.copy(), inner
        self._place.update(f"{eid}:{number}:".encode())   # table_code's message so far
        self._code.update(b"code:")                        # code_hash's

    def code(self, table: int, side: int) -> str:
        """table_code(eid, number, table, side, secret)."""
        h = self._place.copy()
        h.update(f"{table}:{side}".encode())
        out = self._outer.copy()
        out.update(h.digest())
        return out.digest()[:CODE_LENGTH].translate(_CODE_SYMBOLS).decode()

    def hash_of(self, code: str) -> str:
        """code_hash of a code `code` just made (already in its normal form: nothing to strip or raise)."""
        h = self._code.copy()
        h.update(code.encode())
        out = self._outer.copy()
        out.update(h.digest())
        return out.hexdigest()


_IPAD, _OPAD = bytes(b ^ 0x36 for b in range(256)), bytes(b ^ 0x5C for b in range(256))   # RFC 2104's pads, per byte


def late_entry_until(event: Event) -> int:
    """The last round of the first stage a late entry may join (api.md v1.2): Swiss default the second-last."""
    stage = event.config.stages[0]
    if stage.format not in ("swiss", "special_swiss"):
        return 1   # a schedule or bracket drawn at the start takes nobody later
    if event.config.late_entry.until_round is not None:
        return event.config.late_entry.until_round
    return max(1, (stage.rounds or 1) - 1)


def joins_from_round(deps: Deps, event: Event, state: dict | None = None) -> int | None:
    """For an entry checked in now: None before the first draw (it is drawn with everyone), else the round it
    joins from; 409 late_entry_closed past the event's late-entry round."""
    state = state if state is not None else deps.repos.rounds.state(event.id)
    if not state.get("rounds"):
        return None
    first = [r for r in state["rounds"] if r["stage"] == 0]
    joins = len(first) + 1
    until = late_entry_until(event)
    if state.get("stage", 0) > 0 or joins > until:
        raise errors.LateEntryClosed(
            f"已过补报时间（第 {until} 轮起不再接受）· Late entries closed: the last round a late entry could join was "
            f"round {until}.", {"until_round": until})
    return joins


def not_drawn(deps: Deps, event: Event, state: dict) -> list[dict]:
    """Checked-in entries the draws have not taken (the console lists them, with why): late entries waiting for
    the next round, and those checked in past the last late-entry round."""
    plan = state.get("plans", {}).get("0")
    if plan is None:
        return []
    known = set(plan["entries"])
    first = len([r for r in state["rounds"] if r["stage"] == 0])
    until, out = late_entry_until(event), []
    for e in deps.repos.entries.list(event.id):
        if e.status != "confirmed" or not e.checked_in or e.id in known:
            continue
        joins = first + 1
        if state.get("stage", 0) == 0 and joins <= until:
            out.append({"entry_id": e.id, "name": e.name, "reason": "late_entry", "joins_from_round": joins})
        else:
            out.append({"entry_id": e.id, "name": e.name, "reason": "late_entry_closed", "until_round": until})
    return out


def _late_entries(deps: Deps, event: Event, stage_idx: int, plan: dict, stage_round: int) -> list[dict]:
    """Entries checked in after the first draw join the first stage from the next round, with the event's
    late-entry score and the next pairing numbers (the plan keeps them for the rest of the stage)."""
    if stage_idx != 0 or plan["format"] not in ("swiss", "special_swiss") or stage_round > late_entry_until(event):
        return []
    known = set(plan["entries"])
    late = sorted((e for e in roster_of(deps, event.id)
                   if e.status == "confirmed" and e.checked_in and e.id not in known), key=lambda e: e.id)
    primary = game_rules(event.config.game).point_names[scoring_of(event, 0).method][0]
    score = float(event.config.late_entry.score)
    out = []
    for e in late:
        plan["entries"].append(e.id)
        plan["numbers"][e.id] = len(plan["numbers"]) + 1
        plan.setdefault("carry", {})[e.id] = {primary: score} if score else {}
        out.append({"entry_id": e.id, "from_round": stage_round, "score": score})
    return out


def _fixed_numbers(pairings: list, fixed: dict[str, int], notes: list[str]) -> list:
    """固定桌号 (a pairing edit, e.g. a player who cannot move): the table of such an entry takes its number; the
    table drawn there takes the number it leaves."""
    out = list(pairings)
    for e, number in sorted(fixed.items(), key=lambda x: x[1]):
        at = next((i for i, p in enumerate(out) if e in p[0]), None)
        if at is None:
            continue
        if number > len(out):
            notes.append(f"fixed table {number} for {e}: the round has only {len(out)} tables")
            continue
        out[at], out[number - 1] = out[number - 1], out[at]
    return out


def _mixed_seating(deps: Deps, event: Event, notes: list[str]):
    """Mixed pairs (seed 000): each side's seats in member order, the man N/W and the woman S/E. A pair whose
    roster does not give one man and one woman keeps the seats as drawn, and the round's notes name it."""
    from ..engine.formats.mixed_pairs import member_seats
    genders = {e.id: [m.gender for m in e.members] for e in roster_of(deps, event.id)}

    def seat_of(entry_id: str, seats) -> list[str]:
        placed = member_seats(seats, genders.get(entry_id, []))
        if placed is None:
            notes.append(f"mixed pairs: the roster of {entry_id} does not give one man and one woman; seats as drawn")
            return list(seats)
        return placed
    return seat_of


def _field(deps: Deps, event: Event, stage_idx: int, plan: dict, state: dict, before: int | None = None) -> dict:
    """Per entry, what the stage's rounds add up to (running_totals.py); `before`: only rounds before that one
    (a pairing edit of an open round). The stored running totals when current (one document), else every
    round folded."""
    if before is None and totals.applies(event, stage_idx, plan):
        field = totals.stored(deps, event.id, stage_idx, state)
        if field is not None:
            return field
    rounds = None
    if before is not None:
        rounds = [(d, ts) for d, ts in deps.repos.rounds.all_rounds(event.id) if d["number"] < before]
    records, tables = stage_records(deps, event, stage_idx, state, rounds)
    primary = game_rules(event.config.game).point_names[scoring_of(event, stage_idx).method][0]
    return totals.fold({}, records, tables, primary)


def contestants(deps: Deps, event: Event, stage_idx: int, plan: dict, state: dict,
                 before: int | None = None, field: dict | None = None) -> list[Contestant]:
    """The field as the draw sees it; `before`: only rounds before that one (a pairing edit of an open round)."""
    primary = game_rules(event.config.game).point_names[scoring_of(event, stage_idx).method][0]
    if field is None:
        field = _field(deps, event, stage_idx, plan, state, before)
    entries = roster_of(deps, event.id)
    left = {e.id for e in entries if e.status in LEFT}
    clubs = {e.id: e.club for e in entries}
    carry = plan.get("carry", {})
    numbers, of, none = plan["numbers"], field.get, totals.get(field, None)
    pts, opp, byes, home, away, last, seats, losses = (totals.PTS, totals.OPP, totals.BYES, totals.HOME, totals.AWAY,
                                                       totals.LAST, totals.SEATS, totals.LOSSES)
    out = []
    # the loop of 100,000 at the largest: names bound once, each score added up as totals.score_of adds it
    for e in plan["entries"]:
        if e in left:
            continue
        t = of(e, none)
        score = carry[e].get(primary, 0.0) if e in carry else 0.0
        for x in t[pts]:
            score += x
        out.append(contestant_of(e, numbers[e], score, frozenset(t[opp]), t[byes], t[home], t[away], t[last],
                                 clubs.get(e, ""), tuple(sorted(t[seats].items())), t[losses]))
    return out


def _early_finish(deps, event, stage_idx, plan, state, cs: list[Contestant], stage_round: int, field: dict):
    """rules.md §9 (seed 000 §26.7): entries certain of 1st, then 2nd, … place (以此类推) — still strictly ahead
    if they lost every remaining match and every other entry won every one — are not drawn again; only then
    are they credited the average of the matches they played (a bye is not one) for each remaining round.
    Once out they stay out for the rest of the stage (the plan remembers each: place, average and the reason:
    its points, its worst total, the most the nearest other can reach)."""
    from ..engine.formats.early_finish import decide_places, played_average
    done = plan.setdefault("early_finish", {})
    scoring = scoring_of(event, stage_idx)
    rules = game_rules(event.config.game)
    new = decide_places({c.id: c.score for c in cs}, plan["rounds"] - stage_round + 1, rules.max_round_points(scoring),
                        rules.min_round_points(scoring), decided=done)
    for c in new:   # the average is credited after the test, never part of it
        done[c.entry] = {"from_round": stage_round, "average": played_average(totals.played_of(totals.get(field, c.entry))),
                         **c.reason()}
    notes = [early_finish_note(e, info) for e, info in done.items()]
    return [c for c in cs if c.id not in done], notes


def early_finish_note(e: str, info: dict) -> str:
    """The pairing note in words: why `e` is out (its points, its worst total, the most any other can reach)."""
    if "worst" not in info:     # decided before the reasons were kept
        return f"finished early: {e} is certain of place {info.get('place', 1)} and scores its average per round"
    return (f"finished early: {e} is certain of place {info['place']}: on {_num(info['score'])}, it would still have "
            f"{_num(info['worst'])} after losing its {info['rounds_left']} remaining round(s), more than the "
            f"{_num(info['best_other'])} {info['chaser']} could reach by winning all of them; it scores its average per round")


def _num(x: float) -> str:
    return f"{x:g}"


def early_finish_applies(event: Event, stage_idx: int) -> bool:
    """Seed 000: "下阶段带分进行时，仍应安排这些队参加本阶段剩余的比赛" — never before a stage that carries
    points over, whatever an older stored config says (new configs default to off there, models/events.py)."""
    stages = event.config.stages
    carries = stage_idx + 1 < len(stages) and stages[stage_idx + 1].carry_over != "none"
    return bool(stages[stage_idx].early_finish) and not carries


def _pairings(deps, event, stage_idx, plan, stage_round, state, last_tables, seed: int = 0, field: dict | None = None):
    """[(sides in seat order, reason)], [(bye entry, reason)], notes. `field`: a Swiss stage's, if read already."""
    fmt = plan["format"]
    stage = stage_cfg(event, stage_idx)
    rules = game_rules(event.config.game)
    if fmt in ("swiss", "special_swiss"):
        field = field if field is not None else _field(deps, event, stage_idx, plan, state)
        cs = contestants(deps, event, stage_idx, plan, state, field=field)
        notes: list[str] = []
        if fmt == "swiss" and early_finish_applies(event, stage_idx) and rules.sides_per_table == 2:
            cs, notes = _early_finish(deps, event, stage_idx, plan, state, cs, stage_round, field)
        d = draw_round(fmt, cs, stage_round, seats_per_table=3 if rules.sides_per_table == 3 else 2,
                       separate_related=stage.separate_related, rounds_left=plan["rounds"] - stage_round,
                       forbid_rematches=stage.rematches == "forbidden")
        # the structured reasons travel with the byes (last element: entry id → why) for the pages to word
        return [(p.sides, p.reason, p.why) for p in d.tables], [*d.byes, dict(d.bye_why)], notes + d.notes
    if fmt == "round_robin":
        pairs, byes = [], []
        for g, sched in enumerate(plan["schedules"], start=1):
            if stage_round > len(sched):
                continue
            for home, away in sched[stage_round - 1]:
                label = f"group {g}, Berger round {stage_round}" if len(plan["schedules"]) > 1 else f"Berger round {stage_round}"
                if home is None or away is None:
                    byes.append((home or away, f"bye: {label}"))
                else:
                    why = {"kind": "berger", "round": stage_round, **({"group": g} if len(plan["schedules"]) > 1 else {})}
                    pairs.append(([home, away], label, why))
        return pairs, byes, []
    if fmt == "knockout" and plan.get("de") is not None:
        return _double_pairings(plan, stage_round)
    if fmt == "knockout":
        notes = []
        third = None
        redraw = getattr(stage, "knockout_draw", None) == "redraw"
        if stage_round == 1 and redraw and plan["stage"] > 0:
            # seed 003 "晋级后重新抽签比赛": the first knockout round after the groups is drawn by lot among those
            # through too, not seeded 1 v 8 (a first stage's bracket is already the draw's: entries shuffled by lot)
            bracket = [list(m) for m in redrawn_round(plan["entries"], seed, stage_round)]
            plan["bracket"] = bracket
            notes = [f"knockout round {stage_round} drawn by lot among the {len(plan['entries'])} entries through (seed {seed})"]
        elif stage_round == 1:
            bracket = plan["bracket"]
        else:
            alive = _knockout_alive(plan, last_tables)
            if stage.third_place:   # the semi-finals just played: their losers meet beside the final
                third = third_place_match(plan["bracket"], alive)
            if redraw:
                bracket = [list(m) for m in redrawn_round(alive, seed, stage_round)]
                notes = [f"knockout round {stage_round} redrawn by lot among the winners (seed {seed})"]
            else:
                bracket = [list(m) for m in next_round(alive)]
            plan["bracket"] = bracket
        pairs, byes = [], []
        numbers = plan["numbers"]
        for a, b in bracket:
            if b is None:
                byes.append((a, "bye: drawn by lot" if redraw and (stage_round > 1 or plan["stage"] > 0)
                             else "bye: top seed advances"))
            else:
                home, away = (a, b) if numbers.get(a, 0) <= numbers.get(b, 0) else (b, a)
                redrawn = redraw and (stage_round > 1 or plan["stage"] > 0)
                chosen = stage_round == 1 and [home, away] in [sorted(c, key=lambda e: numbers.get(e, 0))
                                                               for c in plan.get("choices", [])]
                label = "knockout (redrawn): " if redrawn else "knockout (chosen): " if chosen else "knockout: "
                pairs.append(([home, away], label + f"seed {numbers.get(home)} v seed {numbers.get(away)}",
                              {"kind": "knockout", "seeds": [numbers.get(home), numbers.get(away)],
                               **({"redrawn": True} if redrawn else {}), **({"chosen": True} if chosen else {})}))
        plan["third_place"] = list(third) if third else None
        if third:
            home, away = sorted(third, key=lambda e: numbers.get(e, 0))
            pairs.append(([home, away], f"third-place match: seed {numbers.get(home)} v seed {numbers.get(away)}",
                          {"kind": "knockout", "third_place": True, "seeds": [numbers.get(home), numbers.get(away)]}))
        return pairs, byes, notes
    raise errors.InvalidConfig(f"unknown format {fmt}")


def _double_pairings(plan: dict, stage_round: int):
    from ..engine.formats.knockout import double_elimination_round
    de, numbers = plan["de"], plan["numbers"]
    if stage_round == 1:
        upper_m, lower_m, final = de["last"]["upper"], [], None
    else:
        upper_m, lower_m, final = double_elimination_round(de["upper"], de["lower"], de["dropped"])
        upper_m, lower_m = [list(m) for m in upper_m], [list(m) for m in lower_m]
        de["last"] = {"upper": upper_m, "lower": lower_m, "final": list(final) if final else None}
    pairs, byes = [], []

    def seat(a, b, label):
        home, away = (a, b) if numbers.get(a, 0) <= numbers.get(b, 0) else (b, a)
        pairs.append(([home, away], f"{label}: seed {numbers.get(home)} v seed {numbers.get(away)}",
                      {"kind": "knockout", "bracket": label.split()[0], "seeds": [numbers.get(home), numbers.get(away)]}))

    if final:
        seat(final[0], final[1], "grand final")
    for a, b in upper_m:
        if b is None:
            byes.append((a, "bye: upper bracket"))
        else:
            seat(a, b, "upper bracket")
    for a, b in lower_m:
        if b is None:
            byes.append((a, "bye: lower bracket"))
        else:
            seat(a, b, "lower bracket")
    return pairs, byes, []


OPEN_TABLES_NAMED = 100   # a round that cannot close names this many of its open tables (by number), and counts all


@gc_paused()
@entries_read_once()
def close_round(deps: Deps, organiser: Organiser, eid: str, n: int) -> RoundOut:
    event = own_event(deps, organiser, eid)
    state = deps.repos.rounds.state(eid)
    ref = round_ref(state, n)
    entries = (state.get("plans") or {}).get(str(ref["stage"]), {}).get("entries", ())
    prefetch_roster(deps, eid, entries)
    doc, tables, stamp = deps.repos.rounds.get_round_stamped(eid, ref["stage"], n, tables_hint=len(entries) // 2 + 1)
    if doc is None:
        raise errors.NotFound(f"round {n} not found")
    if doc["status"] == "closed":
        return first_page_out(doc, tables, entry_names(deps, eid))
    waiting = [t["number"] for t in tables if t["status"] not in SETTLED]
    if waiting:
        disputed = [t["number"] for t in tables if t["status"] == TableStatus.DISPUTED]
        # each open table with its status and sides, so the console names them (not "conflict, reload"): the first
        # OPEN_TABLES_NAMED of them (`tables` has every number), 50,000 named were an answer of megabytes
        names = entry_names(deps, eid)
        open_rows = [t for t in tables if t["status"] not in SETTLED][:OPEN_TABLES_NAMED]
        open_tables = [{"number": t["number"], "status": t["status"],
                        "sides": [names.get(s["entry_id"], {}).get("name", "") for s in t.get("sides", ())]}
                       for t in open_rows]
        said = ", ".join(map(str, waiting[:OPEN_TABLES_NAMED])) + (" …" if len(waiting) > OPEN_TABLES_NAMED else "")
        raise errors.RoundNotComplete(f"桌 {said} 尚未确认 · Tables {said} "
                                      "are not confirmed yet (or record a forfeit)." + (f" Disputed: {disputed}." if disputed else ""),
                                      {"tables": waiting, "disputed": disputed, "open_tables": open_tables})
    doc["status"] = "closed"
    doc["closed_at"] = deps.clock().isoformat()
    new_state = {**state, "open_round": 0}
    stage_totals = totals.after_close(deps, event, doc["stage"], state, doc, tables, stamp)
    deps.repos.rounds.close_round(eid, doc, new_state, state["version"], stage_totals,
                                  audit={"id": new_id(), "at": deps.clock().isoformat(), "who": who_of(organiser),
                                         "action": "round_closed", "round": n})
    deps.dispatch([RoundClosed(event.tournament_id, eid, doc["stage"], n)])
    return first_page_out(doc, tables, entry_names(deps, eid))


def first_page_out(doc: dict, tables: list[dict], names: dict[str, dict], with_codes: bool = False) -> RoundOut:
    """The answer of a change to a whole round (its close, a pairing edit): its first page of tables, as GET
    …/rounds/{n} answers (at 100,000 entries all 50,000 were 39 MB, over what a Lambda function may answer, for a
    change already committed)."""
    shown = tables[:ROUND_PAGE_TABLES]
    return round_out(doc, shown, names, with_codes=with_codes, every=tables,
                     total=None if len(shown) == len(tables) else len(tables))


# GET …/rounds/{n} answers a page of tables as the draw answers its first (DRAW_ANSWER_TABLES, the same 6 MB reason):
# `first` (a table number) and at most this many from there; `tables_total` when the page is not the whole round.
ROUND_PAGE_TABLES = DRAW_ANSWER_TABLES


@gc_paused()
@entries_read_once()
def get_round(deps: Deps, organiser: Organiser, eid: str, n: int, first: int = 1,
              limit: int | None = None) -> RoundOut:
    limit = ROUND_PAGE_TABLES if limit is None else limit
    if first < 1:
        raise errors.InvalidRequest(f"from={first}: 桌号从 1 起 · table numbers start at 1", {"param": "from"})
    if not 1 <= limit <= ROUND_PAGE_TABLES:
        raise errors.InvalidRequest(f"limit={limit}: 每页 1–{ROUND_PAGE_TABLES} 桌 · 1 to {ROUND_PAGE_TABLES} "
                                    "tables a page", {"param": "limit", "maximum": ROUND_PAGE_TABLES})
    own_event(deps, organiser, eid)
    _, doc, tables = load_round(deps, eid, n)   # in table order (the store sorts them)
    start = bisect_left(tables, first, key=lambda t: t["number"])
    page = tables[start:start + limit]
    # only the page is worded and validated; the round's disputes and its final's 3rd-place match from every table
    return round_out(doc, page, entry_names(deps, eid), with_codes=True, every=tables,
                     total=None if len(page) == len(tables) else len(tables))


@entries_read_once()
def redraw(deps: Deps, organiser: Organiser, eid: str, n: int) -> RoundOut:
    """Redraws an unstarted round (after a late correction of an earlier result), with the same seed."""
    own_event(deps, organiser, eid)
    state, doc, tables = load_round(deps, eid, n)
    if n != len(state["rounds"]):
        raise errors.Conflict("Only the latest round can be redrawn.")
    if any(t["status"] != TableStatus.PENDING for t in tables):
        raise errors.Conflict("This round has started (a result was entered): it cannot be redrawn.")
    ref = round_ref(state, n)
    new_state = {**state, "open_round": 0, "rounds": [r for r in state["rounds"] if r["n"] != n]}
    if ref["stage_round"] == 1 and str(ref["stage"]) in new_state.get("plans", {}) and ref["stage"] > 0:
        new_state["plans"] = {k: v for k, v in new_state["plans"].items() if k != str(ref["stage"])}
        new_state["stage"] = ref["stage"] - 1
    choices = state.get("plans", {}).get(str(ref["stage"]), {}).get("choices") if ref["stage_round"] == 1 else None
    deps.repos.rounds.delete_round(eid, ref["stage"], n, tables, new_state, state["version"])
    out, _ = draw_next(deps, organiser, eid, doc["seed"], choices=choices)   # the director's choices stand
    return out
