"""The provider contract for each chamber's own merchant account (issue 40, api.md v1.3; payments/accounts.py).

Two organisers, each with its own account at each provider and in each mode — WeChat Pay partner (the platform's
service-provider keys + the chamber's sub_mchid) and direct (the chamber's own keys); Alipay app_auth (the
platform's app + the chamber's app_auth_token) and direct — through the real SDKs against the signing stand-ins
(tests/fakes_china.py), which record which account every request was for. The same assertions for every driver:
each tournament's orders, queries, closes and refunds go through its own organiser's account and never the
other's; a notification says whose it is (`account_of`), one naming the other organiser's account is not taken
as this one's; the check says in words what is wrong. The service side (choosing the adapter per organiser and
refusing a notification naming another organiser's account) is the accounts lane's: services/gateways.py.
"""
from __future__ import annotations

from datetime import datetime, timedelta, UTC

import pytest

from chalicelib import errors
from chalicelib.payments.accounts import AccountAware, AccountCheck, PaymentAccount
from chalicelib.payments.port import Provider
from tests.fakes_china import FakeAlipay, FakeWeChatPay, new_key, private_pem, public_pem

NOW = datetime.now(UTC)
DUE = 4000
ORGANISERS = ("org-hechi", "org-nanning")


def account(organiser, provider, mode, id, public=None, secrets=None) -> PaymentAccount:
    return PaymentAccount(organiser_id=organiser, provider=provider, mode=mode, id=id, public=public or {},
                          secrets=secrets or {})


class WeChat:
    provider, channel = "wechat_pay", "native"

    def __init__(self):
        self.fake = FakeWeChatPay()
        self.platform = self.fake.gateway()
        self._mock = self.fake.mock()
        self._mock.__enter__()

    def close(self):
        self._mock.__exit__(None, None, None)

    def opened(self, checkout):
        assert checkout.answer["code_url"].startswith("weixin://wxpay/"), checkout.answer

    def pay(self, no):
        self.fake.pay(no)

    def touched(self, no) -> set[str]:
        """The accounts every request about order `no` was made for."""
        return {r["account"] for r in self.fake.requests
                if no in r["path"] or r["body"].get("out_trade_no") == no or
                (r["body"].get("transaction_id") or "x") == self.fake.orders.get(no, {}).get("transaction_id")}

    def refunds(self) -> list[tuple[str, int]]:
        return [(r["account"], r["amount"]["refund"]) for r in self.fake.refunds]

    def closed(self, no) -> bool:
        return self.fake.orders[no]["trade_state"] == "CLOSED"

    def notification(self, no, **forge):
        return self.fake.notification(no, NOW, **forge)


class WeChatPartner(WeChat):
    mode = "partner"

    def accounts(self):
        subs = {"org-hechi": "1900000201", "org-nanning": "1900000202"}
        for sub in subs.values():
            self.fake.add_sub_merchant(sub)
        return {o: account(o, "wechat_pay", "partner", sub) for o, sub in subs.items()}

    def verifier(self, acct):   # partner notifications are the service provider's: one URL, the platform verifies
        return self.platform

    def naming(self, no, other):
        """A notification WeChat really signed and encrypted (for the service provider) about order `no` that names
        the other organiser's sub-merchant — as when that chamber opened an order with the same out_trade_no."""
        return self.fake.notification(no, NOW, sub_mchid=other.id)

    def broken(self):
        """(account, expected code) the check must name."""
        self.fake.add_sub_merchant("1900000203", bound=False)
        self.fake.add_sub_merchant("1900000204", products=())
        return [(account("o", "wechat_pay", "partner", "1900000203"), "sub_merchant_not_bound"),
                (account("o", "wechat_pay", "partner", "1900000204"), "product_not_enabled"),
                (account("o", "wechat_pay", "partner", "1900000299"), "account_not_found")]


