"""SMS in mainland China by Aliyun SMS (dysmsapi 2017-05-25), through its documented HTTP API with the V3
signature (ACS3-HMAC-SHA256), not the SDK: alibabacloud-dysmsapi20170525 brings aiohttp, yarl, multidict,
apscheduler and more — about 14 MB of a Lambda package already at ~147 of its 150 MB target — for one signed
POST. tests/unit/test_messages_providers.py sends through the real SDK to the same stand-in, which checks both
signatures the same way, so this client and the SDK are held to one protocol."""
from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import json
import secrets
import urllib.error
import urllib.request
from urllib.parse import quote, urlsplit

from .port import Outcome, unreachable
from .record import Message
from .templates import named
from .tencent_sms import template_id

ALGORITHM = "ACS3-HMAC-SHA256"
_PERMANENT = ("isv.MOBILE_NUMBER_ILLEGAL", "isv.SMS_TEMPLATE_ILLEGAL", "isv.SMS_SIGNATURE_ILLEGAL",
              "isv.TEMPLATE_MISSING_PARAMETERS", "isv.BLACK_KEY_CONTROL_LIMIT", "isv.INVALID_PARAMETERS",
              "InvalidAccessKeyId", "SignatureDoesNotMatch", "Forbidden")


def canonical_request(method: str, path: str, query: dict[str, str], headers: dict[str, str],
                      signed: list[str], payload_hash: str) -> str:
    """Aliyun's V3 canonical request: method, path, the query sorted and RFC 3986-encoded, the signed headers
    (lower-case, trimmed, sorted), their names, the payload's SHA-256."""
    q = "&".join(f"{quote(k, safe='~')}={quote(query[k], safe='~')}" for k in sorted(query))
    h = "".join(f"{name}:{headers[name].strip()}\n" for name in signed)
    return f"{method}\n{path or '/'}\n{q}\n{h}\n{';'.join(signed)}\n{payload_hash}"


def signature(secret: str, canonical: str) -> str:
    to_sign = f"{ALGORITHM}\n{hashlib.sha256(canonical.encode()).hexdigest()}"
    return hmac.new(secret.encode(), to_sign.encode(), hashlib.sha256).hexdigest()


class AliyunSms:
    name = "aliyun_sms"

    def __init__(self, config: dict):
        self.config = config
        self.base = (config.get("endpoint_url") or "https://dysmsapi.aliyuncs.com").rstrip("/")

    def send(self, message: Message, text: str) -> Outcome:
        template = template_id(self.config, message)
        if template is None:
            return Outcome(self.name, error="no_template", permanent=True)
        query = {"PhoneNumbers": message.to, "SignName": self.config["sign_name"], "TemplateCode": template,
                 "TemplateParam": json.dumps(named(message.kind, message.params), ensure_ascii=False),
                 "OutId": message.id}
        try:
            answer = self._call("SendSms", query)
        except (OSError, ValueError):
            return unreachable(self.name)
        code = str(answer.get("Code", ""))
        if code == "OK":
            return Outcome(self.name, provider_id=answer.get("BizId"))
        if code.startswith(_PERMANENT):
            return Outcome(self.name, error="refused", permanent=True)
        limited = "LIMIT" in code.upper() or code == "Throttling.User"
        return Outcome(self.name, error="rate_limited" if limited else "unavailable")

    def _call(self, action: str, query: dict[str, str]) -> dict:
        body = b""
        headers = {
            "host": urlsplit(self.base).netloc,
            "x-acs-action": action,
            "x-acs-version": "2017-05-25",
            "x-acs-date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "x-acs-signature-nonce": secrets.token_hex(16),
            "x-acs-content-sha256": hashlib.sha256(body).hexdigest(),
        }
        signed = sorted(headers)
        canonical = canonical_request("POST", "/", query, headers, signed, headers["x-acs-content-sha256"])
        headers["Authorization"] = (f"{ALGORITHM} Credential={self.config['access_key_id']},"
                                    f"SignedHeaders={';'.join(signed)},"
                                    f"Signature={signature(self.config['access_key_secret'], canonical)}")
        url = f"{self.base}/?" + "&".join(f"{quote(k, safe='~')}={quote(v, safe='~')}" for k, v in query.items())
        request = urllib.request.Request(url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=float(self.config.get("timeout_s", 5))) as r:
                return json.loads(r.read())
        except urllib.error.HTTPError as exc:   # Aliyun answers its refusals as 4xx with a JSON body
            if exc.code >= 500:
                raise OSError(exc.code) from None
            return json.loads(exc.read() or b"{}")
