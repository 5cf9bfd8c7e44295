""""我的" (api.md v1.3 "Players"): one phone's entries in two tournaments of two organisers are one player's; the
player session acts on them as their manage links do (withdraw), and on nobody else's; the export holds what is
kept; erasure waits for the tournaments to end, then takes the phone from every entry and registration and leaves
the standings as they were."""
from __future__ import annotations

from chalicelib import bootstrap
from tests.api.play import close, draw, enter_and_confirm, people
from tests.factories import guandan_event, tournament_body

PHONE, OTHER = "13512345678", "13587654321"
DDZ = {"name": "二打一", "game": "doudizhu", "entry": "individual", "capacity": 15, "fee": {"amount": 0},
       "stages": [{"format": "swiss", "rounds": 1}]}


def _signed_in(api, wired, phone=PHONE) -> dict:
    assert api.post("/players/codes", {"phone": phone}, token=None).status_code == 202
    code = [s for s in wired.sms if s["to"] == "+86" + phone][-1]["params"]["code"]
    signed = api.post("/players/sign-in", {"phone": phone, "code": code}, token=None)
    assert signed.status_code == 200, signed.data
    return {"X-Player-Token": signed.data["token"]}


def _played_ddz(api) -> tuple[str, str, str]:
    """Organiser one's Dou Dizhu event, played out: the player (typed with dashes) places first of three."""
    tid = api.post("/tournaments", tournament_body(name="南宁冬季赛")).data["id"]
    eid = api.post(f"/tournaments/{tid}/events", DDZ).data["id"]
    ids = []
    for body in [{"name": "王五", "members": [{"name": "王五", "phone": "135-1234-5678"}]}, *people(2)]:
        entry = api.post(f"/events/{eid}/entries", body, token=None).data["entry"]
        assert api.post(f"/events/{eid}/entries/{entry['id']}/check-in").status_code == 200
        ids.append(entry["id"])
    rnd = draw(api, eid)
    table = rnd["tables"][0]
    points = dict(zip([ids[0], ids[1], ids[2]], [12, -4, -8]))
    enter_and_confirm(api, eid, rnd, table, {"final": {"small_points": points}})
    close(api, eid, 1)
    return tid, eid, ids[0]


def _pair_entry(other_api, phone=PHONE) -> tuple[str, str, dict]:
    """Organiser two's Guandan pairs, later in December: the player with a partner."""
    tid = other_api.post("/tournaments", tournament_body(name="柳州杯", starts_on="2026-12-20", ends_on="2026-12-20")).data["id"]
    eid = other_api.post(f"/tournaments/{tid}/events", guandan_event()).data["id"]
    reg = other_api.post(f"/events/{eid}/entries", {"name": "王五队", "members": [
        {"name": "王五", "phone": f"+86 {phone}"}, {"name": "赵六", "phone": OTHER}]}, token=None)
    assert reg.status_code == 201, reg.data
    return tid, eid, reg.data


