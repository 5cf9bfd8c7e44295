"""Alipay adapter (电脑网站支付 page, 手机网站支付 wap), on `python-alipay-sdk`.

Only this module imports the SDK (lazily). The SDK signs requests with the app's RSA2 key, verifies every
synchronous answer and every asynchronous notification against Alipay's public key; this module maps the
trade states to the port's vocabulary. The SDK fetches with urllib's `urlopen`; `opener` (an
urllib OpenerDirector) replaces it so that tests answer the gateway with a fake, the way Stripe's
`http_client=` does.

A chamber's own account (payments/accounts.py, issue 40): the installation's app is the platform's third-party app
(第三方应用). `for_account` answers the same port speaking for one chamber — mode `app_auth`: the platform's app
and keys with the chamber's `app_auth_token` on every call (a common request parameter: the SDK's ISVAliPay adds
it), the money settling to the chamber's own Alipay account; its notifications are the platform app's, naming the
chamber as `auth_app_id`. Mode `direct`: the chamber's own app id and keys, its notifications verified with its
own Alipay public key at its own notify URL (`notify_url_for`).
"""
from __future__ import annotations

import copy
import hashlib
import json
import logging
import re
from datetime import datetime
from urllib.parse import parse_qsl
from zoneinfo import ZoneInfo

from .. import errors
from .accounts import AccountCheck, PaymentAccount
from .port import Checkout, Notification, to_major, to_minor

log = logging.getLogger("cardgames.payments")
CHINA = ZoneInfo("Asia/Shanghai")
GATEWAY = "https://openapi.alipay.com/gateway.do"
SANDBOX = "https://openapi-sandbox.dl.alipaydev.com/gateway.do"
CHECK_ORDER = "ACCOUNTCHECK0000000000000000000"   # a trade no one ever opens: its query says who may ask
_BOUND_CACHE = 256
# What the chamber must have authorised the platform's app to do (or signed itself, in direct mode)
PAY_METHODS = ("alipay.trade.wap.pay", "alipay.trade.page.pay")
_STATUS = {"WAIT_BUYER_PAY": "open", "TRADE_SUCCESS": "complete", "TRADE_FINISHED": "complete",
           "TRADE_CLOSED": "expired"}


