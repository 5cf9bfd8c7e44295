"""publish/place_files.py: which file holds an entry's place chart (issue 43 item 2)."""
from __future__ import annotations

import json

from chalicelib.publish.place_files import (PLACES_CHUNK, chunk_body, chunk_inputs, chunk_members, places_chunks,
                                            places_file)


def test_the_files_are_a_power_of_two_of_about_a_hundred_entries_each():
    assert [places_chunks(n) for n in (0, 1, 100, 101, 1000, 10_000, 100_000)] == [1, 1, 1, 2, 16, 128, 1024]
    ids = [f"01ENTRY{i:019d}" for i in range(10_000)]
    members = chunk_members(ids, places_chunks(len(ids)))
    assert sorted(e for m in members for e in m) == sorted(ids)               # each entry in one file
    assert max(len(m) for m in members) < 2 * PLACES_CHUNK                    # none much bigger than meant
    for k, m in enumerate(members, start=1):
        assert all(places_file(e, len(members)) == f"places-{k}.json" for e in m)


def test_a_file_changes_only_with_its_own_entries_places():
    ids = [f"E{i}" for i in range(400)]
    members = chunk_members(ids, places_chunks(len(ids)))
    places = {"rounds": [1, 2], "field": 400, "by_entry": {e: [i + 1, i + 1] for i, e in enumerate(ids)}}
    before = [chunk_inputs(places, m) for m in members]
    moved = members[0][0]
    places["by_entry"][moved] = [1, 5]
    after = [chunk_inputs(places, m) for m in members]
    assert [a != b for a, b in zip(before, after)] == [True] + [False] * (len(members) - 1)
    assert json.loads(chunk_body({"E1": '<svg aria-label="名次">'}))["charts"]["E1"] == '<svg aria-label="名次">'
