"""Sign-in by phone and SMS code (api.md v1.3 "Players"): the code goes out through the real Tencent Cloud SDK to
its local stand-in at once; wrong, expired, reused codes are refused, and the 11th code of a day, the 2nd of a
minute and the 21st of an hour from one address are limited. The code never reaches a log line."""
from __future__ import annotations

import logging
from datetime import timedelta


from chalicelib import bootstrap

PHONE = "13612345678"


def _ask(api, phone=PHONE, **kw):
    return api.post("/players/codes", {"phone": phone, **kw}, token=None)


def _sign_in(api, code, phone=PHONE):
    return api.post("/players/sign-in", {"phone": phone, "code": code}, token=None)


def _last_code(standins, phone=PHONE) -> str:
    return [s for s in standins.sms if s["to"] == "+86" + phone][-1]["params"]["code"]


def test_a_code_signs_in_once_and_the_session_works(api, wired, caplog):
    caplog.set_level(logging.INFO)
    caplog.set_level(logging.DEBUG, logger="cardgames")
    asked = _ask(api, "136-1234-5678")
    assert asked.status_code == 202 and asked.data == {"retry_after": 60}
    code = _last_code(wired)
    assert len(code) == 6 and code.isdigit() and wired.sms[-1]["kind"] == "sign_in_code"
    wrong = f"{(int(code) + 1) % 10 ** 6:06d}"
    assert _sign_in(api, wrong).status_code == 401
    signed = _sign_in(api, code)
    assert signed.status_code == 200, signed.data
    assert signed.data["player"]["phone_masked"] == "136****5678" and signed.data["token"].startswith("pt_")
    assert _sign_in(api, code).status_code == 401                     # used: once only
    me = api.get("/players/me", token=None, headers={"X-Player-Token": signed.data["token"]})
    assert me.status_code == 200 and me.data["id"] == signed.data["player"]["id"]
    assert api.get("/players/me", token=None, headers={"X-Player-Token": "pt_nonsense"}).status_code == 401
    # the same phone signing in again is the same player
    bootstrap.deps().clock.advance(minutes=1)
    _ask(api)
    assert _sign_in(api, _last_code(wired)).data["player"]["id"] == signed.data["player"]["id"]
    [stored] = [m for m in bootstrap.deps().repos.messages.for_tournament(None) if m.state == "sent"][:1]
    assert "code" not in stored.params                               # the outbox keeps no code once sent
    logged = caplog.text
    assert code not in logged and PHONE not in logged and signed.data["token"] not in logged


def test_expired_and_out_of_tries_codes_are_refused(api, wired):
    _ask(api)
    code = _last_code(wired)
    bootstrap.deps().clock.advance(minutes=10, seconds=1)
    assert _sign_in(api, code).status_code == 401                     # 10 minutes have passed
    bootstrap.deps().clock.advance(minutes=1)
    _ask(api)
    code = _last_code(wired)
    for k in range(5):
        assert _sign_in(api, f"{(int(code) + 1 + k) % 10 ** 6:06d}").status_code == 401
    assert _sign_in(api, code).status_code == 401                     # five wrong tries end the code
    assert _sign_in(api, "12345").status_code == 400


def test_codes_are_limited_per_phone_a_minute_and_a_day_and_per_address_an_hour(api, wired):
    clock = bootstrap.deps().clock
    assert _ask(api).status_code == 202
    again = _ask(api)
    assert again.status_code == 429 and again.data["code"] == "rate_limited"   # a second within the minute
    for _ in range(9):
        clock.advance(minutes=1, seconds=1)
        assert _ask(api).status_code == 202
    clock.advance(minutes=1, seconds=1)
    eleventh = _ask(api)
    assert eleventh.status_code == 429 and eleventh.data["details"]["limit"] == "phone_day"
    assert len([s for s in wired.sms if s["to"] == "+86" + PHONE]) == 10
    clock.advance(days=1)
    assert _ask(api).status_code == 202                               # the next day
    # one address asking for many phones: 20 an hour (its bucket full again after a day; one taken just now)
    answers = [_ask(api, f"1370000{n:04d}") for n in range(21)]
    assert [a.status_code for a in answers] == [202] * 19 + [429] * 2
    assert answers[-1].data["details"]["limit"] == "address"


def test_a_provider_down_leaves_the_code_to_the_workers_retry(api, wired):
    from chalicelib.messages.outbox import deliver_due
    wired.fail_next(1)
    assert _ask(api).status_code == 202                               # queued: the worker retries it
    assert wired.sms == []
    assert deliver_due(bootstrap.deps(), bootstrap.deps().clock() + timedelta(seconds=30))["sent"] == 1
    assert _sign_in(api, _last_code(wired)).status_code == 200
