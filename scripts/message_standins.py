"""Local stand-ins of the message providers' HTTP APIs, for `make run` and the tests (like tests/fakes_china_http.py
for the payment providers): the real clients talk to them through their own endpoint settings, and each request
is checked as the provider checks it.

- Tencent Cloud SMS (SendSms, API 2021-01-11): the TC3-HMAC-SHA256 signature with the configured SecretKey, the
  SmsSdkAppId, the signature name and an approved template id with as many parameters as the template has.
- Aliyun SMS (SendSms, 2017-05-25): the ACS3-HMAC-SHA256 signature with the AccessKey secret, the same checks.
- Amazon SNS (Publish to a phone number): answered as SNS's query API does (the signature is botocore's own).
- WeChat official account (公众号): GET /cgi-bin/token (the app id and secret checked, a token given for 7200 s)
  and POST /cgi-bin/message/template/send (the token, the template id, the openid: 43004 for one that does not
  follow the account), as api.weixin.qq.com answers.
- E-mail: an SMTP server (aiosmtpd).

`fail_next(n)` makes the next n SMS calls answer as a provider that is down (HTTP 503 / InternalError), for the
retry tests. Received messages are kept in `.sms` and `.mail` (the test's eyes; make run discards them: the
worker's `.data/outbox.jsonl` is the organiser's)."""
from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import threading
from email import message_from_bytes, policy
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit

TENCENT = {"secret_id": "AKIDlocalstandin", "secret_key": "local-standin-tencent-key", "sdk_app_id": "1400000001",
           "sign_name": "牌局赛事"}
ALIYUN = {"access_key_id": "LTAIlocalstandin", "access_key_secret": "local-standin-aliyun-secret",
          "sign_name": "牌局赛事"}
# Template ids as the providers would have approved them (configuration in a deployment): one per kind.
from chalicelib.messages.templates import PARAMS  # noqa: E402 — the stand-ins know each template's parameters

TEMPLATE_IDS = {kind: str(2_000_000 + n) for n, kind in enumerate(sorted(PARAMS))}
ALIYUN_TEMPLATES = {kind: f"SMS_{400_000_000 + n}" for n, kind in enumerate(sorted(PARAMS))}
WECHAT = {"app_id": "wxlocalstandin0001", "app_secret": "local-standin-wechat-secret"}
WECHAT_TEMPLATES = {kind: f"tmpl-{n:02d}-{kind}" for n, kind in enumerate(sorted(PARAMS))}


def _hmac(key: bytes, text: str) -> bytes:
    return hmac.new(key, text.encode(), hashlib.sha256).digest()


def tc3_signature(secret_key: str, date: str, service: str, string_to_sign: str) -> str:
    k = _hmac(_hmac(_hmac(("TC3" + secret_key).encode(), date), service), "tc3_request")
    return hmac.new(k, string_to_sign.encode(), hashlib.sha256).hexdigest()


