"""Standings and the bomb-bonus ledger, computed from stored results by the engine."""
from __future__ import annotations

from typing import TYPE_CHECKING

from contextlib import contextmanager
from contextvars import ContextVar
from collections.abc import Mapping
from types import SimpleNamespace

if TYPE_CHECKING:   # the type only: the composition root (bootstrap) imports the services, not the reverse
    from ..bootstrap import Deps
from ..domain.entry import EntryStatus
from ..engine.formats.knockout import knockout_reached
from ..engine.games import game as game_rules
from ..engine.standings import allocate_prizes, compute, last_if_forfeited, unbeaten_first, without_entries
from ..engine.types import MatchRecord
from ..models import BonusDeal, BonusesOut, BonusPlayer, Event, Organiser, StandingRow, StandingsOut
from .prize_rules import counted_entries, open_appeals, prize_table
from .reads import entries_of, roster_of
from .tournaments import own_event

COUNTED = ("confirmed", "forfeit")


class RoundTable(Mapping):
    """A stage's table as the standings read it: the table with its round's number and name (`_round`,
    `_round_name`) — a view, not a copy (issue 43: a copy of every table, ~1.2 KB each, for every standings worked
    out, was ~180 MB at 100,000 entries)."""
    __slots__ = ("table", "n", "name")

    def __init__(self, table: dict, n: int, name):
        self.table, self.n, self.name = table, n, name

    def __getitem__(self, key):
        if key == "_round":
            return self.n
        if key == "_round_name":
            return self.name
        return self.table[key]

    def get(self, key, default=None):
        if key == "_round":
            return self.n
        if key == "_round_name":
            return self.name
        return self.table.get(key, default)

    def __contains__(self, key) -> bool:
        return key in ("_round", "_round_name") or key in self.table

    def __iter__(self):
        yield from (k for k in self.table if k not in ("_round", "_round_name"))
        yield "_round"
        yield "_round_name"

    def __len__(self) -> int:
        return len(self.table) + 2 - ("_round" in self.table) - ("_round_name" in self.table)


def stage_records(deps: Deps, event: Event, stage_idx: int, state: dict | None = None,
                  rounds: list | None = None, cuts: list | None = None) -> tuple[list[MatchRecord], list]:
    """MatchRecords of a stage's counted results (confirmed or forfeit) and byes, and all its tables (each a
    RoundTable). `cuts` gets, after each of the stage's rounds, how many records and tables were made so far
    (the records of a prefix of the rounds are a prefix of these)."""
    rules = game_rules(event.config.game)
    scoring = event.config.stages[stage_idx].scoring
    records: list[MatchRecord] = []
    tables_out: list[dict] = []
    state = state if state is not None else deps.repos.rounds.state(event.id)
    early = state.get("plans", {}).get(str(stage_idx), {}).get("early_finish", {})
    for doc, tables in rounds if rounds is not None else deps.repos.rounds.all_rounds(event.id):
        if doc["stage"] != stage_idx:
            continue
        n, name = doc["number"], doc.get("round_name")
        for e, info in early.items():  # finished early: its average for every round it was not drawn in
            if doc.get("stage_round", 0) >= info["from_round"]:
                records.append(MatchRecord(n, 0, (e,), {e: dict(info["average"])}, {}, bye=True))
        for bye, _ in doc.get("byes", []):
            if doc["format"] == "knockout":
                continue  # a knockout bye only advances
            records.append(MatchRecord(n, 0, (bye,), {bye: rules.bye(bye, scoring)}, {}, bye=True))
        for t in tables:
            tables_out.append(RoundTable(t, n, name))
            if t["status"] in COUNTED and t.get("points"):
                entries = tuple(s["entry_id"] for s in t["sides"])
                records.append(MatchRecord(n, t["number"], entries, t["points"], t.get("outcome", {})))
        if cuts is not None:
            cuts.append((len(records), len(tables_out)))
    return records, tables_out


_SHARED: ContextVar[dict | None] = ContextVar("stage_standings_shared", default=None)


@contextmanager
def standings_shared():
    """Within it, a stage's standings worked out from the same state and the same round objects are worked out once:
    a publish after a close asks for them twice (the places after the closed rounds, and the standings themselves:
    the same ranking once every round of the stage is closed), each ~seconds at 100,000 entries."""
    token = _SHARED.set({})
    try:
        yield
    finally:
        _SHARED.reset(token)


