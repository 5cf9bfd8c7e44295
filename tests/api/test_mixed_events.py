"""Mixed events (rules.md §9, seed 000) through the routes: gender on every roster — registration, the desk's
roster import, joining partners, substitution — refused with a stable code when the pair or the lineup does not
fit: a mixed pair is one man and one woman ("由男运动员与女运动员组成伙伴"); a mixed team's lineup is one men's pair
and one women's pair, the men E–W and the women N–S ("男运动员坐东、西的方位，女运动员坐南、北的方位")."""
from __future__ import annotations

import base64
import csv
import io

from tests.api.play import draw
from tests.factories import tournament_body


def event(api, **config):
    tid = api.post("/tournaments", tournament_body()).data["id"]
    body = {"name": "混双", "game": "guandan", "entry": "pair", "capacity": 16, "fee": {"amount": 0},
            "stages": [{"format": "swiss", "rounds": 2}], **config}
    r = api.post(f"/tournaments/{tid}/events", body)
    assert r.status_code == 201, r.data
    return r.data["id"]


def pair(name, phone, g1, g2, **extra):
    members = [{"name": f"{name}甲", "phone": phone, **({"gender": g1} if g1 else {})},
               {"name": f"{name}乙", **({"gender": g2} if g2 else {})}]
    return {"name": name, "members": members, **extra}


def register(api, eid, body):
    return api.post(f"/events/{eid}/entries", body, token=None)


def test_a_mixed_pair_is_one_man_and_one_woman_at_registration(api):
    eid = event(api, mixed_pairs=True)
    two_men = register(api, eid, pair("两男", "13900000001", "m", "m"))
    assert (two_men.status_code, two_men.data["code"]) == (422, "mixed_pair_genders")
    assert two_men.data["details"]["problem"] == "not_one_man_one_woman"
    two_women = register(api, eid, pair("两女", "13900000002", "f", "f"))
    assert (two_women.status_code, two_women.data["code"]) == (422, "mixed_pair_genders")
    unsaid = register(api, eid, pair("未填", "13900000003", "m", None))
    assert (unsaid.status_code, unsaid.data["details"]["problem"]) == (422, "gender_missing")
    assert register(api, eid, pair("混双", "13900000004", "f", "m")).status_code == 201
    # a pairs event that is not mixed takes any roster, gender or not
    plain = event(api)
    assert register(api, plain, pair("两男", "13900000005", "m", "m")).status_code == 201
    # the set-up refuses a mixed pair event that is not a pair event, and a mixed team that is not a team of 4+
    tid = api.post("/tournaments", tournament_body()).data["id"]
    bad = api.post(f"/tournaments/{tid}/events", {"name": "x", "game": "guandan", "entry": "pair", "capacity": 8,
                                                  "mixed_team": True, "stages": [{"format": "swiss", "rounds": 2}]})
    assert bad.status_code in (400, 422) and "mixed_team" in str(bad.data)


def test_partner_seekers_give_their_gender_and_are_joined_only_as_one_man_one_woman(api):
    eid = event(api, mixed_pairs=True)
    alone = lambda name, phone, g: {"name": name, "partner_wanted": True,   # noqa: E731
                                    "members": [{"name": name, "phone": phone, **({"gender": g} if g else {})}]}
    assert register(api, eid, alone("无性别", "13900000010", None)).data["code"] == "mixed_pair_genders"
    ids = [register(api, eid, alone(n, p, g)).data["entry"]["id"]
           for n, p, g in (("男一", "13900000011", "m"), ("男二", "13900000012", "m"), ("女一", "13900000013", "f"))]
    refused = api.post(f"/events/{eid}/entries/join", {"entry_ids": ids[:2]})
    assert (refused.status_code, refused.data["code"]) == (422, "mixed_pair_genders")
    assert api.post(f"/events/{eid}/entries/join", {"entry_ids": [ids[0], ids[2]]}).status_code == 201


