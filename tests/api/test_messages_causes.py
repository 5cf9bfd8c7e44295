"""The day's messages (issue 41): a waitlist promotion sends the hold's deadline, a draw each player's table and
seat ("桌 12 · 北 · 14:00"), a result entered asks the other side to confirm. Sent by the worker through the real
Tencent Cloud SDK to its local stand-in."""
from __future__ import annotations


from chalicelib import bootstrap
from chalicelib.messages.outbox import deliver_due, on_round_drawn
from tests.api.play import draw, setup_event
from tests.api.test_rounds_results import guandan, levels
from tests.api.test_registration import make_event, register
from tests.factories import tournament_body


def _sent(standins, kind):
    deliver_due(bootstrap.deps(), bootstrap.deps().clock())
    return [s for s in standins.sms if s["kind"] == kind]


def _pair(n, both=True):
    return {"name": f"队{n}", "club": f"商会{n}", "members": [{"name": f"甲{n}", "phone": f"1391000{n:04d}"},
                                                          {"name": f"乙{n}", **({"phone": f"1392000{n:04d}"} if both else {})}]}


def test_a_promotion_from_the_waitlist_sends_the_holds_deadline(api, wired):
    tid = api.post("/tournaments", tournament_body()).data["id"]      # Asia/Shanghai
    eid = make_event(api, tid, capacity=1, fee={"amount": 5000, "per": "entry"})
    first = register(api, eid, _pair(1, both=False)).data["entry"]["id"]
    waiting = register(api, eid, _pair(2, both=False)).data
    assert waiting["entry"]["status"] == "waitlisted"
    assert api.post(f"/events/{eid}/entries/{first}/withdraw", {"reason": "有事"}).status_code == 200
    entry = api.get(f"/events/{eid}/entries").data["entries"]
    promoted = next(e for e in entry if e["id"] == waiting["entry"]["id"])
    assert promoted["status"] == "pending_payment" and promoted["hold_expires_at"]
    [sms] = _sent(wired, "waitlist_promoted")
    assert sms["to"] == "+8613910000002" and sms["params"]["event"] == "掼蛋积分赛"
    from datetime import datetime
    from zoneinfo import ZoneInfo
    hold = datetime.fromisoformat(promoted["hold_expires_at"].replace("Z", "+00:00"))
    assert sms["params"]["deadline"] == hold.astimezone(ZoneInfo("Asia/Shanghai")).strftime("%m-%d %H:%M")
    assert sms["params"]["link"].endswith(f"/entry.html?id={promoted['id']}")


def test_a_draw_sends_each_player_their_table_and_seat_and_a_result_asks_the_other_side(api, wired):
    tid, eid, ids = setup_event(api, guandan(), [_pair(n) for n in range(1, 5)])
    rnd = draw(api, eid)                  # RoundDrawn's handler queues one job: the worker queues each player's
    got = {s["to"]: s["params"] for s in _sent(wired, "draw")}
    assert len(got) == 8 and len(_sent(wired, "draw")) == 8
    assert on_round_drawn(bootstrap.deps(), tid, eid, 0, rnd["number"]) == 0      # the fan-out run again: nothing new
    seat_words = {"N": "北", "E": "东", "S": "南", "W": "西"}
    for table in rnd["tables"]:
        for side in table["sides"]:
            n = ids.index(side["entry_id"]) + 1
            for k, prefix in enumerate(("1391000", "1392000")):
                params = got[f"+86{prefix}{n:04d}"]
                assert params["table"] == str(table["number"]) and params["round"] == "1"
                assert params["seat"] == seat_words[side["seats"][k]]
    # N–S enter table 1 with their code: the E–W pair is asked to confirm, N–S are not
    t1 = rnd["tables"][0]
    put = api.put(f"/events/{eid}/rounds/{rnd['number']}/tables/1/result", {"version": 0, **levels(t1)}, token=None,
                  headers={"X-Table-Code": t1["codes"][0]})
    assert put.status_code == 200 and put.data["status"] == "entered"
    asked = _sent(wired, "confirm_result")
    other = ids.index(t1["sides"][1]["entry_id"]) + 1
    assert sorted(s["to"] for s in asked) == [f"+861391000{other:04d}", f"+861392000{other:04d}"]
    assert asked[0]["params"]["table"] == "1" and asked[0]["params"]["link"].endswith(
        f"/score.html?e={eid}&r={rnd['number']}&t=1")
    confirm = api.post(f"/events/{eid}/rounds/{rnd['number']}/tables/1/confirm", token=None,
                       headers={"X-Table-Code": t1["codes"][1]})
    assert confirm.status_code == 200 and len(_sent(wired, "confirm_result")) == 2   # confirming asks nobody