def stage_standings(deps: Deps, event: Event, stage_idx: int, state: dict | None = None, rounds: list | None = None,
                    *, share: bool = True, made: tuple | None = None) -> dict:
    """`share` False: not kept for a second ask within standings_shared (one nothing asks for again). `made`:
    stage_records of these rounds, made already (the places after each prefix of closed rounds: one pass)."""
    shared = _SHARED.get() if share else None
    if shared is None or state is None or rounds is None:
        return _stage_standings(deps, event, stage_idx, state, rounds, made)
    mine = [r for r in rounds if r[0] is not None and r[0]["stage"] == stage_idx]
    key = (event.id, stage_idx, id(state), tuple((id(doc), id(tables)) for doc, tables in mine))
    hit = shared.get(key)
    if hit is None or hit[0] is not state or any(a[0] is not b[0] or a[1] is not b[1]
                                                 for a, b in zip(hit[1], mine, strict=True)):
        hit = shared[key] = (state, mine, _stage_standings(deps, event, stage_idx, state, rounds, made))
    return hit[2]


def _stage_standings(deps: Deps, event: Event, stage_idx: int, state: dict | None = None,
                     rounds: list | None = None, made: tuple | None = None) -> dict:
    state = state or deps.repos.rounds.state(event.id)
    plan = state.get("plans", {}).get(str(stage_idx))
    if plan is None:
        return {"rows": [], "groups": None}
    scoring = event.config.stages[stage_idx].scoring
    rules = game_rules(event.config.game)
    names = list(rules.point_names[scoring.method])
    records, tables = made if made is not None else stage_records(deps, event, stage_idx, state, rounds)
    statuses = {e.id: e.status for e in roster_of(deps, event.id)}
    disqualified = {e for e in plan["entries"] if statuses.get(e) == EntryStatus.DISQUALIFIED}
    if event.config.game == "gouji" and plan["format"] in getattr(scoring, "withdrawal_points_formats", ()):
        records = _gouji_withdrawals(deps, event, plan, records, scoring)
        leaving = disqualified          # Gouji's withdrawals follow §3; a disqualification §8 (below)
    else:
        leaving = disqualified | {e for e in plan["entries"] if statuses.get(e) == EntryStatus.WITHDRAWN}
    if plan["format"] == "round_robin":
        records = _without_early_withdrawals(plan, records, tables, leaving)
    chain = list(scoring.tiebreaks)
    carry = {e: dict(v) for e, v in plan.get("carry", {}).items()}
    result: dict[str, str] = {}
    if plan["format"] == "knockout":
        # Entries knocked out later rank higher: the round reached leads the chain (a 3rd-place match places
        # its two between the final's loser and the semi-finals' losers, engine/formats/knockout.py).
        third = {(t["_round"], t["number"]) for t in tables if (t.get("why") or {}).get("third_place")}
        reached = {e: 0.0 for e in plan["entries"]}
        for rec in records:
            for e in rec.entries:
                reached[e] = max(reached[e], knockout_reached(rec.round, rec.outcome.get(e) == 1,
                                                              (rec.round, rec.table) in third))
        for e in plan["entries"]:
            carry.setdefault(e, {})["knockout_round"] = reached[e]
        chain = ["knockout_round", *chain]
        result = knockout_results(tables)
    forfeited, barred = _unexcused_forfeits(tables, plan, state, stage_idx)
    # seeds 001 and 003: the round is forfeited, nothing more — the entry keeps its place by points
    last = forfeited if event.config.forfeit_ranks_last else set()
    barred = barred if event.config.forfeit_ranks_last else set()
    groups = plan.get("groups")
    if groups:
        by_group = []
        for g in groups:
            members = set(g)
            rows = compute(g, [r for r in records if set(r.entries) <= members], chain, point_names=names,
                           seed=plan.get("seed", 0), carry=carry)
            by_group.append(without_entries(last_if_forfeited(rows, last), disqualified))
        return {"rows": [_row(r, forfeited, result) for rows in by_group for r in rows],
                "groups": [[r.entry_id for r in rows] for rows in by_group], "barred": sorted(barred)}
    rows = compute(plan["entries"], records, chain, point_names=names, seed=plan.get("seed", 0), carry=carry)
    if plan["format"] == "special_swiss":
        rows = unbeaten_first(rows, records)
    rows = without_entries(last_if_forfeited(rows, last), disqualified)   # §8: not ranked, no prize
    return {"rows": [_row(r, forfeited, result) for r in rows], "groups": None, "barred": sorted(barred)}


