"""Each game's defaults in the event config match rules.md (v1.2): the table below is transcribed from rules.md,
each row with the words it comes from; where rules.md is at hand (the shared folder) the words are checked to be
there, so a change of the rules shows up here."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from chalicelib.models import EventConfig

ENTRY = {"guandan": "pair", "tractor": "pair", "doudizhu": "individual", "gouji": {"kind": "team", "size": 3}}

# (game, setting path, default, rules.md words)
TABLE = [
    ("guandan", "forfeit_ranks_last", True, "This is seed 000's rule and the Guandan default only"),
    ("doudizhu", "forfeit_ranks_last", False, "Dou Dizhu (001: \"判该名选手本轮比赛弃权\")"),
    ("tractor", "forfeit_ranks_last", False, "Tractor (003: \"迟到15分钟者视为弃权\") forfeit the round, nothing more"),
    ("gouji", "forfeit_ranks_last", False, "This is seed 000's rule and the Guandan default only"),
    ("guandan", "stages.0.early_finish", True, "on by default\n  for Guandan Swiss"),
    ("tractor", "stages.0.early_finish", False, "on by default\n  for Guandan Swiss"),
    ("gouji", "stages.0.early_finish", False, "on by default\n  for Guandan Swiss"),
    ("doudizhu", "stages.0.early_finish", False, "on by default\n  for Guandan Swiss"),
    ("tractor", "stages.1.knockout_draw", "redraw", "each knockout round is drawn afresh among the winners"),
    ("guandan", "stages.1.knockout_draw", "bracket", "*(configurable; default: seeded bracket)*"),
    ("gouji", "stages.1.knockout_draw", "bracket", "*(configurable; default: seeded bracket)*"),
    # Guandan level points (seed 003) and match points (seed 000)
    ("guandan", "stages.0.scoring.pass_a_points", 15, "scores **15** *(configurable)*"),
    ("guandan/match_points", "stages.0.scoring.bye_match_points", 1.5, "Bye (轮空): **1.5** 场分 and **17** 级差分"),
    ("guandan/match_points", "stages.0.scoring.bye_level_diff_points", 17, "Bye (轮空): **1.5** 场分 and **17** 级差分"),
    ("guandan/match_points", "stages.0.scoring.withdrawal_match_points", 2, "the remaining side **2** 场分 and **17** 级差分"),
    ("guandan/match_points", "stages.0.scoring.withdrawal_level_diff_points", 17, "the remaining side **2** 场分 and **17** 级差分"),
    ("guandan/match_points", "stages.0.scoring.win", 2, "场分: win 2, draw 1, loss 0"),
    ("guandan/match_points", "stages.0.scoring.slow_play_levels", 2, "\"比赛分制的双人赛\" two"),
    ("guandan", "stages.0.scoring.slow_play_levels", 1, "slow play \"每副牌非义务方升1级\""),
    ("guandan/match_points", "stages.0.scoring.deduction_points", 1, "\"扣除违规方1个级差分\" (−1 level-difference point)"),
    ("guandan", "lateness.forfeit_after_minutes", 10, "more than 10 minutes → the late side forfeits"),
    ("guandan", "appeals.window_minutes", 30, "seed 000: 30 minutes"),
    # Dou Dizhu (seed 001)
    ("doudizhu", "stages.0.scoring.deals_per_round", 6, "A round is **6 deals or 40 minutes**"),
    ("doudizhu", "stages.0.scoring.minutes", 40, "A round is **6 deals or 40 minutes**"),
    ("doudizhu", "stages.0.scoring.places", [5, 3, 1], "highest **5**, second **3**, lowest **1**"),
    ("doudizhu", "stages.0.scoring.bye_table_points", 3, "bye =\n**3** 场分"),
    ("doudizhu", "lateness.forfeit_after_minutes", 5, "From round 2 on**, a player absent five minutes"),
    ("doudizhu", "lateness.from_round", 2, "From round 2 on**, a player absent five minutes"),
    ("doudizhu", "appeals.window_minutes", 5, "within **5 minutes** after the match"),
    ("doudizhu", "appeals.fee", 20000, "with a **200 CNY** fee"),
    # Gouji (seed 002)
    ("gouji", "stages.0.scoring.position_values", [7, 5, 4, 3, 2, 1], "score **7, 5, 4, 3, 2, 1**"),
    ("gouji", "stages.0.scoring.withdrawal_points", 32, "scores\n**32** points for that match"),
    ("gouji", "stages.0.scoring.withdrawal_points_formats", ["round_robin"], "The 32-point withdrawal rule is for the round robin"),
    ("gouji", "stages.0.scoring.extra_games_before_lots", 3, "after three tied extra games in a\nrow the team leaders draw lots"),
    ("gouji", "stages.0.scoring.tiebreaks.0", "position_points", "**final places by total points**"),
    # Tractor (seed 003)
    ("tractor", "stages.0.scoring.start_level", 3, "every game starts at 3 for both pairs"),
    ("tractor", "stages.0.scoring.best_of", 3, "A match is\nbest of three games, 1.5 hours"),
    ("tractor", "stages.0.scoring.minutes", 90, "A match is\nbest of three games, 1.5 hours"),
    ("tractor", "stages.0.scoring.wrong_play_points_per_card", 10, "(cards × 10 points)"),
    ("tractor", "stages.0.scoring.penalty_levels", 3, "the other pair \"连升3级\""),
    ("tractor", "lateness.forfeit_after_minutes", 15, "Tractor\n  over 15 min → forfeit"),
]


def config(spec: str) -> EventConfig:
    g, _, method = spec.partition("/")
    scoring = {"scoring": {"method": method}} if method else {}
    stages = [{"format": "swiss", "rounds": 5, **scoring}, {"format": "knockout", **scoring}]
    if g == "doudizhu":
        stages = stages[:1]
    return EventConfig.model_validate({"name": "默认", "game": g, "entry": ENTRY[g], "capacity": 64, "stages": stages})


def at(obj, path: str):
    for part in path.split("."):
        obj = obj[int(part)] if part.isdigit() else getattr(obj, part)
    return obj


@pytest.mark.parametrize("spec, path, default, words", TABLE, ids=[f"{r[0]} {r[1]}" for r in TABLE])
def test_default_matches_rules_md(spec, path, default, words):
    got = at(config(spec), path)
    assert got == default, f"{spec} {path}: rules.md says {default!r} ({words!r}), the config gives {got!r}"


def _rules_md() -> Path | None:
    for p in (os.environ.get("RULES_MD"), "/work/shared/rules.md", Path(__file__).parents[2] / "docs" / "rules.md"):
        if p and Path(p).is_file():
            return Path(p)
    return None


@pytest.mark.skipif(_rules_md() is None, reason="rules.md is not at hand (set RULES_MD): the defaults above still run")
def test_the_table_quotes_rules_md():
    text = " ".join(_rules_md().read_text().split())
    missing = [w for _, _, _, w in TABLE if " ".join(w.split()) not in text]
    assert not missing, f"no longer in rules.md: {missing}"
