"""The 3rd-place match (三四名决赛) of a knockout stage through the routes: drawn beside the final between the
semi-finals' losers, named on the tables, and deciding places 3 and 4 (standings and prizes) instead of the
tie-break chain. Expected places are worked out here from who beat whom."""
from __future__ import annotations

import random

from tests.api.play import close, draw, enter_and_confirm, people, setup_event
from tests.api.test_team_formats import cfg as team_cfg, play_match, rosters
from tests.factories import tournament_body

PRIZES = [{"place_from": 1, "amount": 800}, {"place_from": 2, "amount": 500}, {"place_from": 3, "amount": 300},
          {"place_from": 4, "amount": 100}]


def ko(game="tractor", n=4, **stage):
    return {"name": "淘汰赛", "game": game, "entry": "pair", "capacity": 16, "fee": {"amount": 0}, "prizes": PRIZES,
            "stages": [{"format": "knockout", "third_place": True, **stage}]}


def play(api, eid, rnd, number, body):
    """The entry registered first wins every match (its index in `number` is lower)."""
    for t in rnd["tables"]:
        a, b = (s["entry_id"] for s in t["sides"])
        win, lose = (a, b) if number[a] < number[b] else (b, a)
        enter_and_confirm(api, eid, rnd, t, body(win, lose))
    close(api, eid, rnd["number"])


def losers(rnd, number):
    return [max((s["entry_id"] for s in t["sides"]), key=number.get) for t in rnd["tables"]]


def tractor_win(win, lose):
    return {"final": {"games_won": {win: 2, lose: 0}}}


def test_tractor_four_pairs_semi_final_losers_play_for_third_and_fourth(api):
    tid, eid, ids = setup_event(api, ko(), people(4, 2, "对"))
    number = {e: i for i, e in enumerate(ids)}
    semi = draw(api, eid, 5)
    assert semi["round_name"] == "semi_final" and len(semi["tables"]) == 2
    assert all(t["match_name"] is None for t in semi["tables"])
    play(api, eid, semi, number, tractor_win)
    semi_losers = losers(semi, number)
    final = draw(api, eid, 6)
    assert final["round_name"] == "final" and final["round_name_zh"] == "决赛"
    assert [t["match_name"] for t in final["tables"]] == ["final", "third_place"]
    third_table = final["tables"][1]
    assert {s["entry_id"] for s in third_table["sides"]} == set(semi_losers)
    assert third_table["why"]["third_place"] is True
    assert third_table["reason_zh"].startswith("三四名决赛") and third_table["reason_en"].startswith("third-place match")
    finalists = set(ids) - set(semi_losers)
    assert {s["entry_id"] for s in final["tables"][0]["sides"]} == finalists
    play(api, eid, final, number, tractor_win)
    st = api.get(f"/events/{eid}/standings").data
    assert st["final"] is True
    order = [r["entry_id"] for r in st["standings"]]
    expected = [min(finalists, key=number.get), max(finalists, key=number.get),
                min(semi_losers, key=number.get), max(semi_losers, key=number.get)]
    assert order == expected
    assert [r["rank"] for r in st["standings"]] == [1, 2, 3, 4]
    third_row = st["standings"][2]
    assert third_row["decided_by"] == "third_place" and third_row["decided_values"] == [1, 0]
    assert [r["reached"] for r in st["standings"]] == ["champion", "runner_up", "third", "fourth"]
    prizes = api.get(f"/events/{eid}/prizes").data
    assert [(p["place"], p["entry_id"], p["amount"]) for p in prizes["prizes"]] == \
        [(k + 1, e, a) for k, (e, a) in enumerate(zip(expected, [800, 500, 300, 100]))]
    assert api.post(f"/events/{eid}/rounds", {"seed": 9}).data["code"] == "event_finished"
    published_knockout_standings(tid, eid, expected)