def knockout_results(tables: list[dict]) -> dict[str, str]:
    """How far each entry went in a single-elimination stage, in words (glossary knockout_reached): from its last
    decided match — the final (champion / runner_up), the 3rd-place match (third / fourth), or the round it lost in
    (out_semi_final, out_quarter_final …). An entry still in (or through on byes) has none."""
    out: dict[str, str] = {}
    for t in sorted(tables, key=lambda t: t["_round"]):
        winner = t.get("winner")
        if t.get("status") not in COUNTED or not winner:
            continue
        for s in t["sides"]:
            e, won = s["entry_id"], s["entry_id"] == winner
            if (t.get("why") or {}).get("third_place"):
                out[e] = "third" if won else "fourth"
            elif t.get("_round_name") == "final":
                out[e] = "champion" if won else "runner_up"
            elif not won and t.get("_round_name"):
                out[e] = f"out_{t['_round_name']}"
            else:
                out.pop(e, None)
    return out


def _unexcused_forfeits(tables: list[dict], plan: dict, state: dict, stage_idx: int) -> tuple[set, set]:
    """Entries with an unexcused forfeit in this stage, and those whose was in the stage's last round."""
    last_round = max((r["n"] for r in state.get("rounds", []) if r["stage"] == stage_idx), default=0)
    last_is_final = len([r for r in state.get("rounds", []) if r["stage"] == stage_idx]) >= plan.get("rounds", 0)
    forfeited, barred = set(), set()
    for t in tables:
        f = t.get("forfeit") or {}
        if t.get("status") == "forfeit" and f.get("entry_id") and not f.get("excused") and not f.get("force_majeure"):
            forfeited.add(f["entry_id"])
            if last_is_final and t.get("_round") == last_round:
                barred.add(f["entry_id"])
    return forfeited, barred


def _without_early_withdrawals(plan: dict, records: list[MatchRecord], tables: list[dict],
                               leaving: set) -> list[MatchRecord]:
    """rules.md §5/§8: an entry that withdraws from (or is disqualified in) a round robin having played fewer than
    half of its matches has all its results removed; otherwise they stand (its remaining matches are forfeits)."""
    removed = set()
    for e in leaving & set(plan["entries"]):
        scheduled = sum(1 for sched in plan.get("schedules", []) for rnd in sched for m in rnd if e in m and None not in m)
        played = sum(1 for t in tables if t["status"] == "confirmed" and any(s["entry_id"] == e for s in t["sides"]))
        if played * 2 < scheduled:
            removed.add(e)
    return [r for r in records if not (set(r.entries) & removed)]


def _gouji_withdrawals(deps: Deps, event: Event, plan: dict, records: list[MatchRecord], scoring) -> list[MatchRecord]:
    """rules.md §3 (seed 002): when a team withdraws, every team drawn against it scores `withdrawal_points`
    (32) for that match, played or not: its played results are replaced, its scheduled ones added."""
    withdrawn = {e.id for e in roster_of(deps, event.id) if e.status == EntryStatus.WITHDRAWN} & set(plan["entries"])
    if not withdrawn:
        return records
    opponents: dict[str, dict[str, int]] = {w: {} for w in withdrawn}   # withdrawn → opponent → round
    for sched in plan.get("schedules", []):
        for rnd, matches in enumerate(sched, start=1):
            for a, b in matches:
                for w, o in ((a, b), (b, a)):
                    if w in withdrawn and o is not None:
                        opponents[w].setdefault(o, rnd)
    for rec in records:
        if not rec.bye:
            for w in withdrawn & set(rec.entries):
                for o in rec.entries:
                    if o != w:
                        opponents[w].setdefault(o, rec.round)
    kept = [r for r in records if not (withdrawn & set(r.entries))]
    for w, opps in opponents.items():
        for o, rnd in opps.items():
            points = {o: {"position_points": float(scoring.withdrawal_points), "match_points": float(scoring.win)},
                      w: {"position_points": 0.0, "match_points": float(scoring.loss)}}
            kept.append(MatchRecord(rnd, 0, (o, w), points, {o: 1.0, w: 0.0}))
    return kept


