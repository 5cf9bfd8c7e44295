"""The hall's feed (issue 28): feed.json for a 1,000-entry Guandan event in its ninth round (eight closed, the
clock running, three announcements), gzipped. Target: under 100 KB. Printed beside what the same run measures for
the pages that carry every entry (find.html, hall.html, the standings page) and for a feed that would carry the
whole draw, names and initials (what the board and find.html read from their pages instead)."""
from __future__ import annotations

import gzip
import json
import random
import sys
import tempfile
import time
from datetime import date, datetime, UTC
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import on_ddb_local, repos_on  # noqa: E402

N, ROUNDS = 1000, 9
SURNAMES = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤"
GIVEN = "伟芳娜敏静丽强磊军洋勇艳杰娟涛明超秀霞平刚桂英华玉萍红燕鹏辉建国志文海波宁浩宇晨阳欣怡子涵梓轩雨萱思远嘉豪"


def name(rng) -> str:
    return rng.choice(SURNAMES) + "".join(rng.choice(GIVEN) for _ in range(rng.choice((1, 2))))


def gz(data: bytes) -> int:
    return len(gzip.compress(data, 9))


def main() -> None:
    on_ddb_local(run)


def run() -> None:
    from dataclasses import replace

    from chalicelib import bootstrap
    from chalicelib.engine.formats.swiss import pair_round
    from chalicelib.engine.games import game
    from chalicelib.engine.types import Side
    from chalicelib.ids import new_id
    from chalicelib.models import Entry, Event, EventConfig, Member, Tournament
    from chalicelib.publish.sinks import LocalSink
    from chalicelib.services import hall
    from chalicelib.services.publishing import publish_tournament
    from chalicelib.store.entries import entry_item, roster_copy_items
    from tests.engine.swiss_sim import field_of

    repos = repos_on("bench_hall")
    clock = lambda: datetime(2026, 12, 12, 10, tzinfo=UTC)  # noqa: E731
    out = Path(tempfile.mkdtemp(prefix="hall-bench-"))
    d = bootstrap.Deps(repos=repos, clock=clock, publisher=LocalSink(str(out)))
    bootstrap.override(d)
    t = Tournament(id=new_id(), organiser_id="bench", name="联合会年度掼蛋大赛", venue="南宁", timezone="Asia/Shanghai",
                   currency="CNY", starts_on=date(2026, 12, 12), ends_on=date(2026, 12, 13), created_at=clock())
    repos.tournaments.create(t)
    cfg = EventConfig.model_validate({"name": "掼蛋公开赛", "game": "guandan", "entry": "pair", "capacity": N,
                                      "stages": [{"format": "swiss", "rounds": ROUNDS, "scoring": {"method": "match_points"}}]})
    ev = Event(id=new_id(), tournament_id=t.id, organiser_id="bench", config=cfg, created_at=clock())
    repos.events.create(ev)
    rng = random.Random(28)
    field = field_of(N)
    ids = {c.id: new_id() for c in field}
    entries = [Entry(id=ids[c.id], event_id=ev.id, tournament_id=t.id, name=f"{name(rng)}队",
                     club=f"{rng.choice(SURNAMES)}{rng.choice(GIVEN)}商会",
                     members=[Member(name=name(rng), phone=f"139{i:08d}"), Member(name=name(rng))],
                     status="confirmed", checked_in=True, created_at=clock()) for i, c in enumerate(field)]
    repos.rounds._batch_put([*map(entry_item, entries), *roster_copy_items(entries)])
    rules = game("guandan")
    state = {"rounds": [], "open_round": 0, "stage": 0, "version": 0,
             "plans": {"0": {"stage": 0, "format": "swiss", "entries": [ids[c.id] for c in field],
                             "numbers": {ids[c.id]: c.number for c in field}, "carry": {}, "seed": 1, "rounds": ROUNDS}}}
    for n in range(1, ROUNDS + 1):
        draw = pair_round(field, n)
        tables, by = [], {c.id: c for c in field}
        for k, p in enumerate(draw.tables, start=1):
            a, b = ids[p.sides[0]], ids[p.sides[1]]
            sides = [{"entry_id": a, "seats": ["N", "S"]}, {"entry_id": b, "seats": ["E", "W"]}]
            if n == ROUNDS:   # the round being played: no results yet
                tables.append({"number": k, "home": a, "reason": p.reason, "status": "pending", "version": 0,
                               "sides": sides, "points": {}, "details": {}})
                continue
            score = rules.score({"final": {"levels": {a: rng.randint(2, 14), b: rng.randint(2, 14)}}},
                                [Side(a, ("N", "S")), Side(b, ("E", "W"))], cfg.stages[0].scoring)
            tables.append({"number": k, "home": a, "reason": p.reason, "status": "confirmed", "version": 2, "sides": sides,
                           "points": score.points, "outcome": score.outcome, "winner": score.winner, "details": {}})
            ha, hb = by[p.sides[0]], by[p.sides[1]]
            by[ha.id] = replace(ha, score=ha.score + score.points[a]["match_points"], opponents=ha.opponents | {hb.id})
            by[hb.id] = replace(hb, score=hb.score + score.points[b]["match_points"], opponents=hb.opponents | {ha.id})
        field = [by[c.id] for c in field]
        doc = {"event_id": ev.id, "stage": 0, "number": n, "stage_round": n, "seed": n,
               "status": "open" if n == ROUNDS else "closed", "format": "swiss", "byes": [], "notes": [],
               "drawn_at": clock().isoformat()}
        new_state = {**state, "rounds": [*state["rounds"], {"n": n, "stage": 0, "stage_round": n}],
                     "open_round": n if n == ROUNDS else 0}
        repos.rounds.create_round(ev.id, doc, tables, new_state, state["version"])
        state = {**new_state, "version": state["version"] + 1}
    clock_doc = hall.apply(None, "start", clock(), minutes=None, duration=60)
    repos.hall.save_clock(ev.id, ROUNDS, clock_doc, 0)
    for text in ("第 9 轮推迟 10 分钟", "午餐在二楼宴会厅", "颁奖典礼 17:30 开始"):
        repos.hall.add_announcement(t.id, {"id": new_id(), "text": text, "at": clock().isoformat(), "who": "bench"})
    t0 = time.perf_counter()
    stats = publish_tournament(d, t.id, force=True)
    took = time.perf_counter() - t0
    base = out / "t" / t.id
    feed = (base / ev.id / "feed.json").read_bytes()
    tfeed = (base / "feed.json").read_bytes()
    find, board = (base / "find.html").read_bytes(), (base / "hall.html").read_bytes()
    standings = (base / ev.id / "standings.html").read_bytes()
    from chalicelib.services.publishing import event_site_data
    data = event_site_data(d, ev, t)
    everything = json.dumps(_whole_draw(d, t.id, [(ev, data)]), ensure_ascii=False).encode()
    kb = lambda b: f"{b / 1024:.1f} KB"  # noqa: E731
    print(f"hall feed: event feed.json for {N:,} entries, round {ROUNDS} of {ROUNDS} with the clock and 3 announcements: "
          f"{kb(gz(feed))} gzipped ({kb(len(feed))} raw) — target < 100 KB; the tournament's feed.json {kb(gz(tfeed))}")
    print(f"  reference, same run: find.html (every entry's table and seat, names and initials) {kb(gz(find))} gzipped, "
          f"hall.html (the board) {kb(gz(board))}, standings.html {kb(gz(standings))}; a feed carrying the whole draw "
          f"with names and initials would be {kb(gz(everything))} gzipped ({kb(len(everything))} raw)")
    from chalicelib.services import charts_data
    state = repos.rounds.state(ev.id)
    rounds_ = repos.rounds.rounds_for_publishing(ev.id, state)
    t0 = time.perf_counter()
    charts_data.places_by_round(d, ev, state, rounds_, memo=d.publish_cache.places)
    warm = time.perf_counter() - t0
    t0 = time.perf_counter()
    charts_data.places_by_round(d, ev, state, rounds_, memo={})
    cold = time.perf_counter() - t0
    from chalicelib.services.standings import event_standings
    t0 = time.perf_counter()
    event_standings(d, ev, state=state, rounds=rounds_)
    one = time.perf_counter() - t0
    print(f"  publish of the whole tournament in 3 languages: {took:.2f} s, {stats['files']:,} files; the charts' places "
          f"after 8 closed rounds: {cold:.2f} s in a new process, {warm * 1000:.0f} ms once worked out (reference: "
          f"the standings once, {one:.2f} s)")


def _whole_draw(d, tid: str, datas: list) -> dict:
    """The hall's data with every side's name, club, members, seats and search text written out (the reference: a
    feed carrying the whole draw)."""
    from chalicelib.publish.hall_rows import entry_of, search_text
    from chalicelib.services.hall import hall_data
    hall = hall_data(d, tid, datas)

    def side(ev, s, seats):
        e = entry_of(ev, s)
        return {"entry_id": s["entry_id"], "name": s["name"], "club": e.get("club", ""),
                "members": e.get("members", []), "seats": seats, "q": search_text(ev, s)}
    for ev in hall["events"]:
        r = ev.get("round")
        if r:
            ev["round"] = {**r, "tables": [{"number": tb["number"], "status": tb["status"],
                                            "sides": [side(ev, s, s["seats"]) for s in tb["sides"]]}
                                           for tb in r["tables"]],
                           "byes": [side(ev, b, []) for b in r["byes"]]}
        ev.pop("entries", None)
    return hall


if __name__ == "__main__":
    main()
