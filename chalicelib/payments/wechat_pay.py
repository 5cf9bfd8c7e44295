"""WeChat Pay API v3 adapter (Native QR, JSAPI inside WeChat, H5 in a phone browser), on `wechatpayv3`.

Only this module imports wechatpayv3 (lazily: it pulls in requests, which most Lambda invocations never need).
The SDK signs every request with the merchant key, verifies every answer and every notification against
the platform certificate (downloaded from /v3/certificates and decrypted with the APIv3 key, or read from
`cert_dir`) and decrypts notification resources with AES-256-GCM; this module adds only what the SDK leaves
to the merchant: the freshness of a notification's timestamp, and the mapping to the port's vocabulary.

A chamber's own account (payments/accounts.py, issue 40): the installation's keys are the service provider's
(服务商). `for_account` answers the same port speaking for one chamber — mode `partner`: the platform's keys on the
partner endpoints (/v3/pay/partner/transactions/…, refunds with `sub_mchid`; the SDK's `partner_mode`), the money
settling to the chamber's 特约商户 `sub_mchid`; mode `direct`: the chamber's own merchant keys. A partner
notification is signed and encrypted for the service provider and names `sp_mchid` and `sub_mchid`: the platform's
adapter verifies it and says which sub-merchant it is for (`Notification.account`). A direct account's
notifications are encrypted with the chamber's own APIv3 key, so they come to the chamber's own notify URL
(`notify_url_for`) and are verified by its bound adapter.
"""
from __future__ import annotations

import copy
import hashlib
import json
import logging
import secrets
import time
from datetime import datetime
from urllib.parse import quote
from zoneinfo import ZoneInfo

from .. import errors
from .accounts import AccountCheck, PaymentAccount
from .port import Checkout, Notification

log = logging.getLogger("cardgames.payments")
TOLERANCE_SECONDS = 300   # WeChat Pay asks merchants to refuse notifications older than 5 minutes
CHINA = ZoneInfo("Asia/Shanghai")
OAUTH_AUTHORIZE = "https://open.weixin.qq.com/connect/oauth2/authorize"
OAUTH_TOKEN = "https://api.weixin.qq.com/sns/oauth2/access_token"

