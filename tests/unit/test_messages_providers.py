"""Each sender adapter against the providers' local stand-ins (scripts/message_standins.py), through the clients
that ship: Tencent Cloud's SDK, our signed Aliyun client (held to the real Aliyun SDK by the same stand-in),
boto3 for SNS, smtplib. The stand-ins check signatures, the approved signature name and template ids."""
from __future__ import annotations

from datetime import UTC, datetime

import pytest

from chalicelib.messages import record
from chalicelib.messages.setup import from_config
from chalicelib.messages.templates import render
from scripts.message_standins import ALIYUN, ALIYUN_TEMPLATES, Standins

NOW = datetime(2026, 12, 1, 6, 0, tzinfo=UTC)
LINK = "https://site.example/entry.html?id=E1#token=mt_secret"


@pytest.fixture(scope="module")
def standins():
    s = Standins().start()
    yield s
    s.stop()


@pytest.fixture(autouse=True)
def _clean(standins, monkeypatch):
    standins.sms.clear(), standins.mail.clear(), standins.refused.clear(), standins.fail_next(0)
    monkeypatch.setenv("AWS_ENDPOINT_URL_SNS", f"http://{standins.http_address}")


def _msg(to="13812345678", channel="sms", kind="registration_received", lang="zh-CN"):
    return record.new(id="m1", cause="registration:E1", kind=kind, channel=channel, to=to, now=NOW, lang=lang,
                      params={"event": "掼蛋公开赛", "link": LINK})


def _send(standins, message, provider="tencent"):
    sender = from_config(standins.config(provider)).senders[message.channel]
    return sender.send(message, render(message.kind, message.lang, message.params))


@pytest.mark.parametrize("provider", ["tencent", "aliyun"])
def test_a_mainland_sms_goes_as_the_approved_template_and_its_parameters(standins, provider):
    outcome = _send(standins, _msg(), provider)
    assert outcome.ok and outcome.provider == f"{provider}_sms" and outcome.provider_id
    [got] = standins.sms
    assert got["provider"] == provider and got["kind"] == "registration_received"
    assert got["to"] in ("+8613812345678", "13812345678") and got["params"] == {"event": "掼蛋公开赛", "link": LINK}
    assert got["id"] == outcome.provider_id and not standins.refused


@pytest.mark.parametrize("provider", ["tencent", "aliyun"])
def test_a_provider_down_is_tried_again_and_a_wrong_key_is_refused_for_good(standins, provider):
    standins.fail_next(1)
    down = _send(standins, _msg(), provider)
    assert down.error == "unavailable" and not down.permanent and not standins.sms
    config = standins.config(provider)
    config["sms"]["secret_key" if provider == "tencent" else "access_key_secret"] = "not-the-key"
    refused = from_config(config).senders["sms"].send(_msg(), "")
    assert refused.error == "refused" and refused.permanent and not standins.sms
    assert standins.refused[-1] in ("AuthFailure.SignatureFailure", "SignatureDoesNotMatch")


def test_the_real_aliyun_sdk_is_accepted_by_the_stand_in_that_checks_our_client(standins):
    """The stand-in's V3 signature check is the one our hand-written client passes: the real SDK passes it too,
    and a request the SDK signs with another secret does not."""
    from alibabacloud_dysmsapi20170525 import models
    from alibabacloud_dysmsapi20170525.client import Client
    from alibabacloud_tea_openapi.models import Config
    from Tea.exceptions import TeaException

    def sdk(secret):
        return Client(Config(access_key_id=ALIYUN["access_key_id"], access_key_secret=secret,
                             endpoint=standins.http_address, protocol="http"))
    request = models.SendSmsRequest(phone_numbers="13812345678", sign_name=ALIYUN["sign_name"],
                                    template_code=ALIYUN_TEMPLATES["sign_in_code"], template_param='{"code":"123456"}')
    answer = sdk(ALIYUN["access_key_secret"]).send_sms(request)
    assert answer.body.code == "OK" and standins.sms[-1]["params"] == {"code": "123456"}
    with pytest.raises(TeaException):
        sdk("another-secret").send_sms(request)
    assert standins.refused == ["SignatureDoesNotMatch"]


def test_a_number_abroad_goes_by_sns_as_text(standins):
    outcome = _send(standins, _msg(to="+84912345678", lang="vi"))
    assert outcome.ok and outcome.provider == "sns"
    [got] = standins.sms
    assert got["to"] == "+84912345678" and got["text"] == f"Bạn đã đăng ký 掼蛋公开赛. Xem, sửa hoặc hủy: {LINK}"


def test_email_by_smtp(standins):
    outcome = _send(standins, _msg(to="li.wei@example.com", channel="email", lang="en"))
    assert outcome.ok
    [mail] = standins.mail
    assert mail["to"] == ["li.wei@example.com"] and LINK in mail["text"] and "掼蛋公开赛" in mail["subject"]


def test_no_approved_template_is_a_permanent_failure(standins):
    config = standins.config("tencent")
    config["sms"]["templates"] = {}
    outcome = from_config(config).senders["sms"].send(_msg(), "")
    assert outcome.error == "no_template" and outcome.permanent and not standins.sms