def published_knockout_standings(tid, eid, order):
    """The published standings say how far each went, in each language, and no 小组积分 (a knockout's win 1 /
    loss 0); the prize has its currency."""
    import re
    from chalicelib import bootstrap
    from chalicelib.services.publishing import publish_tournament
    publish_tournament(bootstrap.deps(), tid)
    files = bootstrap.deps().publisher.files
    words = {"": ("名次", ["冠军", "亚军", "第三名（三四名决赛胜）", "第四名（三四名决赛负）"], "淘汰赛成绩", "小组积分"),
             "en/": ("Rank", ["Champion", "Runner-up", "3rd (won the third-place match)", "4th (lost the third-place match)"],
                     "Knockout result", "Group points"),
             "vi/": ("Hạng", ["Vô địch", "Á quân", "Hạng ba (thắng trận tranh hạng ba)", "Hạng tư (thua trận tranh hạng ba)"],
                     "Kết quả loại trực tiếp", "Điểm bảng")}
    for prefix, (rank, reached, head, group) in words.items():
        for page in ("standings.html", "index.html"):   # the event page shows the standings' top rows too
            html = files[f"{prefix}t/{tid}/{eid}/{page}"].decode()
            table = next(x for x in re.findall(r"<table>.*?</table>", html, re.S) if 'href="entry-' in x
                         and "<th class=\"n\">" + rank + "</th>" in x)
            rows = re.findall(r'<tr><td class="n">\d+</td><td class="nm"><a href="entry-(\w+)\.html">.*?</a>'
                              r'.*?<td class="x">([^<]*)</td>', table)
            assert rows == list(zip(order, reached)), (prefix, page, rows)
            assert f'<th class="x">{head}</th>' in table and group not in table, (prefix, page)
            # the one money format (publish/money_text.py), its space a no-break one
            money = {"": "¥800.00", "en/": "CN¥800.00", "vi/": "800,00\u00a0CN¥"}[prefix]
            assert f'<td class="n x">{money}</td>' in table, (prefix, page)


def test_without_the_option_the_semi_final_losers_share_third_by_the_tie_break_chain(api):
    cfg = ko()
    cfg["stages"][0]["third_place"] = False
    tid, eid, ids = setup_event(api, cfg, people(4, 2, "对"))
    number = {e: i for i, e in enumerate(ids)}
    semi = draw(api, eid, 5)
    play(api, eid, semi, number, tractor_win)
    final = draw(api, eid, 6)
    assert len(final["tables"]) == 1 and final["tables"][0]["match_name"] is None
    play(api, eid, final, number, tractor_win)
    rows = api.get(f"/events/{eid}/standings").data["standings"]
    assert set(r["entry_id"] for r in rows[2:]) == set(losers(semi, number))
    assert rows[2]["decided_by"] not in (None, "third_place")   # the chain (or lots) decided 3rd


def test_five_pairs_byes_then_a_full_semi_final_then_final_and_third_place(api):
    # bracket of 8: three byes and one match in round 1 (1/4决赛), two semi-finals, final + 3rd-place match
    cfg = ko("guandan", scoring={"method": "match_points"}, knockout_draw="bracket")
    tid, eid, ids = setup_event(api, cfg, people(5, 2, "对"))
    number = {e: i for i, e in enumerate(ids)}

    def guandan_win(win, lose):
        return {"final": {"levels": {win: 10, lose: 6}}}

    r1 = draw(api, eid, 3)
    assert r1["round_name"] == "quarter_final" and len(r1["tables"]) == 1 and len(r1["byes"]) == 3
    play(api, eid, r1, number, guandan_win)
    out_r1 = losers(r1, number)
    r2 = draw(api, eid, 4)
    assert r2["round_name"] == "semi_final" and len(r2["tables"]) == 2 and not r2["byes"]
    play(api, eid, r2, number, guandan_win)
    out_r2 = losers(r2, number)
    r3 = draw(api, eid, 5)
    assert r3["round_name"] == "final" and [t["match_name"] for t in r3["tables"]] == ["final", "third_place"]
    assert {s["entry_id"] for s in r3["tables"][1]["sides"]} == set(out_r2)
    play(api, eid, r3, number, guandan_win)
    finalists = set(ids) - set(out_r1) - set(out_r2)
    rows = api.get(f"/events/{eid}/standings").data["standings"]
    assert [r["entry_id"] for r in rows] == [min(finalists, key=number.get), max(finalists, key=number.get),
                                             min(out_r2, key=number.get), max(out_r2, key=number.get), out_r1[0]]
    assert [r["reached"] for r in rows] == ["champion", "runner_up", "third", "fourth", "out_quarter_final"]


def test_three_pairs_a_semi_final_bye_leaves_one_loser_third_without_a_match(api):
    tid, eid, ids = setup_event(api, ko(knockout_draw="bracket"), people(3, 2, "对"))
    number = {e: i for i, e in enumerate(ids)}
    semi = draw(api, eid, 2)
    assert semi["round_name"] == "semi_final" and len(semi["tables"]) == 1 and len(semi["byes"]) == 1
    play(api, eid, semi, number, tractor_win)
    final = draw(api, eid, 3)
    assert len(final["tables"]) == 1 and final["tables"][0]["match_name"] is None
    play(api, eid, final, number, tractor_win)
    rows = api.get(f"/events/{eid}/standings").data["standings"]
    assert rows[2]["entry_id"] == losers(semi, number)[0] and rows[2]["decided_by"] is None
    assert [r["reached"] for r in rows] == ["champion", "runner_up", "out_semi_final"]


