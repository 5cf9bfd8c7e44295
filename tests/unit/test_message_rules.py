"""Quiet hours and the reader's language (issue 41): a message that is not urgent waits out 21:00–08:00 in the
tournament's own zone (`now` passed in: pure); a draw or a result to confirm goes whatever the hour; each message
is in the entry's language, else the one the player's record keeps, else Chinese."""
from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace
from zoneinfo import ZoneInfo

import pytest

from chalicelib.messages import record
from chalicelib.messages.outbox import player_language

SHANGHAI, SAIGON = ZoneInfo("Asia/Shanghai"), ZoneInfo("Asia/Ho_Chi_Minh")


def _new(kind: str, local: datetime, tz: str) -> record.Message:
    return record.new(id="m1", cause="c", kind=kind, channel="sms", to="13900000000", now=local.astimezone(UTC),
                      tz=tz)


@pytest.mark.parametrize("local, due", [
    (datetime(2026, 12, 5, 22, 30, tzinfo=SHANGHAI), datetime(2026, 12, 6, 8, 0, tzinfo=SHANGHAI)),
    (datetime(2026, 12, 5, 21, 0, tzinfo=SHANGHAI), datetime(2026, 12, 6, 8, 0, tzinfo=SHANGHAI)),
    (datetime(2026, 12, 6, 7, 59, tzinfo=SHANGHAI), datetime(2026, 12, 6, 8, 0, tzinfo=SHANGHAI)),
    (datetime(2026, 12, 6, 0, 10, tzinfo=SHANGHAI), datetime(2026, 12, 6, 8, 0, tzinfo=SHANGHAI)),
    (datetime(2026, 12, 6, 8, 0, tzinfo=SHANGHAI), datetime(2026, 12, 6, 8, 0, tzinfo=SHANGHAI)),
    (datetime(2026, 12, 6, 20, 59, tzinfo=SHANGHAI), datetime(2026, 12, 6, 20, 59, tzinfo=SHANGHAI)),
])
def test_a_prize_or_a_refund_waits_for_the_morning_in_the_tournaments_zone(local, due):
    for kind in ("prize", "refunded", "appeal_decided", "final_place"):
        assert _new(kind, local, "Asia/Shanghai").next_at == due.astimezone(UTC)


def test_the_quiet_hours_are_the_tournaments_own_not_the_servers():
    # 21:30 in Saigon is 22:30 in Shanghai: quiet in both, each until its own 08:00
    at = datetime(2026, 12, 5, 21, 30, tzinfo=SAIGON)
    assert _new("prize", at, "Asia/Ho_Chi_Minh").next_at == datetime(2026, 12, 6, 8, 0, tzinfo=SAIGON)
    # 07:30 in Saigon is 08:30 in Shanghai: a Shanghai tournament sends now, a Saigon one waits half an hour
    at = datetime(2026, 12, 6, 7, 30, tzinfo=SAIGON)
    assert _new("prize", at, "Asia/Shanghai").next_at == at
    assert _new("prize", at, "Asia/Ho_Chi_Minh").next_at == datetime(2026, 12, 6, 8, 0, tzinfo=SAIGON)


def test_the_draw_and_a_result_to_confirm_go_at_any_hour():
    night = datetime(2026, 12, 5, 23, 45, tzinfo=SHANGHAI)
    for kind in ("draw", "confirm_result", "sign_in_code", "registration_received", "waitlist_promoted",
                 "hold_ending", "payment_failed", "notice", "organiser_code"):
        assert _new(kind, night, "Asia/Shanghai").next_at == night


class _Players:
    def __init__(self, langs):
        self.langs, self.asked = langs, []

    def by_phone_hash(self, h):
        self.asked.append(h)
        return {"lang": self.langs[h]} if h in self.langs else None


def test_the_entrys_language_then_the_players_then_chinese():
    from chalicelib.installation import lookup_hash
    players = _Players({lookup_hash("phone", "13900000001"): "vi"})
    deps = SimpleNamespace(repos=SimpleNamespace(players=players))
    assert player_language(deps, SimpleNamespace(lang="en"), "13900000001") == "en"       # the entry's own
    assert players.asked == []                                                             # no read needed
    assert player_language(deps, SimpleNamespace(lang=None), "13900000001") == "vi"       # the player's
    assert player_language(deps, SimpleNamespace(), "13900000002") == "zh-CN"             # nobody's: Chinese
    assert player_language(deps, SimpleNamespace(), "a@example.com") == "zh-CN"           # an e-mail: no lookup
    assert len(players.asked) == 2
