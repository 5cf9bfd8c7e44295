"""Rankings across events through the routes (issue 42): three tournaments of one organiser, a fourth from another
organiser who consents, a fifth whose organiser does not; points by place and field size, decay after a year, the
same person one row, ratings that move after each confirmed table, the export re-read, a rebuild, seeding by rating."""
from __future__ import annotations

import csv
import io
import json

import pytest

from chalicelib import bootstrap
from chalicelib.players import member_player_id, player_id
from chalicelib.services.organisers import create_organiser
from tests.api.play import close, draw, enter_and_confirm, setup_event
from tests.factories import Api, tournament_body

PLACES = [100, 80, 65, 50, 40, 30]
P = "13900000001"          # the person followed through every event, typed differently in some


def guandan(**kw):
    return {"name": "掼蛋双人赛", "game": "guandan", "entry": "pair", "capacity": 40, "fee": {"amount": 0},
            "stages": [{"format": "swiss", "rounds": 1, "scoring": {"method": "level_points"}}], **kw}


def pairs(n: int, tag: str, first_phone: str | None = None) -> list[dict]:
    """n pairs; pair i's first member has phone 138{tag}000{i:04}; pair 0's is `first_phone` if given."""
    out = []
    for i in range(n):
        phone = first_phone if (i == 0 and first_phone) else f"138{tag}000{i:04d}"
        out.append({"name": f"{tag}队{i}", "club": f"商会{i % 2}",
                    "members": [{"name": f"选手{tag}{i}", "phone": phone}, {"name": f"搭档{tag}{i}"}]})
    return out


def levels(table, la=10, lb=8):
    a, b = (s["entry_id"] for s in table["sides"])
    return {"final": {"levels": {a: la, b: lb}}}


def play(api, eid, after_table=None):
    rnd = draw(api, eid)
    for k, table in enumerate(rnd["tables"]):
        enter_and_confirm(api, eid, rnd, table, levels(table, 14 - 2 * k, 2 + k))   # side 1 wins each table
        if after_table:
            after_table(rnd, table)
    close(api, eid, rnd["number"])
    return rnd


def places(api, eid) -> dict[str, int]:
    rows = api.get(f"/events/{eid}/standings").data["standings"]
    return {r["entry_id"]: r["rank"] for r in rows}


def public_board(api, rid) -> dict[str, dict]:
    """The public ranking (no token), player id → row."""
    return {p["player_id"]: p for p in api.get(f"/public/rankings/{rid}", token=None).data["players"]}


@pytest.fixture(autouse=True)
def _no_event_pages(monkeypatch):
    """The events' own pages are not what this file tests (their publish is most of a confirm's time here)."""
    monkeypatch.setattr("chalicelib.services.publishing.publish_latest", lambda *a, **k: None)


@pytest.fixture
def third_api(chalice_client):
    _, token = create_organiser(bootstrap.deps(), "第三商会")
    return Api(chalice_client, token)