def test_a_substitute_must_keep_the_pair_mixed(api):
    eid = event(api, mixed_pairs=True, substitutes={"pairs": True})
    entry = register(api, eid, pair("混双", "13900000020", "m", "f")).data["entry"]["id"]
    api.post(f"/events/{eid}/entries/{entry}/check-in")
    man_for_woman = api.post(f"/events/{eid}/entries/{entry}/substitutions",
                             {"out": 1, "in": {"name": "替补男", "gender": "m"}, "reason": "女队员生病"})
    assert (man_for_woman.status_code, man_for_woman.data["code"]) == (422, "mixed_pair_genders")
    unsaid = api.post(f"/events/{eid}/entries/{entry}/substitutions", {"out": 1, "in": {"name": "替补"}, "reason": "生病"})
    assert (unsaid.status_code, unsaid.data["details"]["problem"]) == (422, "gender_missing")
    ok = api.post(f"/events/{eid}/entries/{entry}/substitutions",
                  {"out": 1, "in": {"name": "替补女", "gender": "f"}, "reason": "女队员生病"})
    assert ok.status_code == 201, ok.data
    assert [m["gender"] for m in ok.data["members"]] == ["m", "f"]


def test_the_roster_import_of_a_mixed_event_reads_gender_and_refuses_two_men(api):
    eid = event(api, mixed_pairs=True)
    header = ["队名 Team name", "队员1 姓名 Member 1 name", "队员1 手机 Member 1 phone", "队员1 性别（男/女） Member 1 gender (m/f)",
              "队员2 姓名 Member 2 name", "队员2 性别（男/女） Member 2 gender (m/f)"]
    rows = [["一队", "张三", "13800000001", "男", "李四", "女"],
            ["二队", "王五", "13800000002", "男", "赵六", "男"],
            ["三队", "钱七", "13800000003", "男", "孙八", "不知道"]]
    buf = io.StringIO()
    csv.writer(buf).writerows([header, *rows])
    r = api.post(f"/events/{eid}/entries/import", {"file": base64.b64encode(buf.getvalue().encode("utf-8-sig")).decode(),
                                                   "dry_run": True, "filename": "名单.csv"})
    assert r.status_code == 200, r.data
    got = {x["row"]: x for x in r.data["rows"]}
    assert got[2]["status"] == "ok" and [m["gender"] for m in got[2]["members"]] == ["m", "f"]
    assert (got[3]["status"], got[3]["code"], got[3]["field"]) == ("error", "mixed_pair_genders", "m1_gender")
    assert (got[4]["status"], got[4]["field"]) == ("error", "m2_gender")
    assert any(c["key"] == "m2_gender" for c in r.data["columns"])


def team(name, phone, genders):
    return {"name": name, "members": [{"name": f"{name}{i}", **({"phone": phone} if i == 0 else {}), "gender": g}
                                      for i, g in enumerate(genders)]}


def test_a_mixed_team_needs_two_men_and_two_women_and_lineups_seat_men_east_west(api):
    eid = event(api, name="混合团体", entry={"kind": "team", "size": 4}, mixed_team=True,
                stages=[{"format": "swiss", "rounds": 1, "early_finish": False}])
    short = register(api, eid, team("三男", "13900000030", ["m", "m", "m", "f"]))
    assert (short.status_code, short.data["code"], short.data["details"]["problem"]) == (422, "mixed_team_genders",
                                                                                          "needs_two_men_two_women")
    ids = []
    for name, phone in (("甲队", "13900000031"), ("乙队", "13900000032")):
        r = register(api, eid, team(name, phone, ["m", "f", "m", "f"]))   # members 0, 2 men; 1, 3 women
        assert r.status_code == 201, r.data
        ids.append(r.data["entry"]["id"])
        assert api.post(f"/events/{eid}/entries/{ids[-1]}/check-in").status_code == 200
    rnd = draw(api, eid)
    code = lambda side: {"token": None, "headers": {"X-Table-Code": rnd["tables"][0]["codes"][side]}}  # noqa: E731
    base = f"/events/{eid}/rounds/1/tables/1/lineup"
    # the away team (side 1) sits E–W in the open room: its men play there, its women in the closed room (N–S)
    wrong = api.post(base, {"open": [1, 3], "closed": [0, 2]}, **code(1))
    assert (wrong.status_code, wrong.data["code"]) == (422, "mixed_lineup")
    assert wrong.data["details"] == {"room": "open", "needs": "men", "seats": ["E", "W"]}
    mixed_pair = api.post(base, {"open": [0, 1], "closed": [2, 3]}, **code(1))
    assert mixed_pair.data["code"] == "mixed_lineup"
    assert api.post(base, {"open": [0, 2], "closed": [1, 3]}, **code(1)).status_code == 200
    # the home team (side 0) sits N–S in the open room: its women there
    assert api.post(base, {"open": [0, 2], "closed": [1, 3]}, **code(0)).data["code"] == "mixed_lineup"
    assert api.post(base, {"open": [1, 3], "closed": [0, 2]}, **code(0)).status_code == 200