def _row(r, forfeited: set = frozenset(), reached: dict | None = None) -> dict:
    pts = {k: v for k, v in r.points.items() if k != "knockout_round"}
    return {"rank": r.rank, "entry_id": r.entry_id, "points": pts, "tiebreaks": r.tiebreaks, "played": r.played,
            "byes": r.byes, "forfeited": r.entry_id in forfeited, "reached": (reached or {}).get(r.entry_id)}


def event_standings(deps: Deps, event: Event, stage: int | None = None, *, state: dict | None = None,
                    rounds: list | None = None, entries: list | None = None) -> StandingsOut:
    state = state or deps.repos.rounds.state(event.id)
    idx = state.get("stage", 0) if stage is None else stage
    if not 0 <= idx < len(event.config.stages):
        from .. import errors
        raise errors.NotFound(f"本项目没有第 {idx + 1} 阶段 · This event has no stage {idx + 1}.")
    last_stage = idx == len(event.config.stages) - 1
    if last_stage and idx > 0 and rounds is None:     # the earlier stages are read too: the rounds once
        rounds = list(deps.repos.rounds.all_rounds(event.id))
    result = stage_standings(deps, event, idx, state, rounds)
    entries = entries if entries is not None else entries_of(deps, event.id)
    names = {e.id: e for e in entries}
    if last_stage and idx > 0 and not result.get("groups") and state.get("plans", {}).get(str(idx)):
        result = {**result, "rows": _final_rows(deps, event, idx, result, state, rounds,
                                                {e.id: e.status for e in entries})}
    scoring = event.config.stages[idx].scoring
    plan = state.get("plans", {}).get(str(idx))
    finished = bool(plan) and not state.get("open_round") and \
        len([r for r in state["rounds"] if r["stage"] == idx]) >= plan.get("rounds", 0)
    final = last_stage and finished
    table, _ = prize_table(event, counted_entries(deps, event, entries))
    prizes = {p["entry_id"]: p["amount"] for p in allocate_prizes(
        [SimpleNamespace(rank=r["rank"], entry_id=r["entry_id"]) for r in result["rows"] if r["rank"] is not None],
        table)} if final else {}
    rows = [StandingRow(**r, name=names[r["entry_id"]].name if r["entry_id"] in names else r["entry_id"],
                        club=names[r["entry_id"]].club if r["entry_id"] in names else "",
                        prize=prizes.get(r["entry_id"])) for r in result["rows"]]
    _mark_decided(rows, list(scoring.tiebreaks))
    return StandingsOut(event_id=event.id, stage=idx + 1, method=scoring.method, tiebreaks=list(scoring.tiebreaks),
                        standings=rows, final=final, lots_seed=plan.get("seed") if plan else None)


def _final_rows(deps: Deps, event: Event, idx: int, result: dict, state: dict, rounds: list,
                statuses: dict[str, str]) -> list[dict]:
    """rules.md §9: every entry of a multi-stage event has a final place — the last stage's rows, then those out
    in each earlier stage by their results there (engine/formats/final_ranking.py), then the disqualified ones,
    unranked and listed as such. Rows of earlier stages carry `out_in_stage` (1-based) and what they reached."""
    from ..engine.formats.final_ranking import final_ranking, outs_in_order
    from ..engine.standings import Row
    plans = state.get("plans", {})

    def as_row(r: dict) -> Row:
        return Row(rank=r["rank"], entry_id=r["entry_id"], points=dict(r["points"]), tiebreaks=dict(r["tiebreaks"]),
                   played=r["played"], byes=r["byes"])

    later = set(plans[str(idx)]["entries"])
    dicts = {r["entry_id"]: r for r in result["rows"]}
    earlier = []
    for k in range(idx - 1, -1, -1):
        plan = plans.get(str(k))
        if not plan:
            continue
        stage = stage_standings(deps, event, k, state, rounds)
        outs = [r for r in stage["rows"] if r["entry_id"] not in later]
        for r in outs:
            grouped = event.config.stages[k].format == "round_robin" and stage.get("groups") and len(stage["groups"]) > 1
            dicts[r["entry_id"]] = {**r, "reached": r.get("reached") or ("out_groups" if grouped else "out_stage")}
        earlier.append((k, outs_in_order([as_row(r) for r in outs], stage.get("groups"),
                                         list(event.config.stages[k].scoring.tiebreaks), plan.get("seed", 0))))
        later |= set(plan["entries"])
    gone = [e for e in dict.fromkeys(e for k in sorted(plans, key=int) for e in plans[k]["entries"])
            if statuses.get(e) == EntryStatus.DISQUALIFIED]
    blank = {"points": {}, "tiebreaks": {}, "played": 0, "byes": 0, "forfeited": False}
    for e in gone:
        dicts[e] = {"rank": None, "entry_id": e, **blank, "reached": "disqualified"}
    placed = final_ranking([as_row(r) for r in result["rows"]], earlier, set(gone),
                           [Row(rank=0, entry_id=e, points={}) for e in gone])
    return [{**dicts[p.row.entry_id], "rank": p.rank, "disqualified": p.disqualified,
             "out_in_stage": p.out_in_stage + 1 if p.out_in_stage is not None else None} for p in placed]


