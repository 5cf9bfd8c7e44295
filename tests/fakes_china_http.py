"""The China providers' fakes (tests/fakes_china.py) served over the network, for the API running as a
subprocess in the browser tests (tests/e2e).

The SDKs keep their real hosts (api.mch.weixin.qq.com, openapi.alipay.com) and TLS: the API subprocess gets
the standard proxy variables (HTTPS_PROXY, and REQUESTS_CA_BUNDLE / SSL_CERT_FILE naming a bundle with this
file's test CA), the way a deployment behind an egress proxy would. This server answers CONNECT, ends the TLS
with a certificate for those hosts signed by its own CA, and hands each request to the fakes — their signing
and checks, unchanged. No code path of the application exists only for tests.

It also fakes WeChat's web OAuth (`api.weixin.qq.com/sns/oauth2/access_token`: a `code` for the payer's
openid), which JSAPI needs. The payer's side (WeChat's cashier, Alipay's pay page, the OAuth consent) is the
browser's: tests answer those pages with Playwright's routing and call `wechat_pays` / `alipay_pays` here.
"""
from __future__ import annotations

import datetime as dt
import json
import secrets
import ssl
import tempfile
import threading
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import parse_qsl, urlparse

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.x509.oid import NameOID

from tests.fakes_china import FakeAlipay, FakeWeChatPay, private_pem, public_pem

HOSTS = ("api.mch.weixin.qq.com", "api.weixin.qq.com", "openapi.alipay.com", "openapi-sandbox.dl.alipaydev.com")
OAUTH_SECRET = "fake-official-account-secret"


def _tls_files(folder: Path) -> tuple[Path, Path, Path]:
    """A CA, a certificate for HOSTS signed by it, and a CA bundle (certifi's + ours) for the API's clients."""
    from tests.fakes_china import new_key
    now = dt.datetime.now(dt.UTC)
    ca_key, key = new_key(), new_key()
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "cardgames test CA")])
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(now - dt.timedelta(days=1))
          .not_valid_after(now + dt.timedelta(days=30))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .sign(ca_key, hashes.SHA256()))
    leaf = (x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, HOSTS[0])]))
            .issuer_name(ca_name).public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(days=1)).not_valid_after(now + dt.timedelta(days=30))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName(h) for h in HOSTS]), critical=False)
            .sign(ca_key, hashes.SHA256()))
    cert_file, key_file, bundle = folder / "leaf.pem", folder / "leaf.key", folder / "bundle.pem"
    cert_file.write_bytes(leaf.public_bytes(serialization.Encoding.PEM))
    key_file.write_text(private_pem(key))
    import certifi
    bundle.write_bytes(Path(certifi.where()).read_bytes() + b"\n" + ca.public_bytes(serialization.Encoding.PEM))
    return cert_file, key_file, bundle


