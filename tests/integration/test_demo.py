from __future__ import annotations

from collections import Counter


def test_demo_tournament_loads_with_entries(moto_repos):
    from scripts.demo import DEMO_ENTRIES, load
    demo = load()
    tournament, events = moto_repos.tournaments.get_with_events(demo["tournament_id"])
    assert tournament is not None and len(events) == 4
    games = sorted(e.config.game for e in events)
    assert games == ["doudizhu", "gouji", "guandan", "tractor"]
    by_id = {e.id: e for e in events}
    for eid, count in zip(demo["event_ids"], DEMO_ENTRIES):
        entries = moto_repos.entries.list(eid)
        assert len(entries) == count
        assert Counter(e.status for e in entries) == {"confirmed": count}
        assert all(len(e.members) == by_id[eid].config.entry.members for e in entries)
    dd = by_id[demo["event_ids"][2]]
    assert dd.config.capacity == 15 and dd.config.stages[0].rounds == 5
    assert moto_repos.organisers.get(demo["organiser_id"]) is not None
