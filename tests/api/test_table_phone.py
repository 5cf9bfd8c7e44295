"""Issue 25: the table phone's rules through the routes — N–S enter and E–W confirm (rules.md §8, seed 000),
a three-seat Dou Dizhu table confirmed by both other players (or the director), and Tractor's running state
and time-up from the deals typed so far."""
from __future__ import annotations

from tests.api.play import draw, people, setup_event


def _code(t: dict, side: int) -> dict:
    return {"token": None, "headers": {"X-Table-Code": t["codes"][side]}}


def _guandan(**extra) -> dict:
    return {"name": "掼蛋", "game": "guandan", "entry": "pair", "capacity": 8, "fee": {"amount": 0},
            "stages": [{"format": "swiss", "rounds": 3}], **extra}


def test_north_south_enter_and_east_west_confirm_by_default(api):
    tid, eid, ids = setup_event(api, _guandan(), people(2, 2, "对"))
    t = draw(api, eid)["tables"][0]
    assert [s["seats"] for s in t["sides"]] == [["N", "S"], ["E", "W"]]
    a, b = (s["entry_id"] for s in t["sides"])
    base = f"/events/{eid}/rounds/1/tables/1"
    body = {"version": 0, "final": {"levels": {a: 10, b: 8}}}
    ew = api.put(f"{base}/result", body, **_code(t, 1))
    assert (ew.status_code, ew.data["code"]) == (403, "north_south_enters")
    assert api.get(base, **_code(t, 0)).data["table"]["status"] == "pending"     # nothing saved
    ns = api.put(f"{base}/result", body, **_code(t, 0))
    assert ns.status_code == 200 and ns.data["table"]["entered_side"] == 0
    ok = api.post(f"{base}/confirm", **_code(t, 1))
    assert ok.status_code == 200 and ok.data["status"] == "confirmed"


def test_an_event_may_let_either_side_enter(api):
    tid, eid, ids = setup_event(api, _guandan(result_entry="either"), people(2, 2, "对"))
    t = draw(api, eid)["tables"][0]
    a, b = (s["entry_id"] for s in t["sides"])
    ew = api.put(f"/events/{eid}/rounds/1/tables/1/result", {"version": 0, "final": {"levels": {a: 10, b: 8}}},
                 **_code(t, 1))
    assert ew.status_code == 200 and ew.data["status"] == "entered"
    assert api.post(f"/events/{eid}/rounds/1/tables/1/confirm", **_code(t, 0)).data["status"] == "confirmed"


def _doudizhu(api):
    cfg = {"name": "二打一", "game": "doudizhu", "entry": "individual", "capacity": 15, "fee": {"amount": 0},
           "stages": [{"format": "swiss", "rounds": 5}]}
    tid, eid, ids = setup_event(api, cfg, people(3))
    t = draw(api, eid)["tables"][0]
    return eid, t


def test_a_three_seat_table_needs_both_other_players(api):
    eid, t = _doudizhu(api)
    base = f"/events/{eid}/rounds/1/tables/1"
    put = api.put(f"{base}/result", {"version": 0, "deals": [{"landlord": "W", "bid": 3, "winner": "landlord"}]},
                  **_code(t, 1))   # no compass N at a Dou Dizhu table: any player enters
    assert put.status_code == 200
    one = api.post(f"{base}/confirm", **_code(t, 0))
    assert one.status_code == 200 and one.data["status"] == "entered" and one.data["table"]["confirmed_sides"] == [0]
    again = api.post(f"{base}/confirm", **_code(t, 0))
    assert (again.status_code, again.data["code"]) == (409, "conflict")
    assert api.post(f"{base}/confirm", **_code(t, 1)).status_code == 403          # the one who entered
    # not counted yet: standings see no confirmed table
    assert api.get(base, **_code(t, 2)).data["table"]["status"] == "entered"
    two = api.post(f"{base}/confirm", **_code(t, 2))
    assert two.status_code == 200 and two.data["status"] == "confirmed"
    assert two.data["table"]["confirmed_sides"] == [0, 2]
    audit = [a["action"] for a in api.get(f"/events/{eid}/audit").data["audit"]]
    assert audit.count("result_confirmed_by_one") == 1 and audit.count("result_confirmed") == 1


def test_the_director_confirms_a_three_seat_table_alone(api):
    eid, t = _doudizhu(api)
    base = f"/events/{eid}/rounds/1/tables/1"
    api.put(f"{base}/result", {"version": 0, "deals": [{"landlord": "S", "bid": 2, "winner": "farmers"}]}, **_code(t, 0))
    assert api.post(f"{base}/confirm", **_code(t, 1)).data["status"] == "entered"
    assert api.post(f"{base}/confirm").data["status"] == "confirmed"      # the organiser's token


def _tractor(api):
    cfg = {"name": "拖拉机", "game": "tractor", "entry": "pair", "capacity": 8, "fee": {"amount": 0},
           "stages": [{"format": "swiss", "rounds": 3}]}
    tid, eid, ids = setup_event(api, cfg, people(2, 2, "对"))
    t = draw(api, eid)["tables"][0]
    return eid, t


