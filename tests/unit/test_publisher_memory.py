"""The publisher's inputs held smaller (issue 43 item 2: under 1.5 GB at 100,000 entries): an event's entries as
the store lists them share what every entry repeats, and read back the same."""
import tracemalloc

import pytest
from datetime import datetime, UTC

from chalicelib.models import Entry, Member
from chalicelib.store.entries import _compact, _entry_list, entry_item


def _raw(n: int) -> str:
    at = datetime(2026, 12, 12, 10, tzinfo=UTC)
    items = [entry_item(Entry(id=f"01J{i:023d}", event_id="E" * 26, tournament_id="T" * 26, name=f"第{i + 1}对",
                              club=f"商会{i % 97}", members=[Member(name=f"甲{i}", phone=f"139{i:08d}"), Member(name=f"乙{i}")],
                              status="confirmed" if i % 5 else "withdrawn", checked_in=True, created_at=at))
             for i in range(n)]
    return "[" + ",".join(i["data"] if isinstance(i["data"], str) else i["data"]["S"] for i in items) + "]"


def test_listed_entries_are_the_same_models_in_less_memory():
    raw = _raw(2000)
    plain = _entry_list().validate_json(raw)
    tracemalloc.start()
    try:
        parsed = _entry_list().validate_json(raw)
        before = tracemalloc.get_traced_memory()[0]
        _compact(parsed)
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert [e.model_dump() for e in parsed] == [e.model_dump() for e in plain]
    assert [e.model_fields_set for e in parsed] == [e.model_fields_set for e in plain]
    assert after < 0.7 * before, (before, after)   # 5.6 KB an entry → 2.9 KB measured


def test_an_entry_changed_after_the_list_changes_alone():
    entries = _compact(_entry_list().validate_json(_raw(3)))
    entries[1].status = "disqualified"
    entries[1].members[0].name = "丙"
    assert [e.status for e in entries] == ["withdrawn", "disqualified", "confirmed"]
    assert [e.members[0].name for e in entries] == ["甲0", "丙", "甲2"]


def test_the_standings_are_held_once_as_published_rows():
    """The publisher keeps a big field's standings through a round: as the published rows only, not also as models."""
    from chalicelib.models.rounds import StandingRow, StandingsOut
    from chalicelib.publish.site_data import shown_standings
    rows = [StandingRow(rank=i + 1, entry_id=f"e{i}", name=f"队{i}", points={"mp": 10 - i}, tiebreaks={"opp": 1.5},
                        prize=100 if i == 0 else None, decided_by="opp" if i == 1 else None) for i in range(3)]
    full = StandingsOut(event_id="ev", stage=0, method="mp", tiebreaks=["opp"], standings=rows, final=True)
    cache: dict = {}
    head, shown = shown_standings(full, cache)
    assert head.standings == [] and (head.final, head.stage, head.method, head.tiebreaks) == (True, 0, "mp", ["opp"])
    dumped = [r.model_dump() for r in rows]
    assert shown == dumped and [dict(r) for r in shown] == dumped
    assert [repr(r) for r in shown] == [repr(d) for d in dumped]   # (the pages' inputs and the board's version)
    assert [r["points"] for r in shown] == [{"mp": 10.0}, {"mp": 9.0}, {"mp": 8.0}] and shown[0].get("club") == ""
    again = shown_standings(head, cache)   # given back (a result in the open round): the same rows, not dumped again
    assert again[0] is head and again[1] is shown
    assert shown_standings(None, cache) == (None, [])


def test_the_published_standings_rows_are_small():
    """Issue 43: a standings row as published is held in slots sharing the model's values, not as a dict of 15
    keys with copies of its points and tie-breaks (~0.9 KB: 85 MiB at 100,000 entries)."""
    from chalicelib.models.rounds import StandingRow
    from chalicelib.publish.site_data import ShownRow
    assert ShownRow.FIELDS == tuple(StandingRow.model_fields)   # every field the dump had, in its order
    models = [StandingRow(rank=i + 1, entry_id=f"e{i}", name=f"队{i}", points={"mp": float(i % 7)},
                          tiebreaks={"opp": 1.5 * i, "lots": 0.25}, played=3) for i in range(2000)]
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        dumped = [r.model_dump() for r in models]
        as_dicts = tracemalloc.get_traced_memory()[0] - before
        del dumped
        before = tracemalloc.get_traced_memory()[0]
        shown = [ShownRow.of(r) for r in models]
        as_rows = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert shown == [r.model_dump() for r in models]
    assert as_rows < 0.3 * as_dicts, (as_rows, as_dicts)
    with pytest.raises(KeyError):
        shown[0]["keys"]   # a Mapping's method is no key of the row


def _table(status: str = "confirmed", levels: bool = False) -> dict:
    a, b = "01J" + "A" * 23, "01J" + "B" * 23
    return {"number": 7, "home": a, "reason": "", "status": status, "version": 2,
            "sides": [{"entry_id": a, "seats": ["N", "S"]}, {"entry_id": b, "seats": ["E", "W"]}],
            "points": {a: {"match_points": 2.0}, b: {"match_points": 0.0}}, "outcome": {a: 1.0, b: 0.0}, "winner": a,
            "details": {"deals": [{"levels": [3, 2]}, {"levels": [5, 2]}]} if levels else {}}


