"""A player's choice of channels (PATCH /players/me notify: sms, email, wechat) is honoured by every message the
outbox builds for an entry (review finding: only wechat was): a channel turned off is not used, urgent or not, while
another channel the player left on reaches them; only an urgent message to a player who turned every channel off
still goes by SMS (messages/outbox.member_channels says why). Codes are the player's own asking: not governed."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from chalicelib import bootstrap
from chalicelib.installation import lookup_hash
from chalicelib.messages import outbox
from chalicelib.store.entries import phone_hash_of

PHONE, PARTNER = "+8613911112222", "+8613933334444"


def _player(phone, notify=None, openid=None):
    deps = bootstrap.deps()
    h = phone_hash_of(phone)
    deps.repos.players.get_or_create(h, f"p{phone[-4:]}", phone, deps.clock().isoformat())
    if notify is not None:
        deps.repos.players.update_profile(h, {"notify": notify})
    if openid:
        now = int(deps.clock().timestamp())
        deps.repos.players.put_wechat_ticket("t" + openid, openid, now + 600)
        deps.repos.players.bind_wechat(h, lookup_hash("wechat", openid), openid, "t" + openid, now)


def _entry():
    return SimpleNamespace(id="E1", tournament_id="T1", event_id="V1", lang=None, members=[
        SimpleNamespace(phone=PHONE, email="me@club.cn"), SimpleNamespace(phone=PARTNER, email=None)])


def _sent(kind):
    deps = bootstrap.deps()
    return sorted((m.channel, m.to) for m in outbox.entry_messages(deps, _entry(), "c", kind, {"event": "x"},
                                                                   deps.clock(), "Asia/Shanghai"))


@pytest.mark.parametrize("kind", ["refunded", "draw", "notice"])   # not urgent; urgent ones
def test_a_channel_turned_off_is_not_used_while_another_reaches_the_player(moto_repos, kind):
    _player(PHONE, {"sms": False, "email": True, "wechat": True})
    _player(PARTNER)                                                     # the partner chose nothing: every channel
    assert _sent(kind) == [("email", "me@club.cn"), ("sms", PARTNER)]
    _player(PHONE, {"sms": True, "email": False, "wechat": True})
    assert _sent(kind) == [("sms", PHONE), ("sms", PARTNER)]


def test_sms_off_with_wechat_bound_goes_to_the_chat_only(moto_repos):
    _player(PHONE, {"sms": False, "email": False, "wechat": True}, openid="oChatOnly")
    assert _sent("hold_ending") == [("sms", PARTNER), ("wechat", "oChatOnly")]


def test_every_channel_off_silences_what_may_wait_but_not_what_must_reach_them(moto_repos):
    _player(PHONE, {"sms": False, "email": False, "wechat": False}, openid="oOff")
    _player(PARTNER, {"sms": False, "email": False, "wechat": False})
    assert _sent("refunded") == [] and _sent("final_place") == []
    assert _sent("hold_ending") == [("sms", PHONE), ("sms", PARTNER)]     # a place's deadline: never missed unaware


def test_the_draw_and_the_notice_follow_the_choice(moto_repos):
    """The two causes that build their messages themselves: a draw's table (on_round_drawn: SMS and chat) and the
    director's notice (queue_notice)."""
    deps = bootstrap.deps()
    _player(PHONE, {"sms": False, "email": True, "wechat": True}, openid="oTable")
    chosen = outbox.member_channels(deps, PHONE, None, True)
    assert chosen == [("wechat", "oTable")]                              # the draw's call: no e-mail for a table
    tournament = SimpleNamespace(id="T1", name="杯", timezone="Asia/Shanghai")
    assert outbox.queue_notice(deps, tournament, [_entry()], "12:30 报到", "k1") == 3
    queued = sorted((m.channel, m.to) for m in deps.repos.messages.for_tournament("T1"))
    assert queued == [("email", "me@club.cn"), ("sms", PARTNER), ("wechat", "oTable")]
