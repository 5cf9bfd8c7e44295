"""The console's set-up form (issue 23) marks values equal to the rules' defaults as "默认": its defaults
(frontend/app/src/pages/organiser/setup/defaults.js) are run under Node here and compared with what the API itself
fills in (chalicelib/models/events.py), per game, format, stage position and scoring method; and every event of
every seed template is a config the API accepts as it stands."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from chalicelib.models import EventConfig
from chalicelib.models.events import GAME_FORMATS, GAME_METHODS, default_scoring

ROOT = Path(__file__).resolve().parents[2]
SETUP = ROOT / "frontend" / "app" / "src" / "pages" / "organiser" / "setup"


@pytest.fixture(scope="module")
def js(tmp_path_factory):
    node = shutil.which("node")
    assert node, "node is needed (make deps installs the project's Node tooling)"
    work = tmp_path_factory.mktemp("setup-js")
    for name in ("defaults.js", "templates.js"):
        shutil.copy(SETUP / name, work / name)
    (work / "package.json").write_text('{"type": "module"}')
    script = """
      import * as d from "./defaults.js";
      import { TEMPLATES } from "./templates.js";
      const out = { events: {}, stages: {}, scoring: {}, templates: {} };
      for (const g of d.GAMES) {
        out.events[g] = d.eventDefaults(g);
        for (const f of d.FORMATS[g]) {
          out.stages[`${g}:${f}:0`] = d.stageDefaults(g, f, { index: 0, entry: d.ENTRY_KINDS[g][0] });
          out.stages[`${g}:${f}:1`] = d.stageDefaults(g, f, { index: 1, entry: d.ENTRY_KINDS[g][0] });
        }
      }
      for (const m of ["level_points", "match_points", "table_points", "position_points", "level_table"]) out.scoring[m] = d.scoringDefaults(m);
      for (const [k, tp] of Object.entries(TEMPLATES)) out.templates[k] = { tournament: tp.tournament("2030-06-28"), events: tp.events("2030-06-28") };
      console.log(JSON.stringify(out));
    """
    (work / "run.mjs").write_text(script)
    done = subprocess.run([node, str(work / "run.mjs")], capture_output=True, text=True, timeout=60, cwd=work)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _api(cfg: dict) -> dict:
    return EventConfig.model_validate(cfg).model_dump(mode="json")


def _normal(x):
    """JSON numbers compare as numbers (15 == 15.0); dict keys as strings."""
    return json.loads(json.dumps(x))


@pytest.mark.parametrize("game", sorted(GAME_METHODS))
def test_an_events_defaults_are_the_apis(js, game):
    form = js["events"][game]
    first = form["stages"][0]
    minimal = {"name": "x", "game": game, "entry": form["entry"], "capacity": 40,
               "stages": [{"format": first["format"], **({"rounds": first["rounds"]} if first["rounds"] else {})}]}
    assert _normal({**form, "name": "x"}) == _normal(_api(minimal))


@pytest.mark.parametrize("game", sorted(GAME_METHODS))
def test_each_formats_stage_defaults_are_the_apis_first_and_later(js, game):
    entry = js["events"][game]["entry"]
    for fmt in GAME_FORMATS[game]:
        extra = {"rounds": 3} if fmt == "swiss" else {}
        # a later stage: the API completes it after a first stage (its advance rule, Guandan's early finish)
        cfg = {"name": "x", "game": game, "entry": entry, "capacity": 40,
               "stages": [{"format": fmt, **extra}, {"format": fmt, **extra}]}
        stages = _api(cfg)["stages"]
        assert _normal(js["stages"][f"{game}:{fmt}:0"]) == _normal(stages[0]), (game, fmt, 0)
        assert _normal(js["stages"][f"{game}:{fmt}:1"]) == _normal(stages[1]), (game, fmt, 1)


def test_every_scoring_methods_defaults_are_the_apis(js):
    from chalicelib.models.events import LevelPointsScoring, LevelTableScoring, MatchPointsScoring, PositionPointsScoring, TablePointsScoring
    for cls in (LevelPointsScoring, MatchPointsScoring, TablePointsScoring, PositionPointsScoring, LevelTableScoring):
        model = cls()
        assert _normal(js["scoring"][model.method]) == _normal(model.model_dump(mode="json")), model.method
    assert default_scoring("doudizhu").bomb_bonus.each == {3: 50, 4: 100, 5: 200, 6: 500}   # the check is not vacuous


@pytest.mark.parametrize("seed", ["001", "002", "003"])
def test_every_seed_templates_events_are_valid_configs(js, seed):
    tp = js["templates"][seed]
    assert tp["events"], seed
    for cfg in tp["events"]:
        EventConfig.model_validate(cfg)   # raises naming the field if a template is wrong
    assert tp["tournament"]["starts_on"] == "2030-06-28"


def test_seed_003_allows_late_entries_and_substitutes_with_the_directors_approval(js):
    # 003: "如有特殊情况需提前向组委会申请，经同意后方可更换" (issue 39): both events take walk-ins and substitutes
    for cfg in js["templates"]["003"]["events"]:
        model = EventConfig.model_validate(cfg)
        assert model.late_entries and model.substitutes.pairs, cfg["name"]
    assert not EventConfig.model_validate(js["templates"]["001"]["events"][0]).late_entries   # not every template


def test_seed_003_tractor_plays_its_groups_in_one_slot_and_the_knockout_after_it(js):
    # 003: "09:30-11:00 淘汰赛, 11:10-12:40 复赛, 14:00-15:30 半决赛, 15:40-17:10 决赛" (issue 39)
    tractor = EventConfig.model_validate(next(c for c in js["templates"]["003"]["events"] if c["game"] == "tractor"))
    groups, knockout = tractor.stages
    assert [(r.starts_at.strftime("%H:%M"), r.ends_at.strftime("%H:%M")) for r in groups.schedule.rounds] == [("09:30", "11:00")]
    slots = [(r.starts_at.strftime("%H:%M"), r.ends_at.strftime("%H:%M")) for r in knockout.schedule.rounds]
    assert slots == [("11:10", "12:40"), ("14:00", "15:30"), ("15:40", "17:10")]
    assert knockout.schedule.rounds[0].starts_at >= groups.schedule.rounds[-1].ends_at   # no overlap
    assert groups.scoring.best_of == 3 and groups.scoring.minutes == 90
