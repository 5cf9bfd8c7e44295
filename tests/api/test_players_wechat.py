"""Sign-in inside WeChat (api.md v1.3 "Players": `{"wechat_code"}`, bound to a phone once): the official account's
one-use code exchanged at WeChat's sns/oauth2/access_token (a fake answering as WeChat does), an openid not yet
bound answered 409 wechat_phone_required with a ticket, the phone proved once by its SMS code (the Tencent Cloud stand-in)
and then the code alone signs in; one openid, one player, for good; the openid in no answer and no log line; and
the player's WeChat messages go to the openid bound, found by the phone (never from a form)."""
from __future__ import annotations

import io
import json
import logging
import urllib.request

import pytest

from chalicelib import bootstrap
from chalicelib.messages.outbox import deliver_due
from tests.api.play import draw, people, setup_event
from tests.api.test_appeals_hold_results import DDZ
from tests.fakes_china import FakeWeChatPay
from tests.fakes_china_http import FakeWeChatOAuth

PHONE, OTHER = "13612345678", "13987654321"


@pytest.fixture
def oauth(moto_repos, monkeypatch):
    """The platform's official account (WeChat Pay's AppID + AppSecret) and WeChat's OAuth server behind urlopen."""
    pay = FakeWeChatPay()
    gw = pay.gateway()
    gw._app_secret = FakeWeChatOAuth.SECRET
    bootstrap.deps().providers["wechat_pay"] = gw
    fake = FakeWeChatOAuth(pay.APPID)

    def urlopen(url, timeout=None):
        assert url.startswith("https://api.weixin.qq.com/sns/oauth2/access_token?") and timeout
        return io.BytesIO(fake.answer(url)[2].encode())
    monkeypatch.setattr(urllib.request, "urlopen", urlopen)
    return fake


def _wechat(api, oauth, openid):
    return api.post("/players/sign-in", {"wechat_code": oauth.consent(openid)}, token=None)


def _bind(api, standins, ticket, phone=PHONE):
    bootstrap.deps().clock.advance(minutes=1, seconds=1)   # one code a minute per phone
    assert api.post("/players/codes", {"phone": phone}, token=None).status_code == 202
    code = [s for s in standins.sms if s["to"] == "+86" + phone][-1]["params"]["code"]
    return api.post("/players/sign-in", {"phone": phone, "code": code, "binding_ticket": ticket}, token=None)


def _me(api, token):
    return api.get("/players/me", token=None, headers={"X-Player-Token": token})


def test_bound_once_by_phone_then_the_wechat_code_alone_signs_in(api, wired, oauth, caplog):
    caplog.set_level(logging.INFO)
    caplog.set_level(logging.DEBUG, logger="cardgames")
    first = _wechat(api, oauth, "oPlayerOne")
    assert first.status_code == 409 and first.data["code"] == "wechat_phone_required"
    ticket = first.data["details"]["binding_ticket"]
    assert "token" not in first.data and "oPlayerOne" not in json.dumps(first.data)
    bound = _bind(api, wired, ticket)
    assert bound.status_code == 200, bound.data
    player_id = bound.data["player"]["id"]
    again = _wechat(api, oauth, "oPlayerOne")                          # now the code alone
    assert again.status_code == 200 and again.data["player"] == {"id": player_id, "phone_masked": "136****5678"}
    me = _me(api, again.data["token"])
    assert me.status_code == 200 and me.data["id"] == player_id
    exported = api.get("/players/me/export", token=None, headers={"X-Player-Token": again.data["token"]})
    for answer in (bound, again, me, exported):
        assert "oPlayerOne" not in json.dumps(answer.data, default=str)
    assert "oPlayerOne" not in caplog.text and ticket not in caplog.text
    # the ticket was used: it binds nothing again
    reused = _bind(api, wired, ticket, OTHER)
    assert reused.status_code == 400 and reused.data["code"] == "binding_ticket_invalid"


def test_one_openid_one_player_and_rebinding_is_refused(api, wired, oauth):
    _bind(api, wired, _wechat(api, oauth, "oPlayerOne").data["details"]["binding_ticket"])
    # another WeChat cannot reach that player: it is asked for a phone, and that phone is already another's
    other = _wechat(api, oauth, "oIntruder")
    assert other.status_code == 409 and other.data["code"] == "wechat_phone_required"
    refused = _bind(api, wired, other.data["details"]["binding_ticket"])
    assert refused.status_code == 409 and refused.data["code"] == "wechat_already_bound"
    assert refused.data["details"]["reason"] == "phone_bound_to_another_wechat"
    assert _wechat(api, oauth, "oIntruder").data["code"] == "wechat_phone_required"   # still not bound to anyone
    # the bound WeChat cannot be moved to another phone either
    moved = _bind(api, wired, _wechat(api, oauth, "oPlayerOne").data.get("details", {}).get("binding_ticket", "x"),
                  OTHER)
    assert moved.status_code == 400     # bound: it signs in (no ticket is given), so no ticket can move it
    clock = bootstrap.deps().clock
    ticket = _wechat(api, oauth, "oPlayerTwo").data["details"]["binding_ticket"]
    assert _bind(api, wired, ticket, OTHER).status_code == 200
    repos = bootstrap.deps().repos
    from chalicelib.installation import lookup_hash
    repos.players.put_wechat_ticket("forged", "oPlayerOne", int(clock().timestamp()) + 600)
    with pytest.raises(Exception) as refused_in_store:   # the store's transaction refuses a race past the checks
        repos.players.bind_wechat(lookup_hash("phone", "+86" + OTHER), lookup_hash("wechat", "oPlayerOne"),
                                  "oPlayerOne", "forged", int(clock().timestamp()))
    assert getattr(refused_in_store.value, "code", "") == "wechat_already_bound"