class WeChatDirect(WeChat):
    mode = "direct"

    def accounts(self):
        out = {}
        for o, (mchid, appid) in zip(ORGANISERS, [("1900000301", "wx0000000000000301"),
                                                   ("1900000302", "wx0000000000000302")]):
            v = self.fake.add_merchant(mchid, appid).values()
            out[o] = account(o, "wechat_pay", "direct", mchid, public={"appid": v["appid"]},
                             secrets={k: v[k] for k in ("private_key", "cert_serial_no", "apiv3_key")})
        return out

    def verifier(self, acct):   # encrypted with the chamber's own APIv3 key: its own URL, its own adapter
        return self.platform.for_account(acct)

    def naming(self, no, other):
        """The other chamber's genuine notification (its own APIv3 key) posted to this chamber's URL."""
        order = self.fake.orders[no]
        saved = order["account"]
        order["account"] = other.id
        try:
            return self.fake.notification(no, NOW)
        finally:
            order["account"] = saved

    def broken(self):
        m = self.fake.add_merchant("1900000303", "wx0000000000000303")
        none = self.fake.add_merchant("1900000304", "wx0000000000000304", products=())
        good = {k: m.values()[k] for k in ("private_key", "cert_serial_no", "apiv3_key")}

        def direct(mchid, **secrets):
            return account("o", "wechat_pay", "direct", mchid, public={"appid": m.appid}, secrets={**good, **secrets})
        return [(direct("1900000303", private_key=private_pem(new_key())), "wrong_key"),
                (direct("1900000303", apiv3_key="0" * 32), "wrong_key"),
                (direct("1900000303", private_key="not a key"), "wrong_key"),
                (direct("1900000304", **{k: none.values()[k] for k in good}), "product_not_enabled"),
                (direct("1900000303", apiv3_key=""), "invalid_account")]


class Alipay:
    provider, channel = "alipay", "wap"

    def __init__(self):
        self.fake = FakeAlipay()
        self.platform = self.fake.gateway()

    def close(self):
        pass

    def opened(self, checkout):
        self.fake.open_trade(checkout.answer["pay_url"])   # the payer's browser takes the signed URL to Alipay

    def pay(self, no):
        self.fake.pay(no)

    def touched(self, no) -> set[str]:
        return {c["account"] for c in self.fake.calls if c["biz"].get("out_trade_no") == no}

    def refunds(self) -> list[tuple[str, int]]:
        return [(r["account"], round(float(r["refund_amount"]) * 100)) for r in self.fake.refunds]

    def closed(self, no) -> bool:
        return self.fake.trades[no]["trade_status"] == "TRADE_CLOSED"

    def notification(self, no, **forge):
        return {"Content-Type": "application/x-www-form-urlencoded"}, self.fake.notification(no, NOW, **forge)


class AlipayAppAuth(Alipay):
    mode = "app_auth"

    def accounts(self):
        apps = {"org-hechi": "2021000000000101", "org-nanning": "2021000000000102"}
        return {o: account(o, "alipay", "app_auth", app, secrets={"app_auth_token": self.fake.authorise(app)})
                for o, app in apps.items()}

    def verifier(self, acct):   # the platform app's notifications: one URL, the platform verifies
        return self.platform

    def naming(self, no, other):
        return self.notification(no, auth_app_id=other.id)[1]

    def broken(self):
        narrow = self.fake.authorise("2021000000000103", methods=("alipay.trade.query",))
        gone = self.fake.authorise("2021000000000104")
        self.fake.tokens[gone]["status"] = "invalid"
        other = self.fake.authorise("2021000000000105")
        return [(account("o", "alipay", "app_auth", "", secrets={"app_auth_token": "202612BBnotatoken"}),
                 "app_auth_invalid"),
                (account("o", "alipay", "app_auth", "", secrets={"app_auth_token": gone}), "app_auth_invalid"),
                (account("o", "alipay", "app_auth", "", secrets={"app_auth_token": narrow}), "product_not_enabled"),
                (account("o", "alipay", "app_auth", "2021000000000101", secrets={"app_auth_token": other}),
                 "account_mismatch")]


