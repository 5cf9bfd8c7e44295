"""A round's tables written without Jinja (publish/round_tables.py) are byte for byte templates/round_tables.html."""
from __future__ import annotations

import random

import pytest

from chalicelib.publish.render import fragment
from chalicelib.publish.round_tables import RoundTables

NAMES = ["东兰一队", "A&B <pair>", 'Nguyễn "Văn" An', "O'Neil", "?"]
WHYS = [{}, {"kind": "same_score", "score": 2.5}, {"kind": "float", "high": 3, "low": 1}, {"kind": "rematch"},
        {"kind": "table_of_three", "scores": [3, 2, 2], "repeats": 1}, {"kind": "berger", "group": 2, "round": 3},
        {"kind": "knockout", "seeds": [1, 8], "bracket": "upper"}, {"kind": "knockout", "seeds": [3, 4], "third_place": True},
        {"kind": "edited", "reason": "迟到 <5> & 换桌"}, {"kind": "same_score", "score": 1, "related": True, "zone": "winners"}]
STATUSES = ["pending", "entered", "confirmed", "forfeit", "disputed"]
POINTS = [["match_points"], ["level_points", "level_diff_points"], ["group_points"], ["table_points", "small_points"]]


def _round(rng: random.Random, n: int) -> dict:
    pnames = rng.choice(POINTS)
    tables = []
    for k in range(1, rng.randint(0, 12) + 1):
        sides = [{"entry_id": f"01E{rng.randrange(10**6):023d}", "name": rng.choice(NAMES),
                  "seats": rng.choice([["N", "S"], ["E", "W"], ["1", "3", "5"], []])} for _ in range(rng.choice([2, 2, 3, 4]))]
        status = rng.choice(STATUSES)
        points = ({s["entry_id"]: {p: rng.choice([0, 1, 2.5, 13]) for p in pnames} for s in sides[:rng.randint(0, len(sides))]}
                  if status in ("entered", "confirmed", "forfeit") and rng.random() < 0.9 else {})
        penalties = [{"kind": rng.choice(["late", "misdeal", None]), "name": rng.choice(NAMES),
                      "deal": rng.choice([None, 3]), "game": rng.choice([None, 2]), "referee": rng.choice(["", "裁判 <A>"]),
                      "text": "x"} for _ in range(rng.choice([0, 0, 1, 2]))]
        rooms = [{"room": room, "levels": rng.choice(["10 : 6", "过A : 8"])} for room in ("open", "closed")][:rng.choice([0, 0, 1, 2])]
        tables.append({"number": k, "sides": sides, "status": status, "reason": rng.choice(["", "同分 <3>", "A & B"]),
                       "why": rng.choice(WHYS), "point_names": pnames, "edited": rng.choice([None, None, {"at": "x"}]),
                       "penalties": penalties, "points": points, "rooms": rooms})
    byes = [{"entry_id": f"01B{k:023d}", "name": rng.choice(NAMES), "reason": "",
             "why": rng.choice([None, {"rule": "second_bye"}, {"rule": "made_up"}])} for k in range(rng.choice([0, 0, 1, 2]))]
    early = [{"name": rng.choice(NAMES), "place": 3, "from_round": 4, "average": {p: 1.5 for p in pnames},
              "why": rng.choice([None, {"score": "6", "worst": "6", "best": "4", "left": 1}])}
             for _ in range(rng.choice([0, 0, 1]))]
    return {"number": n, "status": "open", "seed": rng.randint(1, 99), "tables": tables, "byes": byes,
            "early_finish": early, "point_names": pnames}


@pytest.mark.parametrize("lang", ["zh", "en", "vi"])
def test_round_tables_are_the_templates_bytes(lang):
    rng = random.Random(lang)
    fast = RoundTables(lang)
    for n in range(60):
        r = _round(rng, n)
        want = str(fragment("round_tables.html", lang, r=r))
        assert fast.render(r) == want, (lang, n)
        assert fast.render(r, keep=True) == want
    r = _round(rng, 1)
    first = fast.render(r, keep=True)
    r["tables"] = [{**tb, "status": "confirmed"} if i == 0 else tb for i, tb in enumerate(r["tables"])]
    assert fast.render(r, keep=True) == str(fragment("round_tables.html", lang, r=r))   # a new table object: its row anew
    assert first or not r["tables"]
