"""Publish a 1,000-entry Guandan event with 9 rounds (DynamoDB Local, local folder sink). Target: under 2 s.
Prints the time, the number of files, the total bytes and the largest page."""
from __future__ import annotations

import random
import sys
import tempfile
import time
from datetime import date, datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import on_ddb_local, repos_on  # noqa: E402

N, ROUNDS = 1000, 9


def main() -> None:
    on_ddb_local(run)


def run() -> None:
    from chalicelib import bootstrap
    from chalicelib.engine.formats.swiss import pair_round
    from chalicelib.engine.games import game
    from chalicelib.engine.types import Side
    from chalicelib.ids import new_id
    from chalicelib.models import Entry, Event, EventConfig, Member, Tournament
    from chalicelib.publish.sinks import LocalSink
    from chalicelib.services.publishing import publish_tournament
    from chalicelib.store.entries import entry_item
    from tests.engine.swiss_sim import field_of

    repos = repos_on("bench_publish")
    clock = lambda: datetime(2026, 12, 12, 10, tzinfo=timezone.utc)  # noqa: E731
    out_dir = tempfile.mkdtemp(prefix="publish-bench-")
    d = bootstrap.Deps(repos=repos, clock=clock, publisher=LocalSink(out_dir))
    bootstrap.override(d)
    t = Tournament(id=new_id(), organiser_id="bench", name="联合会年度掼蛋大赛", venue="南宁", timezone="Asia/Shanghai",
                   currency="CNY", starts_on=date(2026, 12, 12), ends_on=date(2026, 12, 13), created_at=clock())
    repos.tournaments.create(t)
    cfg = EventConfig.model_validate({"name": "掼蛋公开赛", "game": "guandan", "entry": "pair", "capacity": N,
                                      "stages": [{"format": "swiss", "rounds": ROUNDS, "scoring": {"method": "match_points"}}]})
    ev = Event(id=new_id(), tournament_id=t.id, organiser_id="bench", config=cfg, created_at=clock())
    repos.events.create(ev)
    field = field_of(N)
    ids = {c.id: new_id() for c in field}
    entries = [entry_item(Entry(id=ids[c.id], event_id=ev.id, tournament_id=t.id, name=f"第{i + 1}对", club=f"商会{i % 40}",
                                members=[Member(name=f"甲{i}", phone=f"139{i:08d}"), Member(name=f"乙{i}")], status="confirmed",
                                checked_in=True, created_at=clock())) for i, c in enumerate(field)]
    repos.rounds._batch_put(entries)
    rng = random.Random(1)
    rules = game("guandan")
    state = {"rounds": [], "open_round": 0, "stage": 0, "version": 0,
             "plans": {"0": {"stage": 0, "format": "swiss", "entries": [ids[c.id] for c in field],
                             "numbers": {ids[c.id]: c.number for c in field}, "carry": {}, "seed": 1, "rounds": ROUNDS}}}
    from dataclasses import replace
    for n in range(1, ROUNDS + 1):
        draw = pair_round(field, n)
        tables = []
        by = {c.id: c for c in field}
        for k, p in enumerate(draw.tables, start=1):
            a, b = ids[p.sides[0]], ids[p.sides[1]]
            la, lb = rng.randint(2, 14), rng.randint(2, 14)
            score = rules.score({"final": {"levels": {a: la, b: lb}}}, [Side(a, ("N", "S")), Side(b, ("E", "W"))],
                                cfg.stages[0].scoring)
            tables.append({"number": k, "home": a, "reason": p.reason, "status": "confirmed", "version": 2,
                           "sides": [{"entry_id": a, "seats": ["N", "S"]}, {"entry_id": b, "seats": ["E", "W"]}],
                           "points": score.points, "outcome": score.outcome, "winner": score.winner, "details": {}})
            ha, hb = by[p.sides[0]], by[p.sides[1]]
            by[ha.id] = replace(ha, score=ha.score + score.points[a]["match_points"], opponents=ha.opponents | {hb.id})
            by[hb.id] = replace(hb, score=hb.score + score.points[b]["match_points"], opponents=hb.opponents | {ha.id})
        field = [by[c.id] for c in field]
        doc = {"event_id": ev.id, "stage": 0, "number": n, "stage_round": n, "seed": n, "status": "closed",
               "format": "swiss", "byes": [], "notes": [], "drawn_at": clock().isoformat()}
        new_state = {**state, "rounds": [*state["rounds"], {"n": n, "stage": 0, "stage_round": n}]}
        repos.rounds.create_round(ev.id, doc, tables, new_state, state["version"])
        state = {**new_state, "version": state["version"] + 1}
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        stats = publish_tournament(d, t.id, force=True)
        times.append(time.perf_counter() - t0)
    print(f"publish: {N:,} entries × {ROUNDS} rounds → {stats['files']:,} files, {stats['bytes'] / 2**20:.1f} MiB in "
          f"best {min(times):.2f} s / worst {max(times):.2f} s (target < 2 s, full rewrite); largest page "
          f"{stats['largest'][0]} {stats['largest'][1] / 1024:.0f} KiB")
    t0 = time.perf_counter()
    again = publish_tournament(d, t.id)
    print(f"publish again with nothing new: {time.perf_counter() - t0:.2f} s, {again['written']} of {again['files']:,} "
          "files written (only changed pages are)")
    # The day's case: one result corrected in the last round, then the publish that follows it.
    _, last_tables = repos.rounds.get_round(ev.id, 0, ROUNDS)
    one_times = []
    for k in range(3):
        table = dict(last_tables[k])
        a, b = (s["entry_id"] for s in table["sides"])
        score = rules.score({"final": {"levels": {a: 14, b: 2 + k}}}, [Side(a, ("N", "S")), Side(b, ("E", "W"))],
                            cfg.stages[0].scoring)
        after = {**table, "points": score.points, "outcome": score.outcome, "winner": score.winner,
                 "version": table["version"] + 1}
        repos.rounds.save_table(ev.id, 0, ROUNDS, after, table["version"],
                                {"id": new_id(), "at": clock().isoformat(), "who": "bench", "action": "result_corrected",
                                 "round": ROUNDS, "table": table["number"]})
        t0 = time.perf_counter()
        one = publish_tournament(d, t.id)
        one_times.append(time.perf_counter() - t0)
    print(f"publish after one new result (1,000 entries): best {min(one_times):.2f} s / worst {max(one_times):.2f} s "
          f"(target < 0.5 s), {one['written']} files written; closed rounds come from the per-event cache")


if __name__ == "__main__":
    main()
