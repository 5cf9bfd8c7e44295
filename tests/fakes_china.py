"""Fake WeChat Pay API v3 and Alipay gateways, answering the real SDKs' HTTP (no network).

They sign the way the providers do, with key pairs and a platform certificate made here: WeChat Pay signs
`timestamp\\nnonce\\nbody\\n` (RSA-SHA256, PKCS#1 v1.5) with the platform key and encrypts resources with
AES-256-GCM under the merchant's APIv3 key; Alipay signs the sorted `k=v&…` string (RSA2) with its key. They
also check what the SDKs send: the merchant's Authorization signature (WeChat) and the app's sign (Alipay).
"""
from __future__ import annotations

import base64
import io
import json
import re
import secrets
import time
from datetime import datetime, timedelta, UTC
from email.message import Message
from urllib.parse import parse_qsl, urlencode, urlparse
from urllib.request import BaseHandler, build_opener
from urllib.response import addinfourl

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.x509.oid import NameOID


def new_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def private_pem(key) -> str:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption()).decode()


def public_pem(key) -> str:
    return key.public_key().public_bytes(serialization.Encoding.PEM,
                                         serialization.PublicFormat.SubjectPublicKeyInfo).decode()


def rsa_sign(key, text: str) -> str:
    return base64.b64encode(key.sign(text.encode(), padding.PKCS1v15(), hashes.SHA256())).decode()


def rsa_verify(public_key, text: str, signature: str) -> bool:
    try:
        public_key.verify(base64.b64decode(signature), text.encode(), padding.PKCS1v15(), hashes.SHA256())
        return True
    except InvalidSignature:
        return False


def platform_certificate(key, serial: int) -> x509.Certificate:
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Tenpay.com Root CA (test)")])
    now = datetime.now(UTC)
    return (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(serial).not_valid_before(now - timedelta(days=1)).not_valid_after(now + timedelta(days=365))
            .sign(key, hashes.SHA256()))


def aes_gcm(apiv3_key: str, plaintext: str, associated_data: str) -> dict:
    nonce = secrets.token_hex(6)   # 12 characters, as WeChat's
    data = AESGCM(apiv3_key.encode()).encrypt(nonce.encode(), plaintext.encode(), associated_data.encode())
    return {"algorithm": "AEAD_AES_256_GCM", "nonce": nonce, "associated_data": associated_data,
            "ciphertext": base64.b64encode(data).decode()}


# --------------------------------------------------------------------------- WeChat Pay
class Merchant:
    """A merchant at the fake WeChat Pay: its API certificate's key and serial, its APIv3 key, its products."""

    def __init__(self, mchid: str, appid: str, products=("native", "jsapi", "h5"), serial: str | None = None):
        self.mchid, self.appid, self.products = mchid, appid, set(products)
        self.key = new_key()
        self.serial = serial or secrets.token_hex(20).upper()
        self.apiv3_key = secrets.token_hex(16)   # 32 characters

    def values(self) -> dict:
        """What the chamber types into the console for a direct account (PaymentAccount public + secrets)."""
        return {"appid": self.appid, "private_key": private_pem(self.key), "cert_serial_no": self.serial,
                "apiv3_key": self.apiv3_key}