def test_a_ranking_over_five_tournaments(api, other_api, third_api, clock):
    def board(rid):
        return public_board(api, rid)

    made = api.post("/rankings", {"name": "南宁掼蛋联赛", "game": "guandan",
                                  "points": {"places": PLACES, "field_factor": {"min_entries": 4, "per_entry": 0.1},
                                             "decay_per_year": 0.15}, "rating": True, "provisional_tables": 2})
    assert made.status_code == 201, made.data
    rid = made.data["id"]
    assert api.post("/rankings", {"name": "x", "game": "chess"}).status_code == 400

    # 1: a year and more ago (decays), 4 pairs; 2 and 3: this season, 6 and 4 pairs; the person typed three ways
    t1, e1, ids1 = setup_event(api, guandan(), pairs(4, "1", P), tournament_body(starts_on="2025-10-01",
                                                                                 ends_on="2025-10-01"))
    t2, e2, ids2 = setup_event(api, guandan(), pairs(6, "2", "+86 139-0000-0001"), tournament_body(starts_on="2026-09-01",
                                                                                                   ends_on="2026-09-01"))
    t3, e3, ids3 = setup_event(api, guandan(), pairs(4, "3", "0086 13900000001"), tournament_body(starts_on="2026-10-01",
                                                                                                  ends_on="2026-10-01"))
    for eid in (e1, e2, e3):
        r = api.post(f"/rankings/{rid}/events", {"event_id": eid})
        assert r.status_code == 201, r.data
    assert api.post(f"/rankings/{rid}/events", {"event_id": e1}).status_code == 201   # again: counted once

    # ratings move after each confirmed table: the winners up, the losers down, both partners of each pair
    phones = {}
    for ids, body in ((ids1, pairs(4, "1", P)), (ids2, pairs(6, "2", P)), (ids3, pairs(4, "3", P))):
        phones.update({e: b["members"][0]["phone"] for e, b in zip(ids, body, strict=True)})

    def pids_of(entry_id):   # the pair's two players: the first by phone, the partner (no phone) of this entry
        return [player_id(phones[entry_id]), member_player_id(entry_id, 1, None)]

    moves = []

    def after_table(rnd, table):
        b = board(rid)
        a, z = (s["entry_id"] for s in table["sides"])
        moves.append(([b[p]["rating"]["mu"] for p in pids_of(a)], [b[p]["rating"]["mu"] for p in pids_of(z)]))

    play(api, e1, after_table)
    play(api, e2, after_table)
    play(api, e3)
    assert len(moves) == 5   # every table of events 1 and 2, each seen right after its confirmation
    for k, (win, lose) in enumerate(moves[:2] + moves[2:]):
        assert all(mu > 25 for mu in win) or k >= 2 and win[0] != 25, (k, win)
        assert all(mu < 25 for mu in lose[1:]), (k, lose)    # the partner: new in each event, so it went down
    assert all(mu > 25 for win, _ in moves[:2] for mu in win) and all(mu < 25 for _, lose in moves[:2] for mu in lose)

    # 4: another organiser's event, counted by that organiser (its consent), after it was played (catch-up)
    t4, e4, ids4 = setup_event(other_api, guandan(), pairs(4, "4", P), tournament_body(starts_on="2026-11-01",
                                                                                       ends_on="2026-11-01"))
    play(other_api, e4)
    # 5: a third organiser's event: the ranking's owner cannot count it, and its organiser does not
    t5, e5, ids5 = setup_event(third_api, guandan(), pairs(4, "5", P), tournament_body(starts_on="2026-11-02",
                                                                                       ends_on="2026-11-02"))
    refused = api.post(f"/rankings/{rid}/events", {"event_id": e5})
    assert (refused.status_code, refused.data["code"]) == (403, "forbidden")
    assert api.post(f"/rankings/{rid}/events", {"event_id": e4}).status_code == 403   # not the owner's to give either
    assert other_api.post(f"/rankings/{rid}/events", {"event_id": e4}).status_code == 201
    assert other_api.get(f"/rankings/{rid}").status_code == 404   # consent is not ownership

    # points by place and field size, decayed after a year; the person is one row over four events
    factor = {e1: 1.0, e2: 1.2, e3: 1.0, e4: 1.0}           # 1 + 0.1 × (entries − 4)
    decay = {e1: 0.85, e2: 1.0, e3: 1.0, e4: 1.0}           # 2025-10-01 is over a year before 2026-12-01
    pid = player_id(P)
    expected = 0.0
    for eid, ids in ((e1, ids1), (e2, ids2), (e3, ids3), (e4, ids4)):
        place = (places(api if eid != e4 else other_api, eid))[ids[0]]
        expected += round(PLACES[place - 1] * factor[eid] * decay[eid], 2)
    b = board(rid)
    me = b[pid]
    assert me["events"] == 4 and me["points"] == pytest.approx(expected)
    assert me["rating"]["tables"] == 4 and me["rating"]["provisional"] is False
    assert sum(1 for p in b.values() if p["name"] == "选手10" or p["player_id"] == pid) == 1
    assert not [p for p in b.values() if p["name"].startswith(("选手5", "搭档5"))]    # nobody only from event 5
    assert len(b) == 4 + 6 + 4 + 4 + 4 + 6 + 4 + 4 - 3    # every player of 1–4, the person once
    ranked = api.get(f"/public/rankings/{rid}", token=None).data
    assert [p["points"] for p in ranked["players"]] == sorted((p["points"] for p in ranked["players"]), reverse=True)
    assert "phone" not in json.dumps(ranked) and "13900000001" not in json.dumps(ranked)
    page = api.get(f"/public/players/{pid}", token=None).data
    assert len(page["results"]) == 4 and page["rankings"][0]["points"] == pytest.approx(expected)
    assert "1390000" not in json.dumps(page)

    # the published pages: the ranking in three languages, the player's page, no phone; the standings link to it
    files = bootstrap.deps().publisher.files
    for lang in ("", "en/", "vi/"):
        page = files[f"{lang}r/{rid}/index.html"].decode()
        assert f'href="/{lang}p/{pid}.html"' in page and "南宁掼蛋联赛" in page
        assert f"{lang}p/{pid}.html" in files
    assert "1390000" not in " ".join(v.decode() for k, v in files.items() if k.endswith(".html"))
    zh_player = files[f"p/{pid}.html"].decode()
    assert "选手40" in zh_player and zh_player.count("<tr>") == 5     # the latest name; a header and four results
    from chalicelib.services.publishing import publish_tournament
    publish_tournament(bootstrap.deps(), t2)
    standings = [v.decode() for k, v in files.items() if k.startswith(f"t/{t2}/") and k.endswith("standings.html")]
    assert standings and all(f'href="/r/{rid}/index.html" data-ranking' in s for s in standings)

    # the export, re-read, gives the same numbers: one row per player and event
    text = api.get(f"/rankings/{rid}/export?format=csv").body
    text = text.decode("utf-8") if isinstance(text, bytes) else text
    rows = list(csv.DictReader(io.StringIO(text.lstrip("\ufeff"))))
    mine = [r for r in rows if r["player_id"] == pid]
    assert len(mine) == 4 and {r["event_id"] for r in mine} == {e1, e2, e3, e4}
    assert sum(float(r["points_now"]) for r in mine) == pytest.approx(expected)
    by_player: dict[str, float] = {}
    for r in rows:
        by_player[r["player_id"]] = by_player.get(r["player_id"], 0) + float(r["points_now"] or 0)
        assert float(r["total_points"]) == pytest.approx(b[r["player_id"]]["points"])
    assert by_player == pytest.approx({k: v["points"] for k, v in b.items()})
    as_json = api.get(f"/rankings/{rid}/export?format=json").data
    assert len(as_json["rows"]) == len(rows) and as_json["fields"] == list(rows[0].keys())
    assert other_api.get(f"/rankings/{rid}/export").status_code == 404

    # a rebuild from scratch gives the same points and ratings (the tables replayed in the same order)
    before = board(rid)
    assert api.post(f"/rankings/{rid}/rebuild").status_code == 200
    after = board(rid)
    assert {k: v["points"] for k, v in after.items()} == {k: v["points"] for k, v in before.items()}
    for k, v in after.items():
        assert v["rating"]["mu"] == pytest.approx(before[k]["rating"]["mu"], abs=1e-3), k

    # a correction: the handler (ResultCorrected on the bus) takes the earlier change back, once per version
    from chalicelib.services.rankings import on_result_confirmed
    rnd = api.get(f"/events/{e3}/rounds/1").data
    t = rnd["tables"][0]
    a, z = (s["entry_id"] for s in t["sides"])
    before_fix = board(rid)
    fixed = api.put(f"/events/{e3}/rounds/1/tables/1/result",
                    {"version": t["version"], "final": {"levels": {a: 2, z: 14}}, "reason": "记反了方向"})
    assert fixed.status_code == 200, fixed.data
    once = board(rid)                                  # the correction's ResultCorrected, handled on the bus
    on_result_confirmed(bootstrap.deps(), t3, e3, 0, 1, 1, fixed.data["version"])   # a retried dispatch
    assert board(rid) == once                          # counted once per version
    assert all(once[k]["rating"]["mu"] < before_fix[k]["rating"]["mu"] for k in pids_of(a))   # now the losers
    assert all(once[k]["rating"]["mu"] > before_fix[k]["rating"]["mu"] for k in pids_of(z))


