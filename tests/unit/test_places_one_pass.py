"""The places after each closed round (the entry pages' charts) worked out in one pass (issue 43: the publisher's
memory): the stage's records made once and each prefix of closed rounds ranked from a slice of them must give the
places that ranking each prefix's rounds on their own gives — on seeded random events with byes, forfeits (excused
or not), penalties (negative points), withdrawals, disqualifications, early finishers, carried points and ties
that the tie-break chains (rules.md §1) and the lots decide. And a standings worked out leaves nothing for the
cyclic collector, which a publish pauses."""
from __future__ import annotations

import gc
import random
from datetime import UTC, datetime
from types import SimpleNamespace

import pytest

from chalicelib.domain.entry import EntryStatus
from chalicelib.engine.standings import compute
from chalicelib.engine.types import MatchRecord
from chalicelib.models import Event, EventConfig
from chalicelib.services import standings as standings_service
from chalicelib.services.charts_data import places_by_round
from chalicelib.services.standings import RoundTable, stage_standings, standings_shared

CASES = [("guandan", "swiss", "match_points"), ("guandan", "swiss", "level_points"),
         ("guandan", "special_swiss", "match_points"), ("guandan", "round_robin", "match_points"),
         ("gouji", "swiss", "position_points"),
         ("gouji", "round_robin", "position_points"), ("doudizhu", "swiss", "table_points")]


def _event(game: str, fmt: str, method: str, rounds: int, forfeit_last: bool) -> Event:
    cfg = EventConfig.model_validate({
        "name": "随机", "game": game, "capacity": 64,
        "entry": {"guandan": {"kind": "pair"}, "gouji": {"kind": "team", "size": 3}}.get(game, {"kind": "individual"}),
        "forfeit_ranks_last": forfeit_last,
        "stages": [{"format": fmt, "scoring": {"method": method}, **({} if fmt == "round_robin" else {"rounds": rounds})}]})
    return Event(id="ev1", tournament_id="t1", organiser_id="o1", config=cfg, created_at=datetime(2026, 1, 1, tzinfo=UTC))


