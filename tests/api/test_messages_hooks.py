"""Issue 41's messages as the bus's handlers: the fee paid (RegistrationConfirmed), an appeal decided
(AppealDecided) and a draw (RoundDrawn: one job the worker fans out) each tell their people once, however often
their cause is delivered; sent by the worker through the real Tencent Cloud SDK to its local stand-in."""
from __future__ import annotations

from chalicelib import bootstrap
from chalicelib.messages import outbox
from chalicelib.messages.outbox import deliver_due
from chalicelib.domain.events import RoundClosed
from tests.api.play import close, draw, enter_and_confirm, people, setup_event
from tests.api.test_appeals_hold_results import DDZ
from tests.api.test_registration import make_event, register, webhook
from tests.factories import tournament_body


def _sent(standins, kind):
    deliver_due(bootstrap.deps(), bootstrap.deps().clock())
    return [s for s in standins.sms if s["kind"] == kind]


def test_the_fee_paid_is_told_once_even_when_the_provider_notifies_twice(api, wired, fake_stripe):
    tid = api.post("/tournaments", tournament_body()).data["id"]
    eid = make_event(api, tid)
    r = register(api, eid, {"name": "队7", "members": [{"name": "甲", "phone": "13910000007"}, {"name": "乙"}]}).data
    paid_session = fake_stripe.pay(list(fake_stripe.sessions)[0], "pi_ok")
    assert webhook(api, "evt_1", "checkout.session.completed", paid_session).status_code == 200
    assert webhook(api, "evt_2", "checkout.session.completed", paid_session).status_code == 200   # sent again
    [sms] = _sent(wired, "paid")
    assert sms["to"] == "+8613910000007" and sms["params"] == {"event": "掼蛋积分赛"}
    assert sorted(s["kind"] for s in wired.sms) == ["paid", "registration_received"]
    assert r["entry"]["id"] in [m.cause.split(":")[1] for m in bootstrap.deps().repos.messages.for_tournament(tid)
                                if m.kind == "paid"]


def test_the_appellant_is_told_the_decision_and_everyone_their_final_place_once_it_is_final(api, wired):
    tid, eid, ids = setup_event(api, DDZ, people(3))
    phone = {e: f"+86139{ids.index(e):04d}0000" for e in ids}
    rnd = draw(api, eid)
    a, b, c = (s["entry_id"] for s in rnd["tables"][0]["sides"])
    ap = api.post(f"/events/{eid}/rounds/1/tables/1/appeals", {"entry_id": b, "text": "第三副记错"}).data
    enter_and_confirm(api, eid, rnd, rnd["tables"][0], {"final": {"small_points": {a: 12, b: -4, c: -8}}})
    close(api, eid, 1)                                 # the last round: places final but for the open appeal
    api.post(f"/appeals/{ap['id']}/fee", {"method": "cash"})
    assert _sent(wired, "appeal_decided") == [] and _sent(wired, "prize") + _sent(wired, "final_place") == []
    assert api.post(f"/appeals/{ap['id']}/decision", {"outcome": "rejected", "ruling": "维持原判"}).status_code == 200
    [sms] = _sent(wired, "appeal_decided")
    assert sms["to"] == phone[b] and sms["params"] == {"event": "二打一", "decision": "申诉驳回：维持原判"}
    prizes = {s["to"]: s["params"]["prize"] for s in _sent(wired, "prize")}
    places = {s["to"]: s["params"]["place"] for s in _sent(wired, "final_place")}
    assert (prizes[phone[a]], prizes[phone[b]]) == ("一等奖（¥500.00）", "二等奖（¥300.00）")
    assert places == {phone[c]: "3"}
    bootstrap.deps().dispatch([RoundClosed(tid, eid, 0, 1)])             # asked again: nothing new
    assert len(_sent(wired, "prize")) == 2 and len(_sent(wired, "final_place")) == 1


