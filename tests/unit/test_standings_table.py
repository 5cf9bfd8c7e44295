"""The standings table written without Jinja (publish/standings_table.py) is byte for byte the included template."""
from __future__ import annotations

import random
from datetime import date, datetime, UTC

import pytest
from markupsafe import Markup

from chalicelib.models import Tournament
from chalicelib.publish.render import render
from chalicelib.publish.standings_table import StandingsTable

NAMES = ["东兰一队", "A&B <pair>", 'Nguyễn "Văn" An', "O'Neil"]


@pytest.mark.parametrize("lang", ["zh", "en", "vi"])
def test_standings_tables_are_the_templates_bytes(lang):
    rng = random.Random(lang)
    t = Tournament(id="01TOURNAMENT0000000000000A", organiser_id="o", name="联合会 <年度>", venue="南宁", timezone="Asia/Shanghai",
                   currency=rng.choice(["CNY", "VND"]), starts_on=date(2026, 12, 12), ends_on=date(2026, 12, 12),
                   created_at=datetime(2026, 12, 1, tzinfo=UTC))
    fast = StandingsTable(lang)
    for case in range(40):
        pnames = rng.choice([["match_points"], ["level_points", "level_diff_points"], ["group_points"], []])
        tnames = rng.sample(["lots", "head_to_head", "net_points", "opponents_match_points"], rng.randint(0, 3))
        rows = []
        for k in range(rng.randint(0, 15)):
            rows.append({"rank": k + 1, "entry_id": f"01E{k:023d}", "name": rng.choice(NAMES), "club": rng.choice(["", "A&B", "商会"]),
                         "points": {p: rng.choice([0, 1.5, 2, 13.0]) for p in pnames if rng.random() < 0.9},
                         "tiebreaks": {k_: rng.choice([0, 2, 3.5]) for k_ in tnames if rng.random() < 0.7},
                         "prize": rng.choice([None, 0, 3000]), "decided_by": rng.choice([None, "lots", "net_points", "head_to_head"]),
                         "decided_values": [rng.choice([1, 2.5]), 1], "reached": rng.choice([None, "champion", "third", "made_up"]),
                         "played": 3, "byes": 0, "forfeited": False})
        data = {"knockout": rng.random() < 0.3, "point_names": pnames, "tiebreak_names": tnames,
                "has_prizes": rng.random() < 0.5, "has_decided": rng.random() < 0.5}
        ctx = {"tournament": t, "updated": "2026-12-12 10:00", "share": None, "root": "../", "css": "../style.css",
               "feed_url": "feed.json", "feed_version": "v", "event": {"id": "EV", "name": "公开赛", "game": "guandan"},
               "final": False, "standings": rows, "pager": {"pages": [{"n": 1, "href": "standings.html", "label": ""}], "i": 1},
               "other_lang": [], **data}
        want = render("standings.html", lang, **ctx)
        assert render("standings.html", lang, **ctx, table_html=Markup(fast.render(rows, data, t.currency))) == want, case
        assert "<table>" in want