def test_guandan_team_knockout_third_place_match_has_both_rooms(api):
    cfg = team_cfg("knockout", size=4, third_place=True)
    cfg["prizes"] = PRIZES
    sizes = [4, 4, 4, 4]
    tid, eid, ids = setup_event(api, cfg, rosters(sizes))
    sizes_of = dict(zip(ids, sizes))
    rng = random.Random(3)
    number = {e: i for i, e in enumerate(ids)}

    def play_teams(rnd):
        for t in rnd["tables"]:
            home, away = (s["entry_id"] for s in t["sides"])
            win, lose = (home, away) if number[home] < number[away] else (away, home)
            ok = play_match(api, eid, rnd, t, {"open": {win: 10, lose: 5}, "closed": {win: 8, lose: 6}}, sizes_of, rng)
            assert ok["status"] == "confirmed" and ok["table"]["winner"] == win
        close(api, eid, rnd["number"])

    semi = draw(api, eid, 1)
    play_teams(semi)
    final = draw(api, eid, 2)
    assert [t["match_name"] for t in final["tables"]] == ["final", "third_place"]
    assert all(t["rooms"] for t in final["tables"])
    play_teams(final)
    out = losers(semi, number)
    finalists = set(ids) - set(out)
    prizes = api.get(f"/events/{eid}/prizes").data["prizes"]
    assert [p["entry_id"] for p in prizes] == [min(finalists, key=number.get), max(finalists, key=number.get),
                                               min(out, key=number.get), max(out, key=number.get)]


def test_gouji_team_knockout_with_a_third_place_match_on_dynamodb_local(local_api):
    api = local_api
    cfg = {"name": "够级团体赛", "game": "gouji", "entry": {"kind": "team", "size": 3}, "capacity": 8, "fee": {"amount": 0},
           "stages": [{"format": "knockout", "third_place": True}]}
    tid, eid, ids = setup_event(api, cfg, people(4, 3, "队"))
    semi = draw(api, eid)
    home_wins = {"games": [{"order": [1, 2, 3, 4, 5, 6]}]}    # seats 1, 3, 5 are the home team's: 16 : 6
    for t in semi["tables"]:
        enter_and_confirm(api, eid, semi, t, home_wins)
    close(api, eid, semi["number"])
    out = [t["sides"][1]["entry_id"] for t in semi["tables"]]
    final = draw(api, eid)
    assert [t["match_name"] for t in final["tables"]] == ["final", "third_place"]
    for t in final["tables"]:
        enter_and_confirm(api, eid, final, t, home_wins)
    close(api, eid, final["number"])
    order = [r["entry_id"] for r in api.get(f"/events/{eid}/standings").data["standings"]]
    third_home = final["tables"][1]["sides"][0]["entry_id"]
    assert order[:2] == [s["entry_id"] for s in final["tables"][0]["sides"]]
    assert order[2:] == [third_home, (set(out) - {third_home}).pop()]


def test_third_place_belongs_to_a_single_elimination_knockout(api):
    tid = api.post("/tournaments", tournament_body()).data["id"]
    for stage, game in (({"format": "swiss", "rounds": 3, "third_place": True}, "guandan"),
                        ({"format": "knockout", "double_elimination": True, "third_place": True}, "guandan"),
                        ({"format": "knockout", "third_place": True}, "doudizhu")):
        body = {"name": "x", "game": game, "entry": "individual" if game == "doudizhu" else "pair", "capacity": 8,
                "fee": {"amount": 0}, "stages": [stage]}
        r = api.post(f"/tournaments/{tid}/events", body)
        assert r.status_code == 400 and r.data["code"] == "invalid_request", (stage, r.data)
        assert "third_place" in str(r.data) or game == "doudizhu", r.data   # Dou Dizhu: no knockout at all


def test_every_knockout_round_name_is_worded_on_the_published_pages():
    from chalicelib import glossary
    from chalicelib.publish.i18n import translator
    for lang in ("zh", "en", "vi"):
        t = translator(lang)
        for code in glossary.TERMS["knockout_round"]:
            assert t(f"ko_{code}") != f"ko_{code}", (lang, code)
    assert translator("zh")("ko_third_place") == "三四名决赛"
