"""One checkout for a day's events (issue 15): the API on moto with Stripe's library answered by a fake."""
from __future__ import annotations

from tests.api.test_registration import webhook
from tests.factories import guandan_event, tournament_body


def tractor_event(**kw):
    body = {"name": "拖拉机淘汰赛", "game": "tractor", "entry": "pair", "capacity": 16,
            "fee": {"amount": 2000, "per": "person"},
            "registration": {"opens_at": "2026-11-01T00:00:00Z", "closes_at": "2026-12-11T12:00:00Z"},
            "stages": [{"format": "knockout", "scoring": {"method": "level_table"}}]}
    body.update(kw)
    return body


def members(a="张三", b="李四", phone="13800000001"):
    return [{"name": a, "phone": phone}, {"name": b}]


def setup(api, **guandan):
    tid = api.post("/tournaments", tournament_body()).data["id"]
    tractor = api.post(f"/tournaments/{tid}/events", tractor_event()).data["id"]
    guan = api.post(f"/tournaments/{tid}/events", guandan_event(**guandan)).data["id"]
    return tid, tractor, guan


def day(api, tid, items, key="day-registration-0001", phone="13800000001"):
    body = {"contact": {"name": "张三", "phone": phone}, "items": items}
    return api.post(f"/tournaments/{tid}/registrations", body, token=None, headers={"Idempotency-Key": key})


def test_two_events_one_payment_with_a_line_each(api, fake_stripe):
    tid, tractor, guan = setup(api)
    r = day(api, tid, [{"event_id": tractor, "name": "河池一队", "members": members()},
                       {"event_id": guan, "name": "河池一队", "members": members()}])
    assert r.status_code == 201, r.data
    reg = r.data["registration"]
    # seed 003: 20 CNY a person, two people, two events → 80 CNY in one Checkout with one line per event
    assert reg["amount_due"] == 8000 and reg["currency"] == "CNY"
    assert [i["entry"]["status"] for i in reg["items"]] == ["pending_payment", "pending_payment"]
    (sid,) = list(fake_stripe.sessions)
    assert sorted(amount for _, amount in fake_stripe.line_items[sid]) == [4000, 4000]
    assert any("拖拉机淘汰赛" in name for name, _ in fake_stripe.line_items[sid])
    assert r.data["checkout_url"].startswith("https://checkout.stripe.com/")
    # the same request again (a retry) answers the same registration and token, with no second session
    again = day(api, tid, [{"event_id": tractor, "name": "河池一队", "members": members()},
                           {"event_id": guan, "name": "河池一队", "members": members()}])
    assert again.status_code == 201 and again.data["registration"]["id"] == reg["id"]
    assert again.data["manage_token"] == r.data["manage_token"] and len(fake_stripe.sessions) == 1
    # paying once confirms both entries
    assert webhook(api, "evt_day", "checkout.session.completed", fake_stripe.pay(sid, "pi_day")).status_code == 200
    seen = api.get(f"/registrations/{reg['id']}", token=None, headers={"X-Manage-Token": r.data["manage_token"]}).data
    assert [i["entry"]["status"] for i in seen["items"]] == ["confirmed", "confirmed"]
    assert seen["amount_paid"] == 8000 and seen["payment_state"] == "paid"
    assert all(i["refund_rule"] for i in seen["items"])
    # cancelling one event refunds that event's part only
    tractor_entry = seen["items"][0]["entry"]["id"]
    c = api.delete(f"/registrations/{reg['id']}/items/{tractor_entry}", token=None,
                   headers={"X-Manage-Token": r.data["manage_token"]})
    assert c.status_code == 200
    assert [i["entry"]["status"] for i in c.data["items"]] == ["cancelled", "confirmed"]
    assert [x["amount"] for x in fake_stripe.refunds] == [4000]


def test_a_full_event_is_waitlisted_and_not_charged(api, fake_stripe):
    tid, tractor, guan = setup(api, capacity=1)
    first = day(api, tid, [{"event_id": guan, "name": "先到", "members": members(phone="13900000001")}],
                key="day-registration-first", phone="13900000001")
    assert first.status_code == 201
    r = day(api, tid, [{"event_id": tractor, "name": "河池一队", "members": members()},
                       {"event_id": guan, "name": "河池一队", "members": members()}])
    assert r.status_code == 201, r.data
    items = {i["event_id"]: i for i in r.data["registration"]["items"]}
    assert items[guan]["entry"]["status"] == "waitlisted" and items[tractor]["entry"]["status"] == "pending_payment"
    assert r.data["registration"]["amount_due"] == 4000   # only the tractor place is charged now
    sid = list(fake_stripe.sessions)[-1]
    assert fake_stripe.line_items[sid] == [(fake_stripe.line_items[sid][0][0], 4000)]