def test_one_phone_two_organisers_one_me_the_session_withdraws_only_its_own_export_and_erasure(api, other_api, wired):
    _, ddz, won = _played_ddz(api)
    _, pairs, answer = _pair_entry(other_api)
    entry_id = answer["entry"]["id"]
    me = _signed_in(api, wired)
    got = api.get("/players/me", token=None, headers=me)
    assert got.status_code == 200, got.data
    regs = got.data["registrations"]
    assert [(r["tournament"], r["event_id"]) for r in regs] == [("柳州杯", pairs), ("南宁冬季赛", ddz)]   # newest first
    assert {r["organiser"] for r in regs} == {"河池商会", "别的商会"}
    assert {r["timezone"] for r in regs} == {"Asia/Shanghai"}    # a deadline is read in the tournament's zone
    pair = regs[0]
    assert pair["status"] == "pending_payment" and pair["can"] == {"pay": False, "withdraw": True, "manage": True}
    assert regs[1]["can"] == {"pay": False, "withdraw": True, "manage": True}   # free, no change deadline set
    assert got.data["name"] == "王五" and got.data["lang"] == "zh-CN" and got.data["phone_masked"] == "135****5678"
    [played] = got.data["history"]
    assert (played["tournament"], played["event"], played["place"], played["of"]) == ("南宁冬季赛", "二打一", 1, 3)
    assert played["date"] == "2026-12-12" and played["entry_id"] == won and played["points"] is not None
    # the partner's session sees the pair (its phone is on it) but not the Dou Dizhu event
    partner = _signed_in(api, wired, OTHER)
    assert [r["entry_id"] for r in api.get("/players/me", token=None, headers=partner).data["registrations"]] == [entry_id]
    # another player's session cannot touch it; neither can nonsense
    stranger = _signed_in(api, wired, "13600000009")
    assert api.get(f"/entries/{entry_id}", token=None, headers=stranger).status_code == 404
    assert api.delete(f"/entries/{entry_id}", token=None, headers=stranger).status_code == 404
    assert api.delete(f"/entries/{entry_id}", token=None, headers={"X-Player-Token": "pt_nonsense"}).status_code == 401
    assert api.get("/players/me", token=None, headers=stranger).data["registrations"] == []
    # the player's own session: as the manage link does
    assert api.get(f"/entries/{entry_id}", token=None, headers=me).data["status"] == "pending_payment"
    withdrawn = api.delete(f"/entries/{entry_id}", token=None, headers=me)
    assert withdrawn.status_code == 200 and withdrawn.data["status"] == "cancelled"
    again = api.get("/players/me", token=None, headers=me).data["registrations"][0]
    assert again["status"] == "cancelled" and again["can"] == {"pay": False, "withdraw": False, "manage": False}
    # the manage link still works beside it
    assert api.get(f"/entries/{entry_id}", token=None, headers={"X-Manage-Token": answer["manage_token"]}).status_code == 200
    # registered again in the pairs (the same event, after the withdrawal): what holds the erasure back below
    again = other_api.post(f"/events/{pairs}/entries", {"name": "王五队", "members": [
        {"name": "王五", "phone": PHONE}, {"name": "赵六", "phone": OTHER}]}, token=None)
    assert again.status_code == 201, again.data
    _profile_export_and_erasure_after_the_end(api, me, ddz, won, pairs, again.data, wired)