def _mark_decided(rows: list[StandingRow], chain: list[str]) -> None:
    """Where two neighbours are level on the main points, the tie-break that put the upper one ahead and both
    values (胜负关系 1 : 0, 净胜分, 抽签 …), so a prize decided by a tie-break is shown with its reason."""
    main = chain[0] if chain else None
    for upper, lower in zip(rows, rows[1:]):
        ko_upper, ko_lower = upper.tiebreaks.get("knockout_round"), lower.tiebreaks.get("knockout_round")
        if ko_upper is not None and ko_upper % 1 == 0.25 and ko_lower == ko_upper - 0.125:
            # the 3rd-place match's winner over its loser (knockout_reached: R − 0.75 and R − 0.875)
            upper.decided_by, upper.decided_values = "third_place", [1, 0]
            continue
        if main is None or upper.points.get(main) != lower.points.get(main) or upper.forfeited != lower.forfeited \
                or ko_upper != ko_lower:
            continue   # not level: points, the knockout round reached or a forfeit decided it
        for key in chain[1:]:
            a = upper.tiebreaks.get(key, upper.points.get(key))
            b = lower.tiebreaks.get(key, lower.points.get(key))
            if a is None or b is None:
                continue
            if a != b:
                upper.decided_by, upper.decided_values = key, [a, b]
                break


def standings_for_organiser(deps: Deps, organiser: Organiser, eid: str, stage: int | None) -> StandingsOut:
    out = event_standings(deps, own_event(deps, organiser, eid), stage)
    if out.final:   # an open appeal holds the final places up (issue 39): said, not silently final
        waiting = open_appeals(deps, eid)
        out = out.model_copy(update={"provisional": waiting > 0, "open_appeals": waiting})
    return out


def bonuses(deps: Deps, event: Event, *, rounds: list | None = None, entries: list | None = None) -> BonusesOut:
    names = {e.id: e.name for e in (entries if entries is not None else entries_of(deps, event.id))}
    deals: list[BonusDeal] = []
    totals: dict[str, int] = {}
    tournament = deps.repos.tournaments.get(event.tournament_id)
    for doc, tables in rounds if rounds is not None else deps.repos.rounds.all_rounds(event.id):
        for t in tables:
            if t["status"] not in COUNTED:
                continue
            players = [s["entry_id"] for s in t["sides"]]
            for b in t.get("details", {}).get("bomb_bonuses", []):
                deals.append(BonusDeal(round=doc["number"], table=t["number"], deal=b["deal"], bombs=b["bombs"],
                                       each=b["each"], extra=b.get("extra")))
                for p in players:
                    totals[p] = totals.get(p, 0) + b["each"]
                if b.get("extra"):
                    totals[b["extra"]["entry_id"]] = totals.get(b["extra"]["entry_id"], 0) + b["extra"]["amount"]
    players = [BonusPlayer(entry_id=e, name=names.get(e, e), total=v)
               for e, v in sorted(totals.items(), key=lambda kv: (-kv[1], kv[0]))]
    return BonusesOut(players=players, deals=deals, currency=tournament.currency if tournament else "CNY")