def test_tractor_running_state_and_time_up_from_the_phone(api):
    eid, t = _tractor(api)
    a, b = (s["entry_id"] for s in t["sides"])
    base = f"/events/{eid}/rounds/1/tables/1"
    # from 3 (seed 003): a holds the bank with 0 points (+5 → 8), then with 35 (+4 → 12): the match is undecided
    deals = [{"banker": a, "attacker_points": 0}, {"banker": a, "attacker_points": 35}]
    p = api.post(f"{base}/preview", {"version": 0, "deals": deals}, **_code(t, 0))
    assert p.status_code == 200, p.data
    assert p.data["running"] == {"games_won": {a: 0, b: 0}, "levels": {a: 12, b: 3}, "leader": a, "decided": False,
                                 "games_to_win": 2, "banker": a}
    assert p.data["points"] == {}
    wrong = api.put(f"{base}/result", {"version": 0, "deals": deals, "time_up_leader": b}, **_code(t, 0))
    assert (wrong.status_code, wrong.data["code"]) == (422, "invalid_result")
    assert api.get(base, **_code(t, 0)).data["table"]["version"] == 0           # nothing half-saved
    ok = api.put(f"{base}/result", {"version": 0, "deals": deals, "time_up_leader": a}, **_code(t, 0))
    assert ok.status_code == 200 and ok.data["table"]["winner"] == a
    assert ok.data["points"][a]["group_points"] == 1.0 and ok.data["points"][b]["group_points"] == 0.0


def test_tractor_deals_after_the_match_is_decided_are_refused(api):
    eid, t = _tractor(api)
    a, b = (s["entry_id"] for s in t["sides"])
    # a bank held at A wins a game; two games win the match (best of 3); a third deal after that is refused
    win_game = [{"banker": a, "attacker_points": 0}] * 4     # 3 → 8 → 13 → A (14) → held at A: passes A
    deals = win_game + win_game + [{"banker": a, "attacker_points": 0}]
    p = api.post(f"/events/{eid}/rounds/1/tables/1/preview", {"version": 0, "deals": deals}, **_code(t, 0))
    assert (p.status_code, p.data["code"]) == (422, "invalid_result")
    assert p.data["details"]["deal"] == 9


def test_a_dou_dizhu_round_takes_no_deal_beyond_its_limit(api):
    eid, t = _doudizhu(api)
    base = f"/events/{eid}/rounds/1/tables/1"
    view = api.get(base, **_code(t, 0)).data
    assert view["deals_per_round"] == 6 and view["appeal_window"]["minutes"] == 5
    assert view["appeal_window"]["fee"] == {"amount": 20000, "currency": "CNY"}      # seed 001: 200 CNY
    deal = {"landlord": "W", "bid": 1, "winner": "landlord"}
    seven = api.put(f"{base}/result", {"version": 0, "deals": [deal] * 7}, **_code(t, 0))
    assert (seven.status_code, seven.data["code"]) == (422, "invalid_result")
    assert api.get(base, **_code(t, 0)).data["table"]["version"] == 0


def test_a_refused_dou_dizhu_deal_names_the_rule_and_the_field(api):
    """Issue 39: the phone said only "第 N 副不合规则": the refusal carries which rule and which field of the deal,
    so the phone words it beside that field."""
    eid, t = _doudizhu(api)
    base = f"/events/{eid}/rounds/1/tables/1/preview"
    ok = {"landlord": "W", "bid": 1, "winner": "landlord"}
    cases = [({"landlord": "W", "bid": 3, "winner": "landlord", "bombs": {"W": 13, "S": 1}}, "bombs_over_deck", "bombs"),
             ({"landlord": "W", "bid": 1, "winner": "landlord", "spring": True, "bombs": {"E": 1}},
              "spring_farmer_played", "spring"),
             ({"landlord": "S", "bid": 3, "winner": "farmers", "reverse_spring": True}, "reverse_spring_first_out", "first_out"),
             ({"landlord": "S", "bid": 1, "winner": "farmers", "reverse_spring": True, "first_out": "E", "bombs": {"S": 2}},
              "reverse_spring_landlord_played", "reverse_spring")]
    for deal, rule, field in cases:
        r = api.post(base, {"version": 0, "deals": [ok, deal]}, **_code(t, 0))
        assert (r.status_code, r.data["code"]) == (422, "invalid_result"), (rule, r.data)
        assert {k: r.data["details"][k] for k in ("deal", "rule", "field")} == {"deal": 2, "rule": rule, "field": field}


