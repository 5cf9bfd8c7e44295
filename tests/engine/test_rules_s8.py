"""rules.md §8 (v1.2) and the narrowed §5, rule by rule: golden cases in cases/rules_s8.json, each quoting the
seed and worked out by hand in the case itself."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from chalicelib.engine.formats.early_finish import averages_of_played
from chalicelib.engine.formats.knockout import next_round, redrawn_round
from chalicelib.engine.formats.stages import carry_over
from chalicelib.engine.games import game
from chalicelib.engine.games.doudizhu import table_points
from chalicelib.engine.games.tractor import play_match
from chalicelib.engine.numbers import half_up, share
from chalicelib.engine.standings import compute, last_if_forfeited, unbeaten_first
from chalicelib.engine.types import MatchRecord, Side
from chalicelib.errors import InvalidResult, PlayOn
from chalicelib.models import EventConfig, LevelPointsScoring, LevelTableScoring, MatchPointsScoring, PositionPointsScoring

S8 = json.loads((Path(__file__).parent / "cases" / "rules_s8.json").read_text())


def names(cases):
    return [c["name"] for c in cases]


def records_of(raw):
    return [MatchRecord(r["round"], i, tuple(r["entries"]), r["points"], r.get("outcome", {}), bye=r.get("bye", False))
            for i, r in enumerate(raw)]


# --------------------------------------------------------------------------- rounding (四舍五入, 2 decimals)

@pytest.mark.parametrize("case", S8["rounding"]["half_up"], ids=[str(c["value"]) for c in S8["rounding"]["half_up"]])
def test_half_up(case):
    assert half_up(case["value"]) == case["expected"]


def test_python_round_would_be_wrong_here():
    # the reason for the helper: the builtin gives the half-even / binary answer on the seed's own kind of value
    assert round(17.125, 2) == 17.12 and half_up(17.125) == 17.13


@pytest.mark.parametrize("case", S8["rounding"]["carry_half"], ids=["carry half"])
def test_carry_over_half_rounds_half_up(case):
    for e, pts in case["points"].items():
        assert carry_over({"p": pts}, "half")["p"] == case["expected"][e]


@pytest.mark.parametrize("case", S8["rounding"]["table_points_shared"], ids=lambda c: str(c["places"]))
def test_shared_places_round_half_up(case):
    assert table_points(case["small"], case["places"]) == case["expected"]


@pytest.mark.parametrize("case", S8["rounding"]["average"], ids=["137 / 8"])
def test_average_rounds_half_up(case):
    assert share(case["level_diff"], len(case["level_diff"])) == case["expected"]


# --------------------------------------------------------------------------- early finish (000)

@pytest.mark.parametrize("case", S8["early_finish"]["average_over_played"], ids=names(S8["early_finish"]["average_over_played"]))
def test_early_finish_average_over_matches_played(case):
    got = averages_of_played(records_of(case["records"]), [case["entry"]])[case["entry"]]
    assert got == case["expected"]


def _guandan(stages):
    return EventConfig.model_validate({"name": "x", "game": "guandan", "entry": "pair", "capacity": 8, "stages": stages})


def test_early_finish_default_follows_the_stage_plan():
    # 000: "但对于分阶段进行的积分编排赛，下阶段带分进行时，仍应安排这些队参加本阶段剩余的比赛"
    carried = _guandan([{"format": "swiss", "rounds": 5}, {"format": "swiss", "rounds": 2, "carry_over": "full"}])
    assert carried.stages[0].early_finish is False
    fresh = _guandan([{"format": "swiss", "rounds": 5}, {"format": "swiss", "rounds": 2}])
    assert fresh.stages[0].early_finish is True and fresh.stages[1].early_finish is True


def test_an_explicit_early_finish_before_a_carry_over_stage_does_not_apply():
    from types import SimpleNamespace

    from chalicelib.services.rounds import early_finish_applies
    cfg = _guandan([{"format": "swiss", "rounds": 5, "early_finish": True},
                    {"format": "swiss", "rounds": 2, "carry_over": "half"}])
    assert cfg.stages[0].early_finish is True        # as the organiser wrote it
    assert early_finish_applies(SimpleNamespace(config=cfg), 0) is False
    assert early_finish_applies(SimpleNamespace(config=_guandan([{"format": "swiss", "rounds": 5}])), 0) is True


# --------------------------------------------------------------------------- special Swiss (000)

@pytest.mark.parametrize("case", S8["special_swiss"]["cases"], ids=names(S8["special_swiss"]["cases"]))
def test_special_swiss_last_unbeaten_first(case):
    recs = records_of(case["records"])
    entries = sorted({e for r in case["records"] for e in r["entries"]})
    rows = compute(entries, recs, case["chain"], point_names=case["point_names"], seed=7)
    assert [r.entry_id for r in rows] == case["by_points"]
    rows = unbeaten_first(rows, recs)
    assert [r.entry_id for r in rows] == case["expected"]
    assert [r.rank for r in rows] == list(range(1, len(rows) + 1))


# --------------------------------------------------------------------------- unexcused forfeit, per game (§5)

@pytest.mark.parametrize("g", ["guandan", "doudizhu", "tractor", "gouji"])
@pytest.mark.parametrize("case", S8["forfeit"]["cases"], ids=names(S8["forfeit"]["cases"]))
def test_unexcused_forfeit_ranks_last_only_in_guandan(case, g):
    entry = {"guandan": "pair", "tractor": "pair", "doudizhu": "individual", "gouji": {"kind": "team", "size": 3}}[g]
    cfg = EventConfig.model_validate({"name": "x", "game": g, "entry": entry, "capacity": 8,
                                      "stages": [{"format": "swiss", "rounds": 3}]})
    rows = compute(["A", "B", "C", "D"], records_of(case["records"]), case["chain"], point_names=case["point_names"])
    rows = last_if_forfeited(rows, set(case["forfeited"]) if cfg.forfeit_ranks_last else set())
    assert [r.entry_id for r in rows] == case["expected"][g]


# --------------------------------------------------------------------------- Tractor (003)

TR_IDS = ["X", "Y"]
TR_SIDES = [Side("X", ("N", "S")), Side("Y", ("E", "W"))]


@pytest.mark.parametrize("case", S8["tractor"]["cases"], ids=names(S8["tractor"]["cases"]))
def test_tractor_time_up_and_penalties(case):
    result = {"deals": case["deals"]}
    if "time_up_leader" in case:
        result["time_up_leader"] = case["time_up_leader"]
    run = lambda: game("tractor").score(result, TR_SIDES, LevelTableScoring())  # noqa: E731
    if "error" in case:
        with pytest.raises(InvalidResult, match=case["error"]):
            run()
        return
    assert run().winner == case["winner"]
    m = play_match(case["deals"], TR_IDS, 3, 3)
    assert dict(zip(TR_IDS, m.levels)) == case["levels"]


def test_tractor_level_is_a_play_on_error_code():
    with pytest.raises(PlayOn) as exc:
        game("tractor").score({"deals": [{"banker": "X", "attacker_points": 160}], "time_up_leader": "Y"}, TR_SIDES,
                              LevelTableScoring())
    assert exc.value.code == "play_on" and exc.value.status == 422


def test_tractor_summary_time_up_needs_the_levels_to_name_a_leader():
    score = game("tractor").score
    ok = score({"final": {"games_won": {"X": 1, "Y": 1}, "levels": {"X": 9, "Y": 5}}, "time_up_leader": "X"},
               TR_SIDES, LevelTableScoring())
    assert ok.winner == "X"
    with pytest.raises(PlayOn):
        score({"final": {"games_won": {"X": 1, "Y": 1}}, "time_up_leader": "X"}, TR_SIDES, LevelTableScoring())
    with pytest.raises(InvalidResult, match="ahead"):
        score({"final": {"games_won": {"X": 1, "Y": 1}, "levels": {"X": 9, "Y": 5}}, "time_up_leader": "Y"},
              TR_SIDES, LevelTableScoring())


def test_tractor_knockout_redrawn_after_each_round():
    # 003: "胜者晋级，负者淘汰，晋级后重新抽签比赛" — not read off the bracket
    winners = [f"w{i}" for i in range(8)]
    fixed = {frozenset(m) for m in next_round(winners)}
    draws = [redrawn_round(winners, seed, 2) for seed in range(20)]
    for d in draws:
        assert sorted(e for m in d for e in m) == sorted(winners) and all(None not in m for m in d)
    assert any({frozenset(m) for m in d} != fixed for d in draws)
    assert redrawn_round(winners, 5, 2) == redrawn_round(list(reversed(winners)), 5, 2)   # the lot, not the order
    assert len({tuple(map(tuple, d)) for d in draws}) > 5


# --------------------------------------------------------------------------- Guandan penalties (000, 003)

GD_SIDES = [Side("A", ("N", "S")), Side("B", ("E", "W"))]


@pytest.mark.parametrize("case", S8["guandan_penalties"]["cases"], ids=names(S8["guandan_penalties"]["cases"]))
def test_guandan_penalties(case):
    opts = LevelPointsScoring() if case["method"] == "level_points" else MatchPointsScoring()
    run = lambda: game("guandan").score(case["result"], GD_SIDES, opts)  # noqa: E731
    if "error" in case:
        with pytest.raises(InvalidResult, match=case["error"]):
            run()
        return
    assert run().points == case["points"]


# --------------------------------------------------------------------------- Gouji (002)

GJ_SIDES = [Side("T1", ("1", "3", "5")), Side("T2", ("2", "4", "6"))]


@pytest.mark.parametrize("case", S8["gouji"]["cases"], ids=names(S8["gouji"]["cases"]))
def test_gouji_cheating_and_burns(case):
    opts = PositionPointsScoring(**case.get("options", {}))
    run = lambda: game("gouji").score(case["result"], GJ_SIDES, opts)  # noqa: E731
    if "error" in case:
        with pytest.raises(InvalidResult, match=case["error"]):
            run()
        return
    score = run()
    assert score.points == case["points"] and score.winner == case["winner"]


# --------------------------------------------------------------------------- mixed pairs (000)

@pytest.mark.parametrize("case", S8["mixed_pairs"]["cases"], ids=lambda c: f"{c['side']} {c['genders']}")
def test_mixed_pairs_seats(case):
    from chalicelib.engine.formats.mixed_pairs import member_seats
    assert member_seats(case["side"], case["genders"]) == case["expected"]


# --------------------------------------------------------------------------- knockout choice (000)

@pytest.mark.parametrize("case", S8["knockout_choice"]["cases"], ids=names(S8["knockout_choice"]["cases"]))
def test_knockout_choice_in_order(case):
    from chalicelib.engine.formats.knockout import chosen_round
    from chalicelib.errors import InvalidRequest
    run = lambda: chosen_round(case["seeded"], [tuple(c) for c in case["choices"]])  # noqa: E731
    if "error" in case:
        with pytest.raises(InvalidRequest, match=case["error"]):
            run()
        return
    assert [list(m) for m in run()] == case["expected"]


# --------------------------------------------------------------------------- Guandan team events 集体赛 (000)

TEAM = S8["guandan_team"]
TEAM_SIDES = [Side("H", ("N", "S")), Side("V", ("E", "W"))]


def _team_options(**given):
    # §8's cases were worked by hand with the team match's 级差分 as the sum of its rooms': since §9 that is the
    # option `team_level_diff: "sum"` (the default is one scale over both rooms: test_rules_s9.py)
    return MatchPointsScoring(team_rooms=True, **{"team_level_diff": "sum", **given})


@pytest.mark.parametrize("case", TEAM["cases"], ids=names(TEAM["cases"]))
def test_guandan_team_match_from_both_rooms(case):
    run = lambda: game("guandan").score(case["result"], TEAM_SIDES, _team_options(**case.get("options", {})),  # noqa: E731
                                        knockout=case.get("knockout", False))
    if "error" in case:
        with pytest.raises(InvalidResult, match=case["error"]):
            run()
        return
    score = run()
    assert score.points == case["points"] and score.winner == case["winner"]


def test_guandan_team_bye_counts_both_rooms():
    bye = TEAM["bye"]
    assert game("guandan").bye("H", _team_options()) == {"match_points": bye["match_points"],
                                                         "level_diff_points": bye["level_diff_points"]}


@pytest.mark.parametrize("case", TEAM["lineups"], ids=lambda c: json.dumps(c["lineup"]))
def test_guandan_team_lineups(case):
    from chalicelib.engine.games.guandan_team import lineup_pairs
    if "error" in case:
        with pytest.raises(InvalidResult, match=case["error"]):
            lineup_pairs(case["lineup"], case["size"])
        return
    assert lineup_pairs(case["lineup"], case["size"]) == case["expected"]


@pytest.mark.parametrize("case", TEAM["deadlines"], ids=lambda c: f"seat choice {c['seat_choice']}")
def test_guandan_team_lineup_deadlines(case):
    from datetime import datetime

    from chalicelib.engine.games.guandan_team import lineup_deadline
    got = lineup_deadline(datetime.fromisoformat(case["starts_at"]), case["seat_choice"])
    assert got == datetime.fromisoformat(case["expected"])


def test_guandan_team_event_config():
    cfg = EventConfig.model_validate({"name": "集体赛", "game": "guandan", "entry": {"kind": "team", "size": 6},
                                      "capacity": 16, "stages": [{"format": "swiss", "rounds": 5}]})
    assert cfg.stages[0].scoring.method == "match_points" and cfg.stages[0].scoring.team_rooms is True
    with pytest.raises(ValueError, match="team event scores with match_points"):
        EventConfig.model_validate({"name": "集体赛", "game": "guandan", "entry": {"kind": "team", "size": 4},
                                    "capacity": 16, "stages": [{"format": "swiss", "rounds": 5,
                                                                "scoring": {"method": "level_points"}}]})
    with pytest.raises(ValueError):
        EventConfig.model_validate({"name": "x", "game": "guandan", "entry": {"kind": "team", "size": 3},
                                    "capacity": 16, "stages": [{"format": "swiss", "rounds": 5}]})