# A check makes at most two requests (the certificates, then a query); each waits ≤ 2 + 2.5 s: ≤ 10 s in all.
CHECK_TIMEOUT = (2, 2.5)
CHECK_ORDER = "ACCOUNTCHECK0000000000000000000"   # an order no one ever opens: its query says who may ask
_BOUND_CACHE = 256                                    # adapters kept per platform adapter (a direct one holds certificates)

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
        self.notify_url = notify_url
        self.sub_mchid: str | None = None     # partner mode: the 特约商户 this adapter speaks for
        self.sub_appid: str | None = None     # partner mode: the chamber's own official account, when it has one
        self.account_id: str | None = None    # the account this adapter speaks for (None: the platform's own)
        self._platform: WeChatPayGateway | None = None
        self._bound: dict = {}

    def client(self):
        """The SDK, made on first use: it loads (or downloads, once per process) the platform certificates.
        Partner mode shares the platform's SDK object (its keys and certificates) with `partner_mode` on."""
        if self._client is None and self._platform is not None:
            partner = copy.copy(self._platform.client())
            partner._partner_mode = True
            self._client = partner
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
        if self.sub_mchid:   # the platform's appid (its official account gave the payer's openid) is sp_appid
            params["sub_mchid"] = self.sub_mchid
            if self.sub_appid:
                params["sub_appid"] = self.sub_appid
        if channel == "jsapi":
            params["payer"] = {"sp_openid": openid} if self.sub_mchid else {"openid": openid}
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
            order = self._call("query", lambda: wx.query(out_trade_no=reference, sub_mchid=self.sub_mchid))
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
        self._call("close", lambda: wx.close(out_trade_no=reference, sub_mchid=self.sub_mchid), ok=(200, 204))

    def refund(self, transaction_id: str | None, amount: int, payment_id: str, part: str = "", *,
               total: int, currency: str) -> str:
        """`out_refund_no` names the refund, so a retry of the same refund is the same refund at WeChat."""
        wx = self.client()
        refund_no = f"r{payment_id}" + (f"-{part}" if part else "")
        answer = self._call("refund", lambda: wx.refund(
            out_refund_no=refund_no, amount={"refund": amount, "total": total, "currency": currency},
            transaction_id=transaction_id, out_trade_no=None if transaction_id else payment_id,
            sub_mchid=self.sub_mchid))
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
        account = self._account_named(res)
        if account is False:
            log.error("wechat pay notification %s for another merchant", data["id"])
        elif self.account_id is not None and account != self.account_id:
            # verified, but for another chamber's account: this adapter speaks for one account only
            log.error("wechat pay notification %s for another account", data["id"])
        elif event_type == "TRANSACTION.SUCCESS" and res.get("trade_state") == "SUCCESS":
            kind = "paid"
        elif event_type.startswith("REFUND."):
            kind = "refund" if res.get("refund_status") == "SUCCESS" else "other"
        return Notification(id=f"wxp:{data['id']}", kind=kind, payment_id=res.get("out_trade_no"),
                            transaction_id=res.get("transaction_id"),
                            amount=amount.get("total"), currency=amount.get("currency", "CNY"),
                            refunded=amount.get("refund"), raw_type=event_type, running_total=False,
                            account=account or None)

    def _account_named(self, res: dict):
        """The account a decrypted resource is for: a partner notification names the service provider (`sp_mchid`,
        which must be ours) and the sub-merchant; a direct one names the merchant. None: the platform's own;
        False: another merchant's (not ours to read)."""
        if "sp_mchid" in res:
            if res["sp_mchid"] != self.mchid:
                return False
            return res.get("sub_mchid") or False
        if res.get("mchid", self.mchid) != self.mchid:
            return False
        # the merchant's own: the chamber's when this adapter holds its keys; a partner adapter shares the
        # platform's keys, so a non-partner notification it opens is the platform's own
        return None if self.sub_mchid else self.account_id

    # ----------------------------------------------------------------- a chamber's own account (AccountAware)
    def for_account(self, account: PaymentAccount) -> WeChatPayGateway:
        """The port speaking for `account`: partner (the platform's keys + the chamber's sub_mchid) or direct (the
        chamber's own keys). Made once per account and keys (a direct one downloads its certificates once)."""
        if account.provider != self.name:
            raise errors.InvalidRequest(f"{account.provider} is not a WeChat Pay account.")
        if account.mode not in ("partner", "direct"):
            raise errors.InvalidRequest("A WeChat Pay account's mode is partner or direct.", {"field": "mode"})
        key = (account.mode, account.id, _fingerprint(account))
        gw = self._bound.get(key)
        if gw is None:
            gw = self._partner(account) if account.mode == "partner" else self._direct(account)
            if len(self._bound) >= _BOUND_CACHE:
                self._bound.clear()
            self._bound[key] = gw
        return gw

    def notify_url_for(self, account: PaymentAccount) -> str:
        """Where WeChat Pay posts the account's notifications: partner ones are the service provider's (signed and
        encrypted for the platform, one URL for all); a direct account's are encrypted with the chamber's own
        APIv3 key, so its URL names the organiser (POST {notify_url}/{organiser_id})."""
        return self.notify_url if account.mode == "partner" else f"{self.notify_url.rstrip('/')}/{account.organiser_id}"

    def account_of(self, notification: Notification) -> str | None:
        """The sub_mchid (partner) or the chamber's mchid (direct) a verified notification is for; None: the
        platform's own merchant."""
        return notification.account

    def _partner(self, account: PaymentAccount) -> WeChatPayGateway:
        if not account.id:
            raise errors.InvalidRequest("A WeChat Pay partner account needs its sub_mchid (子商户号).",
                                        {"field": "sub_mchid"})
        gw = copy.copy(self)
        gw._client, gw._bound, gw._platform = None, {}, self
        gw.sub_mchid = gw.account_id = account.id
        gw.sub_appid = account.public.get("sub_appid") or None
        return gw

    def _direct(self, account: PaymentAccount) -> WeChatPayGateway:
        values = {**account.public, **account.secrets}
        missing = [k for k in ("appid", "private_key", "cert_serial_no", "apiv3_key") if not values.get(k)]
        if not account.id or missing:
            raise errors.InvalidRequest("A WeChat Pay direct account needs mchid, appid, private_key, "
                                        "cert_serial_no and apiv3_key.", {"missing": missing or ["mchid"]})
        gw = WeChatPayGateway(mchid=account.id, appid=values["appid"], private_key=values["private_key"],
                              cert_serial_no=values["cert_serial_no"], apiv3_key=values["apiv3_key"],
                              notify_url=self.notify_url_for(account), public_key=values.get("public_key"),
                              public_key_id=values.get("public_key_id"), app_secret=values.get("app_secret"),
                              timeout=self._timeout)
        gw.account_id = account.id
        return gw

    def check_account(self, account: PaymentAccount) -> AccountCheck:
        """Asks WeChat Pay whether the account can take money (≤ 10 s): a direct account's keys download its
        platform certificates (a wrong signing key is refused; a wrong APIv3 key cannot open them); then a query
        of an order that does not exist says whether the merchant (or the sub-merchant, through the service
        provider) may use the payment APIs — ORDER_NOT_EXIST is the answer of an account that works."""
        try:
            gw = self.for_account(account)
        except errors.InvalidRequest as exc:
            return _incomplete(exc)
        if account.mode == "partner":
            signer, query = self._args, (f"/v3/pay/partner/transactions/out-trade-no/{CHECK_ORDER}"
                                         f"?sp_mchid={self.mchid}&sub_mchid={quote(account.id, safe='')}")
        else:
            signer, query = gw._args, f"/v3/pay/transactions/out-trade-no/{CHECK_ORDER}?mchid={quote(account.id, safe='')}"
            if not signer.get("public_key"):   # with WeChat's public key (微信支付公钥) there is no certificate to fetch
                problem = _check_certificates(signer)
                if problem is not None:
                    return problem
        status, body = _probe(signer, query)
        return _check_words(status, body, partner=account.mode == "partner")


