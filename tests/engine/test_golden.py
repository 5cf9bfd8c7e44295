"""Golden cases from tests/engine/cases/*.json: expectations worked out by hand from rules.md."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from chalicelib.engine.games import game
from chalicelib.engine.games.doudizhu import bomb_bonus, deal_small_points, table_points
from chalicelib.engine.games.guandan import play_deals
from chalicelib.engine.games.tractor import deal_change
from chalicelib.engine.standings import allocate_prizes, compute
from chalicelib.engine.types import MatchRecord, Side
from chalicelib.errors import InvalidResult
from chalicelib.models import (
    BombBonus,
    LevelPointsScoring,
    LevelTableScoring,
    MatchPointsScoring,
    PositionPointsScoring,
    Prize,
    TablePointsScoring,
)

CASES = Path(__file__).parent / "cases"


def load(name):
    return json.loads((CASES / name).read_text())


def ids(cases):
    return [c["name"] for c in cases]


GD_SEATS = {"N": 0, "S": 0, "E": 1, "W": 1}
GD_LEVELS = load("guandan_levels.json")["cases"]


@pytest.mark.parametrize("case", GD_LEVELS, ids=ids(GD_LEVELS))
def test_guandan_levels(case):
    run = lambda: play_deals(case["orders"], GD_SEATS, case.get("start", (2, 2)), case.get("a_failure_limit"))  # noqa: E731
    if "error" in case:
        with pytest.raises(InvalidResult, match=case["error"]):
            run()
        return
    play = run()
    assert play.levels == case["levels"]
    assert play.passed == case["passed"]


GD_SCORING = load("guandan_scoring.json")
GD_SIDES = [Side("A", ("N", "S")), Side("B", ("E", "W"))]


def _gd_options(case):
    cls = LevelPointsScoring if case["method"] == "level_points" else MatchPointsScoring
    return cls(**case.get("options", {}))


@pytest.mark.parametrize("case", GD_SCORING["cases"], ids=ids(GD_SCORING["cases"]))
def test_guandan_scoring(case):
    run = lambda: game("guandan").score(case["result"], GD_SIDES, _gd_options(case), knockout=case.get("knockout", False))  # noqa: E731
    if "error" in case:
        with pytest.raises(InvalidResult, match=case["error"]):
            run()
        return
    assert run().points == case["points"]


@pytest.mark.parametrize("case", GD_SCORING["byes"], ids=ids(GD_SCORING["byes"]))
def test_guandan_bye(case):
    assert game("guandan").bye("A", _gd_options(case)) == case["points"]


DDZ = load("doudizhu.json")
DDZ_SIDES = [Side("P1", ("W",)), Side("P2", ("S",)), Side("P3", ("E",))]


@pytest.mark.parametrize("case", DDZ["deals"], ids=ids(DDZ["deals"]))
def test_doudizhu_deal(case):
    if "error" in case:
        with pytest.raises(InvalidResult, match=case["error"]):
            deal_small_points(case["deal"], 1, case.get("doubling", False), case.get("max_doublings", 8))
        return
    assert deal_small_points(case["deal"], 1, case.get("doubling", False), case.get("max_doublings", 15)) == case["points"]


@pytest.mark.parametrize("case", DDZ["table_points"], ids=ids(DDZ["table_points"]))
def test_doudizhu_table_points(case):
    assert table_points(case["small"]) == case["points"]


@pytest.mark.parametrize("case", DDZ["bomb_bonus"], ids=ids(DDZ["bomb_bonus"]))
def test_doudizhu_bomb_bonus(case):
    got = bomb_bonus(case["deal"], BombBonus())
    if case["bonus"] is None:
        assert got is None
    else:
        assert {k: got[k] for k in ("bombs", "each", "extra_seat")} == case["bonus"]
        assert got["extra"] == (100 if case["bonus"]["extra_seat"] else 0)


@pytest.mark.parametrize("case", DDZ["rounds"], ids=ids(DDZ["rounds"]))
def test_doudizhu_round(case):
    result = {"deals": case["deals"]} if "deals" in case else {"final": case["final"]}
    if "error" in case:
        with pytest.raises(InvalidResult, match=case["error"]):
            game("doudizhu").score(result, DDZ_SIDES, TablePointsScoring())
        return
    assert game("doudizhu").score(result, DDZ_SIDES, TablePointsScoring()).points == case["points"]


def test_doudizhu_bye_and_prizes():
    assert game("doudizhu").bye("P1", TablePointsScoring()) == DDZ["bye"]
    spec = DDZ["prizes"]
    entries = [f"p{i:02d}" for i in range(spec["places"])]
    records = [MatchRecord(1, 1, (e,), {e: {"table_points": float(100 - i)}}, {}, bye=True) for i, e in enumerate(entries)]
    rows = compute(entries, records, ["table_points"], point_names=["table_points"])
    prizes = allocate_prizes(rows, [Prize(**p) for p in spec["prizes"]])
    assert [p["amount"] for p in prizes] == spec["amounts"]
    assert [p["place"] for p in prizes] == list(range(1, 9))


GOUJI = load("gouji.json")["cases"]
GJ_SIDES = [Side("T1", ("1", "3", "5")), Side("T2", ("2", "4", "6"))]


@pytest.mark.parametrize("case", GOUJI, ids=ids(GOUJI))
def test_gouji(case):
    opts = PositionPointsScoring(**case.get("options", {}))
    run = lambda: game("gouji").score(case["result"], GJ_SIDES, opts, knockout=case.get("knockout", False))  # noqa: E731
    if "error" in case:
        with pytest.raises(InvalidResult, match=case["error"]):
            run()
        return
    score = run()
    if "points" in case:
        assert score.points == case["points"]
    assert score.winner == case["winner"]


TRACTOR = load("tractor.json")


@pytest.mark.parametrize("case", TRACTOR["deal_table"], ids=[f"p={c['p']} declared={c.get('declared', 1)}" for c in TRACTOR["deal_table"]])
def test_tractor_deal_table(case):
    if "error" in case:
        with pytest.raises(InvalidResult, match=case["error"]):
            deal_change(case["p"], case.get("declared", 1))
        return
    assert deal_change(case["p"], case.get("declared", 1)) == (case["side"], case["rise"])


TR_SIDES = [Side("X", ("N", "S")), Side("Y", ("E", "W"))]


@pytest.mark.parametrize("case", TRACTOR["matches"], ids=ids(TRACTOR["matches"]))
def test_tractor_match(case):
    result = {"final": case["final"]} if "final" in case else {"deals": case["deals"]}
    if "time_up_leader" in case:
        result["time_up_leader"] = case["time_up_leader"]
    run = lambda: game("tractor").score(result, TR_SIDES, LevelTableScoring())  # noqa: E731
    if "error" in case:
        with pytest.raises(InvalidResult, match=case["error"]):
            run()
        return
    assert run().points == case["points"]


STANDINGS = load("standings.json")["cases"]


@pytest.mark.parametrize("case", STANDINGS, ids=ids(STANDINGS))
def test_standings(case):
    records = [MatchRecord(r["round"], i, tuple(r["entries"]), r["points"], r.get("outcome", {}), bye=r.get("bye", False))
               for i, r in enumerate(case["records"])]
    entries = sorted({e for r in case["records"] for e in r["entries"]})
    rows = compute(entries, records, case["chain"], point_names=case["point_names"], seed=7)
    assert [r.entry_id for r in rows] == case["order"]
    assert [r.rank for r in rows] == list(range(1, len(rows) + 1))
