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
class FakeWeChatPay:
    """Plug in with `fake.mock()` (a `responses` mock of api.mch.weixin.qq.com)."""
    MCHID, APPID = "1900000109", "wxd678efh567hg6787"

    def __init__(self):
        self.merchant_key = new_key()
        self.merchant_serial = "5157F09EFDC096DE15EBE81A47057A7232F1B8E1"
        self.platform_key = new_key()
        self.platform_serial = 0x2A3B4C5D6E7F
        self.platform_cert = platform_certificate(self.platform_key, self.platform_serial)
        self.apiv3_key = secrets.token_hex(16)   # 32 characters
        self.orders: dict[str, dict] = {}
        self.refunds: list[dict] = []
        self.requests: list[dict] = []
        self.closed: list[str] = []

    def gateway(self, notify_url="https://api.example.cn/webhooks/wechat-pay"):
        from chalicelib.payments.wechat_pay import WeChatPayGateway
        return WeChatPayGateway(mchid=self.MCHID, appid=self.APPID, private_key=private_pem(self.merchant_key),
                                cert_serial_no=self.merchant_serial, apiv3_key=self.apiv3_key, notify_url=notify_url)

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

    def _error(self, status, code):
        return self._signed(status, json.dumps({"code": code, "message": code}))

    def _answer(self, request):
        url = urlparse(request.url)
        path = url.path + (f"?{url.query}" if url.query else "")
        body = request.body.decode() if isinstance(request.body, bytes) else (request.body or "")
        auth = request.headers.get("Authorization", "")
        fields = dict(re.findall(r'(\w+)="([^"]*)"', auth))
        signed = f"{request.method}\n{path}\n{fields.get('timestamp')}\n{fields.get('nonce_str')}\n{body}\n"
        if not auth.startswith("WECHATPAY2-SHA256-RSA2048 ") or fields.get("mchid") != self.MCHID or \
                not rsa_verify(self.merchant_key.public_key(), signed, fields.get("signature", "")):
            return self._error(401, "SIGN_ERROR")
        data = json.loads(body) if body else {}
        self.requests.append({"method": request.method, "path": url.path, "body": data})
        if url.path == "/v3/certificates":
            pem = self.platform_cert.public_bytes(serialization.Encoding.PEM).decode()
            now = datetime.now(UTC)
            return self._signed(200, json.dumps({"data": [{
                "serial_no": format(self.platform_serial, "X"), "effective_time": (now - timedelta(days=1)).isoformat(),
                "expire_time": (now + timedelta(days=365)).isoformat(),
                "encrypt_certificate": aes_gcm(self.apiv3_key, pem, "certificate")}]}))
        m = re.fullmatch(r"/v3/pay/transactions/(native|jsapi|h5)", url.path)
        if m:
            kind, no = m.group(1), data["out_trade_no"]
            if kind == "jsapi" and not (data.get("payer") or {}).get("openid"):
                return self._error(400, "PARAM_ERROR")
            old = self.orders.get(no)
            if old and old["trade_state"] != "NOTPAY":
                return self._error(400, "ORDERPAID" if old["trade_state"] == "SUCCESS" else "ORDERCLOSED")
            self.orders[no] = {"out_trade_no": no, "trade_state": "NOTPAY", "amount": data["amount"], "kind": kind,
                               "notify_url": data["notify_url"], "time_expire": data.get("time_expire"),
                               "transaction_id": None}
            answer = {"native": {"code_url": f"weixin://wxpay/bizpayurl?pr={no[-8:]}"},
                      "jsapi": {"prepay_id": f"wx{no[-10:]}"},
                      "h5": {"h5_url": f"https://wx.tenpay.com/cgi-bin/mmpayweb-bin/checkmweb?prepay_id=wx{no[-10:]}"}}
            return self._signed(200, json.dumps(answer[kind]))
        m = re.fullmatch(r"/v3/pay/transactions/out-trade-no/([^/]+)(/close)?", url.path)
        if m:
            order = self.orders.get(m.group(1))
            if order is None:
                return self._error(404, "ORDER_NOT_EXIST")
            if m.group(2):
                if order["trade_state"] == "SUCCESS":
                    return self._error(400, "ORDERPAID")
                order["trade_state"] = "CLOSED"
                self.closed.append(m.group(1))
                return self._signed(204, "")
            return self._signed(200, json.dumps({"mchid": self.MCHID, "appid": self.APPID, **order}))
        if url.path == "/v3/refund/domestic/refunds":
            if any(r["out_refund_no"] == data["out_refund_no"] for r in self.refunds):   # the same refund again
                return self._signed(200, json.dumps({"refund_id": "dup", "status": "PROCESSING"}))
            self.refunds.append(data)
            return self._signed(200, json.dumps({"refund_id": f"5030{len(self.refunds)}", "status": "PROCESSING"}))
        return self._error(404, "NOT_FOUND")

    # -- the payer pays; WeChat notifies
    def pay(self, out_trade_no: str, total: int | None = None) -> None:
        order = self.orders[out_trade_no]
        order.update(trade_state="SUCCESS", transaction_id=f"4200{out_trade_no[-12:]}")
        if total is not None:
            order["amount"] = {**order["amount"], "total": total}

    def notification(self, out_trade_no: str, at: datetime, *, event_id: str | None = None,
                     signer=None, apiv3_key: str | None = None, serial: int | None = None,
                     event_type="TRANSACTION.SUCCESS", resource: dict | None = None) -> tuple[dict, bytes]:
        """(headers, body) as WeChat Pay posts them; the keyword arguments forge one part."""
        order = self.orders.get(out_trade_no, {"amount": {"total": 1, "currency": "CNY"}})
        plain = resource or {"mchid": self.MCHID, "appid": self.APPID, "out_trade_no": out_trade_no,
                             "transaction_id": order.get("transaction_id"), "trade_type": "NATIVE",
                             "trade_state": order.get("trade_state", "SUCCESS"), "trade_state_desc": "支付成功",
                             "success_time": at.isoformat(), "payer": {"openid": "oUpF8uMuAJO_M2pxb1Q9zNjWeS6o"},
                             "amount": {"total": order["amount"]["total"], "payer_total": order["amount"]["total"],
                                        "currency": "CNY", "payer_currency": "CNY"}}
        body = json.dumps({"id": event_id or secrets.token_hex(16), "create_time": at.isoformat(),
                           "resource_type": "encrypt-resource", "event_type": event_type, "summary": "支付成功",
                           "resource": {**aes_gcm(apiv3_key or self.apiv3_key, json.dumps(plain, ensure_ascii=False),
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
        return self.notification(out_trade_no, at, event_type="REFUND.SUCCESS", resource={
            "mchid": self.MCHID, "out_trade_no": out_trade_no, "transaction_id": order["transaction_id"],
            "out_refund_no": f"r{out_trade_no}", "refund_id": "50301", "refund_status": "SUCCESS",
            "amount": {"total": order["amount"]["total"], "refund": refund, "payer_total": order["amount"]["total"],
                       "payer_refund": refund}})


# --------------------------------------------------------------------------- Alipay
def alipay_signing_string(params: dict, notification: bool = False) -> str:
    """Requests sign every parameter but `sign`; notifications leave out `sign_type` too (Alipay's rules)."""
    left_out = ("sign", "sign_type") if notification else ("sign",)
    return "&".join(f"{k}={v}" for k, v in sorted(params.items()) if k not in left_out and v != "")


class FakeAlipay(BaseHandler):
    """An urllib handler answering openapi.alipay.com; `fake.opener()` is what the adapter's SDK fetches with."""
    APPID = "2021000000000001"
    handler_order = 100   # before urllib's own HTTPSHandler: nothing leaves the machine

    def __init__(self):
        self.app_key = new_key()
        self.alipay_key = new_key()
        self.trades: dict[str, dict] = {}
        self.refunds: list[dict] = []
        self.calls: list[dict] = []

    def gateway(self, notify_url="https://api.example.cn/webhooks/alipay"):
        from chalicelib.payments.alipay import AlipayGateway
        return AlipayGateway(appid=self.APPID, app_private_key=private_pem(self.app_key),
                             alipay_public_key=public_pem(self.alipay_key), notify_url=notify_url, opener=self.opener())

    def opener(self):
        return build_opener(self)

    def https_open(self, req):
        params = dict(parse_qsl(urlparse(req.full_url).query, keep_blank_values=True))
        if not rsa_verify(self.app_key.public_key(), alipay_signing_string(params), params.get("sign", "")):
            return self._reply(req, "error_response", {"code": "40002", "sub_code": "isv.invalid-signature"})
        method, biz = params["method"], json.loads(params.get("biz_content") or "{}")
        self.calls.append({"method": method, "biz": biz})
        name = method.replace(".", "_") + "_response"
        trade = self.trades.get(biz.get("out_trade_no"))
        if trade is None:
            return self._reply(req, name, {"code": "40004", "msg": "Business Failed", "sub_code": "ACQ.TRADE_NOT_EXIST"})
        if method == "alipay.trade.query":
            return self._reply(req, name, {"code": "10000", "msg": "Success", **trade})
        if method == "alipay.trade.close":
            if trade["trade_status"] != "WAIT_BUYER_PAY":
                return self._reply(req, name, {"code": "40004", "sub_code": "ACQ.TRADE_STATUS_ERROR"})
            trade["trade_status"] = "TRADE_CLOSED"
            return self._reply(req, name, {"code": "10000", "msg": "Success", "out_trade_no": trade["out_trade_no"]})
        if method == "alipay.trade.refund":
            if not any(r["out_request_no"] == biz.get("out_request_no") for r in self.refunds):
                self.refunds.append(biz)
            return self._reply(req, name, {"code": "10000", "msg": "Success", "fund_change": "Y",
                                           "refund_fee": biz["refund_amount"], "out_trade_no": trade["out_trade_no"]})
        return self._reply(req, name, {"code": "40004", "sub_code": "ACQ.SYSTEM_ERROR"})

    def _reply(self, req, name, content):
        inner = json.dumps(content, ensure_ascii=False, separators=(",", ":"))
        raw = f'{{"{name}":{inner},"sign":"{rsa_sign(self.alipay_key, inner)}"}}'
        headers = Message()
        headers["Content-Type"] = "application/json;charset=utf-8"
        response = addinfourl(io.BytesIO(raw.encode()), headers, req.full_url, 200)
        response.msg = "OK"
        return response

    def open_trade(self, pay_url: str) -> dict:
        """The payer's browser takes the signed pay URL to Alipay: the trade exists from then on."""
        params = dict(parse_qsl(urlparse(pay_url).query))
        assert rsa_verify(self.app_key.public_key(), alipay_signing_string(params), params["sign"]), "bad pay URL sign"
        biz = json.loads(params["biz_content"])
        self.trades[biz["out_trade_no"]] = {"out_trade_no": biz["out_trade_no"], "trade_status": "WAIT_BUYER_PAY",
                                            "total_amount": biz["total_amount"], "trade_no": None,
                                            "notify_url": params.get("notify_url")}
        return {**params, "biz": biz}

    def pay(self, out_trade_no: str) -> None:
        self.trades[out_trade_no].update(trade_status="TRADE_SUCCESS", trade_no=f"2026{out_trade_no[-12:]}")

    def notification(self, out_trade_no: str, at: datetime, *, signer=None, app_id: str | None = None,
                     notify_id: str | None = None, **fields) -> bytes:
        trade = self.trades[out_trade_no]
        params = {"notify_time": at.strftime("%Y-%m-%d %H:%M:%S"), "notify_type": "trade_status_sync",
                  "notify_id": notify_id or secrets.token_hex(16), "charset": "utf-8", "version": "1.0",
                  "sign_type": "RSA2", "auth_app_id": app_id or self.APPID, "app_id": app_id or self.APPID,
                  "trade_no": trade["trade_no"] or "", "out_trade_no": out_trade_no,
                  "trade_status": trade["trade_status"], "total_amount": trade["total_amount"],
                  "receipt_amount": trade["total_amount"], "buyer_id": "2088102177846875", "subject": "报名费"}
        params.update(fields)
        params = {k: v for k, v in params.items() if v != ""}
        params["sign"] = rsa_sign(signer or self.alipay_key, alipay_signing_string(params, notification=True))
        return urlencode(params).encode()
