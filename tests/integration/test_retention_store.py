"""The retention sweep on every store backend (services/retention.py, store/retention.py): a finished
tournament's contact data — members' phones, a day registration's contact, the outbox's addresses, the person
items keyed by phone — is erased once it ended more than its retention ago; names stay; a tournament not yet due
is untouched; the work is paged and bounded per run, and a second sweep writes nothing."""
from __future__ import annotations

from datetime import date, timedelta

from chalicelib import bootstrap
from chalicelib.ids import new_id
from chalicelib.messages import record
from chalicelib.models import Entry, Event, EventConfig, Member, Tournament
from chalicelib.services import retention


def _tournament(repos, clock, ends_on: date, retention_days: int, tz: str = "Asia/Shanghai") -> Event:
    t = Tournament(id=new_id(), organiser_id="o1", name="赛", timezone=tz, currency="CNY",
                   starts_on=ends_on, ends_on=ends_on, retention_days=retention_days, created_at=clock())
    repos.tournaments.create(t)
    cfg = EventConfig.model_validate({"name": "掼蛋", "game": "guandan", "entry": "pair", "capacity": 100,
                                      "stages": [{"format": "swiss", "rounds": 3}]})
    e = Event(id=new_id(), tournament_id=t.id, organiser_id="o1", config=cfg, created_at=clock())
    repos.events.create(e)
    return e


def _entries(repos, clock, e: Event, n: int, first_phone: int, reg_id: str) -> list[Entry]:
    out = [Entry(id=new_id(), event_id=e.id, tournament_id=e.tournament_id, name=f"队{k}", status="confirmed",
                 members=[Member(name=f"甲{k}", phone=f"13{first_phone + k:09d}"), Member(name=f"乙{k}")],
                 created_at=clock(), registration_id=reg_id) for k in range(n)]
    # a day registration holds one entry per event: the first here, the others registered one by one
    repos.entries.create_many(out[:1], {"id": reg_id, "tournament_id": e.tournament_id,
                                        "contact": {"name": "联系人", "phone": f"13{first_phone:09d}"},
                                        "items": [{"event_id": e.id, "entry_id": out[0].id}]})
    for x in out[1:]:
        repos.entries.create(x)
    return out


def test_the_sweep_erases_contacts_of_finished_tournaments_only_paged_and_once(any_repos, clock, monkeypatch):
    deps = bootstrap.Deps(repos=any_repos, clock=clock)
    today = clock().date()
    old = _tournament(any_repos, clock, today - timedelta(days=31), retention_days=30)      # due: 31 > 30
    recent = _tournament(any_repos, clock, today - timedelta(days=30), retention_days=30)   # due tomorrow
    old_entries = _entries(any_repos, clock, old, 7, 100, "R-old")
    recent_entries = _entries(any_repos, clock, recent, 2, 900, "R-new")
    msg = record.new(id=new_id(), cause=f"registration:{old_entries[0].id}", kind="registration_received",
                     channel="sms", to=old_entries[0].members[0].phone, now=clock(), tournament_id=old.tournament_id)
    any_repos.messages.queue(msg)
    monkeypatch.setattr(retention, "PAGE", 3)                 # pages of 3: 7 entries are three pages

    first = retention.sweep_contacts(deps, budget=5)           # 5 writes: the run stops inside the tournament
    assert first["more"] is True and first["entries"] == 5 and first["tournaments"] == 0
    assert any_repos.retention.due(today.isoformat()) == [old.tournament_id]
    second = retention.sweep_contacts(deps, budget=5)          # the other 2 entries, the registration, the message
    assert second == {"tournaments": 1, "entries": 2, "registrations": 1, "messages": 1, "players": 0,
                      "more": False}

    for before in old_entries:
        after = any_repos.entries.get(old.id, before.id)
        assert [m.phone for m in after.members] == [None, None]
        assert [m.name for m in after.members] == [m.name for m in before.members] and after.name == before.name
        assert after.status == before.status and after.version == before.version + 1
        assert any_repos.entries.entry_of_person(old.id, before.members[0].phone) is None
    assert any_repos.retention.registration("R-old")["contact"] == {"name": "联系人", "phone": None}
    assert any_repos.messages.get(old.tournament_id, msg.key).to == ""
    assert any_repos.tournaments.get(old.tournament_id).contacts_erased_at == clock()
    # the tournament that ended 30 days ago keeps everything
    for before in recent_entries:
        assert any_repos.entries.get(recent.id, before.id).members[0].phone == before.members[0].phone
        assert any_repos.entries.entry_of_person(recent.id, before.members[0].phone) == before.id
    assert any_repos.retention.registration("R-new")["contact"]["phone"] == "13000000900"

    again = retention.sweep_contacts(deps)
    assert again == {"tournaments": 0, "entries": 0, "registrations": 0, "messages": 0, "players": 0,
                     "more": False}
    clock.advance(days=1)                                       # now the other one is due
    assert retention.sweep_contacts(deps, seconds=0)["more"] is True   # out of time before its first write
    assert retention.sweep_contacts(deps)["tournaments"] == 1
    assert all(any_repos.entries.get(recent.id, x.id).members[0].phone is None for x in recent_entries)