def test_seeding_by_rating_orders_round_one(api):
    rid = api.post("/rankings", {"name": "等级分", "game": "guandan"}).data["id"]
    # a first event makes ratings: the pair on side 1 of each table wins
    _, e1, ids1 = setup_event(api, guandan(), pairs(4, "7"))
    api.post(f"/rankings/{rid}/events", {"event_id": e1})
    rnd1 = play(api, e1)
    winners = {t["sides"][0]["entry_id"] for t in rnd1["tables"]}
    person = {e: i for i, e in enumerate(ids1)}          # pair i of every event here is the same first player
    board = public_board(api, rid)
    top = {person[e] for e in winners}
    assert all(board[player_id(f"1387000{i:04d}")]["rating"]["mu"] > 25 for i in top)
    # the same people again: seeded by rating, round 1's order puts the winners first; by lot, as the seed falls
    plans = {}
    for how in ("rating", "random"):
        _, eid, ids = setup_event(api, guandan(seeding=how, seeding_ranking=rid), pairs(4, "7"))
        draw(api, eid, seed=5)
        order = bootstrap.deps().repos.rounds.state(eid)["plans"]["0"]["entries"]
        plans[how] = [ids.index(e) for e in order]
    assert set(plans["rating"][:2]) == top and set(plans["rating"][2:]) == set(range(4)) - top
    assert set(plans["random"][:2]) != top     # seed 5's lots would not have put them first