def test_a_tables_history_rows_read_as_the_dicts_they_were():
    """Each side's history row (an entry page's row) is worked out when read: the same keys and values as the
    dict it was (round, bye, status, opponents, points, point names, levels: the second side's levels its own first)."""
    from chalicelib.publish.site_data import table_site
    names = {"01J" + "A" * 23: "甲队", "01J" + "B" * 23: "乙队"}
    for status, levels in (("confirmed", True), ("confirmed", False), ("open", False)):
        t = _table(status, levels)
        _, history, _, _ = table_site({"number": 3}, t, names, {}, ["match_points"])
        a, b = (s["entry_id"] for s in t["sides"])
        shown = status == "confirmed"
        side = {e: {"entry_id": e, "name": names[e], "seats": s["seats"]} for e, s in zip((a, b), t["sides"])}
        want = [(e, {"round": 3, "bye": False, "status": status, "opponents": [side[o]],
                     "points": t["points"][e] if shown else {}, "point_names": ["match_points"],
                     "levels": ([[3, 2], [5, 2]] if e == a else [[2, 3], [2, 5]]) if levels else None})
                for e, o in ((a, b), (b, a))]
        assert [(e, dict(h)) for e, h in history] == want
        assert history[0][1].get("levels") == want[0][1]["levels"] and history[0][1].get("other") is None


def test_an_entrys_public_part_reads_and_prints_as_the_dict_it_was():
    """What the pages show of an entry is read from it when read, and its repr (an entry page's inputs) is the
    dict's; the readable reasons' name map answers as {id: {"name": …}}."""
    from chalicelib.publish.site_data import PublicEntry, entry_maps
    entries = _compact(_entry_list().validate_json(_raw(2)))
    shown = PublicEntry(entries[0])
    want = {"name": "第1对", "club": "商会0", "members": ["甲0", "乙0"]}
    assert dict(shown) == want and shown == want and repr(shown) == repr(want)
    assert shown.get("club") == "商会0" and shown.get("phone") is None
    _, names, name_map = entry_maps(entries, {})
    assert entries[1].id in name_map and "x" not in name_map and name_map[entries[1].id] == {"name": "第2对"}


def test_entries_listed_a_chunk_at_a_time_share_across_chunks(monkeypatch):
    """EntryRepo.list parses and compacts each chunk before the next (the sets a chunk lets go are where the next
    one's models go): the entries of every chunk share one field-name set and one string per repeated word, and are
    the models one parse of the whole would give, in the same order."""
    import json
    from types import SimpleNamespace
    from chalicelib.store import entries as store_entries
    raw = json.loads(_raw(7))
    items = [{"data": {"S": json.dumps(e, ensure_ascii=False)}} for e in raw]
    monkeypatch.setattr(store_entries, "LIST_CHUNK", 2)
    repo = SimpleNamespace(_entry_items=lambda eid, known, projection: list(items))
    listed = store_entries.EntryRepo.list(repo, "E" * 26)
    assert [e.model_dump() for e in listed] == [e.model_dump() for e in _entry_list().validate_json(_raw(7))]
    assert len({id(e.__pydantic_fields_set__) for e in listed}) == 1
    assert len({id(e.members[0].__pydantic_fields_set__) for e in listed}) == 1
    assert len({id(e.event_id) for e in listed}) == 1 and len({id(e.currency) for e in listed}) == 1


def test_a_worded_tables_row_and_sides_read_as_the_dicts_they_were():
    """Issue 43: a worded table's row and its sides are held in slots (every table of every round the publisher
    keeps), and read as the dicts they were: the same keys in the same order, the same values and the same repr
    (the round pages' inputs are digests of it); no other key."""
    import sys
    from chalicelib.publish.site_data import SideRow, TableRow, table_site
    a, b = "01J" + "A" * 23, "01J" + "B" * 23
    names = {a: "甲队", b: "乙队"}
    t = _table("confirmed", True)
    row, _, _, _ = table_site({"number": 3}, t, names, {}, ["match_points"])
    sides = [{"entry_id": a, "name": "甲队", "seats": ["N", "S"]}, {"entry_id": b, "name": "乙队", "seats": ["E", "W"]}]
    want = {"number": 7, "sides": sides, "status": "confirmed", "reason": "", "why": {},
            "point_names": ["match_points"], "edited": None, "penalties": (), "points": t["points"], "rooms": ()}
    assert type(row) is TableRow and all(type(s) is SideRow for s in row["sides"])
    assert row == want and list(row) == list(want) and repr(row) == repr(want)
    assert [dict(s) for s in row["sides"]] == sides and row["sides"][0].get("club") is None
    with pytest.raises(KeyError):
        row["club"]
    assert sys.getsizeof(row) * 2 < sys.getsizeof(want) and sys.getsizeof(row["sides"][0]) * 3 < sys.getsizeof(sides[0])
