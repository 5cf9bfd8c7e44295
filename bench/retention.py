"""The retention sweep (issue 41 item 4) on a tournament of 10,000 entries, on the embedded store (the venue's):
how many runs of the scheduled job it takes (each bounded by services/retention.BUDGET writes, every 5 minutes on
AWS), each run's time, and a run after it is done (nothing left: reads only, then out of the index). Reference,
measured in the same run on the same store: one read of every entry of the event (EntryRepo.list, what a publish
does) and as many single conditional puts as the sweep writes.

Run: .venv/bin/python bench/retention.py   (RETENTION_BENCH_ENTRIES for a smaller run)
"""
from __future__ import annotations

import os
import sys
import tempfile
import time
from datetime import UTC, date, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

N = int(os.environ.get("RETENTION_BENCH_ENTRIES", "10000"))


def main() -> None:
    folder = tempfile.mkdtemp(prefix="bench-retention-")
    os.environ.update(STORE="embedded", STORE_PATH=str(Path(folder) / "store.sqlite3"))
    os.environ.setdefault("TABLE_CODE_SECRET", "bench-retention")   # the phone index's keyed hash (installation.py)
    from chalicelib import bootstrap
    from chalicelib.ids import new_id
    from chalicelib.models import Entry, Event, EventConfig, Member, Tournament
    from chalicelib.services import retention
    from chalicelib.store import dynamo, keys, schema
    from chalicelib.store.dynamo import chunks, to_item
    from chalicelib.store.entries import entry_item, phone_entry_item, phone_hash, phone_hash_of
    from chalicelib.store.repositories import Repos
    dynamo.reset_client()
    schema.ensure_table(dynamo.client(), "bench_retention")
    repos = Repos(dynamo.Table("bench_retention"))
    now = datetime(2027, 12, 1, tzinfo=UTC)
    t = Tournament(id=new_id(), organiser_id="o1", name="万人赛", timezone="Asia/Shanghai", currency="CNY",
                   starts_on=date(2027, 1, 10), ends_on=date(2027, 1, 10), created_at=now)
    repos.tournaments.create(t)
    cfg = EventConfig.model_validate({"name": "掼蛋", "game": "guandan", "entry": "pair", "capacity": N,
                                      "stages": [{"format": "swiss", "rounds": 7}]})
    event = Event(id=new_id(), tournament_id=t.id, organiser_id="o1", config=cfg, created_at=now)
    repos.events.create(event)
    items = []
    for k in range(N):
        phone = f"13{k:09d}"
        e = Entry(id=new_id(), event_id=event.id, tournament_id=t.id, name=f"队{k}", status="confirmed",
                  members=[Member(name=f"甲{k}", phone=phone), Member(name=f"乙{k}", phone=f"15{k:09d}")],
                  created_at=now)
        items.append(entry_item(e))
        items.append({**keys.person_in_event(event.id, phone_hash(phone)), "kind": "person", "entry_id": e.id})
        items += [phone_entry_item(phone_hash_of(m.phone), e) for m in e.members]   # its "我的" index items
    started = time.perf_counter()
    for batch in chunks(items, 25):
        dynamo.client().batch_write_item(RequestItems={"bench_retention": [{"PutRequest": {"Item": to_item(i)}}
                                                                           for i in batch]})
    print(f"seeded {N} entries (and their person and phone index items) in {time.perf_counter() - started:.1f} s")

    started = time.perf_counter()
    listed = repos.entries.list(event.id)
    ref_read = time.perf_counter() - started
    started = time.perf_counter()
    for k in range(min(retention.BUDGET, 2000)):
        repos.table.put({"PK": "BENCH", "SK": f"{k:06d}", "v": 1}, condition="attribute_not_exists(PK)")
    ref_puts = time.perf_counter() - started

    deps = bootstrap.Deps(repos=repos, clock=lambda: now)
    runs, total = [], 0.0
    while True:
        started = time.perf_counter()
        result = retention.sweep_contacts(deps)
        took = time.perf_counter() - started
        runs.append((took, result))
        total += took
        if not result["more"]:
            break
    started = time.perf_counter()
    after = retention.sweep_contacts(deps)
    idle = time.perf_counter() - started
    left = sum(1 for e in repos.entries.list(event.id) for m in e.members if m.phone)
    print(f"entries: {len(listed)}; budget {retention.BUDGET} writes a run, pages of {retention.PAGE}")
    for i, (took, result) in enumerate(runs, 1):
        print(f"  run {i}: {took:.1f} s  {result}")
    print(f"sweep: {len(runs)} runs, {total:.1f} s in all; phones left: {left}; a run after: {idle:.3f} s {after}")
    print(f"reference: every entry read once (EntryRepo.list) {ref_read:.2f} s; "
          f"{min(retention.BUDGET, 2000)} conditional puts {ref_puts:.2f} s")
    print("target: each run well inside a 5-minute Lambda (< 60 s) and nothing left after the last")


if __name__ == "__main__":
    main()