def _incomplete(exc: errors.InvalidRequest) -> AccountCheck:
    details = exc.details or {}
    missing = details.get("missing") or [details.get("field") or "?"]
    return AccountCheck("failed", "invalid_account", f"账户资料不完整：缺少 {', '.join(missing)}。")


def _fingerprint(account: PaymentAccount) -> str:
    """Names the keys an adapter was made with (never stored, never logged): new keys make a new adapter."""
    values = json.dumps([account.public, account.secrets], sort_keys=True, default=str)
    return hashlib.sha256(values.encode()).hexdigest()


_UNREACHABLE = AccountCheck("failed", "provider_unreachable", "微信支付暂时无法连接，请稍后再检查。")
_WRONG_KEY = AccountCheck("failed", "wrong_key", "签名错误：商户号、API 证书私钥或证书序列号不对（商户平台 → 账户中心 → API 安全）。")


def _probe(args: dict, path: str) -> tuple[int, dict]:
    """One signed GET to WeChat Pay with the account's keys; (0, {}) when it cannot be reached in time."""
    import requests
    from wechatpayv3.utils import build_authorization, load_private_key
    try:
        key = load_private_key(args["private_key"])
    except Exception:   # noqa: BLE001 — not a PEM private key
        key = None
    if key is None:
        return -1, {}
    auth = build_authorization(path, "GET", args["mchid"], args["cert_serial_no"], key)
    try:
        r = requests.get("https://api.mch.weixin.qq.com" + path, timeout=CHECK_TIMEOUT,
                         headers={"Authorization": auth, "Accept": "application/json"})
    except requests.RequestException as exc:
        log.warning("wechat pay account check unreachable: %s", type(exc).__name__)
        return 0, {}
    return r.status_code, _json(r.text)


def _check_certificates(args: dict) -> AccountCheck | None:
    """The chamber's keys against /v3/certificates: None when they sign and the APIv3 key opens the answer."""
    from wechatpayv3.utils import aes_decrypt
    status, body = _probe(args, "/v3/certificates")
    if status == -1:
        return AccountCheck("failed", "wrong_key", "API 证书私钥读不出来：请粘贴 apiclient_key.pem 的全部内容。")
    if status != 200:
        return _check_words(status, body, partner=False)
    for cert in body.get("data") or []:
        enc = cert.get("encrypt_certificate") or {}
        try:
            opened = aes_decrypt(nonce=enc.get("nonce", ""), ciphertext=enc.get("ciphertext", ""),
                                 associated_data=enc.get("associated_data", ""), apiv3_key=args["apiv3_key"])
        except Exception:   # noqa: BLE001 — a key of the wrong length, a ciphertext that is not base64
            opened = None
        if opened:
            return None
    return AccountCheck("failed", "wrong_key", "APIv3 密钥不对：平台证书解不开（商户平台 → API 安全 → 设置 APIv3 密钥，32 位）。")


def _check_words(status: int, body: dict, *, partner: bool) -> AccountCheck:
    """WeChat Pay's answer to the check's query, in the words of its merchant platform."""
    code, message = body.get("code") or "", body.get("message") or ""
    if status == 404 and code in ("ORDER_NOT_EXIST", "RESOURCE_NOT_EXISTS", "ORDERNOTEXIST"):
        return AccountCheck("ok", None, "微信支付账户可用。")
    if status == -1:
        return AccountCheck("failed", "wrong_key", "API 证书私钥读不出来：请粘贴 apiclient_key.pem 的全部内容。")
    if status == 0 or status >= 500 or code in ("SYSTEM_ERROR", "FREQUENCY_LIMITED", "FREQUENCY_LIMIT_EXCEED"):
        return _UNREACHABLE
    if status == 401 or code == "SIGN_ERROR":
        return _WRONG_KEY
    if code == "NO_AUTH":
        return AccountCheck("failed", "product_not_enabled",
                            "未开通该产品：请在商户平台 → 产品中心开通 Native / JSAPI / H5 支付"
                            + ("，并授权服务商代为使用。" if partner else "。"))
    if code == "MCH_NOT_EXISTS":
        return AccountCheck("failed", "account_not_found",
                            "子商户号不存在：请核对子商户号。" if partner else "商户号不存在：请核对商户号。")
    if partner and code in ("INVALID_REQUEST", "PARAM_ERROR") and \
            any(w in message for w in ("受理关系", "绑定", "服务商", "sub_mchid", "子商户")):
        return AccountCheck("failed", "sub_merchant_not_bound",
                            "子商户号未与服务商绑定：请在服务商平台确认该特约商户由本平台进件或已授权本平台。")
    return AccountCheck("failed", "provider_refused", f"微信支付拒绝：{code} {message}".strip())


def _json(text) -> dict:
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    try:
        value = json.loads(text) if text else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