def test_tournaments_stored_before_retention_are_indexed_by_the_migration(any_repos, clock):
    from chalicelib.store import keys, migrations
    e = _tournament(any_repos, clock, clock().date() - timedelta(days=200), retention_days=180)
    any_repos.table.update(keys.tournament(e.tournament_id), "REMOVE GSI1PK, GSI1SK")   # as stored before
    assert any_repos.retention.due(clock().date().isoformat()) == []
    assert migrations.index_retention(any_repos.table) == 1
    assert any_repos.retention.due(clock().date().isoformat()) == [e.tournament_id]
    assert migrations.index_retention(any_repos.table) == 0


def test_a_tournament_is_due_by_the_date_where_it_was_played_not_the_servers(any_repos, clock):
    deps = bootstrap.Deps(repos=any_repos, clock=clock)
    assert clock().hour < 8                                     # UTC morning: still yesterday in Los Angeles
    west = _tournament(any_repos, clock, clock().date() - timedelta(days=31), 30, tz="America/Los_Angeles")
    entry = _entries(any_repos, clock, west, 1, 500, "R-west")[0]
    assert retention.sweep_contacts(deps)["tournaments"] == 0   # due today in UTC, not yet in Los Angeles
    assert any_repos.entries.get(west.id, entry.id).members[0].phone == entry.members[0].phone
    clock.advance(hours=9)                                      # now the same date there too
    assert retention.sweep_contacts(deps)["tournaments"] == 1
    assert any_repos.entries.get(west.id, entry.id).members[0].phone is None


def test_the_sweep_unlinks_the_phone_index_and_drops_a_player_left_with_nothing(any_repos, clock):
    """Issue 41 follow-up: an erased entry and registration leave the phone's "我的" index in the same write; the
    player (phone, name, e-mail, WeChat openid) stays while the phone holds an entry of another tournament, and
    goes with the last one — its WeChat binding in the same write (review finding: it was left behind)."""
    from chalicelib.store import keys
    from chalicelib.store.entries import phone_hash_of
    deps = bootstrap.Deps(repos=any_repos, clock=clock)
    today = clock().date()
    old = _tournament(any_repos, clock, today - timedelta(days=31), retention_days=30)
    later = _tournament(any_repos, clock, today - timedelta(days=20), retention_days=30)   # due in 11 days
    old_entries = _entries(any_repos, clock, old, 3, 500, "R-a")      # the phone 13000000500 is the contact too
    phone = old_entries[0].members[0].phone
    kept = Entry(id=new_id(), event_id=later.id, tournament_id=later.tournament_id, name="队", status="confirmed",
                 members=[Member(name="甲", phone=phone), Member(name="乙", phone="13900000001")], created_at=clock())
    any_repos.entries.create(kept)
    h = phone_hash_of(phone)
    any_repos.players.get_or_create(h, "P1", phone, clock().isoformat())
    any_repos.players.update_profile(h, {"email": "jia@example.com", "name": "甲"})
    any_repos.players.put_wechat_ticket("t-1", "oPENID-1", expires_at=2 ** 40)       # signed in inside WeChat
    any_repos.players.bind_wechat(h, "h-openid-1", "oPENID-1", "t-1", now=1)
    held = {(r["kind"], r.get("entry_id") or r.get("registration_id")) for r in any_repos.players.holdings(h)}
    # the day registration's entry is found through the registration (its contact's phone): no item of its own
    assert held == {("phone_registration", "R-a"), ("phone_entry", kept.id)}

    swept = retention.sweep_contacts(deps)
    assert swept["tournaments"] == 1 and swept["players"] == 0
    # the old tournament's entries and registration are nobody's: only the later entry is left in the index
    assert [r["entry_id"] for r in any_repos.players.holdings(h)] == [kept.id]
    for e in old_entries:
        assert not any_repos.players.holdings(phone_hash_of(e.members[0].phone)) or e is old_entries[0]
    player = any_repos.players.by_phone_hash(h)
    assert player["email"] == "jia@example.com" and player["wechat_openid"] == "oPENID-1"   # still theirs
    assert retention.sweep_contacts(deps) == {"tournaments": 0, "entries": 0, "registrations": 0, "messages": 0,
                                              "players": 0, "more": False}

    clock.advance(days=11)                        # the later tournament is due: the phone holds nothing after it
    swept = retention.sweep_contacts(deps)
    assert swept["tournaments"] == 1 and swept["players"] == 1
    assert any_repos.players.holdings(h) == [] and any_repos.players.by_phone_hash(h) is None
    assert any_repos.players.holdings(phone_hash_of("13900000001")) == []
    assert any_repos.table.query(keys.player(h)["PK"]) == []      # no e-mail, openid or code left under it
    assert any_repos.players.by_wechat("h-openid-1") is None         # nor the binding that led to its phone
    assert retention.sweep_contacts(deps)["players"] == 0