class AlipayGateway:
    name = "alipay"
    channels = ("page", "wap")
    online = True

    def __init__(self, *, appid: str, app_private_key: str, alipay_public_key: str, notify_url: str,
                 sandbox: bool = False, opener=None, timeout: int = 8, app_auth_token: str | None = None):
        self.appid = appid
        self.notify_url = notify_url
        self._sandbox = sandbox
        self._app_auth_token = app_auth_token   # app_auth mode: the chamber's authorisation of the platform's app
        self.account_id: str | None = None      # the account this adapter speaks for (None: the platform's own)
        self._bound: dict = {}
        self._args = dict(appid=appid, app_notify_url=notify_url, app_private_key_string=app_private_key,
                          alipay_public_key_string=alipay_public_key, sign_type="RSA2", debug=sandbox)
        self.gateway = SANDBOX if sandbox else GATEWAY
        self._opener = opener
        self._timeout = timeout
        self._client = None

    def client(self):
        if self._client is None:
            from alipay import AliPay, ISVAliPay
            from alipay.utils import AliPayConfig
            opener = self._opener
            token = self._app_auth_token

            class _AliPay(ISVAliPay if token else AliPay):
                def verified_sync_response(self, data, response_type):
                    if opener is None:
                        return super().verified_sync_response(data, response_type)
                    url = self._gateway + "?" + self.sign_data(data)   # as the SDK does, through our opener
                    raw = opener.open(url, timeout=self._config.timeout).read().decode()
                    return self._verify_and_return_sync_response(raw, response_type)

            try:
                if token:   # ISVAliPay puts app_auth_token in every request's common parameters
                    client = _AliPay(app_auth_token=token, **self._args)
                    client._config = AliPayConfig(timeout=self._timeout)
                else:
                    client = _AliPay(config=AliPayConfig(timeout=self._timeout), **self._args)
                self._client = client
            except Exception as exc:   # noqa: BLE001 — a key that does not load
                log.error("alipay setup failed: %s", type(exc).__name__)
                raise errors.PaymentError("Alipay is not configured (keys).") from None
        return self._client

    def _call(self, what: str, fn, ok_codes=("10000",)) -> dict:
        try:
            answer = fn()
        except Exception as exc:   # noqa: BLE001 — network, an answer whose sign fails (AliPayValidationError), gateway errors
            log.error("alipay %s failed: %s", what, type(exc).__name__)
            raise errors.PaymentError(f"The payment provider refused or failed ({what}).") from None
        if answer.get("code") not in ok_codes:
            log.error("alipay %s answered %s %s", what, answer.get("code"), answer.get("sub_code"))
            raise errors.PaymentError(f"The payment provider refused or failed ({what}).",
                                      {"provider_code": answer.get("sub_code")})
        return answer

    def start(self, *, payment_id: str, amount: int, currency: str, description: str, channel: str | None,
              expires_at: datetime, return_url: str, cancel_url: str = "", now: datetime | None = None,
              entry_id: str = "", event_id: str = "", lines: list[tuple[str, int]] | None = None,
              openid: str | None = None, client_ip: str | None = None) -> Checkout:
        if currency != "CNY":
            raise errors.InvalidRequest("Alipay (mainland merchants) takes CNY only.")
        ali = self.client()
        args = dict(subject=description[:128], out_trade_no=payment_id, total_amount=to_major(amount, currency),
                    return_url=return_url,
                    time_expire=expires_at.astimezone(CHINA).strftime("%Y-%m-%d %H:%M:%S"))
        # Building the pay URL is local: the SDK signs the order; the payer's browser takes it to Alipay.
        query = ali.api_alipay_trade_page_pay(**args) if channel == "page" else \
            ali.api_alipay_trade_wap_pay(quit_url=return_url, **args)
        return Checkout(payment_id, {"pay_url": f"{self.gateway}?{query}"})

    def session_status(self, reference: str) -> tuple[str, str | None, int | None, str | None]:
        ali = self.client()
        trade = self._call("query", lambda: ali.api_alipay_trade_query(out_trade_no=reference),
                           ok_codes=("10000", "40004"))
        if trade.get("code") == "40004":   # ACQ.TRADE_NOT_EXIST: the payer never opened it; past time_expire, never
            return "expired", None, None, None
        return (_STATUS.get(trade.get("trade_status"), "open"), trade.get("trade_no"),
                to_minor(trade.get("total_amount", ""), "CNY"), "CNY")

    def expire(self, reference: str) -> None:
        ali = self.client()
        try:
            self._call("close", lambda: ali.api_alipay_trade_close(out_trade_no=reference))
        except errors.PaymentError as exc:
            if (exc.details or {}).get("provider_code") != "ACQ.TRADE_NOT_EXIST":   # nothing to close: fine
                raise

    def refund(self, transaction_id: str | None, amount: int, payment_id: str, part: str = "", *,
               total: int, currency: str) -> str:
        """`out_request_no` names the refund: a retry is the same refund at Alipay."""
        ali = self.client()
        request_no = f"r{payment_id}" + (f"-{part}" if part else "")
        self._call("refund", lambda: ali.api_alipay_trade_refund(
            refund_amount=to_major(amount, currency), out_trade_no=payment_id, out_request_no=request_no))
        return request_no

    def verify_notification(self, headers: dict, body: bytes, now: datetime) -> Notification:
        try:
            data = dict(parse_qsl(body.decode("utf-8"), keep_blank_values=True, strict_parsing=True))
        except (UnicodeDecodeError, ValueError):
            raise errors.InvalidSignature("The notification is not a signed form.") from None
        sign = data.pop("sign", None)
        if not sign:
            raise errors.InvalidSignature("The notification carries no sign.")
        try:
            good = self.client().verify(dict(data), sign)   # RSA2 over the sorted fields, as Alipay signs
        except errors.DomainError:
            raise
        except Exception:   # noqa: BLE001 — an unknown sign_type, a sign that is not base64
            good = False
        if not good:
            raise errors.InvalidSignature()
        if data.get("app_id") != self.appid:
            raise errors.InvalidSignature("The notification is for another Alipay app.")
        status, kind = data.get("trade_status", ""), "other"
        # the chamber the trade was for: an app_auth trade names it as auth_app_id; the platform's own names itself
        named = data.get("auth_app_id") or data.get("app_id")
        account = self.account_id if self._app_auth_token is None and self.account_id else \
            (named if named != self.appid else None)
        refunded = to_minor(data["refund_fee"], "CNY") if data.get("refund_fee") else None
        if self.account_id is not None and account != self.account_id:
            log.error("alipay notification for another account")   # verified, but another chamber's: ignored
        elif refunded:
            kind = "refund"   # Alipay tells a refund by refund_fee (the running total) on the trade's notification
        elif status in ("TRADE_SUCCESS", "TRADE_FINISHED"):
            kind = "paid"
        elif status == "TRADE_CLOSED":
            kind = "closed"
        key = data.get("notify_id") or f"{data.get('out_trade_no')}:{status}:{data.get('gmt_refund', '')}"
        return Notification(id=f"ali:{key}", kind=kind, payment_id=data.get("out_trade_no"),
                            transaction_id=data.get("trade_no"), amount=to_minor(data.get("total_amount", ""), "CNY"),
                            currency="CNY", refunded=refunded, raw_type=status, account=account)

    # ----------------------------------------------------------------- a chamber's own account (AccountAware)
    def for_account(self, account: PaymentAccount) -> AlipayGateway:
        """The port speaking for `account`: app_auth (the platform's app with the chamber's app_auth_token) or
        direct (the chamber's own app and keys). Made once per account and keys."""
        if account.provider != self.name:
            raise errors.InvalidRequest(f"{account.provider} is not an Alipay account.")
        if account.mode not in ("app_auth", "direct"):
            raise errors.InvalidRequest("An Alipay account's mode is app_auth or direct.", {"field": "mode"})
        key = (account.mode, account.id, _fingerprint(account))
        gw = self._bound.get(key)
        if gw is None:
            gw = self._app_auth(account) if account.mode == "app_auth" else self._direct(account)
            if len(self._bound) >= _BOUND_CACHE:
                self._bound.clear()
            self._bound[key] = gw
        return gw

    def notify_url_for(self, account: PaymentAccount) -> str:
        """Where Alipay posts the account's notifications: app_auth trades are the platform app's (one URL for
        all, verified with the platform's Alipay public key); a direct account's are signed for the chamber's own
        app, so its URL names the organiser (POST {notify_url}/{organiser_id})."""
        return self.notify_url if account.mode == "app_auth" else f"{self.notify_url.rstrip('/')}/{account.organiser_id}"

    def account_of(self, notification: Notification) -> str | None:
        """The chamber's app id a verified notification is for (auth_app_id); None: the platform's own app."""
        return notification.account

    def _app_auth(self, account: PaymentAccount) -> AlipayGateway:
        token = account.secrets.get("app_auth_token")
        if not token:
            raise errors.InvalidRequest("An Alipay app_auth account needs its app_auth_token (应用授权令牌).",
                                        {"field": "app_auth_token"})
        gw = copy.copy(self)
        gw._client, gw._bound, gw._app_auth_token = None, {}, token
        gw.account_id = account.id or None
        return gw

    def _direct(self, account: PaymentAccount) -> AlipayGateway:
        values = {**account.public, **account.secrets}
        missing = [k for k in ("app_private_key", "alipay_public_key") if not values.get(k)]
        if not account.id or missing:
            raise errors.InvalidRequest("An Alipay direct account needs appid, app_private_key and "
                                        "alipay_public_key.", {"missing": missing or ["appid"]})
        gw = AlipayGateway(appid=account.id, app_private_key=values["app_private_key"],
                           alipay_public_key=values["alipay_public_key"], notify_url=self.notify_url_for(account),
                           sandbox=bool(values.get("sandbox", self._sandbox)), opener=self._opener,
                           timeout=self._timeout)
        gw.account_id = account.id
        return gw

    def check_account(self, account: PaymentAccount) -> AccountCheck:
        """Asks Alipay whether the account can take money (one request, ≤ 8 s). app_auth: the token's own query
        (alipay.open.auth.token.app.query) — valid, whose app it is (auth_app_id: the id notifications name) and
        which APIs the chamber authorised; direct: a query of a trade that does not exist, signed with the
        chamber's key and its answer verified with the chamber's Alipay public key (ACQ.TRADE_NOT_EXIST: works)."""
        try:
            gw = self.for_account(account)
            ali = gw.client()
        except errors.InvalidRequest as exc:
            return _incomplete(exc)
        except errors.PaymentError:
            return AccountCheck("failed", "wrong_key", "密钥读不出来：请粘贴应用私钥（RSA2）和支付宝公钥的全部内容。")
        if account.mode == "app_auth":
            answer = _ask(lambda: ali.api_alipay_open_auth_token_app_query())
            if answer.get("code") != "10000":
                return _check_words(answer, app_auth=True)
            if answer.get("status", "valid") != "valid":
                return _check_words({"sub_code": "aop.invalid-app-auth-token"}, app_auth=True)
            named = answer.get("auth_app_id")
            # the account's id is the app id notifications name (auth_app_id), never the merchant's PID (user_id)
            if account.id and account.id != named:
                return AccountCheck("failed", "account_mismatch",
                                    f"授权令牌属于另一个支付宝应用（{named}），不是 {account.id}"
                                    + ("（这是商户的 PID，请填写 APPID 或留空）" if account.id == answer.get("user_id") else "")
                                    + "。", id=named)
            methods = answer.get("auth_methods")
            if isinstance(methods, list) and not any(m in methods for m in PAY_METHODS):
                return AccountCheck("failed", "product_not_enabled",
                                    "商户没有把“手机网站支付 / 电脑网站支付”授权给本平台的第三方应用：请重新授权。", id=named)
            return AccountCheck("ok", None, "支付宝授权有效。", id=named)
        answer = _ask(lambda: ali.api_alipay_trade_query(out_trade_no=CHECK_ORDER))
        if answer.get("sub_code") == "ACQ.TRADE_NOT_EXIST" or answer.get("code") == "10000":
            return AccountCheck("ok", None, "支付宝账户可用。", id=account.id)
        return _check_words(answer, app_auth=False)