def test_the_table_phone_sees_its_own_appeals_and_their_ruling(api):
    eid, t = _doudizhu(api)
    base = f"/events/{eid}/rounds/1/tables/1"
    me = t["sides"][1]["entry_id"]
    lodged = api.post(f"{base}/appeals", {"entry_id": me, "text": "第二副多出一张"}, **_code(t, 1))
    assert lodged.status_code == 201, lodged.data
    seen = api.get(base, **_code(t, 0)).data["appeals"]
    assert [(a["text"], a["status"], a["fee_status"]) for a in seen] == [("第二副多出一张", "lodged", "due")]
    api.post(f"/appeals/{lodged.data['id']}/fee", {"method": "cash"})
    api.post(f"/appeals/{lodged.data['id']}/decision", {"outcome": "rejected", "ruling": "录像无误"})
    seen = api.get(base, **_code(t, 1)).data["appeals"]
    assert [(a["status"], a["outcome"], a["ruling"], a["fee_status"]) for a in seen] == [
        ("decided", "rejected", "录像无误", "kept")]


def test_the_appeal_window_counts_down_from_the_rounds_end(api):
    """seed 001: 5 minutes from the round's scheduled end, else from its close (rules.md §7)."""
    from datetime import datetime, timedelta
    from tests.api.play import close, enter_and_confirm
    eid, t = _doudizhu(api)
    rnd = api.get(f"/events/{eid}/rounds/1").data
    enter_and_confirm(api, eid, rnd, t, {"deals": [{"landlord": "W", "bid": 1, "winner": "landlord"}]})
    closed = close(api, eid, 1)
    window = api.get(f"/events/{eid}/rounds/1/tables/1", **_code(t, 0)).data["appeal_window"]
    base = rnd.get("ends_at") or closed["closed_at"]
    assert base and datetime.fromisoformat(window["deadline"]) == datetime.fromisoformat(base) + timedelta(minutes=5)


def test_a_printed_code_alone_finds_its_table_and_wrong_codes_are_limited(api):
    """Issue 39: a code typed on bare score.html (no event, round or table in the link) finds its table; its
    spacing and case do not matter; an unknown code is 404 and, like wrong codes at a table, limited per address."""
    tid, eid, ids = setup_event(api, _guandan(), people(8, 2, "队"))
    rnd = draw(api, eid)
    for t in rnd["tables"]:
        for code in t["codes"]:
            typed = " ".join([code[:5].lower(), code[5:]])
            r = api.get(f"/table-codes/{typed}", token=None)
            assert r.status_code == 200, r.data
            assert r.data == {"event_id": eid, "round": 1, "table": t["number"]}
    answers = [api.get(f"/table-codes/WRONG{k:05d}", token=None) for k in range(6)]
    assert [a.status_code for a in answers[:5]] == [404] * 5 and answers[0].data["code"] == "not_found"
    assert answers[5].status_code == 429 and answers[5].data["code"] == "rate_limited"


class _Reads:
    """The store's client, every read's partition key and consistency recorded (what it answers unchanged)."""

    def __init__(self, inner):
        self.inner, self.reads = inner, []

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def get_item(self, **kw):
        self.reads.append(("get", kw["Key"]["PK"]["S"], kw.get("ConsistentRead", False)))
        return self.inner.get_item(**kw)

    def batch_get_item(self, **kw):
        for req in kw["RequestItems"].values():
            self.reads += [("batch", k["PK"]["S"], req.get("ConsistentRead", False)) for k in req["Keys"]]
        return self.inner.batch_get_item(**kw)

    def query(self, **kw):
        self.reads.append(("query", kw["ExpressionAttributeValues"][":pk"]["S"], kw.get("ConsistentRead", False)))
        return self.inner.query(**kw)


def test_a_phone_opening_its_table_reads_the_events_key_eventually_consistent(api, monkeypatch):
    """Issue 43: every phone opens its table at a round's start — on the event's partition key those reads (the
    round's head, the sides' names, the table's appeals) are eventually consistent, half their units; a result's
    request, which writes, reads it strongly."""
    from chalicelib.store import dynamo
    tid, eid, ids = setup_event(api, _guandan(), people(2, 2, "对"))
    t = draw(api, eid)["tables"][0]
    base = f"/events/{eid}/rounds/1/tables/1"
    assert api.get(base, **_code(t, 0)).status_code == 200     # the round's stage now known to this process
    spy = _Reads(dynamo.client())
    monkeypatch.setattr(dynamo, "_client", spy)
    opened = api.get(base, **_code(t, 0))
    assert opened.status_code == 200 and [n["name"] for n in opened.data["table"]["sides"]] != ["", ""]
    on_event = [(op, c) for op, pk, c in spy.reads if pk == f"EVENT#{eid}"]
    assert {op for op, _ in on_event} == {"batch", "query"} and not any(c for _, c in on_event), on_event
    spy.reads.clear()
    a, b = (s["entry_id"] for s in t["sides"])
    put = api.put(f"{base}/result", {"version": 0, "final": {"levels": {a: 10, b: 8}}}, **_code(t, 0))
    assert put.status_code == 200
    assert any(c for _, pk, c in spy.reads if pk == f"EVENT#{eid}")   # a write's reads: strong