class _Tunnelled(BaseHTTPRequestHandler):
    """One request arriving inside a CONNECT tunnel, for `host`."""
    protocol_version = "HTTP/1.0"
    host = ""
    fakes: ChinaFakes

    def log_message(self, *args):   # quiet: pytest shows the tests' own output
        pass

    def _any(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        url = f"https://{self.host}{self.path}"
        status, headers, text = self.fakes.answer(self.command, url, dict(self.headers.items()), body)
        data = text.encode() if isinstance(text, str) else text
        self.send_response(status)
        for k, v in headers.items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = _any


class _Proxy(BaseHTTPRequestHandler):
    fakes: ChinaFakes

    def log_message(self, *args):
        pass

    def do_CONNECT(self):
        host = self.path.rsplit(":", 1)[0]
        if host not in HOSTS:   # nothing else leaves the machine through here
            self.send_error(403)
            return
        self.send_response(200, "Connection Established")
        self.end_headers()
        self.wfile.flush()
        try:
            tls = self.fakes.tls.wrap_socket(self.connection, server_side=True)
        except (ssl.SSLError, OSError):
            self.close_connection = True
            return
        handler = type("Tunnelled", (_Tunnelled,), {"host": host, "fakes": self.fakes})
        try:
            handler(tls, self.client_address, self.server)
        finally:
            self.close_connection = True


class FakeWeChatOAuth:
    """WeChat's web OAuth for an official account: `consent()` is the payer passing the authorize page (a one-use
    code); `answer(url)` is api.weixin.qq.com's /sns/oauth2/access_token (the code for the openid)."""
    SECRET = OAUTH_SECRET

    def __init__(self, appid: str):
        self.appid = appid
        self.codes: dict[str, str] = {}
        self.calls: list[dict] = []

    def consent(self, openid: str = "oFakePayer0001") -> str:
        code = secrets.token_hex(8)
        self.codes[code] = openid
        return code

    def answer(self, url: str) -> tuple[int, dict, str]:
        q = dict(parse_qsl(urlparse(url).query))
        self.calls.append(q)
        ok = (urlparse(url).path == "/sns/oauth2/access_token" and q.get("appid") == self.appid
              and q.get("secret") == self.SECRET and q.get("grant_type") == "authorization_code")
        openid = self.codes.pop(q.get("code", ""), None) if ok else None
        answer = ({"access_token": secrets.token_hex(16), "expires_in": 7200, "refresh_token": secrets.token_hex(16),
                   "openid": openid, "scope": "snsapi_base"} if openid
                  else {"errcode": 40029 if ok else 40125, "errmsg": "invalid code" if ok else "invalid appsecret"})
        return 200, {"Content-Type": "application/json; encoding=utf-8"}, json.dumps(answer)


class ChinaFakes:
    """Start with `ChinaFakes().start()`; `env()` is what the API subprocess needs; `stop()` at the end."""

    def __init__(self):
        self.wechat = FakeWeChatPay()
        self.alipay = FakeAlipay()
        self.oauth = FakeWeChatOAuth(self.wechat.APPID)
        self._dir = Path(tempfile.mkdtemp(prefix="fakes-china-"))
        cert, key, self.bundle = _tls_files(self._dir)
        self.tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.tls.load_cert_chain(cert, key)
        self._server = None

    def start(self) -> ChinaFakes:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), type("Proxy", (_Proxy,), {"fakes": self}))
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server:
            self._server.shutdown()
            self._server.server_close()

    @property
    def proxy_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def env(self) -> dict:
        wx, ali = self.wechat, self.alipay
        return {
            "HTTPS_PROXY": self.proxy_url, "https_proxy": self.proxy_url,
            "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost",
            "REQUESTS_CA_BUNDLE": str(self.bundle), "SSL_CERT_FILE": str(self.bundle),
            "WECHAT_PAY_CONFIG": json.dumps({
                "mchid": wx.MCHID, "appid": wx.APPID, "private_key": private_pem(wx.merchant_key),
                "cert_serial_no": wx.merchant_serial, "apiv3_key": wx.apiv3_key, "app_secret": OAUTH_SECRET}),
            "ALIPAY_CONFIG": json.dumps({
                "appid": ali.APPID, "app_private_key": private_pem(ali.app_key),
                "alipay_public_key": public_pem(ali.alipay_key)}),
        }

    # ------------------------------------------------------------------ the providers' servers
    def answer(self, method: str, url: str, headers: dict, body: bytes) -> tuple[int, dict, str | bytes]:
        host = urlparse(url).hostname
        if host == "api.mch.weixin.qq.com":
            request = SimpleNamespace(url=url, method=method, body=body, headers=_Headers(headers))
            return self.wechat._answer(request)
        if host == "api.weixin.qq.com":
            return self.oauth.answer(url)
        response = self.alipay.https_open(urllib.request.Request(url, data=body or None, method=method))
        return 200, {"Content-Type": response.headers["Content-Type"]}, response.read()

    # ------------------------------------------------------------------ the payer's side
    def consent(self, openid: str = "oFakePayer0001") -> str:
        return self.oauth.consent(openid)

    def wechat_order(self, kind: str | None = None) -> dict:
        orders = [o for o in self.wechat.orders.values() if kind is None or o["kind"] == kind]
        assert orders, f"no WeChat Pay {kind or ''} order"
        return orders[-1]

    def wechat_pays(self, out_trade_no: str | None = None, kind: str | None = None) -> int:
        """The payer pays at WeChat; WeChat posts its signed, encrypted notification to the order's notify_url."""
        order = self.wechat.orders[out_trade_no] if out_trade_no else self.wechat_order(kind)
        self.wechat.pay(order["out_trade_no"])
        headers, body = self.wechat.notification(order["out_trade_no"], dt.datetime.now(dt.UTC))
        return _post(order["notify_url"], body, headers)

    def alipay_pays(self, pay_url: str) -> int:
        """The payer's browser reached Alipay with the signed pay URL and paid; Alipay notifies (RSA2-signed form)."""
        params = self.alipay.open_trade(pay_url)
        no = params["biz"]["out_trade_no"]
        self.alipay.pay(no)
        body = self.alipay.notification(no, dt.datetime.now(dt.UTC))
        return _post(params["notify_url"], body, {"Content-Type": "application/x-www-form-urlencoded"})


class _Headers(dict):
    """The request's headers as `responses` hands them to the fake (case-insensitive get)."""

    def get(self, key, default=None):
        for k, v in self.items():
            if k.lower() == key.lower():
                return v
        return default


def _post(url: str, body: bytes, headers: dict) -> int:
    """To the API on 127.0.0.1, never through a proxy."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(urllib.request.Request(url, data=body, headers=headers, method="POST"), timeout=30) as r:
            return r.status
    except urllib.error.HTTPError as exc:
        return exc.code
