from __future__ import annotations

import uuid

import pytest

from chalicelib.payments.stripe_gateway import sign_payload
from tests.api.conftest import WEBHOOK_SECRET
from tests.factories import doudizhu_event, guandan_event, tournament_body
from tests.fakes import stripe_event


def pair(name="河池一队", phone=None, **kw):
    """A pair; each name gets its own contact phone (one person registers once per event)."""
    import zlib
    phone = phone or ("13800000000" if name == "河池一队" else f"138{zlib.crc32(name.encode()) % 10 ** 8:08d}")
    return {"name": name, "club": "南宁河池商会", "members": [{"name": "张三", "phone": phone}, {"name": "李四"}], **kw}


@pytest.fixture
def tid(api):
    return api.post("/tournaments", tournament_body()).data["id"]


def make_event(api, tid, **kw):
    r = api.post(f"/tournaments/{tid}/events", guandan_event(**kw))
    assert r.status_code == 201, r.data
    return r.data["id"]


def register(api, eid, body, key=None):
    headers = {"Idempotency-Key": key} if key else {}
    return api.post(f"/events/{eid}/entries", body, token=None, headers=headers)


def item_count(moto_repos):
    from chalicelib.store import dynamo
    return dynamo.client().scan(TableName=moto_repos.table.name, Select="COUNT")["Count"]


def counters(api, eid):
    return api.get(f"/events/{eid}").data["counters"]


def test_free_pair_is_confirmed_and_manage_link_works(api, tid):
    eid = make_event(api, tid, fee={"amount": 0})
    r = register(api, eid, pair())
    assert r.status_code == 201, r.data
    assert r.data["entry"]["status"] == "confirmed" and r.data["checkout_url"] is None
    entry_id, token = r.data["entry"]["id"], r.data["manage_token"]
    got = api.get(f"/entries/{entry_id}", token=None, headers={"X-Manage-Token": token})
    assert got.status_code == 200 and got.data["members"][0]["name"] == "张三"
    assert "manage_token_hash" not in got.data
    bad = api.get(f"/entries/{entry_id}", token=None, headers={"X-Manage-Token": "mt_wrong"})
    assert bad.status_code == 404 and bad.data["code"] == "not_found"
    assert counters(api, eid)["confirmed"] == 1


def test_paid_event_without_stripe_waits_for_the_desk(api, tid):
    eid = make_event(api, tid)
    r = register(api, eid, pair())
    assert r.data["entry"]["status"] == "pending_payment"
    assert r.data["entry"]["amount_due"] == 4000 and r.data["entry"]["currency"] == "CNY"  # 20 CNY × 2 people
    assert r.data["checkout_url"] is None
    assert r.data["entry"]["hold_expires_at"] == "2026-12-03T02:00:00Z"   # held 48 h for the desk (issue 36)
    entry_id = r.data["entry"]["id"]
    assert api.post(f"/events/{eid}/entries/{entry_id}/check-in").data["code"] == "not_confirmed"
    paid = api.post(f"/events/{eid}/entries/{entry_id}/payments", {"method": "cash", "amount": 4000})
    assert paid.status_code == 201 and paid.data["status"] == "confirmed" and paid.data["payment_state"] == "paid"
    assert api.post(f"/events/{eid}/entries/{entry_id}/check-in").data["checked_in"] is True
    c = counters(api, eid)
    assert (c["confirmed"], c["held"]) == (1, 0)


def test_fee_per_entry(api, tid):
    eid = make_event(api, tid, fee={"amount": 5000, "per": "entry"})
    assert register(api, eid, pair()).data["entry"]["amount_due"] == 5000