def _incomplete(exc: errors.InvalidRequest) -> AccountCheck:
    details = exc.details or {}
    missing = details.get("missing") or [details.get("field") or "?"]
    return AccountCheck("failed", "invalid_account", f"账户资料不完整：缺少 {', '.join(missing)}。")


def _fingerprint(account: PaymentAccount) -> str:
    """Names the keys an adapter was made with (never stored, never logged): new keys make a new adapter."""
    values = json.dumps([account.public, account.secrets], sort_keys=True, default=str)
    return hashlib.sha256(values.encode()).hexdigest()


def _ask(fn) -> dict:
    """One call for the check: Alipay's answer, its refusal's codes, or what went wrong on the way."""
    from alipay.exceptions import AliPayException, AliPayValidationError
    try:
        return fn()
    except AliPayValidationError:      # an answer whose sign does not hold with the Alipay public key we have
        return {"code": "-", "sub_code": "local.alipay-public-key"}
    except AliPayException as exc:     # error_response: Alipay does not sign it; its codes are in the text
        text = str(exc)
        code = re.search(r'"code"\s*:\s*"([^"]*)"', text)
        sub = re.search(r'"sub_code"\s*:\s*"([^"]*)"', text)
        return {"code": code.group(1) if code else "-", "sub_code": sub.group(1) if sub else ""}
    except (OSError, ValueError) as exc:   # unreachable, timed out, not JSON
        log.warning("alipay account check unreachable: %s", type(exc).__name__)
        return {"code": "unreachable"}