def test_an_unknown_used_or_expired_code_or_ticket_is_refused(api, wired, oauth):
    bad = api.post("/players/sign-in", {"wechat_code": "not-a-code"}, token=None)
    assert bad.status_code == 400 and bad.data["code"] == "wechat_code_invalid"
    code = oauth.consent("oPlayerOne")
    assert api.post("/players/sign-in", {"wechat_code": code}, token=None).status_code == 409
    assert api.post("/players/sign-in", {"wechat_code": code}, token=None).data["code"] == "wechat_code_invalid"
    mixed = api.post("/players/sign-in", {"wechat_code": "abc", "phone": PHONE, "code": "123456"}, token=None)
    assert mixed.status_code == 400 and mixed.data["code"] == "invalid_request"
    ticket = _wechat(api, oauth, "oPlayerOne").data["details"]["binding_ticket"]
    bootstrap.deps().clock.advance(minutes=10)
    late = _bind(api, wired, ticket)
    assert late.status_code == 400 and late.data["code"] == "binding_ticket_invalid"
    forged = _bind(api, wired, "wt_forged")
    assert forged.status_code == 400 and forged.data["code"] == "binding_ticket_invalid"


def test_without_the_official_accounts_secret_wechat_sign_in_is_off(api, oauth):
    bootstrap.deps().providers["wechat_pay"]._app_secret = None
    r = api.post("/players/sign-in", {"wechat_code": "abc"}, token=None)
    assert r.status_code == 409 and r.data["code"] == "wechat_sign_in_off"


def test_the_draw_goes_to_the_bound_openid_and_not_to_an_unbound_one(api, wired, oauth):
    """The WeChat channel's openid comes from the binding (looked up by the member's phone), never from the entry."""
    tid, eid, ids = setup_event(api, DDZ, people(3))
    repos = bootstrap.deps().repos
    entry = repos.entries.get(eid, ids[0])
    phone = entry.members[0].phone
    ticket = _wechat(api, oauth, "oBoundPlayer").data["details"]["binding_ticket"]
    bootstrap.deps().clock.advance(minutes=1, seconds=1)
    assert api.post("/players/codes", {"phone": phone}, token=None).status_code == 202
    code = [s for s in wired.sms if s["kind"] == "sign_in_code"][-1]["params"]["code"]
    signed = api.post("/players/sign-in", {"phone": phone, "code": code, "binding_ticket": ticket}, token=None)
    assert signed.status_code == 200, signed.data
    _wechat(api, oauth, "oNeverBound")                                      # asked for a phone, never gave one
    rnd = draw(api, eid)
    deps = bootstrap.deps()
    deliver_due(deps, deps.clock()), deliver_due(deps, deps.clock())
    chats = [w for w in wired.wechat if w["kind"] == "draw"]
    assert [c["to"] for c in chats] == ["oBoundPlayer"]
    side = next(s for s in rnd["tables"][0]["sides"] if s["entry_id"] == ids[0])
    assert chats[0]["data"]["table"] == "1" and side["seats"]
    assert len([s for s in wired.sms if s["kind"] == "draw"]) == 3               # the SMS goes all the same
    assert repos.entries.get(eid, ids[0]).wechat_openid is None                   # never copied onto the entry
    listed = api.get(f"/tournaments/{tid}/messages").data["messages"]
    assert "oBoundPlayer" not in json.dumps(listed)
    # the director's notice reaches the chat too; once the player turns WeChat messages off, by SMS only
    assert api.post(f"/tournaments/{tid}/messages", {"text": "12:30 报到", "to": "all"}).status_code in (200, 202)
    deliver_due(deps, deps.clock())
    assert [w["to"] for w in wired.wechat if w["kind"] == "notice"] == ["oBoundPlayer"]
    api.patch("/players/me", {"notify": {"sms": True, "email": True, "wechat": False}}, token=None,
              headers={"X-Player-Token": signed.data["token"]})
    wired.wechat.clear()
    assert api.post(f"/tournaments/{tid}/messages", {"text": "13:00 开赛", "to": "all"}).status_code in (200, 202)
    deliver_due(deps, deps.clock())
    assert [w for w in wired.wechat if w["kind"] == "notice"] == []


def test_erasure_forgets_the_binding_and_the_wechat_may_bind_again(api, wired, oauth):
    bound = _bind(api, wired, _wechat(api, oauth, "oPlayerOne").data["details"]["binding_ticket"])
    token = bound.data["token"]
    exported = api.get("/players/me/export", token=None, headers={"X-Player-Token": token}).data
    assert exported["player"]["wechat_bound"] is True and "oPlayerOne" not in json.dumps(exported)
    assert api.delete("/players/me", token=None, headers={"X-Player-Token": token}).status_code == 200
    again = _wechat(api, oauth, "oPlayerOne")
    assert again.status_code == 409 and again.data["code"] == "wechat_phone_required"   # bound to no one now
    assert _bind(api, wired, again.data["details"]["binding_ticket"], OTHER).status_code == 200
    assert _wechat(api, oauth, "oPlayerOne").data["player"]["phone_masked"] == "139****4321"
