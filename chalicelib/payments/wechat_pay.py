"""WeChat Pay API v3 adapter (Native QR, JSAPI inside WeChat, H5 in a phone browser), on `wechatpayv3`.

Only this module imports wechatpayv3 (lazily: it pulls in requests, which most Lambda invocations never need).
The SDK signs every request with the merchant key, verifies every answer and every notification against
the platform certificate (downloaded from /v3/certificates and decrypted with the APIv3 key, or read from
`cert_dir`) and decrypts notification resources with AES-256-GCM; this module adds only what the SDK leaves
to the merchant: the freshness of a notification's timestamp, and the mapping to the port's vocabulary.
"""
from __future__ import annotations

import json
import logging
import secrets
import time
from datetime import datetime
from urllib.parse import quote
from zoneinfo import ZoneInfo

from .. import errors
from .port import Checkout, Notification

log = logging.getLogger("cardgames.payments")
TOLERANCE_SECONDS = 300   # WeChat Pay asks merchants to refuse notifications older than 5 minutes
CHINA = ZoneInfo("Asia/Shanghai")
OAUTH_AUTHORIZE = "https://open.weixin.qq.com/connect/oauth2/authorize"
OAUTH_TOKEN = "https://api.weixin.qq.com/sns/oauth2/access_token"

_STATUS = {"SUCCESS": "complete", "REFUND": "complete", "NOTPAY": "open", "USERPAYING": "open",
           "CLOSED": "expired", "REVOKED": "expired", "PAYERROR": "expired"}