class FakeWeChatPay:
    """Plug in with `fake.mock()` (a `responses` mock of api.mch.weixin.qq.com).

    The installation's merchant (MCHID) is also a service provider (服务商): `add_sub_merchant` gives it 特约商户 it
    may act for on the partner endpoints (/v3/pay/partner/…, refunds with `sub_mchid`); `add_merchant` is a chamber
    with its own keys (direct). Each request's Authorization is verified with the calling merchant's key; each
    order, refund and query is recorded with the account it was for (`account`: the sub_mchid, or the merchant)."""
    MCHID, APPID = "1900000109", "wxd678efh567hg6787"

    def __init__(self):
        platform = Merchant(self.MCHID, self.APPID, serial="5157F09EFDC096DE15EBE81A47057A7232F1B8E1")
        self.merchants: dict[str, Merchant] = {self.MCHID: platform}
        self.sub_merchants: dict[str, dict] = {}   # sub_mchid → {"sp": service provider's mchid, "products": set}
        self.merchant_key, self.merchant_serial, self.apiv3_key = platform.key, platform.serial, platform.apiv3_key
        self.platform_key = new_key()
        self.platform_serial = 0x2A3B4C5D6E7F
        self.platform_cert = platform_certificate(self.platform_key, self.platform_serial)
        self.orders: dict[str, dict] = {}
        self.refunds: list[dict] = []
        self.requests: list[dict] = []
        self.closed: list[str] = []

    def gateway(self, notify_url="https://api.example.cn/webhooks/wechat-pay"):
        from chalicelib.payments.wechat_pay import WeChatPayGateway
        return WeChatPayGateway(mchid=self.MCHID, appid=self.APPID, private_key=private_pem(self.merchant_key),
                                cert_serial_no=self.merchant_serial, apiv3_key=self.apiv3_key, notify_url=notify_url)

    def add_sub_merchant(self, sub_mchid: str, *, bound: bool = True, products=("native", "jsapi", "h5")) -> str:
        """A 特约商户: bound to the platform's service provider (or to another one when `bound` is False)."""
        self.sub_merchants[sub_mchid] = {"sp": self.MCHID if bound else "1900009999", "products": set(products)}
        return sub_mchid

    def add_merchant(self, mchid: str, appid: str, products=("native", "jsapi", "h5")) -> Merchant:
        self.merchants[mchid] = Merchant(mchid, appid, products)
        return self.merchants[mchid]

    # -- the HTTP side
    def mock(self):
        import responses
        mock = responses.RequestsMock(assert_all_requests_are_fired=False)
        mock.add_callback(responses.GET, re.compile(r"https://api\.mch\.weixin\.qq\.com/.*"), self._answer)
        mock.add_callback(responses.POST, re.compile(r"https://api\.mch\.weixin\.qq\.com/.*"), self._answer)
        return mock

    def _signed(self, status: int, body: str):
        stamp, nonce = str(int(time.time())), secrets.token_hex(16)
        headers = {"Content-Type": "application/json", "Wechatpay-Timestamp": stamp, "Wechatpay-Nonce": nonce,
                   "Wechatpay-Serial": format(self.platform_serial, "X"),
                   "Wechatpay-Signature-Type": "WECHATPAY2-SHA256-RSA2048",
                   "Wechatpay-Signature": rsa_sign(self.platform_key, f"{stamp}\n{nonce}\n{body}\n")}
        return status, headers, body

    def _error(self, status, code, message=None):
        return self._signed(status, json.dumps({"code": code, "message": message or code}, ensure_ascii=False))

    def _sub_refusal(self, sp: str, sub_mchid: str | None, kind: str | None = None):
        """WeChat's answer when the service provider `sp` may not act for `sub_mchid` (None: it may)."""
        sub = self.sub_merchants.get(sub_mchid or "")
        if sub is None:
            return self._error(400, "MCH_NOT_EXISTS", "商户号不存在")
        if sub["sp"] != sp:
            return self._error(400, "INVALID_REQUEST", "受理关系不存在")
        if not sub["products"] or (kind and kind not in sub["products"]):
            return self._error(403, "NO_AUTH", "特约商户未授权服务商的产品权限")
        return None

    def _order_for(self, account: str, *, no: str | None = None, transaction_id: str | None = None):
        order = self.orders.get(no) if no else \
            next((o for o in self.orders.values() if transaction_id and o["transaction_id"] == transaction_id), None)
        return order if order is not None and order["account"] == account else None

    def _answer(self, request):
        url = urlparse(request.url)
        path = url.path + (f"?{url.query}" if url.query else "")
        query = dict(parse_qsl(url.query))
        body = request.body.decode() if isinstance(request.body, bytes) else (request.body or "")
        auth = request.headers.get("Authorization", "")
        fields = dict(re.findall(r'(\w+)="([^"]*)"', auth))
        caller = self.merchants.get(fields.get("mchid", ""))
        signed = f"{request.method}\n{path}\n{fields.get('timestamp')}\n{fields.get('nonce_str')}\n{body}\n"
        if not auth.startswith("WECHATPAY2-SHA256-RSA2048 ") or caller is None or \
                fields.get("serial_no") != caller.serial or \
                not rsa_verify(caller.key.public_key(), signed, fields.get("signature", "")):
            return self._error(401, "SIGN_ERROR", "签名错误")
        data = json.loads(body) if body else {}
        partner = "/partner/" in url.path or "sub_mchid" in data
        account = (data.get("sub_mchid") or query.get("sub_mchid")) if partner else caller.mchid
        self.requests.append({"method": request.method, "path": url.path, "body": data, "query": query,
                              "mchid": caller.mchid, "account": account})
        if url.path == "/v3/certificates":
            pem = self.platform_cert.public_bytes(serialization.Encoding.PEM).decode()
            now = datetime.now(UTC)
            return self._signed(200, json.dumps({"data": [{
                "serial_no": format(self.platform_serial, "X"), "effective_time": (now - timedelta(days=1)).isoformat(),
                "expire_time": (now + timedelta(days=365)).isoformat(),
                "encrypt_certificate": aes_gcm(caller.apiv3_key, pem, "certificate")}]}))
        if partner and (data.get("sp_mchid") or query.get("sp_mchid") or caller.mchid) != caller.mchid:
            return self._error(400, "PARAM_ERROR", "sp_mchid 与请求方商户号不一致")
        m = re.fullmatch(r"/v3/pay(/partner)?/transactions/(native|jsapi|h5)", url.path)
        if m:
            kind, no = m.group(2), data["out_trade_no"]
            if partner:
                refusal = self._sub_refusal(caller.mchid, account, kind)
                if refusal:
                    return refusal
                payer_ok = (data.get("payer") or {}).get("sp_openid") or (data.get("payer") or {}).get("sub_openid")
            else:
                if data.get("mchid") != caller.mchid or data.get("appid") != caller.appid:
                    return self._error(400, "APPID_MCHID_NOT_MATCH", "appid和mch_id不匹配")
                if kind not in caller.products:
                    return self._error(403, "NO_AUTH", "商户号该产品权限未开通，请前往商户平台>产品中心检查后重试")
                payer_ok = (data.get("payer") or {}).get("openid")
            if kind == "jsapi" and not payer_ok:
                return self._error(400, "PARAM_ERROR")
            old = self.orders.get(no)
            if old and old["trade_state"] != "NOTPAY":
                return self._error(400, "ORDERPAID" if old["trade_state"] == "SUCCESS" else "ORDERCLOSED")
            self.orders[no] = {"out_trade_no": no, "trade_state": "NOTPAY", "amount": data["amount"], "kind": kind,
                               "notify_url": data["notify_url"], "time_expire": data.get("time_expire"),
                               "transaction_id": None, "account": account, "partner": partner,
                               "sp_mchid": caller.mchid if partner else None, "payer": data.get("payer"),
                               "appid": data.get("sp_appid") if partner else data.get("appid")}
            answer = {"native": {"code_url": f"weixin://wxpay/bizpayurl?pr={no[-8:]}"},
                      "jsapi": {"prepay_id": f"wx{no[-10:]}"},
                      "h5": {"h5_url": f"https://wx.tenpay.com/cgi-bin/mmpayweb-bin/checkmweb?prepay_id=wx{no[-10:]}"}}
            return self._signed(200, json.dumps(answer[kind]))
        m = re.fullmatch(r"/v3/pay(/partner)?/transactions/out-trade-no/([^/]+)(/close)?", url.path)
        if m:
            if partner:
                refusal = self._sub_refusal(caller.mchid, account)
                if refusal:
                    return refusal
            elif (data.get("mchid") or query.get("mchid")) != caller.mchid:
                return self._error(400, "PARAM_ERROR", "mchid 与请求方商户号不一致")
            elif not caller.products:
                return self._error(403, "NO_AUTH", "商户号该产品权限未开通，请前往商户平台>产品中心检查后重试")
            order = self._order_for(account, no=m.group(2))
            if order is None:   # no such order — or another merchant's: never shown
                return self._error(404, "ORDER_NOT_EXIST", "订单不存在")
            if m.group(3):
                if order["trade_state"] == "SUCCESS":
                    return self._error(400, "ORDERPAID")
                order["trade_state"] = "CLOSED"
                self.closed.append(m.group(2))
                return self._signed(204, "")
            who = ({"sp_mchid": caller.mchid, "sub_mchid": account, "sp_appid": caller.appid} if partner
                   else {"mchid": caller.mchid, "appid": caller.appid})
            shown = {k: v for k, v in order.items() if k not in ("account", "partner", "sp_mchid", "notify_url")}
            return self._signed(200, json.dumps({**who, **shown}))
        if url.path == "/v3/refund/domestic/refunds":
            if partner:
                refusal = self._sub_refusal(caller.mchid, account)
                if refusal:
                    return refusal
            known = self.orders.get(data.get("out_trade_no") or "") or next(
                (o for o in self.orders.values() if data.get("transaction_id") and
                 o["transaction_id"] == data["transaction_id"]), None)
            if known is not None and known["account"] != account:   # another merchant's order: not found for this one
                return self._error(404, "RESOURCE_NOT_EXISTS", "订单不存在")
            if any(r["out_refund_no"] == data["out_refund_no"] for r in self.refunds):   # the same refund again
                return self._signed(200, json.dumps({"refund_id": "dup", "status": "PROCESSING"}))
            self.refunds.append({**data, "account": account})
            return self._signed(200, json.dumps({"refund_id": f"5030{len(self.refunds)}", "status": "PROCESSING"}))
        return self._error(404, "NOT_FOUND")

    # -- the payer pays; WeChat notifies
    def pay(self, out_trade_no: str, total: int | None = None) -> None:
        order = self.orders[out_trade_no]
        order.update(trade_state="SUCCESS", transaction_id=f"4200{out_trade_no[-12:]}")
        if total is not None:
            order["amount"] = {**order["amount"], "total": total}

    def _whose(self, order: dict, sub_mchid: str | None) -> tuple[dict, str]:
        """The resource's merchant fields and the APIv3 key that encrypts it: a partner order's notification is the
        service provider's (sp_mchid + sub_mchid, its key); a direct one the merchant's own."""
        if order.get("partner") or sub_mchid:
            sp = self.merchants[order.get("sp_mchid") or self.MCHID]
            return {"sp_mchid": sp.mchid, "sp_appid": sp.appid, "sub_mchid": sub_mchid or order["account"]}, sp.apiv3_key
        merchant = self.merchants[order.get("account") or self.MCHID]
        return {"mchid": merchant.mchid, "appid": merchant.appid}, merchant.apiv3_key

    def notification(self, out_trade_no: str, at: datetime, *, event_id: str | None = None,
                     signer=None, apiv3_key: str | None = None, serial: int | None = None,
                     event_type="TRANSACTION.SUCCESS", resource: dict | None = None,
                     sub_mchid: str | None = None) -> tuple[dict, bytes]:
        """(headers, body) as WeChat Pay posts them; the keyword arguments forge one part (`sub_mchid`: a partner
        notification naming that sub-merchant, signed and encrypted for real)."""
        order = self.orders.get(out_trade_no, {"amount": {"total": 1, "currency": "CNY"}})
        who, key = self._whose(order, sub_mchid)
        plain = resource or {**who, "out_trade_no": out_trade_no,
                             "transaction_id": order.get("transaction_id"), "trade_type": "NATIVE",
                             "trade_state": order.get("trade_state", "SUCCESS"), "trade_state_desc": "支付成功",
                             "success_time": at.isoformat(), "payer": {"openid": "oUpF8uMuAJO_M2pxb1Q9zNjWeS6o"},
                             "amount": {"total": order["amount"]["total"], "payer_total": order["amount"]["total"],
                                        "currency": "CNY", "payer_currency": "CNY"}}
        body = json.dumps({"id": event_id or secrets.token_hex(16), "create_time": at.isoformat(),
                           "resource_type": "encrypt-resource", "event_type": event_type, "summary": "支付成功",
                           "resource": {**aes_gcm(apiv3_key or key, json.dumps(plain, ensure_ascii=False),
                                                  "transaction"), "original_type": "transaction"}},
                          ensure_ascii=False)
        stamp, nonce = str(int(at.timestamp())), secrets.token_hex(16)
        headers = {"Wechatpay-Timestamp": stamp, "Wechatpay-Nonce": nonce,
                   "Wechatpay-Serial": format(serial or self.platform_serial, "X"),
                   "Wechatpay-Signature-Type": "WECHATPAY2-SHA256-RSA2048",
                   "Wechatpay-Signature": rsa_sign(signer or self.platform_key, f"{stamp}\n{nonce}\n{body}\n"),
                   "Content-Type": "application/json"}
        return headers, body.encode()

    def refund_notification(self, out_trade_no: str, at: datetime, refund: int) -> tuple[dict, bytes]:
        order = self.orders[out_trade_no]
        who, _ = self._whose(order, None)
        who.pop("appid", None), who.pop("sp_appid", None)
        return self.notification(out_trade_no, at, event_type="REFUND.SUCCESS", resource={
            **who, "out_trade_no": out_trade_no, "transaction_id": order["transaction_id"],
            "out_refund_no": f"r{out_trade_no}", "refund_id": "50301", "refund_status": "SUCCESS",
            "amount": {"total": order["amount"]["total"], "refund": refund, "payer_total": order["amount"]["total"],
                       "payer_refund": refund}})