def test_index_items_left_by_earlier_sweeps_are_removed_by_the_migration(any_repos, clock):
    """Sweeps run before the fix erased an entry's and a registration's phones and left their 我的 index items:
    `migrations.unlink_erased_phones` deletes exactly those (once), and leaves an item whose record holds its phone."""
    from chalicelib.store import keys, migrations
    from chalicelib.store.entries import entry_item, phone_entry_item, phone_hash_of
    e = _tournament(any_repos, clock, clock().date() - timedelta(days=200), retention_days=180)
    erased, kept = _entries(any_repos, clock, e, 2, 700, "R-m")
    blank = erased.model_copy(update={"members": [m.model_copy(update={"phone": None}) for m in erased.members],
                                      "version": erased.version + 1})
    any_repos.table.put(entry_item(blank))                     # as the sweep wrote it then: its index item stayed
    any_repos.table.update(keys.registration("R-m"), "SET contact = :c", values={":c": {"name": "联系人", "phone": None}})
    h_erased, h_kept = phone_hash_of(erased.members[0].phone), phone_hash_of(kept.members[0].phone)
    # its entry's own index item, as a day's registration wrote it before the contact's phone was indexed once
    any_repos.table.put(phone_entry_item(h_erased, erased))
    assert len(any_repos.players.holdings(h_erased)) == 2       # its entry and the registration it was contact of
    assert migrations.unlink_erased_phones(any_repos.table) == 2
    assert any_repos.players.holdings(h_erased) == []
    assert [r["entry_id"] for r in any_repos.players.holdings(h_kept)] == [kept.id]
    assert migrations.unlink_erased_phones(any_repos.table) == 0


def test_wechat_bindings_left_by_earlier_sweeps_are_removed_by_the_migration(any_repos):
    """Sweeps run before the fix dropped a player and left its WeChat binding: `migrations.drop_orphan_wechat_bindings`
    deletes the bindings whose player is gone or holds another openid now (once), and keeps a player's own."""
    from chalicelib.store import keys, migrations
    repo = any_repos.players
    for ph, openid in (("ph-kept", "oKept"), ("ph-gone", "oGone"), ("ph-new", "oOld")):
        repo.get_or_create(ph, f"P-{ph}", "13800000001", "2026-12-01T00:00:00+00:00")
        repo.put_wechat_ticket(f"t-{openid}", openid, expires_at=2_000)
        repo.bind_wechat(ph, f"h-{openid}", openid, f"t-{openid}", now=1_000)
    any_repos.table.delete(keys.player("ph-gone"))                       # dropped by a sweep before the fix
    any_repos.table.update(keys.player("ph-new"), "SET wechat_hash = :h", values={":h": "h-oNew"})   # another openid
    assert migrations.drop_orphan_wechat_bindings(any_repos.table) == 2
    assert repo.by_wechat("h-oGone") is None and repo.by_wechat("h-oOld") is None
    assert repo.by_wechat("h-oKept")["phone_hash"] == "ph-kept"
    assert migrations.drop_orphan_wechat_bindings(any_repos.table) == 0