@pytest.mark.parametrize("body, status, code", [
    (pair() | {"members": [{"name": "张三", "phone": "13800000000"}]}, 422, "roster_size"),
    (pair() | {"members": [{"name": "张三"}, {"name": "李四"}]}, 422, "phone_required"),
    (pair(phone="12345"), 400, "invalid_request"),
    ({"members": []}, 400, "invalid_request"),
])
def test_bad_registrations_write_nothing(api, tid, moto_repos, body, status, code):
    eid = make_event(api, tid)
    before = item_count(moto_repos)
    r = register(api, eid, body)
    assert (r.status_code, r.data["code"]) == (status, code), r.data
    assert item_count(moto_repos) == before


def test_closed_window_wrong_code_unknown_event(api, tid, clock, moto_repos):
    eid = make_event(api, tid, registration={"opens_at": "2026-11-01T00:00:00Z", "closes_at": "2026-12-11T12:00:00Z",
                                             "eligibility": {"kind": "codes", "codes": ["HC2026"]}})
    before = item_count(moto_repos)
    r = register(api, eid, pair(eligibility_code="WRONG"))
    assert (r.status_code, r.data["code"]) == (422, "not_eligible")
    r = register(api, eid, pair())
    assert (r.status_code, r.data["code"]) == (422, "not_eligible")
    assert register(api, "01JZZZZZZZZZZZZZZZZZZZZZZZ", pair()).data["code"] == "not_found"
    clock.advance(days=20)
    r = register(api, eid, pair(eligibility_code="hc2026"))
    assert (r.status_code, r.data["code"]) == (422, "registration_closed")
    assert item_count(moto_repos) == before
    clock.advance(days=-20)
    assert register(api, eid, pair(eligibility_code="hc2026")).status_code == 201


def test_full_event_waitlists_or_refuses(api, tid):
    eid = make_event(api, tid, capacity=2, fee={"amount": 0})
    statuses = [register(api, eid, pair(name=f"队{i}")).data["entry"]["status"] for i in range(4)]
    assert statuses == ["confirmed", "confirmed", "waitlisted", "waitlisted"]
    c = counters(api, eid)
    assert (c["taken"], c["confirmed"], c["waitlisted"]) == (2, 2, 2)
    closed = make_event(api, tid, capacity=1, waitlist=False, fee={"amount": 0})
    assert register(api, closed, pair()).status_code == 201
    r = register(api, closed, pair(name="晚到"))
    assert (r.status_code, r.data["code"]) == (409, "event_full")


def test_cancel_frees_place_for_first_waiting(api, tid):
    eid = make_event(api, tid, capacity=1, fee={"amount": 0})
    first = register(api, eid, pair(name="一")).data
    w1 = register(api, eid, pair(name="二")).data
    w2 = register(api, eid, pair(name="三")).data
    # the answer gives no position (the process's counters may be old); the manage page counts it exactly
    assert w2["entry"]["status"] == "waitlisted" and w2["entry"]["waitlist_position"] is None
    view = api.get(f"/entries/{w2['entry']['id']}", token=None, headers={"X-Manage-Token": w2["manage_token"]}).data
    assert view["waitlist_position"] == 2
    r = api.delete(f"/entries/{first['entry']['id']}", token=None, headers={"X-Manage-Token": first["manage_token"]})
    assert r.status_code == 200 and r.data["status"] == "cancelled"
    promoted = api.get(f"/entries/{w1['entry']['id']}", token=None, headers={"X-Manage-Token": w1["manage_token"]}).data
    assert promoted["status"] == "confirmed" and promoted["notices"]
    again = api.delete(f"/entries/{first['entry']['id']}", token=None, headers={"X-Manage-Token": first["manage_token"]})
    assert again.status_code == 200  # idempotent
    c = counters(api, eid)
    assert (c["taken"], c["waitlisted"]) == (1, 1)


def test_idempotency_key_returns_first_answer(api, tid, moto_repos):
    eid = make_event(api, tid, fee={"amount": 0})
    key = str(uuid.uuid4())
    a = register(api, eid, pair(), key)
    items = item_count(moto_repos)
    b = register(api, eid, pair(), key)
    assert b.status_code == 201 and b.data == a.data
    assert item_count(moto_repos) == items and counters(api, eid)["confirmed"] == 1
    other = register(api, eid, pair(name="不同"), key)
    assert (other.status_code, other.data["code"]) == (409, "idempotency_conflict")
    short = register(api, eid, pair(), "abc")
    assert short.status_code == 400


