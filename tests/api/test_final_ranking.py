"""rules.md §9 ("Tractor final ranking", for every game): every entry of a multi-stage event has a final place —
the knockout's places first, then the entries out in the groups by their group results, then a disqualified
entry, listed as such and not ranked. Eleven Tractor pairs: four groups, the top two of each into a knockout
with a 3rd-place match, one pair disqualified in the groups. Expected places are worked out here from who beat
whom (the pair registered first wins every match 2 : 0)."""
from __future__ import annotations

from tests.api.play import close, enter_and_confirm, people, setup_event

PRIZES = [{"place_from": 1, "amount": 800}, {"place_from": 2, "amount": 500}, {"place_from": 3, "amount": 300},
          {"place_from": 9, "place_to": 10, "amount": 50}]
CFG = {"name": "拖拉机比赛", "game": "tractor", "entry": "pair", "capacity": 16, "fee": {"amount": 0}, "prizes": PRIZES,
       "stages": [{"name": "小组赛", "format": "round_robin", "groups": 4},
                  {"name": "淘汰赛", "format": "knockout", "advance": {"per_group": 2}, "third_place": True}]}


def play(api, eid, rnd, number):
    for t in rnd["tables"]:
        if t["status"] != "pending":   # the disqualified pair's table: already awarded to its opponent
            continue
        a, b = (s["entry_id"] for s in t["sides"])
        win, lose = (a, b) if number[a] < number[b] else (b, a)
        enter_and_confirm(api, eid, rnd, t, {"final": {"games_won": {win: 2, lose: 0}}})
    close(api, eid, rnd["number"])


def test_eleven_tractor_pairs_groups_knockout_and_a_disqualification_all_have_a_place(api):
    from chalicelib import bootstrap
    tid, eid, ids = setup_event(api, CFG, people(11, 2, "对"))
    number = {e: i for i, e in enumerate(ids)}
    cheat = ids[7]                     # strong enough to go through its group, were it not disqualified
    rounds = []
    while True:
        r = api.post(f"/events/{eid}/rounds", {"seed": len(rounds) + 1})
        if r.status_code != 201:
            assert r.data["code"] == "event_finished", r.data
            break
        rounds.append(r.data)
        play(api, eid, r.data, number)
        if len(rounds) == 1:
            dq = api.post(f"/events/{eid}/entries/{cheat}/disqualify", {"kind": "cheating", "reason": "小组赛第一轮后查实作弊"})
            assert dq.status_code == 200
    knockout = [r for r in rounds if r["stage"] == 2]
    in_ko = {s["entry_id"] for t in knockout[0]["tables"] for s in t["sides"]} | set(knockout[0]["byes"])
    assert cheat not in in_ko and len(in_ko) == 8
    group_rows = api.get(f"/events/{eid}/standings?stage=1").data["standings"]
    out_in_groups = [r for r in group_rows if r["entry_id"] not in in_ko]
    assert len(out_in_groups) == 2 and cheat not in {r["entry_id"] for r in group_rows}

    # by hand from the knockout's tables: the final, the 3rd-place match, then the quarter-finals' losers
    final_round = knockout[-1]
    final_t = next(t for t in final_round["tables"] if t["match_name"] == "final")
    third_t = next(t for t in final_round["tables"] if t["match_name"] == "third_place")
    ordered = lambda t: sorted((s["entry_id"] for s in t["sides"]), key=number.get)   # noqa: E731 winner first
    qf_losers = {ordered(t)[1] for t in knockout[0]["tables"]}

    st = api.get(f"/events/{eid}/standings").data
    assert st["final"] is True and st["stage"] == 2
    rows = st["standings"]
    assert len(rows) == 11
    assert [r["entry_id"] for r in rows[:4]] == ordered(final_t) + ordered(third_t)
    assert [r["reached"] for r in rows[:4]] == ["champion", "runner_up", "third", "fourth"]
    assert {r["entry_id"] for r in rows[4:8]} == qf_losers
    assert {r["reached"] for r in rows[4:8]} == {"out_quarter_final"}
    # the two out in the groups: each 3rd of a group of three, ranked 9 and 10 by their group points
    nine, ten = rows[8:10]
    assert {nine["entry_id"], ten["entry_id"]} == {r["entry_id"] for r in out_in_groups}
    assert nine["out_in_stage"] == ten["out_in_stage"] == 1 and nine["reached"] == ten["reached"] == "out_groups"
    assert nine["points"]["group_points"] >= ten["points"]["group_points"]
    assert [r["rank"] for r in rows[:10]] == list(range(1, 11))
    last = rows[10]
    assert (last["entry_id"], last["rank"], last["disqualified"], last["reached"]) == (cheat, None, True, "disqualified")

    # prizes follow the final ranking: 9th and 10th are paid, the disqualified pair is not
    prizes = api.get(f"/events/{eid}/prizes").data
    paid = {p["entry_id"]: p["place"] for p in prizes["prizes"]}
    assert paid == {rows[0]["entry_id"]: 1, rows[1]["entry_id"]: 2, rows[2]["entry_id"]: 3,
                    nine["entry_id"]: 9, ten["entry_id"]: 10}
    assert prizes["entries"] == 11        # registered and drawn: the disqualified pair counts (rules.md §9)

    # and the published standings list all eleven, the disqualified one as such
    assert api.post(f"/tournaments/{tid}/publish").status_code == 200
    site = bootstrap.deps().publisher
    page = site.files[f"t/{tid}/{eid}/standings.html"]
    page = page.decode() if isinstance(page, bytes) else page
    for r in rows:
        assert f"entry-{r['entry_id']}.html" in page
    assert "小组赛出局" in page and "取消比赛资格（不排名次）" in page
