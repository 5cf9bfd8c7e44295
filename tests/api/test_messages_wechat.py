"""WeChat official-account template messages behind the message port (issue 41): the sender on WeChat's HTTP API
(an access token from /cgi-bin/token, kept and renewed when WeChat says it is stale; /cgi-bin/message/template/send)
against its local stand-in, and a player who registered inside WeChat gets the draw in the chat beside the SMS."""
from __future__ import annotations

from datetime import UTC, datetime

import pytest

from chalicelib.messages import record, wechat_mp
from chalicelib.messages.setup import from_config

NOW = datetime(2026, 12, 1, 2, 0, tzinfo=UTC)


@pytest.fixture
def sender(standins, monkeypatch):
    monkeypatch.setattr(wechat_mp, "_tokens", {})          # this process's token cache, per test
    standins.wechat.clear(), standins.wechat_tokens.clear(), standins.refused.clear(), standins.fail_next(0)
    return from_config(standins.config()).senders["wechat"]


def _message(kind="waitlist_promoted", to="oPlayerOne", **params):
    return record.new(id="m1", cause="c", kind=kind, channel="wechat", to=to, now=NOW,
                      params=params or {"event": "掼蛋积分赛", "deadline": "12-01 10:35",
                                        "link": "https://example.test/entry.html?id=E1"})


def test_a_template_message_with_one_token_kept_and_renewed_when_stale(sender, standins):
    assert sender.send(_message(), "").ok
    [got] = standins.wechat
    assert got["to"] == "oPlayerOne" and got["kind"] == "waitlist_promoted"
    assert got["data"] == {"event": "掼蛋积分赛", "deadline": "12-01 10:35"}       # the link is the message's url
    assert got["url"] == "https://example.test/entry.html?id=E1"
    assert sender.send(_message(), "").ok and len(standins.wechat_tokens) == 1     # the token kept
    standins.expire_wechat_token()                                               # another process took a new one
    assert sender.send(_message(), "").ok and len(standins.wechat) == 3
    assert len([t for t in standins.wechat_tokens if t]) == 2                    # fetched again, once


def test_what_a_retry_cannot_change_fails_at_once_and_a_wechat_outage_is_tried_again(sender, standins):
    standins.not_following.add("oNotFollowing")
    refused = sender.send(_message(to="oNotFollowing"), "")
    assert (refused.error, refused.permanent) == ("refused", True)
    missing = wechat_mp.WechatTemplates({**sender.config, "templates": {}}).send(_message(), "")
    assert (missing.error, missing.permanent) == ("no_template", True)
    standins.fail_next(1)
    down = sender.send(_message(), "")
    assert (down.error, down.permanent) == ("unavailable", False)
    wechat_mp._tokens.clear()                                                    # no token kept: asked anew
    wrong = wechat_mp.WechatTemplates({**sender.config, "app_secret": "wrong"})
    assert wrong.send(_message(), "").permanent                                   # 40125: the secret is wrong


# A player's draw in the chat, to the openid bound by its WeChat sign-in: tests/api/test_players_wechat.py
