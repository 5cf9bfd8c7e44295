"""The draw's answer of a big round: its first tables and how many there are (a 100,000-entry round's 50,000
were 39 MB of JSON, over what a Lambda function may answer); the round itself holds them all."""
from __future__ import annotations

from chalicelib.services import rounds as svc
from tests.api.play import draw, people, setup_event


def _pairs(capacity: int) -> dict:
    return {"name": "掼蛋", "game": "guandan", "entry": "pair", "capacity": capacity, "fee": {"amount": 0},
            "stages": [{"format": "swiss", "rounds": 3, "scoring": {"method": "match_points"}}]}


def test_a_round_past_the_answer_s_tables_answers_its_first_and_their_count(api, monkeypatch):
    monkeypatch.setattr(svc, "DRAW_ANSWER_TABLES", 3)
    _, eid, _ = setup_event(api, _pairs(20), people(14, 2, "队"))
    rnd = draw(api, eid)
    assert [t["number"] for t in rnd["tables"]] == [1, 2, 3] and rnd["tables_total"] == 7
    assert all(len(t["codes"]) == 2 and t["sides"][0]["name"] for t in rnd["tables"])   # as a whole answer's rows
    whole = api.get(f"/events/{eid}/rounds/{rnd['number']}").data
    assert len(whole["tables"]) == 7 and whole["tables"][:3] == rnd["tables"] and whole["tables_total"] is None

