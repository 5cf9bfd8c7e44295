"""The senders, built once per process from MESSAGES_CONFIG (JSON; on AWS from the stage's configuration):

    {"sms": {"provider": "tencent" | "aliyun", "sign_name": "…", "templates": {"registration_received":
             {"zh-CN": "1234567", "en": "…"}, …}, Tencent: "secret_id", "secret_key", "sdk_app_id", "region";
             Aliyun: "access_key_id", "access_key_secret"; optional endpoint (the SDK's own setting)},
     "sns": {"region": "ap-southeast-1"}        numbers outside the mainland
     "email": {"provider": "ses" | "smtp", "from": "…", "region" | "host", "port"},
     "wechat": {"app_id": "wx…", "app_secret": "…", "templates": {kind: id | {"id", "fields"}}}
                                                players registered inside WeChat (messages/wechat_mp.py)
     "outbox_file": ".data/outbox.jsonl"}       locally: every message sent, one JSON object a line

On AWS the stack's secret MESSAGES_CONFIG_ARN holds it. No configuration: nothing is sent (messages wait in the outbox and fail as "no_sender" after their tries)."""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field

from .port import Sender, SmsRouter


@dataclass
class Messaging:
    senders: dict[str, Sender] = field(default_factory=dict)   # channel → sender
    outbox_file: str | None = None


def from_config(config: dict) -> Messaging:
    senders: dict[str, Sender] = {}
    sms, sns, email = config.get("sms"), config.get("sns"), config.get("email")
    mainland = abroad = None
    if sms and sms.get("provider") == "tencent":
        from .tencent_sms import TencentSms
        mainland = TencentSms(sms)
    elif sms and sms.get("provider") == "aliyun":
        from .aliyun_sms import AliyunSms
        mainland = AliyunSms(sms)
    if sns is not None:
        from .aws import SnsSms
        abroad = SnsSms(sns)
    if mainland or abroad:
        senders["sms"] = SmsRouter(mainland, abroad)
    if email and email.get("provider") == "ses":
        from .aws import SesEmail
        senders["email"] = SesEmail(email)
    elif email and email.get("provider") == "smtp":
        from .smtp import SmtpEmail
        senders["email"] = SmtpEmail(email)
    if config.get("wechat"):
        from .wechat_mp import WechatTemplates
        senders["wechat"] = WechatTemplates(config["wechat"])
    return Messaging(senders, config.get("outbox_file"))


def messaging(deps) -> Messaging:
    """This process's senders: deps.extra["messaging"] when wired (tests), else from MESSAGES_CONFIG, once."""
    found = deps.extra.get("messaging")
    if found is None:
        text = os.environ.get("MESSAGES_CONFIG")
        if not text and os.environ.get("MESSAGES_CONFIG_ARN"):   # AWS: the stack's secret, read once per cold start
            from ..config import secret_string
            text = secret_string(os.environ["MESSAGES_CONFIG_ARN"])
        try:
            config = json.loads(text or "{}")
        except ValueError:
            config = {}
        found = deps.extra["messaging"] = from_config(config)
    return found
