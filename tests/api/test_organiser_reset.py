"""The organiser's password reset by SMS code (issue 41 item 4), through the real Tencent Cloud SDK to its local
stand-in: the same answer for an account that does not exist, a code to the account's phone (its login, or the
phone an e-mail account confirmed in the console), wrong/used codes refused, the sign-up's password rules, every old
session ended; the player codes' limits apply; no code or phone in a log line."""
from __future__ import annotations

import logging

from chalicelib import bootstrap
from chalicelib.messages.outbox import deliver_due
from chalicelib.services.organisers import create_account

PHONE, EMAIL_PHONE = "13712345678", "13787654321"


def _codes(standins, phone):
    return [s["params"]["code"] for s in standins.sms if s["to"] == "+86" + phone]


def _worker_pass():
    """The outbox worker's pass (make run's thread, AWS's scheduled function): a reset's code is sent there."""
    deliver_due(bootstrap.deps())


def _session(api, login, password):
    r = api.post("/auth/sign-in", {"login": login, "password": password}, token=None)
    return r.data["token"] if r.status_code == 200 else None


def test_reset_by_code_to_the_login_phone_ends_old_sessions(api, wired, caplog):
    caplog.set_level(logging.DEBUG, logger="cardgames")
    create_account(bootstrap.deps(), "甲商会", PHONE, "old password")
    old = _session(api, PHONE, "old password")
    assert api.get("/organiser", token=old).status_code == 200
    asked = api.post("/auth/password-reset", {"login": "137 1234 5678"}, token=None)
    nobody = api.post("/auth/password-reset", {"login": "13700000000"}, token=None)
    assert asked.status_code == nobody.status_code == 202 and asked.data == nobody.data == {"retry_after": 60}
    _worker_pass()
    [code] = _codes(wired, PHONE)
    assert wired.sms[-1]["kind"] == "organiser_code" and not _codes(wired, "13700000000")
    wrong = f"{(int(code) + 1) % 10 ** 6:06d}"
    body = {"login": PHONE, "password": "new password"}
    assert api.post("/auth/password-reset/confirm", {**body, "code": wrong}, token=None).status_code == 401
    short = api.post("/auth/password-reset/confirm", {**body, "code": code, "password": "short"}, token=None)
    assert short.status_code == 400 and short.data["code"] == "invalid_request"
    done = api.post("/auth/password-reset/confirm", {**body, "code": code}, token=None)
    assert done.status_code == 200 and done.data == {"reset": True}
    assert api.post("/auth/password-reset/confirm", {**body, "code": code}, token=None).status_code == 401   # once
    assert api.get("/organiser", token=old).status_code == 401                      # the old session is over
    assert _session(api, PHONE, "old password") is None and _session(api, PHONE, "new password")
    assert code not in caplog.text and PHONE not in caplog.text and "new password" not in caplog.text


def test_an_e_mail_account_confirms_a_phone_then_resets_by_it_and_limits_hold(api, wired):
    create_account(bootstrap.deps(), "乙商会", "boss@club.cn", "old password")
    token = _session(api, "boss@club.cn", "old password")
    assert api.get("/organiser/phone", token=token).data == {"phone_masked": None}
    api.post("/auth/password-reset", {"login": "boss@club.cn"}, token=None)
    _worker_pass()
    assert wired.sms == []                                        # no phone yet: nothing sent, the same answer
    bootstrap.deps().clock.advance(minutes=1)
    assert api.post("/organiser/phone/code", {"phone": EMAIL_PHONE}, token=token).status_code == 202
    [code] = _codes(wired, EMAIL_PHONE)
    assert api.put("/organiser/phone", {"phone": EMAIL_PHONE, "code": "000000" if code != "000000" else "111111"},
                   token=token).status_code == 401
    assert api.put("/organiser/phone", {"phone": EMAIL_PHONE, "code": code}, token=token).data == \
        {"phone_masked": "137****4321"}
    assert api.get("/organiser/phone", token=token).data == {"phone_masked": "137****4321"}
    assert "phone" not in str(api.get("/organiser", token=token).data)    # never in the organiser's own answer
    bootstrap.deps().clock.advance(minutes=1)
    assert api.post("/auth/password-reset", {"login": "BOSS@club.cn"}, token=None).status_code == 202
    _worker_pass()
    code = _codes(wired, EMAIL_PHONE)[-1]
    assert api.post("/auth/password-reset/confirm", {"login": "boss@club.cn", "code": code,
                                                     "password": "brand new one"}, token=None).status_code == 200
    assert _session(api, "boss@club.cn", "brand new one")
    # limited like a player's codes: a second ask within the minute is refused, for a missing account as well
    again = api.post("/auth/password-reset", {"login": "boss@club.cn"}, token=None)
    assert again.status_code == 429 and again.data["code"] == "rate_limited"
    api.post("/auth/password-reset", {"login": "ghost@club.cn"}, token=None)
    assert api.post("/auth/password-reset", {"login": "ghost@club.cn"}, token=None).status_code == 429
    staff_only = api.post("/organiser/phone/code", {"phone": EMAIL_PHONE}, token=None)
    assert staff_only.status_code == 401


def test_a_reset_asked_for_a_known_account_does_the_same_work_as_for_an_unknown_one(api, wired, nudges):
    """No timing tells an account apart (review finding): the request for an account with a phone made the
    provider's call and wrote its code, the unknown one did neither. Now both make the same store calls, the same
    nudge of the worker (SQS) and no provider call; the worker's pass sends the code, to the known account only."""
    from chalicelib.messages.nudge import nudger
    from chalicelib.store import dynamo
    create_account(bootstrap.deps(), "丙商会", PHONE, "old password")
    calls: list[str] = []

    def note(event_name=None, **_):
        calls.append(event_name.split(".", 1)[-1])
    ask = []
    # the first ask creates the client's bucket (a write of another kind) and the nudge's SQS client (made on the
    # first nudge): both compared asks come after it
    assert api.post("/auth/password-reset", {"login": "13700000009"}, token=None).status_code == 202
    watched = (dynamo.client().meta.events, nudger(bootstrap.deps())._sqs().meta.events)
    for events in watched:
        events.register("before-call", note)
    try:
        for login in (PHONE, "13700000001"):
            calls.clear()
            assert api.post("/auth/password-reset", {"login": login}, token=None).status_code == 202
            ask.append(list(calls))
            assert wired.sms == []                          # nothing sent inside the request
    finally:
        for events in watched:
            events.unregister("before-call", note)
    known, unknown = ask
    assert known == unknown and known                  # the limits' writes, the job's and its nudge, either way
    assert known.count("sqs.SendMessage") == 1 and known[-1] == "sqs.SendMessage"   # after the job is written
    _worker_pass()
    assert len(_codes(wired, PHONE)) == 1 and not _codes(wired, "13700000001")