def test_the_same_person_twice_in_one_event_is_refused(api, fake_stripe):
    tid, tractor, guan = setup(api)
    assert day(api, tid, [{"event_id": guan, "name": "一队", "members": members()}]).status_code == 201
    again = day(api, tid, [{"event_id": guan, "name": "二队", "members": members("张三", "王五")}], key="day-registration-0002")
    assert again.status_code == 409 and again.data["code"] == "duplicate_entry"
    assert "管理链接" in again.data["message"]
    # and through the one-event form as well
    one = api.post(f"/events/{guan}/entries", {"name": "三队", "members": members("张三", "赵六")}, token=None)
    assert one.status_code == 409 and one.data["code"] == "duplicate_entry"
    # nothing half-written: the tractor event of the refused registration has no entry
    assert api.get(f"/events/{tractor}/entries").data["entries"] == []


def test_events_of_another_tournament_and_the_same_event_twice_are_refused(api):
    tid, tractor, guan = setup(api)
    other = api.post("/tournaments", tournament_body()).data["id"]
    foreign = api.post(f"/tournaments/{other}/events", guandan_event()).data["id"]
    r = day(api, tid, [{"event_id": foreign, "members": members()}])
    assert r.status_code == 404
    r = day(api, tid, [{"event_id": guan, "members": members()}, {"event_id": guan, "members": members("甲", "乙", "13800000002")}],
            key="day-registration-0003")
    assert r.status_code == 400


def test_a_promoted_item_gets_its_own_payment_link(api, fake_stripe):
    tid, tractor, guan = setup(api, capacity=1)
    first = day(api, tid, [{"event_id": guan, "name": "先到", "members": members(phone="13900000001")}],
                key="day-registration-first", phone="13900000001").data
    r = day(api, tid, [{"event_id": tractor, "name": "河池一队", "members": members()},
                       {"event_id": guan, "name": "河池一队", "members": members()}]).data
    waiting = next(i for i in r["registration"]["items"] if i["event_id"] == guan)["entry"]
    assert waiting["status"] == "waitlisted"
    # the first comes off: the waiting item is promoted and pays on its own, with the registration's link
    holder = first["registration"]["items"][0]["entry"]["id"]
    api.delete(f"/registrations/{first['registration']['id']}/items/{holder}", token=None,
               headers={"X-Manage-Token": first["manage_token"]})
    seen = api.get(f"/registrations/{r['registration']['id']}", token=None,
                   headers={"X-Manage-Token": r["manage_token"]}).data
    promoted = next(i for i in seen["items"] if i["event_id"] == guan)["entry"]
    assert promoted["status"] == "pending_payment"
    pay = api.post(f"/entries/{promoted['id']}/checkout", token=None, headers={"X-Manage-Token": r["manage_token"]})
    assert pay.status_code == 200 and pay.data["checkout_url"].startswith("https://checkout.stripe.com/")
    sid = list(fake_stripe.sessions)[-1]
    assert sum(a for _, a in fake_stripe.line_items[sid]) == 4000


def test_a_day_registration_read_before_the_first_draw_is_refused_after_it(api, monkeypatch):
    """The first draw closes registration (issue 23): a day's registration whose read of its events came just
    before the draw must not slip in after it. The write itself checks, as a single registration's does."""
    from chalicelib import bootstrap
    from tests.api.play import draw, people, setup_event
    cfg = guandan_event(fee={"amount": 0})
    tid, eid, _ = setup_event(api, cfg, people(4, 2, "队"))
    repos = bootstrap.deps().repos
    before = repos.tournaments.get_with_events(tid)         # read before the draw (a cache, a slow replica)
    draw(api, eid)
    monkeypatch.setattr(type(repos.tournaments), "get_with_events", lambda self, t: before)
    r = day(api, tid, [{"event_id": eid, "name": "迟到队", "members": members(phone="13800009999")}])
    assert r.status_code == 422 and r.data["code"] == "registration_closed", r.data
    assert r.data["details"] == {"event_id": eid, "state": "closed"}
    assert len(api.get(f"/events/{eid}/entries").data["entries"]) == 4   # nothing written


