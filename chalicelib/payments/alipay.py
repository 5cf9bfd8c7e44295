"""Alipay adapter (电脑网站支付 page, 手机网站支付 wap), on `python-alipay-sdk`.

Only this module imports the SDK (lazily). The SDK signs requests with the app's RSA2 key, verifies every
synchronous answer and every asynchronous notification against Alipay's public key; this module maps the
trade states to the port's vocabulary. The SDK fetches with urllib's `urlopen`; `opener` (an
urllib OpenerDirector) replaces it so that tests answer the gateway with a fake, the way Stripe's
`http_client=` does.
"""
from __future__ import annotations

import logging
from datetime import datetime
from urllib.parse import parse_qsl
from zoneinfo import ZoneInfo

from .. import errors
from .port import Checkout, Notification, to_major, to_minor

log = logging.getLogger("cardgames.payments")
CHINA = ZoneInfo("Asia/Shanghai")
GATEWAY = "https://openapi.alipay.com/gateway.do"
SANDBOX = "https://openapi-sandbox.dl.alipaydev.com/gateway.do"
_STATUS = {"WAIT_BUYER_PAY": "open", "TRADE_SUCCESS": "complete", "TRADE_FINISHED": "complete",
           "TRADE_CLOSED": "expired"}


class AlipayGateway:
    name = "alipay"
    channels = ("page", "wap")
    online = True

    def __init__(self, *, appid: str, app_private_key: str, alipay_public_key: str, notify_url: str,
                 sandbox: bool = False, opener=None, timeout: int = 8):
        self.appid = appid
        self._args = dict(appid=appid, app_notify_url=notify_url, app_private_key_string=app_private_key,
                          alipay_public_key_string=alipay_public_key, sign_type="RSA2", debug=sandbox)
        self.gateway = SANDBOX if sandbox else GATEWAY
        self._opener = opener
        self._timeout = timeout
        self._client = None

    def client(self):
        if self._client is None:
            from alipay import AliPay
            from alipay.utils import AliPayConfig
            opener = self._opener

            class _AliPay(AliPay):
                def verified_sync_response(self, data, response_type):
                    if opener is None:
                        return super().verified_sync_response(data, response_type)
                    url = self._gateway + "?" + self.sign_data(data)   # as the SDK does, through our opener
                    raw = opener.open(url, timeout=self._config.timeout).read().decode()
                    return self._verify_and_return_sync_response(raw, response_type)

            try:
                self._client = _AliPay(config=AliPayConfig(timeout=self._timeout), **self._args)
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
        refunded = to_minor(data["refund_fee"], "CNY") if data.get("refund_fee") else None
        if refunded:
            kind = "refund"   # Alipay tells a refund by refund_fee (the running total) on the trade's notification
        elif status in ("TRADE_SUCCESS", "TRADE_FINISHED"):
            kind = "paid"
        elif status == "TRADE_CLOSED":
            kind = "closed"
        key = data.get("notify_id") or f"{data.get('out_trade_no')}:{status}:{data.get('gmt_refund', '')}"
        return Notification(id=f"ali:{key}", kind=kind, payment_id=data.get("out_trade_no"),
                            transaction_id=data.get("trade_no"), amount=to_minor(data.get("total_amount", ""), "CNY"),
                            currency="CNY", refunded=refunded, raw_type=status)