class AlipayDirect(Alipay):
    mode = "direct"

    def accounts(self):
        apps = {"org-hechi": "2021000000000201", "org-nanning": "2021000000000202"}
        return {o: account(o, "alipay", "direct", app, secrets=self.fake.add_app(app)) for o, app in apps.items()}

    def verifier(self, acct):   # signed for the chamber's own app: its own URL, its own adapter
        return self.platform.for_account(acct)

    def naming(self, no, other):
        """The other chamber's genuine notification (its own app, its own Alipay key) posted to this one's URL."""
        trade = self.fake.trades[no]
        saved = trade["app_id"], trade["account"]
        trade["app_id"] = trade["account"] = other.id
        try:
            return self.notification(no)[1]
        finally:
            trade["app_id"], trade["account"] = saved

    def broken(self):
        keys = self.fake.add_app("2021000000000203")
        return [(account("o", "alipay", "direct", "2021000000000203",
                         secrets={**keys, "app_private_key": private_pem(new_key())}), "wrong_key"),
                (account("o", "alipay", "direct", "2021000000000203",
                         secrets={**keys, "alipay_public_key": public_pem(new_key())}), "wrong_key"),
                (account("o", "alipay", "direct", "2021000000000299", secrets=keys), "account_not_found"),
                (account("o", "alipay", "direct", "2021000000000203", secrets={"app_private_key": "x"}),
                 "invalid_account")]


DRIVERS = {"wechat_partner": WeChatPartner, "wechat_direct": WeChatDirect, "alipay_app_auth": AlipayAppAuth,
           "alipay_direct": AlipayDirect}


@pytest.fixture(params=list(DRIVERS))
def driver(request):
    d = DRIVERS[request.param]()
    yield d
    d.close()


def start(gw, driver, no):
    checkout = gw.start(payment_id=no, amount=DUE, currency="CNY", description="掼蛋积分赛 报名费",
                        channel=driver.channel, expires_at=NOW + timedelta(minutes=30),
                        return_url="https://site.example.cn/entry.html?id=e1")
    driver.opened(checkout)
    return checkout


def verified(driver, acct, no, headers_body):
    headers, body = headers_body if isinstance(headers_body, tuple) else (
        {"Content-Type": "application/x-www-form-urlencoded"}, headers_body)
    return driver.verifier(acct).verify_notification(headers, body, NOW)