def test_a_draw_is_one_job_in_its_request_and_a_failed_fan_out_is_tried_again(api, wired, monkeypatch):
    """The draw's request writes one outbox item; the worker's fan-out, failing once, is tried after its back-off
    and then queues each player's table once."""
    tid, eid, ids = setup_event(api, DDZ, people(3))
    real, calls = outbox.on_round_drawn, []

    def flaky(*args):
        calls.append(args)
        if len(calls) == 1:
            raise ConnectionError("the store did not answer")
        return real(*args)
    monkeypatch.setattr(outbox, "on_round_drawn", flaky)
    before = len(bootstrap.deps().repos.messages.for_tournament(tid))   # the three manage links
    draw(api, eid)
    [job] = [m for m in bootstrap.deps().repos.messages.for_tournament(tid) if m.kind != "registration_received"]
    assert len(bootstrap.deps().repos.messages.for_tournament(tid)) == before + 1
    assert (job.channel, job.kind) == ("job", "draw_round")
    assert _sent(wired, "draw") == [] and len(calls) == 1
    clock = bootstrap.deps().clock
    clock.advance(seconds=31)                                          # the first back-off
    got = _sent(wired, "draw")
    assert sorted(s["to"] for s in got) == [f"+86139{i:04d}0000" for i in range(3)]
    assert {s["params"]["table"] for s in got} == {"1"}
    clock.advance(hours=1)
    assert len(_sent(wired, "draw")) == 3 and len(calls) == 2           # done: never fanned out again
    listed = api.get(f"/tournaments/{tid}/messages").data["messages"]
    assert sorted(m["template"] for m in listed) == ["draw"] * 3 + ["registration_received"] * 3   # no job shown


def test_a_hold_that_runs_out_tells_its_people_the_place_went(api, wired, fake_stripe):
    from chalicelib.api.jobs import sweep_holds
    tid = api.post("/tournaments", tournament_body()).data["id"]
    eid = make_event(api, tid)
    r = register(api, eid, {"name": "队9", "members": [{"name": "甲", "phone": "13910000009"}, {"name": "乙"}]}).data
    assert r["entry"]["status"] == "pending_payment"
    bootstrap.deps().clock.advance(minutes=36)                       # past the 35-minute hold
    assert sweep_holds()["released"] == 1
    assert sweep_holds()["released"] == 0
    [sms] = _sent(wired, "hold_released")
    assert sms["to"] == "+8613910000009" and sms["params"]["link"].endswith(f"/entry.html?id={r['entry']['id']}")


def test_a_promotion_and_a_fee_paid_carry_their_messages_in_their_own_write(api, wired, fake_stripe, monkeypatch):
    """Not left to a handler after the commit (a Lambda dying there would lose them): with the bus's handlers
    off, the promoted player's deadline and the payer's confirmation are queued all the same."""
    from chalicelib.domain.bus import MessageBus
    monkeypatch.setattr(bootstrap.deps(), "bus", MessageBus({}))
    tid = api.post("/tournaments", tournament_body()).data["id"]
    eid = make_event(api, tid, capacity=1)
    first = register(api, eid, {"name": "队1", "members": [{"name": "甲", "phone": "13910000001"}, {"name": "乙"}]}).data
    waiting = register(api, eid, {"name": "队2", "members": [{"name": "丙", "phone": "13910000002"}, {"name": "丁"}]}).data
    assert waiting["entry"]["status"] == "waitlisted"
    assert webhook(api, "evt_p1", "checkout.session.completed",
                   fake_stripe.pay(list(fake_stripe.sessions)[0], "pi_1")).status_code == 200
    assert api.delete(f"/entries/{first['entry']['id']}", token=None,
                      headers={"X-Manage-Token": first["manage_token"]}).status_code == 200
    kinds = sorted(m.kind for m in bootstrap.deps().repos.messages.for_tournament(tid))
    assert kinds == ["paid", "refunded", "registration_received", "registration_received", "waitlist_promoted"]