def test_a_day_registration_read_before_an_edit_decides_again_from_a_fresh_read(api, monkeypatch):
    """The fee went up between the read and the write: the write refuses the old config, the registration is
    decided again from a fresh read (the new fee), not written at the old one."""
    from chalicelib import bootstrap
    tid = api.post("/tournaments", tournament_body()).data["id"]
    eid = api.post(f"/tournaments/{tid}/events", guandan_event(fee={"amount": 0})).data["id"]
    repos = bootstrap.deps().repos
    real, reads = type(repos.tournaments).get_with_events, []
    before = repos.tournaments.get_with_events(tid)
    assert api.patch(f"/events/{eid}", {"fee": {"amount": 1000, "per": "entry"}}).status_code == 200

    def first_stale(self, t):
        reads.append(t)
        return before if len(reads) == 1 else real(self, t)
    monkeypatch.setattr(type(repos.tournaments), "get_with_events", first_stale)
    r = day(api, tid, [{"event_id": eid, "name": "河池队", "members": members()}])
    assert r.status_code == 201 and len(reads) == 2, r.data
    assert r.data["registration"]["items"][0]["entry"]["amount_due"] == 1000


def test_one_person_cannot_take_two_places_in_one_team(api, moto_repos):
    """Issue 39: the contact's phone again as member 2 (member 1 being the contact) was taken as two players; the
    same phone twice in one roster is refused with its own code, naming both places, and nothing is written."""
    from tests.api.test_registration import item_count
    tid, tractor, guan = setup(api)
    before = item_count(moto_repos)
    r = day(api, tid, [{"event_id": guan, "name": "河池一队",
                        "members": [{"name": "张三"}, {"name": "李四", "phone": "138 0000 0001"}]}])
    assert r.status_code == 422 and r.data["code"] == "same_person_twice", r.data
    assert r.data["details"] == {"members": [0, 1]}
    r = day(api, tid, [{"event_id": guan, "name": "河池一队", "members": [
        {"name": "张三", "phone": "13800000002"}, {"name": "李四", "phone": "+8613800000002"}]}], key="day-registration-0002")
    assert r.data["code"] == "same_person_twice", r.data
    r = api.post(f"/events/{guan}/entries", {"name": "河池二队", "members": [
        {"name": "王五", "phone": "13900000003"}, {"name": "赵六", "phone": "139-0000-0003"}]}, token=None)
    assert r.data["code"] == "same_person_twice", r.data
    assert item_count(moto_repos) == before
    ok = day(api, tid, [{"event_id": guan, "name": "河池一队", "members": [{"name": "张三"}, {"name": "李四", "phone": "13800000009"}]}],
             key="day-registration-0003")
    assert ok.status_code == 201, ok.data


def test_a_registration_too_large_for_one_transaction_is_refused_clearly(api, fake_stripe, moto_repos):
    """A pair event whose members both give a mainland phone, the first the contact's, is 7 of the transaction's
    actions (entry, pointer, counter, roster copy, two person items, the partner's phone index); the registration
    5 more (idempotency, record, the contact's index, payment, its message). Fourteen such events are 103, over
    DynamoDB's 100: a 400 that says so (and by how much), nothing written — not a 500. Thirteen (96) register."""
    from tests.api.test_registration import item_count
    tid = api.post("/tournaments", tournament_body()).data["id"]
    events = [api.post(f"/tournaments/{tid}/events", tractor_event(name=f"拖拉机{i}")).data["id"] for i in range(14)]
    both = [{"name": "张三", "phone": "13800000001"}, {"name": "李四", "phone": "13800000002"}]
    before = item_count(moto_repos)
    r = day(api, tid, [{"event_id": e, "members": both} for e in events])
    assert (r.status_code, r.data["code"]) == (400, "registration_too_large"), r.data
    assert r.data["details"] == {"events": 14, "actions": 103, "limit": 100}
    assert item_count(moto_repos) == before
    r = day(api, tid, [{"event_id": e, "members": both} for e in events[:13]], key="day-registration-0002")
    assert r.status_code == 201, r.data
    assert len(r.data["registration"]["items"]) == 13