class Standins:
    def __init__(self):
        self.sms: list[dict] = []
        self.mail: list[dict] = []
        self.wechat: list[dict] = []      # template messages received
        self.wechat_tokens: list[str] = []   # tokens given (the last one valid), so a test can count the calls
        self.not_following: set[str] = set()   # openids that do not follow the account (43004)
        self.refused: list[str] = []      # why requests were refused (a bad signature, an unknown template …)
        self.unreachable: set[str] = set()   # numbers whose SMS the carrier never delivers (a failed report)
        self._reports: list[dict] = []    # Tencent Cloud's delivery reports, until pulled
        self._fail = 0
        self._lock = threading.Lock()
        self._http = self._smtp = None

    # ------------------------------------------------------------------ life
    def start(self, http_port: int = 0, smtp_port: int = 0) -> Standins:
        handler = type("Handler", (_Handler,), {"standins": self})
        self._http = ThreadingHTTPServer(("127.0.0.1", http_port), handler)
        self._http.daemon_threads = True
        threading.Thread(target=self._http.serve_forever, daemon=True, name="sms-standin").start()
        from aiosmtpd.controller import Controller
        self._smtp = Controller(_MailHandler(self), hostname="127.0.0.1", port=smtp_port or _free_port())
        self._smtp.start()
        return self

    def stop(self) -> None:
        if self._http:
            self._http.shutdown()
            self._http.server_close()
        if self._smtp:
            self._smtp.stop()

    @property
    def http_address(self) -> str:
        return f"127.0.0.1:{self._http.server_address[1]}"

    def config(self, provider: str = "tencent", outbox_file: str | None = None) -> dict:
        """MESSAGES_CONFIG for the API and the worker (messages/setup.py)."""
        sms = ({"provider": "tencent", **TENCENT, "endpoint": self.http_address, "protocol": "http",
                "templates": TEMPLATE_IDS} if provider == "tencent" else
               {"provider": "aliyun", **ALIYUN, "endpoint_url": f"http://{self.http_address}",
                "templates": ALIYUN_TEMPLATES})
        return {"sms": sms, "sns": {"region": "ap-southeast-1"},
                "wechat": {**WECHAT, "api_base": f"http://{self.http_address}", "templates": WECHAT_TEMPLATES},
                "email": {"provider": "smtp", "from": "noreply@cardgames.local", "host": "127.0.0.1",
                          "port": self._smtp.port},
                **({"outbox_file": outbox_file} if outbox_file else {})}

    def env(self, provider: str = "tencent", outbox_file: str | None = None) -> dict:
        return {"MESSAGES_CONFIG": json.dumps(self.config(provider, outbox_file), ensure_ascii=False),
                "AWS_ENDPOINT_URL_SNS": f"http://{self.http_address}"}

    def fail_next(self, n: int) -> None:
        with self._lock:
            self._fail = n

    def _failing(self) -> bool:
        with self._lock:
            if self._fail > 0:
                self._fail -= 1
                return True
            return False

    # ------------------------------------------------------------------ the providers
    def tencent(self, headers: dict, path: str, body: bytes) -> tuple[int, dict]:
        def error(code, text):
            self.refused.append(code)
            return 200, {"Response": {"Error": {"Code": code, "Message": text}, "RequestId": secrets.token_hex(8)}}
        if self._failing():
            return error("InternalError", "service unavailable")
        auth = headers.get("authorization", "")
        try:
            credential = auth.split("Credential=")[1].split(",")[0]
            secret_id, date, service, _ = credential.split("/")
            given = auth.split("Signature=")[1].strip()
        except (IndexError, ValueError):
            return error("AuthFailure.SignatureFailure", "malformed Authorization")
        canonical = (f"POST\n{path}\n\ncontent-type:{headers.get('content-type', '')}\nhost:{headers.get('host', '')}\n"
                     f"\ncontent-type;host\n{hashlib.sha256(body).hexdigest()}")
        to_sign = (f"TC3-HMAC-SHA256\n{headers.get('x-tc-timestamp', '')}\n{date}/{service}/tc3_request\n"
                   f"{hashlib.sha256(canonical.encode()).hexdigest()}")
        if secret_id != TENCENT["secret_id"] or not hmac.compare_digest(
                given, tc3_signature(TENCENT["secret_key"], date, service, to_sign)):
            return error("AuthFailure.SignatureFailure", "signature does not match")
        if headers.get("x-tc-version") != "2021-01-11" or headers.get("x-tc-action") not in ("SendSms", "PullSmsSendStatus"):
            return error("InvalidAction", "unknown action")
        req = json.loads(body)
        if headers["x-tc-action"] == "PullSmsSendStatus":   # the reports since the last pull, each given once
            with self._lock:
                limit = int(req.get("Limit") or 100)
                given, self._reports = self._reports[:limit], self._reports[limit:]
            return 200, {"Response": {"PullSmsSendStatusSet": given, "RequestId": secrets.token_hex(8)}}
        kinds = {v: k for k, v in TEMPLATE_IDS.items()}
        kind = kinds.get(req.get("TemplateId"))
        if req.get("SmsSdkAppId") != TENCENT["sdk_app_id"] or req.get("SignName") != TENCENT["sign_name"]:
            return error("FailedOperation.SignatureIncorrectOrUnapproved", "signature not approved")
        if kind is None:
            return error("FailedOperation.TemplateIncorrectOrUnapproved", "template not approved")
        values = req.get("TemplateParamSet") or []
        if len(values) != len(PARAMS[kind]):
            return error("InvalidParameterValue.TemplateParameterFormatError", "parameters do not match")
        statuses = []
        for phone in req.get("PhoneNumberSet") or []:
            serial = secrets.token_hex(10)
            self._keep({"provider": "tencent", "to": phone, "kind": kind, "params": dict(zip(PARAMS[kind], values, strict=True)),
                        "id": serial})
            ok = phone.removeprefix("+86") not in self.unreachable
            with self._lock:
                self._reports.append({"UserReceiveTime": "2026-12-01 10:00:00", "CountryCode": "86",
                                      "SubscriberNumber": phone.removeprefix("+86"), "PhoneNumber": phone,
                                      "SerialNo": serial, "ReportStatus": "SUCCESS" if ok else "FAIL",
                                      "Description": "DELIVRD" if ok else "UNDELIV",
                                      "SessionContext": req.get("SessionContext", "")})
            statuses.append({"SerialNo": serial, "PhoneNumber": phone, "Fee": 1, "SessionContext":
                             req.get("SessionContext", ""), "Code": "Ok", "Message": "send success", "IsoCode": "CN"})
        return 200, {"Response": {"SendStatusSet": statuses, "RequestId": secrets.token_hex(8)}}

    def aliyun(self, method: str, headers: dict, path: str, query: dict, body: bytes) -> tuple[int, dict]:
        from chalicelib.messages.aliyun_sms import ALGORITHM, canonical_request, signature

        def error(status, code, text):
            self.refused.append(code)
            return status, {"Code": code, "Message": text, "RequestId": secrets.token_hex(8)}
        if self._failing():
            return error(503, "ServiceUnavailable", "service unavailable")
        auth = headers.get("authorization", "")
        try:
            algorithm, rest = auth.split(" ", 1)
            fields = dict(part.split("=", 1) for part in rest.split(","))
            signed = fields["SignedHeaders"].split(";")
            if hashlib.sha256(body).hexdigest() != headers.get("x-acs-content-sha256"):
                raise ValueError("payload hash")
            canonical = canonical_request(method, path, query, headers, signed, headers["x-acs-content-sha256"])
        except (ValueError, KeyError):
            return error(400, "IncompleteSignature", "malformed signature")
        if (algorithm != ALGORITHM or fields.get("Credential") != ALIYUN["access_key_id"]
                or not hmac.compare_digest(fields.get("Signature", ""), signature(ALIYUN["access_key_secret"], canonical))):
            return error(403, "SignatureDoesNotMatch", "signature does not match")
        if headers.get("x-acs-action") != "SendSms" or headers.get("x-acs-version") != "2017-05-25":
            return error(400, "InvalidAction.NotFound", "unknown action")
        kinds = {v: k for k, v in ALIYUN_TEMPLATES.items()}
        kind = kinds.get(query.get("TemplateCode", ""))
        if query.get("SignName") != ALIYUN["sign_name"]:
            return error(400, "isv.SMS_SIGNATURE_ILLEGAL", "signature not approved")
        if kind is None:
            return error(400, "isv.SMS_TEMPLATE_ILLEGAL", "template not approved")
        params = json.loads(query.get("TemplateParam") or "{}")
        if set(params) != set(PARAMS[kind]):
            return error(400, "isv.TEMPLATE_MISSING_PARAMETERS", "parameters do not match")
        biz = secrets.token_hex(10)
        for phone in query.get("PhoneNumbers", "").split(","):
            self._keep({"provider": "aliyun", "to": phone, "kind": kind, "params": params, "id": biz})
        return 200, {"Code": "OK", "Message": "OK", "BizId": biz, "RequestId": secrets.token_hex(8)}

    def sns(self, form: dict) -> tuple[int, str]:
        if self._failing():
            return 503, "<ErrorResponse><Error><Code>InternalFailure</Code></Error></ErrorResponse>"
        if form.get("Action") != "Publish" or not form.get("PhoneNumber", "").startswith("+"):
            self.refused.append("InvalidParameter")
            return 400, ("<ErrorResponse><Error><Type>Sender</Type><Code>InvalidParameter</Code>"
                         "<Message>bad request</Message></Error></ErrorResponse>")
        mid = secrets.token_hex(16)
        self._keep({"provider": "sns", "to": form["PhoneNumber"], "text": form.get("Message", ""), "id": mid})
        return 200, (f'<PublishResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><PublishResult>'
                     f"<MessageId>{mid}</MessageId></PublishResult><ResponseMetadata><RequestId>{mid}</RequestId>"
                     "</ResponseMetadata></PublishResponse>")

    def wechat_token(self, query: dict) -> dict:
        if query.get("grant_type") != "client_credential" or query.get("appid") != WECHAT["app_id"]:
            return {"errcode": 40013, "errmsg": "invalid appid"}
        if query.get("secret") != WECHAT["app_secret"]:
            return {"errcode": 40125, "errmsg": "invalid appsecret"}
        token = secrets.token_hex(16)
        with self._lock:
            self.wechat_tokens.append(token)   # a new token: the one given before stops working (as at WeChat)
        return {"access_token": token, "expires_in": 7200}

    def expire_wechat_token(self) -> None:
        """As when another process fetched a newer token: the last one given answers 40001 from now on."""
        with self._lock:
            self.wechat_tokens.append("")

    def wechat_send(self, query: dict, body: bytes) -> dict:
        if self._failing():
            return {"errcode": -1, "errmsg": "system error"}
        with self._lock:
            valid = self.wechat_tokens[-1] if self.wechat_tokens else None
        if not valid or query.get("access_token") != valid:
            return {"errcode": 40001, "errmsg": "invalid credential, access_token is invalid or not latest"}
        req = json.loads(body)
        kind = {v: k for k, v in WECHAT_TEMPLATES.items()}.get(req.get("template_id"))
        if kind is None:
            self.refused.append("40037")
            return {"errcode": 40037, "errmsg": "invalid template_id"}
        if not req.get("touser") or req["touser"] in self.not_following:
            self.refused.append("43004")
            return {"errcode": 43004, "errmsg": "require subscribe"}
        msgid = int.from_bytes(secrets.token_bytes(6), "big")
        with self._lock:
            self.wechat.append({"to": req["touser"], "kind": kind, "url": req.get("url"), "id": str(msgid),
                                "data": {k: v["value"] for k, v in (req.get("data") or {}).items()}})
        return {"errcode": 0, "errmsg": "ok", "msgid": msgid}

    def _keep(self, item: dict) -> None:
        with self._lock:
            self.sms.append(item)


