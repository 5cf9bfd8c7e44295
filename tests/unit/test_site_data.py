"""The publisher's page data (publish/site_data.py, issue 37 item 4) is pure: records in, the pages' data out, no
store, clock, sink or settings; its cache only spares work. Records built here, no store: a warm cache carried
across changes (a result, a rename, a new round) gives the data a cold one does from the same records."""
from __future__ import annotations

import ast
import copy
from datetime import datetime, UTC
from pathlib import Path

from chalicelib.engine.games import game as game_rules
from chalicelib.models import Event, Tournament
from chalicelib.models.entries import Entry
from chalicelib.models.events import EventConfig
from chalicelib.publish import site_data
from tests.factories import guandan_event, tournament_body

ROOT = Path(__file__).resolve().parents[2]
AT = datetime(2026, 12, 12, 2, tzinfo=UTC)


def test_the_page_data_imports_no_store_clock_sink_or_settings():
    tree = ast.parse((ROOT / "chalicelib" / "publish" / "site_data.py").read_text(encoding="utf-8"))
    names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    names |= {"." * n.level + (n.module or "") for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    # the standard library's pure parts, the page catalog and templates' helpers, the audit chain's genesis, the
    # glossary's words, and from services only two helpers with no I/O (names.readable, principals.display_who)
    assert names <= {"__future__", "collections.abc", "hashlib", "json", "dataclasses", "datetime", "typing", "zoneinfo", ".i18n",
                     ".render", ".place_files", "..auditchain", "..glossary", "..services.names",
                     "..services.principals"}, names
    assert "now(" not in (ROOT / "chalicelib" / "publish" / "site_data.py").read_text(encoding="utf-8")


def _records(n_entries: int = 8):
    tournament = Tournament(**tournament_body(), id="T1", organiser_id="O1", created_at=AT)
    event = Event(id="E1", tournament_id="T1", organiser_id="O1", config=EventConfig(**guandan_event()),
                  created_at=AT)
    entries = [Entry(id=f"N{i:02d}", event_id="E1", tournament_id="T1", name=f"队{i}", club=f"商会{i % 3}",
                     members=[{"name": f"甲{i}"}, {"name": f"乙{i}"}], status="confirmed", created_at=AT) for i in range(n_entries)]
    return tournament, event, entries


def _round(number: int, entries: list, results: dict[int, tuple[int, int]], status: str = "open") -> tuple:
    doc = {"stage": 0, "number": number, "status": status, "seed": number, "format": "swiss", "byes": []}
    tables = []
    for k in range(len(entries) // 2):
        a, b = entries[2 * k].id, entries[2 * k + 1].id
        table = {"number": k + 1, "status": "pending", "sides": [{"entry_id": a, "seats": [1, 3]},
                                                                 {"entry_id": b, "seats": [2, 4]}]}
        if k + 1 in results:
            x, y = results[k + 1]
            table.update(status="confirmed", points={a: {"level_points": x}, b: {"level_points": y}},
                         result={"final": {"levels": {a: x, b: y}}})
        tables.append(table)
    return doc, tables


def _data(tournament, event, entries, rounds, cache: dict) -> dict:
    """The page data as services/publishing.py puts it together, standings and places left out (services')."""
    rules = game_rules(event.config.game)
    ents, names, name_map = site_data.entry_maps(entries, cache)
    outs = site_data.word_rounds(event, tournament, rules, rounds, names, name_map, cache)
    places = cache.setdefault("places_fixed", {"rounds": [], "field": 0, "by_entry": {}})
    entry_pages = site_data.entry_pages_data(cache, entries, ents, outs,
                                             site_data.event_page_of(tournament, event))
    chain = {"count": 0, "head": "", "entries": []}
    data = site_data.event_data(site_data.EventParts(
        event=event, rules=rules, state={"open_round": len(rounds)}, outs=outs, entries=ents, names=names,
        standings=None, prizes=None, bonuses=None, corrections=[], chain=chain, appeals=[], places=places,
        entry_pages=entry_pages), cache)
    data["page_inputs"] = site_data.page_inputs(tournament, event, data, cache, 3)
    return copy.deepcopy(data)


def test_a_warm_cache_gives_what_a_cold_one_does_after_each_change():
    tournament, event, entries = _records()
    warm: dict = {}
    r1 = _round(1, entries, {})
    steps = [
        [r1],
        [_round(1, entries, {2: (12, 9)})],                                  # a result: the round read again
        [(r1[0], [*r1[1][:2], {**r1[1][2], "status": "confirmed",           # one table patched (by event)
                               "points": {"N04": {"level_points": 7}, "N05": {"level_points": 13}}}, r1[1][3]])],
    ]
    for rounds in steps:
        assert _data(tournament, event, entries, rounds, warm) == _data(tournament, event, entries, rounds, {})
    renamed = [e.model_copy(update={"name": "改名队"}) if e.id == "N04" else e for e in entries]
    warm["names_token"] = None   # a full read (services/publishing: the event's records read again)
    again = steps[-1]
    got = _data(tournament, event, renamed, again, warm)
    assert got == _data(tournament, event, renamed, again, {})
    assert "改名队" in repr(got["rounds"]) and "改名队" in repr(got["entries"])
    closed = [(dict(again[0][0], status="closed"), again[0][1]), _round(2, entries[::-1], {1: (14, 2)})]
    warm["names_token"] = None
    assert _data(tournament, event, renamed, closed, warm) == _data(tournament, event, renamed, closed, {})
    # a closed round is held as worded, not table by table (issue 43 item 2): a correction words it again
    assert (0, 1) not in warm["table_words"] and (0, 2) in warm["table_words"]
    doc1, tables1 = closed[0]
    corrected = [(doc1, [tables1[0], {**tables1[1], "status": "confirmed",
                                      "points": {"N02": {"level_points": 2}, "N03": {"level_points": 14}}},
                         *tables1[2:]]), closed[1]]
    assert _data(tournament, event, renamed, corrected, warm) == _data(tournament, event, renamed, corrected, {})
    both_closed = [corrected[0], (dict(closed[1][0], status="closed"), closed[1][1])]   # the last round closes
    assert _data(tournament, event, renamed, both_closed, warm) == _data(tournament, event, renamed, both_closed, {})
    assert not warm["row_reprs"] and not warm["table_words"]   # nothing table by table once every round is closed


def test_a_stale_cache_would_show(monkeypatch):
    """The comparison above can fail: a cache that kept a worded round past its change differs from a cold one."""
    tournament, event, entries = _records()
    warm: dict = {}
    r1 = _round(1, entries, {})
    _data(tournament, event, entries, [r1], warm)
    changed = [(r1[0], [{**r1[1][0], "status": "confirmed", "points": {"N00": {"level_points": 12},
                                                                      "N01": {"level_points": 9}}}, *r1[1][1:]])]
    stale = dict(warm)
    stale["worded"] = {k: (v[0], changed[0][1], v[2], v[3]) for k, v in warm["worded"].items()}   # kept: wrong
    assert _data(tournament, event, entries, changed, stale) != _data(tournament, event, entries, changed, {})