def _profile_export_and_erasure_after_the_end(api, me, ddz, won, pairs, answer, wired):
    tid = _tournament_of(ddz)
    patched = api.patch("/players/me", {"name": "王小五", "email": "wang@example.com", "lang": "en",
                                        "notify": {"sms": True, "email": False, "wechat": False}}, token=None, headers=me)
    assert patched.status_code == 200, patched.data
    assert (patched.data["name"], patched.data["email"], patched.data["lang"]) == ("王小五", "wang@example.com", "en")
    assert patched.data["notify"] == {"sms": True, "email": False, "wechat": False}
    from chalicelib.store.entries import phone_hash_of
    assert bootstrap.deps().repos.players.by_phone_hash(phone_hash_of(PHONE))["lang"] == "en"   # what messages read
    assert api.patch("/players/me", {"lang": "fr"}, token=None, headers=me).status_code == 400
    exported = api.get("/players/me/export", token=None, headers=me)
    assert exported.status_code == 200
    data = exported.data
    assert data["player"]["phone"] == PHONE and data["player"]["email"] == "wang@example.com"
    assert sorted(e["event_id"] for e in data["entries"]) == sorted([ddz, pairs, pairs])   # withdrawn, again
    assert "manage_token_hash" not in str(data) and len(data["history"]) == 1
    assert OTHER not in str(data) and OTHER[-4:] in str(data)      # the partner's phone is theirs: masked
    assert {m["template"] for m in data["messages"]} >= {"registration_received"}   # the SMS it was sent
    # erasure: refused while the pairs' tournament (20 December) is not over, even after the first one ended
    clock = bootstrap.deps().clock
    clock.advance(days=12)                                               # 13 December
    refused = api.delete("/players/me", token=None, headers=me)
    assert refused.status_code == 409 and refused.data["code"] == "tournament_not_finished"
    assert refused.data["details"]["entry_ids"] == [answer["entry"]["id"]]
    standings = api.get(f"/events/{ddz}/standings").data
    assert api.post(f"/tournaments/{tid}/publish").status_code == 200
    page = bootstrap.deps().publisher.files[f"t/{tid}/{ddz}/standings.html"]
    clock.advance(days=8)                                                # 21 December, Shanghai: both over
    other_device = _signed_in(api, wired)                                # a second phone session of the player
    from chalicelib.store import keys
    repos = bootstrap.deps().repos
    repos.table.update(keys.player(phone_hash_of(PHONE)), "SET wechat_openid = :o", values={":o": "oWANG"})
    erased = api.delete("/players/me", token=None, headers=me)
    assert erased.status_code == 200 and erased.data["erased"] >= 3
    repos = bootstrap.deps().repos
    mine = repos.entries.get(ddz, won)
    assert mine.name == "王五" and all(m.phone is None for m in mine.members)
    pair = repos.entries.get(pairs, answer["entry"]["id"])
    assert [e.members[0].phone for e in repos.entries.list(pairs)] == [None, None]
    assert [m.phone for m in pair.members] == [None, OTHER]               # the partner's phone is theirs to erase
    assert repos.players.holdings(phone_hash_of(PHONE)) == []
    # the player's own record went whole: its e-mail and WeChat openid with its phone (issue 41 follow-up)
    assert repos.table.query(keys.player(phone_hash_of(PHONE))["PK"]) == []
    # and the outbox's records of what was sent to that phone keep their kind, not the address
    sent = [m for t in (tid, _tournament_of(pairs)) for m in repos.messages.for_tournament(t)]
    assert sent and all(PHONE not in m.to for m in sent)
    assert any(m.kind == "registration_received" and m.to == "" for m in sent)
    assert api.get("/players/me", token=None, headers=me).status_code == 401   # the session went with the player
    assert api.get(f"/events/{ddz}/standings").data == standings           # names and results stay
    assert bootstrap.deps().publisher.files[f"t/{tid}/{ddz}/standings.html"] == page
    organiser_view = api.get(f"/events/{ddz}/entries").data
    assert PHONE not in str(organiser_view) and "王五" in str(organiser_view)
    # signing in again: a new player, nothing held
    clock.advance(minutes=2)
    again = _signed_in(api, wired)
    fresh = api.get("/players/me", token=None, headers=again).data
    assert fresh["registrations"] == [] and fresh["history"] == []
    assert api.get("/players/me", token=None, headers=other_device).status_code == 401   # the erased player's


def _tournament_of(eid: str) -> str:
    return bootstrap.deps().repos.events.get(eid).tournament_id


def test_a_days_contact_sees_and_manages_the_entries_it_registered(api, wired):
    """A day's registration made by a contact who plays in none of its entries: they are the contact's too."""
    from tests.api.test_day_registration import setup
    tid, tractor, guan = setup(api)
    body = {"contact": {"name": "领队", "phone": PHONE}, "items": [
        {"event_id": ev, "name": "河池一队", "members": [{"name": "张三", "phone": "13800000001"}, {"name": "李四"}]}
        for ev in (tractor, guan)]}
    r = api.post(f"/tournaments/{tid}/registrations", body, token=None, headers={"Idempotency-Key": "day-registration-me-0001"})
    assert r.status_code == 201, r.data
    me = _signed_in(api, wired)
    regs = api.get("/players/me", token=None, headers=me).data["registrations"]
    assert sorted(r["event_id"] for r in regs) == sorted([tractor, guan])
    assert {r["registration_id"] for r in regs} == {r.data["registration"]["id"]}
    assert api.get(f"/entries/{regs[0]['entry_id']}", token=None, headers=me).status_code == 200
    player = _signed_in(api, wired, "13800000001")                      # the member, by its own phone
    assert len(api.get("/players/me", token=None, headers=player).data["registrations"]) == 2