class _Handler(BaseHTTPRequestHandler):
    standins: Standins
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):   # quiet: the requests carry phone numbers
        pass

    def do_GET(self):
        url = urlsplit(self.path)
        if url.path == "/cgi-bin/token":
            answer = self.standins.wechat_token(dict(parse_qsl(url.query)))
            self._send(200, json.dumps(answer), "application/json")
        else:
            self._send(404, "{}", "application/json")

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        headers = {k.lower(): v for k, v in self.headers.items()}
        url = urlsplit(self.path)
        if url.path == "/cgi-bin/message/template/send":
            answer = self.standins.wechat_send(dict(parse_qsl(url.query)), body)
            self._send(200, json.dumps(answer, ensure_ascii=False), "application/json")
        elif "x-tc-action" in headers:
            status, answer = self.standins.tencent(headers, url.path or "/", body)
            self._send(status, json.dumps(answer), "application/json")
        elif "x-acs-action" in headers:
            query = dict(parse_qsl(url.query, keep_blank_values=True))
            status, answer = self.standins.aliyun("POST", headers, url.path or "/", query, body)
            self._send(status, json.dumps(answer), "application/json;charset=utf-8")
        else:
            status, text = self.standins.sns(dict(parse_qsl(body.decode(), keep_blank_values=True)))
            self._send(status, text, "text/xml")

    def _send(self, status: int, text: str, kind: str) -> None:
        data = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class _MailHandler:
    def __init__(self, standins: Standins):
        self.standins = standins

    async def handle_DATA(self, server, session, envelope):
        mail = message_from_bytes(envelope.content, policy=policy.default)
        with self.standins._lock:
            self.standins.mail.append({"to": list(envelope.rcpt_tos), "subject": str(mail["Subject"]),
                                       "text": mail.get_content() if not mail.is_multipart() else ""})
        return "250 Message accepted for delivery"


def _free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
