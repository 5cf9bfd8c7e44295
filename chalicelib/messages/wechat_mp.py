"""WeChat official-account (公众号) template messages, for players who registered inside WeChat (their openid at
the platform's account is on the entry): POST /cgi-bin/message/template/send with an access token from
/cgi-bin/token, kept by this process until shortly before it expires.

Two HTTP calls through `requests` (already in the package through stripe and wechatpayv3): wechatpy would add its
own dependencies for them and has had no release since 2021. The template ids, and which of the template's
fields carries which of our parameters, are configuration (the account's operator picks the templates from
WeChat's library, whose fields are named "thing1", "time2" …):

    {"app_id": "wx…", "app_secret": "…", "api_base": "https://api.weixin.qq.com",
     "templates": {"draw": {"id": "…", "fields": {"thing1": "event", "character_string2": "table", "time3": "time"}},
                   "waitlist_promoted": "…"}}          an id alone: the fields are named as our parameters

A link parameter becomes the message's `url` (tapping it opens the entry's page)."""
from __future__ import annotations

import threading
import time

from .port import Outcome
from .record import Message
from .templates import named

# WeChat's errcodes a retry cannot change: the openid, the player not following the account (or refusing its
# messages), the template, the parameters; and a wrong app id or secret (the token call's).
_PERMANENT = {40003, 43004, 43101, 40037, 47003, 40013, 40125, 40164, 41001}
_STALE_TOKEN = {40001, 40014, 42001}         # another process fetched a newer one, or it expired: fetch again
_RATE_LIMITED = {45009, 45047, 45011}
_TOKEN_MARGIN_S = 300                        # renewed 5 minutes before WeChat says it expires

_tokens: dict[str, tuple[str, float]] = {}   # app id → (token, monotonic deadline): one per process
_tokens_lock = threading.Lock()


class _Failed(Exception):
    def __init__(self, outcome: Outcome):
        self.outcome = outcome


class WechatTemplates:
    name = "wechat_mp"

    def __init__(self, config: dict):
        self.config = config
        self.base = (config.get("api_base") or "https://api.weixin.qq.com").rstrip("/")
        self.timeout = float(config.get("timeout_s", 5))

    def _call(self, method: str, path: str, **kw) -> dict:
        import requests
        try:
            answer = requests.request(method, self.base + path, timeout=self.timeout, **kw)
            return answer.json()
        except (requests.RequestException, ValueError):
            raise _Failed(Outcome(self.name, error="unavailable")) from None

    def _token(self, fresh: bool = False) -> str:
        app_id = self.config["app_id"]
        with _tokens_lock:
            held = _tokens.get(app_id)
            if held and not fresh and time.monotonic() < held[1]:
                return held[0]
            answer = self._call("GET", "/cgi-bin/token", params={
                "grant_type": "client_credential", "appid": app_id, "secret": self.config["app_secret"]})
            if not answer.get("access_token"):
                raise _Failed(self._failure(answer))
            expires = float(answer.get("expires_in") or 7200) - _TOKEN_MARGIN_S
            _tokens[app_id] = (answer["access_token"], time.monotonic() + expires)
            return answer["access_token"]

    def _failure(self, answer: dict) -> Outcome:
        code = int(answer.get("errcode") or -1)
        if code in _PERMANENT:
            return Outcome(self.name, error="refused", permanent=True)
        return Outcome(self.name, error="rate_limited" if code in _RATE_LIMITED else "unavailable")

    def send(self, message: Message, text: str) -> Outcome:
        template = self.config.get("templates", {}).get(message.kind)
        if not template:
            return Outcome(self.name, error="no_template", permanent=True)
        template_id, fields = (template, None) if isinstance(template, str) else (template["id"], template.get("fields"))
        params = named(message.kind, message.params)
        data = ({field: {"value": params.get(name, "")} for field, name in fields.items()} if fields else
                {name: {"value": value} for name, value in params.items() if name != "link"})
        body = {"touser": message.to, "template_id": template_id, "data": data}
        if params.get("link"):
            body["url"] = params["link"]
        try:
            for fresh in (False, True):
                answer = self._call("POST", "/cgi-bin/message/template/send",
                                    params={"access_token": self._token(fresh)}, json=body)
                code = int(answer.get("errcode") or 0)
                if code == 0:
                    return Outcome(self.name, provider_id=str(answer.get("msgid", "")) or None)
                if code not in _STALE_TOKEN:
                    return self._failure(answer)
            return Outcome(self.name, error="unavailable")
        except _Failed as failed:
            return failed.outcome