def test_each_organisers_orders_queries_and_refunds_go_through_its_own_account(driver):
    accounts = driver.accounts()
    assert isinstance(driver.platform, AccountAware)
    orders = {}
    for organiser, acct in accounts.items():
        gw = driver.platform.for_account(acct)
        assert isinstance(gw, Provider) and gw.name == driver.provider and gw is driver.platform.for_account(acct)
        no = f"P0001{organiser.replace('-', '').upper()}"   # payment ids: unique to their last characters
        start(gw, driver, no)
        assert gw.session_status(no)[0] == "open"
        driver.pay(no)
        status, transaction_id, amount, currency = gw.session_status(no)
        assert (status, amount, currency) == ("complete", DUE, "CNY") and transaction_id
        gw.refund(transaction_id, DUE // 4, no, "e1", total=DUE, currency="CNY")
        gw.refund(transaction_id, DUE // 4, no, "e1", total=DUE, currency="CNY")   # a retry: the same refund
        unpaid = f"U0001{organiser.replace('-', '').upper()}"
        start(gw, driver, unpaid)
        gw.expire(unpaid)
        assert driver.closed(unpaid)
        orders[organiser] = (no, unpaid)
    for organiser, acct in accounts.items():   # the stand-in saw each request for its organiser's account only
        for no in orders[organiser]:
            assert driver.touched(no) == {acct.id}, (organiser, no, driver.touched(no))
    assert sorted(driver.refunds()) == sorted((a.id, DUE // 4) for a in accounts.values())
    # one organiser's adapter never sees the other's order: its query is for its own account
    hechi, nanning = (driver.platform.for_account(accounts[o]) for o in ORGANISERS)
    assert hechi.session_status(orders["org-nanning"][0])[0] == "expired"
    assert nanning.session_status(orders["org-hechi"][0])[0] == "expired"


def test_a_notification_says_whose_account_it_is_for(driver):
    accounts = driver.accounts()
    hechi, nanning = accounts["org-hechi"], accounts["org-nanning"]
    gw = driver.platform.for_account(hechi)
    start(gw, driver, "PHECHI0000000000000000000002")
    driver.pay("PHECHI0000000000000000000002")
    note = verified(driver, hechi, "PHECHI0000000000000000000002", driver.notification("PHECHI0000000000000000000002"))
    assert (note.kind, note.payment_id, note.amount) == ("paid", "PHECHI0000000000000000000002", DUE)
    assert driver.platform.account_of(note) == hechi.id != nanning.id
    assert gw.account_of(note) == hechi.id
    if driver.mode in ("partner", "app_auth"):   # the other organiser's adapter takes nothing from it
        theirs = driver.platform.for_account(nanning).verify_notification(
            *_split(driver.notification("PHECHI0000000000000000000002")), NOW)
        assert (theirs.kind, theirs.account) == ("other", hechi.id)


def test_a_notification_naming_the_other_organisers_account_is_not_this_ones(driver):
    """Real-signed, about hechi's payment id, but for nanning's account: the shared URL's verifier says it is
    nanning's (the service refuses it for hechi's entry); hechi's own adapter takes nothing from it."""
    accounts = driver.accounts()
    hechi, nanning = accounts["org-hechi"], accounts["org-nanning"]
    no = "PHECHI0000000000000000000003"
    start(driver.platform.for_account(hechi), driver, no)
    driver.pay(no)
    forged = driver.naming(no, nanning)
    if driver.mode in ("partner", "app_auth"):   # one URL for every chamber: the notification names its account
        note = verified(driver, hechi, no, forged)
        assert driver.platform.account_of(note) == nanning.id != hechi.id
        mine = driver.platform.for_account(hechi).verify_notification(*_split(forged), NOW)
        assert mine.kind == "other" and mine.account == nanning.id
    else:                                         # the chamber's own URL: another chamber's keys do not open it
        with pytest.raises(errors.InvalidSignature):
            verified(driver, hechi, no, forged)


def _split(headers_body):
    return headers_body if isinstance(headers_body, tuple) else (
        {"Content-Type": "application/x-www-form-urlencoded"}, headers_body)


def test_the_check_asks_the_provider_and_says_in_words_what_is_wrong(driver):
    accounts = driver.accounts()
    for acct in accounts.values():
        check = driver.platform.check_account(acct)
        assert isinstance(check, AccountCheck) and (check.state, check.code) == ("ok", None), check
        if driver.mode == "app_auth":   # the token's own query names the app notifications will name
            assert check.id == acct.id
    for acct, code in driver.broken():
        check = driver.platform.check_account(acct)
        assert (check.state, check.code) == ("failed", code), (acct.id, check)
        assert check.message and not check.message.isascii()   # in words, in the provider's own (Chinese) terms


def test_the_platforms_own_keys_still_take_their_own_payments(driver):
    """v1.2: the installation's keys pay for themselves; their notification names no chamber's account."""
    driver.accounts()
    no = "PPLATFORM00000000000000000001"
    start(driver.platform, driver, no)
    driver.pay(no)
    assert driver.platform.session_status(no)[0] == "complete"
    note = driver.platform.verify_notification(*_split(driver.notification(no)), NOW)
    assert (note.kind, note.payment_id, driver.platform.account_of(note)) == ("paid", no, None)
    if driver.mode in ("partner", "app_auth"):   # a chamber's adapter (sharing the platform's keys) takes none of it
        theirs = driver.platform.for_account(driver.accounts()["org-hechi"]).verify_notification(
            *_split(driver.notification(no)), NOW)
        assert (theirs.kind, theirs.account) == ("other", None)
    assert driver.touched(no) == {driver.fake.MCHID if driver.provider == "wechat_pay" else driver.fake.APPID}


def test_an_unreachable_provider_is_said_so_within_ten_seconds(monkeypatch):
    """WeChat Pay behind a proxy that never answers (a real socket): the check gives up within its bound and says
    so; Alipay's network failing the same way. Never a hang, never an exception out of the check."""
    import socket
    import time
    from urllib.error import URLError
    from urllib.request import BaseHandler, build_opener

    from chalicelib.payments import wechat_pay
    from chalicelib.payments.alipay import AlipayGateway
    assert 2 * sum(wechat_pay.CHECK_TIMEOUT) <= 10   # at most two requests (certificates, then the query)
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)   # accepts the connection, never says a word
    try:
        monkeypatch.setenv("HTTPS_PROXY", f"http://127.0.0.1:{silent.getsockname()[1]}")
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)
        fake = FakeWeChatPay()
        direct = fake.add_merchant("1900000401", "wx0000000000000401").values()
        began = time.monotonic()
        check = fake.gateway().check_account(account("o", "wechat_pay", "direct", "1900000401",
                                                     public={"appid": direct["appid"]}, secrets=direct))
        took = time.monotonic() - began
    finally:
        silent.close()
    assert (check.state, check.code) == ("failed", "provider_unreachable") and took <= 10, (check, took)

    class Down(BaseHandler):
        handler_order = 100

        def https_open(self, req):
            raise URLError("network unreachable")

    ali = FakeAlipay()
    gw = AlipayGateway(appid=ali.APPID, app_private_key=private_pem(ali.app_key),
                       alipay_public_key=public_pem(ali.alipay_key), notify_url="https://api.example.cn/webhooks/alipay",
                       opener=build_opener(Down()))
    check = gw.check_account(account("o", "alipay", "app_auth", "", secrets={"app_auth_token": ali.authorise("2021")}))
    assert (check.state, check.code) == ("failed", "provider_unreachable"), check


def test_wechat_partner_orders_name_the_service_provider_and_the_sub_merchant_on_every_channel():
    """What the partner endpoints are sent: sp_mchid / sp_appid (the platform, whose official account gave the payer's
    openid: sp_openid) and sub_mchid; JSAPI's pay sign is the platform's over its appid. Direct: the chamber's own."""
    from tests.fakes_china import rsa_verify
    d = WeChatPartner()
    try:
        hechi = d.accounts()["org-hechi"]
        gw = d.platform.for_account(hechi)
        answers = {}
        for n, channel in enumerate(("native", "jsapi", "h5")):
            answers[channel] = gw.start(payment_id=f"PCH{n}ORGHECHI", amount=DUE, currency="CNY", description="报名费",
                                        channel=channel, expires_at=NOW + timedelta(minutes=30),
                                        return_url="https://site.example.cn/entry.html", openid="oSpOpenid0001",
                                        client_ip="10.0.0.1").answer
            sent = d.fake.requests[-1]
            assert sent["path"] == f"/v3/pay/partner/transactions/{channel}", sent
            assert (sent["body"]["sp_mchid"], sent["body"]["sp_appid"], sent["body"]["sub_mchid"]) == \
                (d.fake.MCHID, d.fake.APPID, hechi.id)
            assert "mchid" not in sent["body"] and "appid" not in sent["body"]
        assert d.fake.requests[-2]["body"]["payer"] == {"sp_openid": "oSpOpenid0001"}
        js = answers["jsapi"]["jsapi"]
        assert js["appId"] == d.fake.APPID and rsa_verify(
            d.fake.merchant_key.public_key(), f"{js['appId']}\n{js['timeStamp']}\n{js['nonceStr']}\n{js['package']}\n",
            js["paySign"])
        assert answers["h5"]["h5_url"].startswith("https://wx.tenpay.com/")
        own = d.platform.for_account(account("org-hechi", "wechat_pay", "partner", hechi.id,
                                             public={"sub_appid": "wx00000000000sub01"}))
        own.start(payment_id="PCH9ORGHECHI", amount=DUE, currency="CNY", description="报名费", channel="native",
                  expires_at=NOW + timedelta(minutes=30), return_url="https://site.example.cn/entry.html")
        assert d.fake.requests[-1]["body"]["sub_appid"] == "wx00000000000sub01"   # the chamber's own official account
    finally:
        d.close()
