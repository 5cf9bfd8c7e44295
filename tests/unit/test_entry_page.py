"""The entry pages written without Jinja (publish/entry_page.py) are byte for byte what templates/entry.html makes."""
from __future__ import annotations

import random
from datetime import date, datetime, UTC

import pytest

from chalicelib.models import Tournament
from chalicelib.publish.entry_page import EntryPages
from chalicelib.publish.render import render

NAMES = ["东兰一队", "A&B <pair>", 'Nguyễn "Văn" An', "O'Neil", "张三丰", "第1对", ""]
POINTS = [["match_points"], ["level_points", "level_diff_points"], ["group_points", "games_won"], ["table_points"]]


def _history(rng: random.Random, ids: list[str]) -> list[dict]:
    out = []
    for n in range(1, rng.randint(0, 9) + 1):
        if rng.random() < 0.1:
            out.append({"round": n, "bye": True, "status": "confirmed", "opponents": [], "points": {}, "point_names": []})
            continue
        names = rng.choice(POINTS)
        status = rng.choice(["confirmed", "entered", "pending", "forfeit", "disputed"])
        opponents = [{"entry_id": rng.choice(ids), "name": rng.choice(NAMES)} for _ in range(rng.choice([1, 1, 2]))]
        points = {p: rng.choice([0, 1, 2, 2.5, 13, -3]) for p in names if rng.random() < 0.9} if status != "pending" else {}
        levels = ([[rng.randint(2, 14), rng.randint(2, 14)] for _ in range(rng.randint(1, 6))]
                  if len(opponents) == 1 and rng.random() < 0.3 else None)
        item = {"round": n, "bye": False, "status": status, "opponents": opponents,
                "points": points if rng.random() < 0.95 else None, "point_names": names, "levels": levels}
        out.append(item)
    return out


@pytest.mark.parametrize("lang", ["zh", "en", "vi"])
def test_entry_pages_are_the_templates_bytes(lang):
    rng = random.Random(lang)
    t = Tournament(id="01TOURNAMENT0000000000000A", organiser_id="o", name="联合会 <年度> & 掼蛋", venue="南宁 · A&B",
                   timezone="Asia/Shanghai", currency="CNY", starts_on=date(2026, 12, 12), ends_on=date(2026, 12, 13),
                   created_at=datetime(2026, 12, 1, tzinfo=UTC))
    ids = [f"01ENTRY{i:019d}" for i in range(30)]
    places = {"rounds": [1, 2, 3], "field": 30, "by_entry": {e: [rng.randint(1, 30), None, rng.randint(1, 30)]
                                                              for e in ids[:20]}}
    places["by_entry"][ids[0]] = [3]   # too short for a line

    def other(page):
        return [(x, f"/{x}/t/{t.id}/{page}") for x in ("zh", "en", "vi") if x != lang]

    for share in (None, {"title": "T & t", "description": "d <x>", "image": "https://x/p.png", "url": "https://x/"}):
        small = {"tournament": t, "updated": None, "share": share, "root": "../", "css": "../style.css",
                 "feed_url": "feed.json", "feed_version": "v1", "event": {"id": "EV", "name": "公开赛 <1>", "game": "guandan"},
                 "places": places, "places_chunks": 4}
        pages = EntryPages(lang, small, "EV/", other)
        for k, eid in enumerate(ids):
            entry = {"name": NAMES[k % len(NAMES)], "club": rng.choice(["商会1", "", "A&B"]),
                     "members": rng.choice([[], ["甲"], ["甲 <1>", "乙"]])}
            history = _history(rng, ids)
            want = render("entry.html", lang, **small, entry=entry, history=history, entry_id=eid,
                          other_lang=other(f"EV/entry-{eid}.html"))
            assert pages.render(entry, history, eid) == want, (lang, k)