def test_roster_changes_until_deadline(api, tid, clock):
    eid = make_event(api, tid, fee={"amount": 0})
    r = register(api, eid, pair()).data
    h = {"X-Manage-Token": r["manage_token"]}
    new = {"members": [{"name": "王五", "phone": "13900000000"}, {"name": "赵六"}]}
    p = api.patch(f"/entries/{r['entry']['id']}", new, token=None, headers=h)
    assert p.status_code == 200 and p.data["members"][0]["name"] == "王五"
    bad = api.patch(f"/entries/{r['entry']['id']}", {"members": [{"name": "一人", "phone": "13900000000"}]}, token=None, headers=h)
    assert bad.data["code"] == "roster_size"
    clock.advance(days=20)
    late = api.patch(f"/entries/{r['entry']['id']}", new, token=None, headers=h)
    assert (late.status_code, late.data["code"]) == (422, "changes_closed")


def test_partner_seekers_are_joined_by_the_organiser(api, tid):
    eid = make_event(api, tid, fee={"amount": 0})
    a = register(api, eid, {"club": "河池商会", "partner_wanted": True, "members": [{"name": "单甲", "phone": "13800000001"}]}).data
    b = register(api, eid, {"club": "宜州商会", "partner_wanted": True, "members": [{"name": "单乙", "phone": "13800000002"}]}).data
    assert a["entry"]["status"] == "partner_wanted" and counters(api, eid)["taken"] == 0
    j = api.post(f"/events/{eid}/entries/join", {"entry_ids": [a["entry"]["id"], b["entry"]["id"]], "name": "临时组合"})
    assert j.status_code == 201, j.data
    assert j.data["entry"]["status"] == "confirmed" and [m["name"] for m in j.data["entry"]["members"]] == ["单甲", "单乙"]
    assert counters(api, eid)["taken"] == 1
    seen = api.get(f"/entries/{a['entry']['id']}", token=None, headers={"X-Manage-Token": a["manage_token"]}).data
    assert seen["status"] == "merged"
    again = api.post(f"/events/{eid}/entries/join", {"entry_ids": [a["entry"]["id"], b["entry"]["id"]]})
    assert again.status_code == 409


def test_withdraw_and_refund_rule_for_cash(api, tid, clock):
    eid = make_event(api, tid)
    r = register(api, eid, pair()).data
    entry_id = r["entry"]["id"]
    api.post(f"/events/{eid}/entries/{entry_id}/payments", {"method": "cash", "amount": 4000})
    w = api.post(f"/events/{eid}/entries/{entry_id}/withdraw", {"reason": "生病"})
    assert w.data["status"] == "withdrawn" and w.data["payment_state"] == "refund_due"
    r2 = register(api, eid, pair(name="二")).data
    api.post(f"/events/{eid}/entries/{r2['entry']['id']}/payments", {"method": "cash", "amount": 4000})
    clock.advance(days=20)  # after the deadline: no refund
    w2 = api.post(f"/events/{eid}/entries/{r2['entry']['id']}/withdraw", {})
    assert w2.data["status"] == "withdrawn" and w2.data["payment_state"] == "paid"