# --------------------------------------------------------------------------- Alipay
def alipay_signing_string(params: dict, notification: bool = False) -> str:
    """Requests sign every parameter but `sign`; notifications leave out `sign_type` too (Alipay's rules)."""
    left_out = ("sign", "sign_type") if notification else ("sign",)
    return "&".join(f"{k}={v}" for k, v in sorted(params.items()) if k not in left_out and v != "")


class FakeAlipay(BaseHandler):
    """An urllib handler answering openapi.alipay.com; `fake.opener()` is what the adapter's SDK fetches with.

    The installation's app (APPID) is also the platform's third-party app: `authorise(auth_app_id)` is a chamber
    authorising it (应用授权), answering the `app_auth_token` every call on that chamber's behalf must carry;
    `add_app` is a chamber's own app with its own keys (direct). Each call's sign is verified with the calling
    app's key and each answer signed with that app's Alipay key; each call, trade and refund is recorded with the
    account it was for (`account`: the authorising chamber's app id, or the calling app)."""
    APPID = "2021000000000001"
    handler_order = 100   # before urllib's own HTTPSHandler: nothing leaves the machine

    def __init__(self):
        self.app_key = new_key()
        self.alipay_key = new_key()
        self.apps: dict[str, dict] = {self.APPID: {"app_key": self.app_key, "alipay_key": self.alipay_key}}
        self.tokens: dict[str, dict] = {}   # app_auth_token → {"auth_app_id", "user_id", "status", "auth_methods"}
        self.trades: dict[str, dict] = {}
        self.refunds: list[dict] = []
        self.calls: list[dict] = []

    def gateway(self, notify_url="https://api.example.cn/webhooks/alipay"):
        from chalicelib.payments.alipay import AlipayGateway
        return AlipayGateway(appid=self.APPID, app_private_key=private_pem(self.app_key),
                             alipay_public_key=public_pem(self.alipay_key), notify_url=notify_url, opener=self.opener())

    def add_app(self, appid: str) -> dict:
        """A chamber's own app: what it types into the console for a direct account."""
        self.apps[appid] = {"app_key": new_key(), "alipay_key": new_key()}
        return {"app_private_key": private_pem(self.apps[appid]["app_key"]),
                "alipay_public_key": public_pem(self.apps[appid]["alipay_key"])}

    def authorise(self, auth_app_id: str, *, methods=("alipay.trade.wap.pay", "alipay.trade.page.pay",
                                                      "alipay.trade.query", "alipay.trade.refund",
                                                      "alipay.trade.close")) -> str:
        token = f"202612BB{secrets.token_hex(12)}"
        self.tokens[token] = {"auth_app_id": auth_app_id, "user_id": f"2088{secrets.randbelow(10**12):012d}",
                              "status": "valid", "auth_methods": list(methods)}
        return token

    def opener(self):
        return build_opener(self)

    def https_open(self, req):
        params = dict(parse_qsl(urlparse(req.full_url).query, keep_blank_values=True))
        app = self.apps.get(params.get("app_id", ""))
        if app is None:
            return self._reply(req, "error_response", {"code": "40002", "sub_code": "isv.invalid-app-id",
                                                       "sub_msg": "无效的AppID参数"})
        if not rsa_verify(app["app_key"].public_key(), alipay_signing_string(params), params.get("sign", "")):
            return self._reply(req, "error_response", {"code": "40002", "sub_code": "isv.invalid-signature"}, app)
        method, biz = params["method"], json.loads(params.get("biz_content") or "{}")
        name = method.replace(".", "_") + "_response"
        token = params.get("app_auth_token")
        grant = self.tokens.get(token) if token else None
        account = grant["auth_app_id"] if grant else params["app_id"]
        self.calls.append({"method": method, "biz": biz, "app_id": params["app_id"], "account": account,
                           "app_auth_token": token})
        if token and (grant is None or grant["status"] != "valid" or params["app_id"] != self.APPID):
            return self._reply(req, name, {"code": "20001", "msg": "Insufficient Token Permissions",
                                           "sub_code": "aop.invalid-app-auth-token", "sub_msg": "无效的应用授权令牌"}, app)
        if method == "alipay.open.auth.token.app.query":
            return self._reply(req, name, {"code": "10000", "msg": "Success", "user_id": grant["user_id"],
                                           "auth_app_id": grant["auth_app_id"], "expires_in": 31536000,
                                           "auth_methods": grant["auth_methods"], "auth_start": "2026-01-01 00:00:00",
                                           "auth_end": "2027-01-01 00:00:00", "status": "valid"}, app)
        if grant and method not in grant["auth_methods"]:
            return self._reply(req, name, {"code": "20001", "sub_code": "aop.invalid-app-auth-token-no-api",
                                           "sub_msg": "商户未授权当前接口"}, app)
        trade = self.trades.get(biz.get("out_trade_no"))
        if trade is None or trade["account"] != account:   # another merchant's trade is not found for this one
            return self._reply(req, name, {"code": "40004", "msg": "Business Failed", "sub_code": "ACQ.TRADE_NOT_EXIST"},
                               app)
        shown = {k: v for k, v in trade.items() if k not in ("account", "notify_url", "app_id")}
        if method == "alipay.trade.query":
            return self._reply(req, name, {"code": "10000", "msg": "Success", **shown}, app)
        if method == "alipay.trade.close":
            if trade["trade_status"] != "WAIT_BUYER_PAY":
                return self._reply(req, name, {"code": "40004", "sub_code": "ACQ.TRADE_STATUS_ERROR"}, app)
            trade["trade_status"] = "TRADE_CLOSED"
            return self._reply(req, name, {"code": "10000", "msg": "Success", "out_trade_no": trade["out_trade_no"]},
                               app)
        if method == "alipay.trade.refund":
            if not any(r["out_request_no"] == biz.get("out_request_no") for r in self.refunds):
                self.refunds.append({**biz, "account": account})
            return self._reply(req, name, {"code": "10000", "msg": "Success", "fund_change": "Y",
                                           "refund_fee": biz["refund_amount"], "out_trade_no": trade["out_trade_no"]},
                               app)
        return self._reply(req, name, {"code": "40004", "sub_code": "ACQ.SYSTEM_ERROR"}, app)

    def _reply(self, req, name, content, app: dict | None = None):
        inner = json.dumps(content, ensure_ascii=False, separators=(",", ":"))
        key = (app or self.apps[self.APPID])["alipay_key"]
        raw = f'{{"{name}":{inner},"sign":"{rsa_sign(key, inner)}"}}'
        headers = Message()
        headers["Content-Type"] = "application/json;charset=utf-8"
        response = addinfourl(io.BytesIO(raw.encode()), headers, req.full_url, 200)
        response.msg = "OK"
        return response

    def open_trade(self, pay_url: str) -> dict:
        """The payer's browser takes the signed pay URL to Alipay: the trade exists from then on."""
        params = dict(parse_qsl(urlparse(pay_url).query))
        app = self.apps[params["app_id"]]
        assert rsa_verify(app["app_key"].public_key(), alipay_signing_string(params), params["sign"]), "bad pay URL sign"
        token = params.get("app_auth_token")
        if token:
            assert token in self.tokens and self.tokens[token]["status"] == "valid", "bad app_auth_token"
        biz = json.loads(params["biz_content"])
        self.trades[biz["out_trade_no"]] = {"out_trade_no": biz["out_trade_no"], "trade_status": "WAIT_BUYER_PAY",
                                            "total_amount": biz["total_amount"], "trade_no": None,
                                            "notify_url": params.get("notify_url"), "app_id": params["app_id"],
                                            "account": self.tokens[token]["auth_app_id"] if token else params["app_id"]}
        return {**params, "biz": biz}

    def pay(self, out_trade_no: str) -> None:
        self.trades[out_trade_no].update(trade_status="TRADE_SUCCESS", trade_no=f"2026{out_trade_no[-12:]}")

    def notification(self, out_trade_no: str, at: datetime, *, signer=None, app_id: str | None = None,
                     notify_id: str | None = None, auth_app_id: str | None = None, **fields) -> bytes:
        """The trade's notification, as Alipay posts it: for the app that opened the trade (`app_id`, signed with
        that app's Alipay key), naming the chamber it was for (`auth_app_id`); the keywords forge one part."""
        trade = self.trades[out_trade_no]
        opener = trade.get("app_id") or self.APPID
        params = {"notify_time": at.strftime("%Y-%m-%d %H:%M:%S"), "notify_type": "trade_status_sync",
                  "notify_id": notify_id or secrets.token_hex(16), "charset": "utf-8", "version": "1.0",
                  "sign_type": "RSA2", "auth_app_id": auth_app_id or app_id or trade.get("account") or opener,
                  "app_id": app_id or opener,
                  "trade_no": trade["trade_no"] or "", "out_trade_no": out_trade_no,
                  "trade_status": trade["trade_status"], "total_amount": trade["total_amount"],
                  "receipt_amount": trade["total_amount"], "buyer_id": "2088102177846875", "subject": "报名费"}
        params.update(fields)
        params = {k: v for k, v in params.items() if v != ""}
        key = signer or self.apps.get(opener, self.apps[self.APPID])["alipay_key"]
        params["sign"] = rsa_sign(key, alipay_signing_string(params, notification=True))
        return urlencode(params).encode()