class WeChatPayGateway:
    name = "wechat_pay"
    channels = ("native", "jsapi", "h5")
    online = True

    def __init__(self, *, mchid: str, appid: str, private_key: str, cert_serial_no: str, apiv3_key: str,
                 notify_url: str, cert_dir: str | None = None, public_key: str | None = None,
                 public_key_id: str | None = None, app_secret: str | None = None, timeout=(3, 6)):
        self._args = dict(mchid=mchid, appid=appid, private_key=private_key, cert_serial_no=cert_serial_no,
                          apiv3_key=apiv3_key, notify_url=notify_url, cert_dir=cert_dir, public_key=public_key,
                          public_key_id=public_key_id, timeout=timeout)
        self.appid = appid
        self.mchid = mchid
        self._app_secret = app_secret   # the official account's AppSecret: web OAuth for JSAPI's openid
        self._timeout = timeout
        self._client = None

    def client(self):
        """The SDK, made on first use: it loads (or downloads, once per process) the platform certificates."""
        if self._client is None:
            from wechatpayv3 import WeChatPay, WeChatPayType
            try:
                self._client = WeChatPay(wechatpay_type=WeChatPayType.NATIVE, logger=None, **self._args)
            except Exception as exc:   # noqa: BLE001 — the SDK raises bare Exception when no platform certificate is found
                log.error("wechat pay setup failed: %s", type(exc).__name__)
                raise errors.PaymentError("WeChat Pay is not reachable or not configured (platform certificate).") from None
        return self._client

    def _call(self, what: str, fn, ok=(200,)) -> dict:
        try:
            code, text = fn()
        except errors.DomainError:
            raise
        except Exception as exc:   # noqa: BLE001 — network errors, and the SDK's "failed to verify the signature" of an answer
            log.error("wechat pay %s failed: %s", what, type(exc).__name__)
            raise errors.PaymentError(f"The payment provider refused or failed ({what}).") from None
        if code not in ok:
            body = _json(text)
            log.error("wechat pay %s answered %s %s", what, code, body.get("code"))
            raise errors.PaymentError(f"The payment provider refused or failed ({what}).",
                                      {"provider_code": body.get("code")})
        return _json(text)

    # ----------------------------------------------------------------- checkout
    def start(self, *, payment_id: str, amount: int, currency: str, description: str, channel: str | None,
              expires_at: datetime, return_url: str, cancel_url: str = "", now: datetime | None = None,
              entry_id: str = "", event_id: str = "", lines: list[tuple[str, int]] | None = None,
              openid: str | None = None, client_ip: str | None = None) -> Checkout:
        from wechatpayv3 import WeChatPayType
        if currency != "CNY":
            raise errors.InvalidRequest("WeChat Pay (mainland merchants) takes CNY only.")
        kinds = {"native": WeChatPayType.NATIVE, "jsapi": WeChatPayType.JSAPI, "h5": WeChatPayType.H5}
        params = dict(description=description[:127], out_trade_no=payment_id,
                      amount={"total": amount, "currency": "CNY"}, pay_type=kinds[channel],
                      time_expire=expires_at.astimezone(CHINA).isoformat(timespec="seconds"))
        if channel == "jsapi":
            params["payer"] = {"openid": openid}
        if channel == "h5":
            params["scene_info"] = {"payer_client_ip": client_ip or "127.0.0.1", "h5_info": {"type": "Wap"}}
        wx = self.client()
        answer = self._call("checkout", lambda: wx.pay(**params))
        if channel == "native":
            return Checkout(payment_id, {"code_url": answer["code_url"]})
        if channel == "h5":   # WeChat sends the payer back to redirect_url after paying
            return Checkout(payment_id, {"h5_url": answer["h5_url"] + "&redirect_url=" + quote(return_url, safe="")})
        package = f"prepay_id={answer['prepay_id']}"
        stamp, nonce = str(int(time.time())), secrets.token_hex(16)
        sign = wx.sign([self.appid, stamp, nonce, package])   # the SDK's RSA-SHA256 over the four lines
        return Checkout(payment_id, {"jsapi": {"appId": self.appid, "timeStamp": stamp, "nonceStr": nonce,
                                               "package": package, "signType": "RSA", "paySign": sign}})

    def session_status(self, reference: str) -> tuple[str, str | None, int | None, str | None]:
        wx = self.client()
        try:
            order = self._call("query", lambda: wx.query(out_trade_no=reference))
        except errors.PaymentError as exc:
            if (exc.details or {}).get("provider_code") == "ORDER_NOT_EXIST":
                return "expired", None, None, None
            raise
        amount = order.get("amount") or {}
        return (_STATUS.get(order.get("trade_state"), "open"), order.get("transaction_id"), amount.get("total"),
                amount.get("currency"))

    def expire(self, reference: str) -> None:
        """Closes the order: after this WeChat takes no payment for it (an order already paid refuses)."""
        wx = self.client()
        self._call("close", lambda: wx.close(out_trade_no=reference), ok=(200, 204))

    def refund(self, transaction_id: str | None, amount: int, payment_id: str, part: str = "", *,
               total: int, currency: str) -> str:
        """`out_refund_no` names the refund, so a retry of the same refund is the same refund at WeChat."""
        wx = self.client()
        refund_no = f"r{payment_id}" + (f"-{part}" if part else "")
        answer = self._call("refund", lambda: wx.refund(
            out_refund_no=refund_no, amount={"refund": amount, "total": total, "currency": currency},
            transaction_id=transaction_id, out_trade_no=None if transaction_id else payment_id))
        return answer.get("refund_id") or refund_no

    # ----------------------------------------------------------------- the payer's openid (JSAPI)
    @property
    def oauth(self) -> bool:
        return bool(self._app_secret)

    def oauth_url(self, return_to: str, state: str) -> str:
        """WeChat's web authorisation (snsapi_base: silent, no consent screen) for the official account bound to
        the merchant; WeChat sends the payer back to `return_to` with `code` and `state`."""
        return (f"{OAUTH_AUTHORIZE}?appid={self.appid}&redirect_uri={quote(return_to, safe='')}"
                f"&response_type=code&scope=snsapi_base&state={quote(state, safe='')}#wechat_redirect")

    def openid(self, code: str) -> str:
        """The payer's openid for this appid, from the one-use `code` (WeChat's sns/oauth2/access_token)."""
        from urllib.error import URLError
        from urllib.parse import urlencode
        from urllib.request import urlopen
        query = urlencode({"appid": self.appid, "secret": self._app_secret, "code": code,
                           "grant_type": "authorization_code"})
        try:
            with urlopen(f"{OAUTH_TOKEN}?{query}", timeout=self._timeout[1]) as r:
                answer = _json(r.read())
        except (URLError, OSError, ValueError) as exc:
            log.error("wechat oauth failed: %s", type(exc).__name__)
            raise errors.PaymentError("WeChat could not be reached (authorisation).") from None
        if not answer.get("openid"):
            # 40029 invalid code, 40163 code been used: the payer must authorise again
            log.warning("wechat oauth refused: %s", answer.get("errcode"))
            raise errors.WeChatCodeInvalid(details={"provider_code": answer.get("errcode")})
        return answer["openid"]

    # ----------------------------------------------------------------- notifications
    def verify_notification(self, headers: dict, body: bytes, now: datetime) -> Notification:
        headers = {k.lower(): v for k, v in (headers or {}).items()}
        if not headers.get("wechatpay-signature"):
            raise errors.InvalidSignature("The Wechatpay-Signature header is missing.")
        stamp = headers.get("wechatpay-timestamp", "")
        if not stamp.isdigit():
            raise errors.InvalidSignature("The Wechatpay-Timestamp header is missing.")
        if abs(int(stamp) - now.timestamp()) > TOLERANCE_SECONDS:   # the SDK leaves replay checks to us
            raise errors.StaleSignature()
        try:
            data = self.client().callback(headers, body)
        except errors.DomainError:
            raise
        except Exception:   # noqa: BLE001 — an unsupported signature type or algorithm: not WeChat's
            data = None
        if not data or not isinstance(data.get("resource"), dict) or not isinstance(data.get("id"), str):
            # bad signature, unknown serial, or a resource the APIv3 key does not open
            raise errors.InvalidSignature()
        res, kind = data["resource"], "other"
        event_type = data.get("event_type", "")
        amount = res.get("amount") or {}
        if res.get("mchid", self.mchid) != self.mchid:
            log.error("wechat pay notification %s for another merchant", data["id"])
        elif event_type == "TRANSACTION.SUCCESS" and res.get("trade_state") == "SUCCESS":
            kind = "paid"
        elif event_type.startswith("REFUND."):
            kind = "refund" if res.get("refund_status") == "SUCCESS" else "other"
        return Notification(id=f"wxp:{data['id']}", kind=kind, payment_id=res.get("out_trade_no"),
                            transaction_id=res.get("transaction_id"),
                            amount=amount.get("total"), currency=amount.get("currency", "CNY"),
                            refunded=amount.get("refund"), raw_type=event_type, running_total=False)


def _json(text) -> dict:
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    try:
        value = json.loads(text) if text else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