def test_export_csv_and_xlsx_keep_chinese_names(api, tid):
    eid = make_event(api, tid, fee={"amount": 0})
    register(api, eid, pair())
    csv = api.get(f"/events/{eid}/entries/export?format=csv")
    assert csv.status_code == 200 and "张三" in csv.body.decode("utf-8-sig")
    x = api.get(f"/events/{eid}/entries/export?format=xlsx",
                headers={"Accept": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"})
    assert x.status_code == 200
    import io

    from openpyxl import load_workbook
    ws = load_workbook(io.BytesIO(x.body)).active
    assert any("张三" in str(c.value) for row in ws.iter_rows() for c in row)
    listed = api.get(f"/events/{eid}/entries?q=张三").data
    assert len(listed["entries"]) == 1 and listed["entries"][0]["members"][0]["phone"] == "13800000000"


# ----------------------------------------------------------------------------- Stripe

def webhook(api, event_id, type_, obj, secret=WEBHOOK_SECRET, timestamp=None, signature=None):
    payload = stripe_event(event_id, type_, obj)
    sig = signature or sign_payload(payload, secret, timestamp)
    return api.post("/webhooks/stripe", raw=payload, token=None, headers={"Stripe-Signature": sig})


def test_stripe_checkout_then_webhook_confirms(api, tid, fake_stripe):
    eid = make_event(api, tid)
    r = register(api, eid, pair(), str(uuid.uuid4()))
    assert r.data["entry"]["status"] == "pending_payment" and r.data["checkout_url"].startswith("https://checkout.stripe.com/")
    create = [q for q in fake_stripe.requests if q["path"] == "/v1/checkout/sessions"][0]
    assert create["body"]["line_items"]["0"]["price_data"]["unit_amount"] == "4000"
    assert create["body"]["line_items"]["0"]["price_data"]["currency"] == "cny"
    assert set(create["body"]["payment_method_types"].values()) == {"card", "alipay", "wechat_pay"}
    assert create["body"]["metadata"]["entry_id"] == r.data["entry"]["id"] and create["idempotency_key"]
    sid = create["path"] and list(fake_stripe.sessions)[0]
    done = webhook(api, "evt_1", "checkout.session.completed", fake_stripe.pay(sid))
    assert done.status_code == 200 and done.data["status"] == "confirmed"
    view = api.get(f"/entries/{r.data['entry']['id']}", token=None, headers={"X-Manage-Token": r.data["manage_token"]}).data
    assert view["status"] == "confirmed" and view["amount_paid"] == 4000
    again = webhook(api, "evt_1", "checkout.session.completed", fake_stripe.sessions[sid])
    assert again.data["status"] == "duplicate"
    c = counters(api, eid)
    assert (c["confirmed"], c["held"], c["taken"]) == (1, 0, 1)


def test_webhook_signature_forged_stale_and_unknown_type(api, tid, fake_stripe, moto_repos):
    eid = make_event(api, tid)
    register(api, eid, pair())
    sid = list(fake_stripe.sessions)[0]
    before = item_count(moto_repos)
    forged = webhook(api, "evt_f", "checkout.session.completed", fake_stripe.pay(sid), secret="whsec_wrong")
    assert (forged.status_code, forged.data["code"]) == (400, "invalid_signature")
    import time
    stale = webhook(api, "evt_s", "checkout.session.completed", fake_stripe.sessions[sid], timestamp=int(time.time()) - 3600)
    assert (stale.status_code, stale.data["code"]) == (400, "stale_signature")
    missing = api.post("/webhooks/stripe", raw=b"{}", token=None)
    assert missing.data["code"] == "invalid_signature"
    assert item_count(moto_repos) == before
    other = webhook(api, "evt_o", "customer.created", {"id": "cus_1"})
    assert other.status_code == 200 and other.data["status"] == "ignored"


def test_amount_mismatch_is_refused_and_nothing_changes(api, tid, fake_stripe, moto_repos):
    eid = make_event(api, tid)
    r = register(api, eid, pair()).data
    sid = list(fake_stripe.sessions)[0]
    obj = dict(fake_stripe.pay(sid), amount_total=100)
    before = item_count(moto_repos)
    bad = webhook(api, "evt_m", "checkout.session.completed", obj)
    assert (bad.status_code, bad.data["status"], bad.data["code"]) == (200, "not_processed", "amount_mismatch")
    assert item_count(moto_repos) == before
    assert api.get(f"/entries/{r['entry']['id']}", token=None, headers={"X-Manage-Token": r["manage_token"]}).data["status"] == "pending_payment"


def test_expired_session_releases_and_promotes(api, tid, fake_stripe):
    eid = make_event(api, tid, capacity=1)
    first = register(api, eid, pair(name="一")).data
    waiting = register(api, eid, pair(name="二")).data
    assert waiting["entry"]["status"] == "waitlisted" and waiting["checkout_url"] is None
    sid = list(fake_stripe.sessions)[0]
    fake_stripe.sessions[sid]["status"] = "expired"
    r = webhook(api, "evt_x", "checkout.session.expired", fake_stripe.sessions[sid])
    assert r.data["status"] == "released"
    h = {"X-Manage-Token": waiting["manage_token"]}
    promoted = api.get(f"/entries/{waiting['entry']['id']}", token=None, headers=h).data
    assert promoted["status"] == "pending_payment" and promoted["hold_expires_at"]
    pay = api.post(f"/entries/{waiting['entry']['id']}/checkout", token=None, headers=h)
    assert pay.status_code == 200 and pay.data["checkout_url"].startswith("https://")
    gone = api.get(f"/entries/{first['entry']['id']}", token=None, headers={"X-Manage-Token": first["manage_token"]}).data
    assert gone["status"] == "cancelled"


def test_sweeper_releases_holds_without_webhook_and_confirms_paid_ones(api, tid, fake_stripe, clock):
    from chalicelib import bootstrap
    from chalicelib.services.payments import sweep_expired_holds
    eid = make_event(api, tid, capacity=5)
    unpaid = register(api, eid, pair(name="未付")).data
    paid = register(api, eid, pair(name="已付")).data
    sessions = list(fake_stripe.sessions)
    fake_stripe.pay(sessions[1])  # paid, but the webhook never came
    assert sweep_expired_holds(bootstrap.deps()) == {"released": 0, "confirmed": 0, "failed": 0}  # not expired yet
    clock.advance(minutes=40)
    assert sweep_expired_holds(bootstrap.deps()) == {"released": 1, "confirmed": 1, "failed": 0}
    assert fake_stripe.sessions[sessions[0]]["status"] == "expired"
    def get(r):
        return api.get(f"/entries/{r['entry']['id']}", token=None, headers={"X-Manage-Token": r["manage_token"]}).data
    assert get(unpaid)["status"] == "cancelled" and get(paid)["status"] == "confirmed"
    c = counters(api, eid)
    assert (c["taken"], c["held"], c["confirmed"]) == (1, 0, 1)


def test_crash_after_session_created_is_repaired_by_retry(api, tid, fake_stripe):
    from chalicelib.services import registration
    eid = make_event(api, tid)
    key = str(uuid.uuid4())
    registration.FAULTS.add("after_checkout_created")
    try:
        crashed = register(api, eid, pair(), key)
    finally:
        registration.FAULTS.clear()
    assert crashed.status_code == 500
    retry = register(api, eid, pair(), key)
    assert retry.status_code == 201 and retry.data["checkout_url"]
    assert len(fake_stripe.sessions) == 1  # Stripe's idempotency key gave the same session back
    assert counters(api, eid)["held"] == 1


def test_late_payment_after_release_restores_or_refunds(api, tid, fake_stripe, clock):
    from chalicelib import bootstrap
    from chalicelib.services.payments import sweep_expired_holds
    eid = make_event(api, tid, capacity=1)
    register(api, eid, pair(name="晚付"))
    sid = list(fake_stripe.sessions)[0]
    fake_stripe.fail_next = 1  # the sweeper cannot reach Stripe for the status: nothing is released
    clock.advance(minutes=40)
    assert sweep_expired_holds(bootstrap.deps())["failed"] == 1
    assert counters(api, eid)["held"] == 1
    # the session is expired at Stripe and released here; a newcomer takes the place
    fake_stripe.sessions[sid]["status"] = "expired"
    assert sweep_expired_holds(bootstrap.deps())["released"] == 1
    newcomer = register(api, eid, pair(name="新来")).data
    assert newcomer["entry"]["status"] == "pending_payment"
    # ...and then the first payment's completion arrives after all: no place, so it is refunded
    obj = dict(fake_stripe.sessions[sid], status="complete", payment_status="paid", payment_intent="pi_late")
    r = webhook(api, "evt_late", "checkout.session.completed", obj)
    assert r.data["status"] == "refunded" and fake_stripe.refunds[0]["payment_intent"] == "pi_late"
    c = counters(api, eid)
    assert c["taken"] == 1


def test_cancel_paid_online_refunds_through_stripe(api, tid, fake_stripe):
    eid = make_event(api, tid)
    r = register(api, eid, pair()).data
    sid = list(fake_stripe.sessions)[0]
    webhook(api, "evt_ok", "checkout.session.completed", fake_stripe.pay(sid, "pi_ok"))
    c = api.delete(f"/entries/{r['entry']['id']}", token=None, headers={"X-Manage-Token": r["manage_token"]})
    assert c.data["status"] == "cancelled" and c.data["payment_state"] == "refunded"
    assert fake_stripe.refunds and fake_stripe.refunds[0]["amount"] == 4000


def test_doudizhu_individual_needs_one_member(api, tid):
    eid = api.post(f"/tournaments/{tid}/events", doudizhu_event()).data["id"]
    ok = register(api, eid, {"members": [{"name": "刘一", "phone": "13800000000"}]})
    assert ok.status_code == 201 and ok.data["entry"]["name"] == "刘一" and ok.data["entry"]["status"] == "confirmed"
    lone = register(api, eid, {"partner_wanted": True, "members": [{"name": "刘二", "phone": "13800000001"}]})
    assert lone.data["code"] == "roster_size"


def test_refund_from_the_stripe_dashboard_frees_the_place(api, tid, fake_stripe):
    eid = make_event(api, tid, capacity=1)
    r = register(api, eid, pair()).data
    waiting = register(api, eid, pair(name="候补")).data
    sid = list(fake_stripe.sessions)[0]
    paid = fake_stripe.pay(sid, "pi_dash")
    webhook(api, "evt_paid", "checkout.session.completed", paid)
    charge = {"id": "ch_1", "object": "charge", "payment_intent": "pi_dash", "metadata": paid["metadata"], "refunded": True}
    done = webhook(api, "evt_ref", "charge.refunded", charge)
    assert done.data["status"] == "refunded"
    view = api.get(f"/entries/{r['entry']['id']}", token=None, headers={"X-Manage-Token": r["manage_token"]}).data
    assert view["status"] == "cancelled" and view["payment_state"] == "refunded"
    promoted = api.get(f"/entries/{waiting['entry']['id']}", token=None, headers={"X-Manage-Token": waiting["manage_token"]}).data
    assert promoted["status"] == "pending_payment"
    assert webhook(api, "evt_ref", "charge.refunded", charge).data["status"] == "duplicate"


def test_a_changed_registration_window_applies_at_once_despite_the_config_cache(api, tid, clock):
    """Registration keeps the event's config in memory between registrations; the counters carry its version,
    so closing registration is seen by the very next request (issue 16's round-trip saving must not cost this)."""
    eid = make_event(api, tid, fee={"amount": 0})
    assert register(api, eid, pair()).status_code == 201
    ev = api.get(f"/events/{eid}").data
    closed = {"registration": {**ev["config"]["registration"], "closes_at": "2026-11-30T00:00:00Z",
                               "opens_at": "2026-11-01T00:00:00Z"}, "version": ev["version"]}
    assert api.patch(f"/events/{eid}", closed).status_code == 200
    r = register(api, eid, pair(name="迟到"))
    assert r.status_code == 422 and r.data["code"] == "registration_closed"


def test_a_refund_cut_off_after_stripe_took_it_leaves_payment_and_entry_agreeing(api, tid, fake_stripe, monkeypatch):
    """The money went back at Stripe, then the write recording it failed (a crash, a timeout): the payment must not
    say "refunded" while the entry still shows it owed (应退: the desk would pay it again in cash). Both stay as
    they were, and Stripe's charge.refunded notification then records it on both, nothing left owed."""
    from chalicelib import bootstrap
    from chalicelib.store.entries import EntryRepo
    eid = make_event(api, tid)
    r = register(api, eid, pair()).data
    entry_id, manage = r["entry"]["id"], {"X-Manage-Token": r["manage_token"]}
    paid = fake_stripe.pay(list(fake_stripe.sessions)[0], "pi_cut")
    webhook(api, "evt_cut_paid", "checkout.session.completed", paid)
    real = EntryRepo.transition

    def cut(self, before, after, **kw):
        if after.payment_state == "refunded":
            raise ConnectionError("the store stopped answering")
        return real(self, before, after, **kw)
    monkeypatch.setattr(EntryRepo, "transition", cut)
    assert api.delete(f"/entries/{entry_id}", token=None, headers=manage).status_code == 500
    monkeypatch.setattr(EntryRepo, "transition", real)
    repos = bootstrap.deps().repos
    entry = repos.entries.get(eid, entry_id)
    payment = repos.payments.get(entry.payment_id)
    assert len(fake_stripe.refunds) == 1 and (entry.status, entry.payment_state, entry.refund_owed) == \
        ("cancelled", "refund_due", 4000)
    assert (payment.state, payment.amount_refunded) == ("confirmed", 0)    # not "refunded" beside an owed entry
    charge = {"id": "ch_cut", "object": "charge", "payment_intent": "pi_cut", "metadata": paid["metadata"],
              "amount": 4000, "amount_refunded": 4000, "refunded": True}
    assert webhook(api, "evt_cut_refund", "charge.refunded", charge).data["status"] == "refunded"
    entry = repos.entries.get(eid, entry_id)
    assert (entry.payment_state, entry.refund_owed, entry.amount_refunded) == ("refunded", 0, 4000)
    assert repos.payments.get(entry.payment_id).state == "refunded"


def test_a_jpy_refund_reads_in_yen_not_hundredths(api):
    """Money people read goes through money(): a JPY tournament's ¥2,000 is 2,000 yen (no minor unit), never
    "20.00" as `amount / 100` wrote it (issue 37)."""
    tid = api.post("/tournaments", tournament_body(currency="JPY", payments={"providers": ["offline"]})).data["id"]
    eid = make_event(api, tid, fee={"amount": 1000, "per": "person"})   # a pair: ¥2,000
    entry_id = register(api, eid, pair()).data["entry"]["id"]
    assert api.post(f"/events/{eid}/entries/{entry_id}/payments", {"method": "cash", "amount": 2000}).status_code == 201
    r = api.post(f"/events/{eid}/entries/{entry_id}/withdraw",
                 {"reason": "家中有事", "refund_amount": 1500, "refund_reason": "已开赛"})
    assert r.status_code == 200 and "退款 JP¥1,500（规则 JP¥2,000）：已开赛" in r.data["notices"], r.data["notices"]
    wrong = api.post(f"/events/{eid}/entries/{entry_id}/refund", {"method": "cash", "amount": 15})
    assert wrong.status_code == 400 and "应退 JP¥1,500" in wrong.data["message"], wrong.data
    done = api.post(f"/events/{eid}/entries/{entry_id}/refund", {"method": "cash", "amount": 1500})
    assert done.status_code == 200 and "已现金退款 JP¥1,500" in done.data["notices"], done.data
    assert not any("15.00" in n or "20.00" in n for n in done.data["notices"])