_WORDS = {
    "aop.invalid-app-auth-token": ("app_auth_invalid", "授权令牌无效：请让商户在支付宝重新授权本平台的第三方应用。"),
    "isv.invalid-app-auth-token": ("app_auth_invalid", "授权令牌无效：请让商户在支付宝重新授权本平台的第三方应用。"),
    "aop.app-auth-token-time-out": ("app_auth_invalid", "授权令牌已过期：请让商户在支付宝重新授权本平台的第三方应用。"),
    "aop.invalid-app-auth-token-no-api": ("product_not_enabled", "商户没有把该接口授权给本平台的第三方应用：请重新授权。"),
    "isv.invalid-signature": ("wrong_key", "验签出错：应用私钥与开放平台上传的应用公钥不是一对。"),
    "local.alipay-public-key": ("wrong_key", "支付宝公钥不对：支付宝的答复验不过签（开放平台 → 开发设置 → 接口加签方式）。"),
    "isv.invalid-app-id": ("account_not_found", "AppID 不存在：请核对支付宝开放平台上的应用 ID。"),
    "ACQ.ACCESS_FORBIDDEN": ("product_not_enabled", "未签约该产品：请在支付宝开放平台签约“手机网站支付 / 电脑网站支付”。"),
    "isv.insufficient-isv-permissions": ("product_not_enabled", "第三方应用权限不足：请为应用开通“手机网站支付 / 电脑网站支付”。"),
}


def _check_words(answer: dict, *, app_auth: bool) -> AccountCheck:
    """Alipay's refusal in the words of its open platform."""
    if answer.get("code") == "unreachable" or answer.get("sub_code") in ("ACQ.SYSTEM_ERROR", "isp.unknow-error"):
        return AccountCheck("failed", "provider_unreachable", "支付宝暂时无法连接，请稍后再检查。")
    sub = answer.get("sub_code") or ""
    if sub in _WORDS:
        code, words = _WORDS[sub]
        return AccountCheck("failed", code, words)
    return AccountCheck("failed", "provider_refused", f"支付宝拒绝：{answer.get('code')} {sub}".strip())
