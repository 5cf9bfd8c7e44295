"""The message record's rules, pure (chalicelib/messages/record.py, templates.py)."""
from datetime import UTC, datetime, timedelta

from chalicelib.messages import record, templates

NOW = datetime(2026, 12, 1, 6, 0, tzinfo=UTC)          # 14:00 in Shanghai


def _msg(kind="registration_received", now=NOW, **kw):
    return record.new(id="m1", cause="registration:E1", kind=kind, channel="sms", to="13812345678", now=now,
                      params={"event": "掼蛋公开赛", "link": "https://x/entry.html#token=secret"},
                      secret_params=("link",), **kw)


def test_non_urgent_waits_for_the_morning_in_the_tournaments_zone():
    late = datetime(2026, 12, 1, 14, 30, tzinfo=UTC)       # 22:30 in Shanghai
    refund = _msg("refunded", now=late)
    assert refund.next_at == datetime(2026, 12, 2, 0, 0, tzinfo=UTC)   # 08:00 next morning there
    assert _msg("refunded", now=late, tz="Europe/London").next_at == late   # 14:30 in London: now
    assert _msg("draw", now=late).next_at == late                       # urgent: now whatever the hour
    early = datetime(2026, 12, 1, 22, 0, tzinfo=UTC)       # 06:00 in Shanghai: the same morning
    assert _msg("prize", now=early).next_at == datetime(2026, 12, 2, 0, 0, tzinfo=UTC)


def test_tries_back_off_then_fail_and_the_secret_goes():
    m = _msg()
    waits = []
    for _ in range(record.MAX_TRIES):
        m = record.failed_try(record.tried(m, NOW), NOW, "unavailable")
        waits.append((m.next_at - NOW) if m.state == "queued" else None)
    assert waits[:4] == [timedelta(seconds=30), timedelta(seconds=60), timedelta(seconds=120), timedelta(seconds=240)]
    assert m.state == "failed" and m.tries == record.MAX_TRIES and m.error == "unavailable"
    assert "link" not in m.params and m.params["event"] == "掼蛋公开赛"
    assert record.back_off(20) == timedelta(hours=1)


def test_a_refusal_fails_at_once_and_a_sent_message_keeps_no_link():
    m = record.failed_try(record.tried(_msg(), NOW), NOW, "refused", permanent=True)
    assert m.state == "failed" and m.tries == 1
    s = record.sent(record.tried(_msg(), NOW), NOW, "tencent_sms", "sn-1")
    assert s.state == "sent" and s.provider_id == "sn-1" and "link" not in s.params
    assert record.delivered(s).state == "delivered" and record.delivered(m).state == "failed"


def test_masks():
    assert record.masked("13812345678") == "138****5678"
    assert record.masked("+84912345678") == "+849****5678"
    assert record.masked("li.wei@example.com") == "l***@example.com"


def test_every_template_in_three_languages_with_its_parameters():
    for kind, params in templates.PARAMS.items():
        assert set(templates.TEXTS[kind]) == set(templates.LANGS), kind
        for lang, text in templates.TEXTS[kind].items():
            placeholders = {p.split("}")[0] for p in text.split("{")[1:]}
            assert placeholders == set(params), (kind, lang)
    text = templates.render("draw", "zh", {"event": "掼蛋", "round": "3", "table": "12", "seat": "北", "time": "14:00"})
    assert text == "掼蛋第 3 轮：桌 12 · 北 · 14:00"
    assert templates.ordered("draw", {"table": "12", "event": "E"}) == ["E", "", "12", "", ""]
    assert templates.language("vi-VN") == "vi" and templates.language(None) == "zh-CN"