def _random_day(rng: random.Random, game: str, fmt: str, method: str):
    from chalicelib.engine.games import game as game_rules
    names = game_rules(game).point_names[method]
    ids = [f"e{k:02d}" for k in range(rng.randint(5, 14))]
    rounds = rng.randint(2, 5)
    statuses = {e: rng.choice([EntryStatus.CONFIRMED] * 6 + [EntryStatus.WITHDRAWN, EntryStatus.DISQUALIFIED])
                for e in ids}
    plan = {"stage": 0, "format": fmt, "entries": ids, "seed": rng.randint(0, 99), "rounds": rounds,
            "carry": {e: {names[0]: float(rng.randint(0, 2))} for e in rng.sample(ids, 2)}}
    if rng.random() < 0.5:   # an entry finished early: its average for every round from one on
        plan["early_finish"] = {ids[-1]: {"from_round": rng.randint(1, rounds),
                                          "average": {n: float(rng.randint(0, 3)) for n in names}}}
    all_rounds, schedule = [], []
    for n in range(1, rounds + 1):
        order = ids[:]
        rng.shuffle(order)
        byes = [[order.pop(), "odd"]] if len(order) % 2 else []
        tables, matches = [], []
        for k in range(len(order) // 2):
            a, b = order[2 * k], order[2 * k + 1]
            matches.append([a, b])
            status = rng.choice(["confirmed"] * 6 + ["forfeit", "forfeit", "pending"])
            win = rng.choice([1.0, 0.0, 0.5])
            points = {e: {nm: float(rng.choice([-1, 0, 1, 2, 2, 3]) if nm != names[0] else rng.choice([0, 1, 2, 3]))
                          for nm in names} for e in (a, b)}
            t = {"number": k + 1, "status": status, "sides": [{"entry_id": a, "seats": ["N"]}, {"entry_id": b, "seats": ["E"]}],
                 "home": a, "points": points, "outcome": {a: win, b: 1.0 - win}, "winner": a if win == 1.0 else b}
            if status == "forfeit":
                t["forfeit"] = {"entry_id": rng.choice([a, b]), "excused": rng.random() < 0.3, "force_majeure": False}
            if status == "pending":
                t.pop("points")
            tables.append(t)
        schedule.append(matches)
        doc = {"stage": 0, "number": n, "stage_round": n, "status": "closed" if n < rounds or rng.random() < 0.5 else "open",
               "format": fmt, "byes": byes}
        all_rounds.append((doc, tables))
    if fmt == "round_robin":
        plan["schedules"] = [schedule]
    state = {"stage": 0, "plans": {"0": plan}, "rounds": [{"n": n, "stage": 0, "stage_round": n} for n in range(1, rounds + 1)],
             "open_round": rounds if all_rounds[-1][0]["status"] == "open" else 0}
    roster = [SimpleNamespace(id=e, status=s, name=e, club="", members=[]) for e, s in statuses.items()]
    deps = SimpleNamespace(repos=SimpleNamespace(entries=SimpleNamespace(roster=lambda eid: roster)))
    return deps, state, all_rounds, rounds


def _per_prefix(deps, event, state, all_rounds) -> list[dict]:
    """The reference: each prefix of closed rounds ranked from its own rounds (as the publisher did before)."""
    closed = [r for r in all_rounds if r[0]["status"] == "closed"]
    return [{r["entry_id"]: r["rank"] for r in stage_standings(deps, event, 0, state, closed[:k], share=False)["rows"]}
            for k in range(1, len(closed) + 1)]


@pytest.mark.parametrize("game,fmt,method", CASES)
def test_the_places_after_each_closed_round_in_one_pass_are_each_prefix_ranked_alone(game, fmt, method):
    for seed in range(25):
        rng = random.Random(f"{game}{fmt}{method}{seed}")
        deps, state, all_rounds, rounds = _random_day(rng, game, fmt, method)
        event = _event(game, fmt, method, rounds, forfeit_last=rng.random() < 0.5)
        want = _per_prefix(deps, event, state, all_rounds)
        got = places_by_round(deps, event, state, all_rounds)
        assert got["rounds"] == [doc["number"] for doc, _ in all_rounds if doc["status"] == "closed"]
        assert {e: [p.get(e) for p in want] for e in set().union(*want)} == got["by_entry"], seed
        # as the publisher asks: the standings first, within standings_shared, then the places (a prefix saved
        # before: only the later ones worked out)
        saved = {}
        places_by_round(deps, event, state, all_rounds[:1], keep=saved)
        with standings_shared():
            stage_standings(deps, event, 0, state, all_rounds)   # (event_standings' ask)
            again = places_by_round(deps, event, state, all_rounds, saved=saved)
        assert again["by_entry"] == got["by_entry"], seed


def test_a_stage_table_reads_as_the_table_with_its_round():
    rng = random.Random(7)
    for _ in range(50):
        table = {k: rng.random() for k in rng.sample(["number", "status", "sides", "why", "winner", "forfeit"], 4)}
        view = RoundTable(table, 3, rng.choice([None, "final", "semi_final"]))
        copy = {**table, "_round": 3, "_round_name": view.name}
        assert dict(view) == copy and len(view) == len(copy) and list(view) == list(copy)
        for key in ["number", "status", "sides", "why", "winner", "forfeit", "_round", "_round_name", "other"]:
            assert view.get(key) == copy.get(key) and (key in view) == (key in copy)
            assert view.get(key, "d") == copy.get(key, "d")


def test_a_standings_worked_out_leaves_nothing_for_the_cyclic_collector():
    """A publish pauses the cyclic collector (services/gc_pause.py): a cycle made by the ranking (its recursive
    splitter's closure) kept every total, opponent list and meeting of the field until the publish ended."""
    rng = random.Random(3)
    ids = [f"e{k}" for k in range(40)]
    records = []
    for n in range(1, 4):
        rng.shuffle(ids)
        for k in range(20):
            a, b = ids[2 * k], ids[2 * k + 1]
            w = rng.choice([0.0, 1.0])
            records.append(MatchRecord(n, k + 1, (a, b), {a: {"match_points": 2 * w}, b: {"match_points": 2 - 2 * w}},
                                       {a: w, b: 1 - w}))
    was = gc.isenabled()
    gc.disable()
    try:
        gc.collect()
        rows = compute(ids, records, ["match_points", "head_to_head", "opponents_match_points", "lots"],
                       point_names=["match_points"])
        assert len(rows) == 40
        assert gc.collect() == 0
    finally:
        if was:
            gc.enable()


def test_stage_records_cuts_mark_each_rounds_end():
    rng = random.Random(11)
    deps, state, all_rounds, rounds = _random_day(rng, "guandan", "swiss", "match_points")
    event = _event("guandan", "swiss", "match_points", rounds, forfeit_last=True)
    cuts: list = []
    records, tables = standings_service.stage_records(deps, event, 0, state, all_rounds, cuts)
    assert len(cuts) == len(all_rounds) and cuts[-1] == (len(records), len(tables))
    for k, (rc, tc) in enumerate(cuts):
        alone_records, alone_tables = standings_service.stage_records(deps, event, 0, state, all_rounds[:k + 1])
        assert records[:rc] == alone_records and [dict(t) for t in tables[:tc]] == [dict(t) for t in alone_tables]