def test_a_refund_is_told_with_its_amount_once(api, wired, fake_stripe):
    from tests.api.test_registration import webhook
    tid = api.post("/tournaments", tournament_body()).data["id"]
    eid = make_event(api, tid)                                        # 2,000 per person: 4,000 for the pair
    r = register(api, eid, _pair(7, both=False)).data
    webhook(api, "evt_ok", "checkout.session.completed", fake_stripe.pay(list(fake_stripe.sessions)[0], "pi_ok"))
    c = api.delete(f"/entries/{r['entry']['id']}", token=None, headers={"X-Manage-Token": r["manage_token"]})
    assert c.data["payment_state"] == "refunded"
    [sms] = _sent(wired, "refunded")
    assert sms["to"] == "+8613910000007" and sms["params"] == {"event": "掼蛋积分赛", "amount": "¥40.00"}


def test_ten_minutes_before_a_hold_ends_the_player_is_told_once(api, wired, fake_stripe, monkeypatch):
    from chalicelib.api.jobs import deliver_messages
    from chalicelib.messages import outbox
    monkeypatch.setattr(outbox, "_holds_checked_until", None)        # this process's window, per test clock
    clock = bootstrap.deps().clock
    tid = api.post("/tournaments", tournament_body()).data["id"]
    eid = make_event(api, tid)
    r = register(api, eid, _pair(8, both=False)).data
    assert r["entry"]["status"] == "pending_payment"
    ends = r["entry"]["hold_expires_at"]
    deliver_messages()
    clock.advance(minutes=24)                                        # 11 minutes left (a 35-minute hold)
    deliver_messages()
    assert [s["kind"] for s in wired.sms] == ["registration_received"]
    clock.advance(minutes=2)                                         # 9 minutes left
    deliver_messages()
    clock.advance(minutes=1)
    deliver_messages()
    [sms] = [s for s in wired.sms if s["kind"] == "hold_ending"]
    from datetime import datetime
    from zoneinfo import ZoneInfo
    at = datetime.fromisoformat(ends.replace("Z", "+00:00")).astimezone(ZoneInfo("Asia/Shanghai")).strftime("%H:%M")
    assert sms["to"] == "+8613910000008" and sms["params"]["deadline"] == at
    monkeypatch.setattr(outbox, "_holds_checked_until", None)        # another process (a cold start) looks again
    deliver_messages()
    assert len([s for s in wired.sms if s["kind"] == "hold_ending"]) == 1


def test_a_days_registration_sends_its_manage_link_to_the_contact_once(api, wired):
    from tests.api.test_day_registration import day, members, setup
    tid, tractor, guan = setup(api)
    items = [{"event_id": tractor, "name": "河池一队", "members": members()},
             {"event_id": guan, "name": "河池一队", "members": members()}]
    first = day(api, tid, items)
    again = day(api, tid, items)                                      # the same Idempotency-Key: a retry
    assert first.status_code == 201 and again.data["registration"]["id"] == first.data["registration"]["id"]
    [sms] = _sent(wired, "registration_received")
    reg_id, token = first.data["registration"]["id"], first.data["manage_token"]
    assert sms["to"] == "+8613800000001" and sms["params"]["link"].endswith(f"/entry.html?reg={reg_id}#token={token}")
