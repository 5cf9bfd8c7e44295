"""The console's 收款账户 page (issue 40) in Chromium against the API as a process in platform mode, whose real stripe
library talks to the Stripe stand-in over HTTP: the organiser connects Stripe Connect, the check fails with words
for a wrong acct_ and passes for the right one, and 修改赛事 then offers Stripe — which the public page takes."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import urllib.request
from datetime import date, timedelta

import pytest
from playwright.sync_api import expect

from chalicelib.models import EventConfig, TournamentIn
from chalicelib.services import organisers, tournaments
from chalicelib.store import keys
from scripts.site_build import built_site
from tests.e2e.conftest import ROOT
from tests.e2e.test_browser import token_sign_in
from tests.fakes_connect import ConnectStripe, ServedStripe


def _edit_wechat_pay(page):
    """The console's 收款账户 opened at WeChat Pay's form (the page already signed in)."""
    page.get_by_test_id("show-payments").click()
    page.get_by_test_id("pa-edit-wechat_pay").click()
    return page.get_by_test_id("pa-form-wechat_pay")


@pytest.fixture
def platform(stack):
    """The API and site again on the same store, as a platform (PAYMENT_ACCOUNTS=platform) with Stripe's
    platform key, its requests going to the Stripe stand-in."""
    from scripts import ddblocal
    fake = ConnectStripe({"acct_1ChamberOwn": True})
    served = ServedStripe(fake).start()
    api_port, site_port = ddblocal.free_port(), ddblocal.free_port()
    env = dict(os.environ, STORE="embedded", STORE_PATH=stack["store_path"], TABLE_NAME=stack["table"], STAGE="local",
               PUBLISH_DIR=tempfile.mkdtemp(prefix="e2e-accounts-"), API_URL=f"http://127.0.0.1:{api_port}",
               SITE_URL=f"http://127.0.0.1:{site_port}", AWS_DEFAULT_REGION="ap-east-1", AWS_ACCESS_KEY_ID="local",
               AWS_SECRET_ACCESS_KEY="local", STRIPE_SECRET_KEY="sk_test_platform", STRIPE_WEBHOOK_SECRET="whsec_e2e",
               STRIPE_API_BASE=served.url, PAYMENT_ACCOUNTS="platform")
    env.pop("AWS_ENDPOINT_URL_DYNAMODB", None)
    log = open(ROOT / ".data" / "e2e-api.log", "ab")
    procs = [subprocess.Popen([sys.executable, "-m", "scripts.api_server", "--host", "127.0.0.1", "--port",
                               str(api_port)], cwd=str(ROOT), env=env, stdout=log, stderr=subprocess.STDOUT,
                              start_new_session=True),
             subprocess.Popen([sys.executable, "-m", "scripts.site_server", "--port", str(site_port), "--frontend",
                               str(built_site()), "--published", env["PUBLISH_DIR"], "--api",
                               f"http://127.0.0.1:{api_port}"], cwd=str(ROOT), env=env, stdout=log,
                              stderr=subprocess.STDOUT, start_new_session=True)]
    try:
        ddblocal.wait_for_port(api_port, 60)
        ddblocal.wait_for_port(site_port, 30)
        yield {"api": env["API_URL"], "site": env["SITE_URL"], "stripe": fake}
    finally:
        for p in procs:
            ddblocal.stop(p)
        served.stop()


def _public(platform, tid):
    with urllib.request.urlopen(f"{platform['api']}/public/tournaments/{tid}", timeout=10) as r:
        return json.loads(r.read())


def test_the_console_connects_stripe_checks_it_and_the_tournament_offers_it(store, platform, desk, shot):
    org, token = organisers.create_organiser(store, "收款测试商会")
    t = tournaments.create_tournament(store, org, TournamentIn(
        name="收款测试杯", venue="南宁", starts_on=date.today() + timedelta(days=5), payments={"providers": ["offline"]}))
    tournaments.create_event(store, org, t.id, EventConfig.model_validate({
        "name": "掼蛋积分赛", "game": "guandan", "entry": "pair", "capacity": 20, "fee": {"amount": 4000},
        "stages": [{"format": "swiss", "rounds": 3}]}))
    assert _public(platform, t.id)["payment_providers"] == ["offline"]        # no account yet: the desk only
    page = desk.new_page()
    token_sign_in(page, platform, token)
    page.get_by_test_id("show-payments").click()
    card = page.get_by_test_id("pa-stripe")
    expect(card.get_by_test_id("pa-state-stripe")).to_have_text("未接入")
    card.get_by_test_id("pa-edit-stripe").click()
    form = page.get_by_test_id("pa-form-stripe")
    expect(form).to_contain_text("Stripe 账户")
    form.locator("input[name=pa-account]").fill("acct_1WrongOne")
    form.get_by_test_id("pa-save").click()
    expect(card.get_by_test_id("pa-state-stripe")).to_have_text("待检查")
    card.get_by_test_id("pa-check-stripe").click()
    # the console's own words for the check's code, not the API's message ("Stripe 找不到账户 acct_… · Stripe has …")
    expect(card.get_by_test_id("pa-words-stripe")).to_have_text("渠道找不到这个账户，或它没有连接到本平台")
    expect(card.get_by_test_id("pa-state-stripe")).to_have_text("检查未通过")
    shot(page, "check-failed")
    card.get_by_test_id("pa-edit-stripe").click()
    form.locator("input[name=pa-account]").fill("acct_1ChamberOwn")
    form.get_by_test_id("pa-save").click()
    expect(card.get_by_test_id("pa-state-stripe")).to_have_text("待检查")
    card.get_by_test_id("pa-check-stripe").click()
    expect(card.get_by_test_id("pa-words-stripe")).to_have_text("账户可以收款")
    expect(card.get_by_test_id("pa-state-stripe")).to_have_text("可以收款")
    expect(card.get_by_test_id("pa-id-stripe")).to_have_text("acct_1ChamberOwn")
    shot(page, "check-ok")
    asked = [q["path"] for q in platform["stripe"].requests]
    assert asked == ["/v1/accounts/acct_1WrongOne", "/v1/accounts/acct_1ChamberOwn"]
    # 修改赛事: the ways to pay now include Stripe; choosing it makes the tournament offer it
    page.get_by_test_id("show-edit-t").click()
    offers = page.get_by_test_id("et-offers")
    expect(offers.get_by_test_id("et-offer-stripe")).to_be_visible()
    expect(offers.get_by_test_id("et-offer-wechat_pay")).to_have_count(0)     # not connected: not offered
    expect(offers.get_by_test_id("et-offer-stripe")).to_have_attribute("aria-checked", "false")
    expect(offers.get_by_test_id("et-offer-offline")).to_have_attribute("aria-checked", "true")
    offers.get_by_test_id("et-offer-stripe").click()
    shot(page, "offers")
    page.get_by_test_id("et-save").click()
    expect(page.get_by_test_id("edit-t")).to_have_count(0)
    assert _public(platform, t.id)["payment_providers"] == ["stripe", "offline"]
    # the English console says the check in English (the API's words are Chinese · English whatever the language)
    page.goto(f"{platform['site']}/organiser.html?lang=en")
    page.get_by_test_id("show-payments").click()
    page.get_by_test_id("pa-check-stripe").click()
    expect(page.get_by_test_id("pa-words-stripe")).to_have_text("The account can take money")


ALIPAY_KEY = "MIIEv" + "A" * 120


def test_saving_an_edited_account_keeps_its_optional_settings(store, stack, desk):
    """Review finding: the form sent only its required fields, and a PUT replaces the account — so changing a
    WeChat Pay sub-merchant number dropped its sub_appid, and re-entering Alipay's key dropped sandbox. Saved
    through the console, each keeps what the organiser entered and what the API answered."""
    from chalicelib.services.payment_accounts import put_account
    org, token = organisers.create_organiser(store, "可选设置商会")
    put_account(store, org.id, "wechat_pay", {"mode": "partner", "sub_mchid": "1900000109", "sub_appid": "wx1234567890abcdef"})
    put_account(store, org.id, "alipay", {"mode": "direct", "appid": "2021000000000001", "app_private_key": ALIPAY_KEY,
                                          "alipay_public_key": ALIPAY_KEY, "sandbox": True})
    page = desk.new_page()
    token_sign_in(page, stack, token)
    form = _edit_wechat_pay(page)
    expect(form.locator("input[name=pa-sub_appid]")).to_have_value("wx1234567890abcdef")   # what the API answered
    form.locator("input[name=pa-sub_mchid]").fill("1900000110")
    form.get_by_test_id("pa-save").click()
    expect(page.get_by_test_id("pa-id-wechat_pay")).to_have_text("1900000110")
    wechat = store.repos.payment_accounts.get(org.id, "wechat_pay")
    assert (wechat.id, wechat.public) == ("1900000110", {"sub_appid": "wx1234567890abcdef"})
    page.get_by_test_id("pa-edit-alipay").click()
    form = page.get_by_test_id("pa-form-alipay")
    form.locator("textarea[name=pa-app_private_key]").fill(ALIPAY_KEY)    # a secret: typed again
    form.get_by_test_id("pa-save").click()
    expect(page.get_by_test_id("pa-state-alipay")).to_have_text("待检查")
    expect(page.get_by_test_id("pa-form-alipay")).to_have_count(0)
    alipay = store.repos.payment_accounts.get(org.id, "alipay")
    assert alipay.public == {"alipay_public_key": ALIPAY_KEY, "sandbox": True}


def test_the_optional_secrets_say_they_are_kept_when_left_empty(store, stack, desk, shot):
    """A change keeps the optional secrets it leaves out (WeChat Pay direct's AppSecret and platform public key,
    services/payment_accounts.py _kept_secrets): their fields say so, where the required secrets ask to be typed
    again; saved with them empty, the AppSecret is still there."""
    from chalicelib.services.payment_accounts import put_account
    from tests.api.test_payment_accounts import APIV3, PEM
    org, token = organisers.create_organiser(store, "留空商会")
    direct = {"mode": "direct", "mchid": "1900000109", "appid": "wx8888888888888888",
              "cert_serial_no": "5157F09EFDC096DE15EBE81A47057A72", "apiv3_key": APIV3, "private_key": PEM}
    put_account(store, org.id, "wechat_pay", {**direct, "app_secret": "a" * 32})
    page = desk.new_page()
    token_sign_in(page, stack, token)
    form = _edit_wechat_pay(page)
    expect(form.locator("input[name=pa-app_secret]")).to_have_attribute("placeholder", "留空则保持不变")
    # none stored (the listing's secrets_set): nothing to keep, its field says what goes in it
    expect(form.locator("textarea[name=pa-public_key]")).to_have_attribute("placeholder", "pub_key.pem 的内容")
    expect(form.locator("input[name=pa-apiv3_key]")).to_have_attribute("placeholder", "出于安全不回显，修改时请重新填写")
    shot(page, "kept-when-empty")
    for name, value in (("cert_serial_no", direct["cert_serial_no"]), ("apiv3_key", APIV3)):
        form.locator(f"input[name=pa-{name}]").fill(value)
    form.locator("textarea[name=pa-private_key]").fill(PEM)
    form.get_by_test_id("pa-save").click()
    expect(page.get_by_test_id("pa-form-wechat_pay")).to_have_count(0)
    assert store.repos.payment_accounts.get(org.id, "wechat_pay").secrets["app_secret"] == "a" * 32
    page.goto(f"{stack['site']}/organiser.html?lang=en")
    page.get_by_test_id("show-payments").click()
    page.get_by_test_id("pa-edit-wechat_pay").click()
    expect(page.get_by_test_id("pa-form-wechat_pay").locator("input[name=pa-app_secret]")).to_have_attribute(
        "placeholder", "Leave empty to keep")
    # a new connection's fields say what goes in them
    page.get_by_test_id("pa-edit-alipay").click()
    expect(page.get_by_test_id("pa-form-alipay").locator("input[name=pa-app_auth_token]")).not_to_have_attribute(
        "placeholder", "Leave empty to keep")


def test_each_optional_secret_has_its_own_clear_control(store, stack, desk, shot):
    """Follow-up: an empty optional-secret field means "keep", so the console could not erase a stale AppSecret.
    Each optional secret the stored account has gets a 清除 control (and says 已保存): pressed, its field is
    disabled and says it is cleared on save, and the save erases that secret only; 不清除 takes it back. One not
    stored has none, nor has a new connection; an account saved before the API listed the secrets set offers each."""
    from chalicelib.services.payment_accounts import put_account
    from tests.api.test_payment_accounts import APIV3, PEM
    org, token = organisers.create_organiser(store, "清除商会")
    direct = {"mode": "direct", "mchid": "1900000119", "appid": "wx8888888888888888",
              "cert_serial_no": "5157F09EFDC096DE15EBE81A47057A72", "apiv3_key": APIV3, "private_key": PEM,
              "public_key_id": "PUB_KEY_ID_0114232134912410000"}
    public_key = PEM.replace("PRIVATE", "PUBLIC").strip()
    put_account(store, org.id, "wechat_pay", {**direct, "app_secret": "a" * 32, "public_key": public_key})
    page = desk.new_page()
    token_sign_in(page, stack, token)
    form = _edit_wechat_pay(page)
    expect(form.get_by_test_id("pa-clear-apiv3_key")).to_have_count(0)           # a required secret: no control
    secret, key = form.locator("input[name=pa-app_secret]"), form.locator("textarea[name=pa-public_key]")
    form.get_by_test_id("pa-clear-public_key").click()
    expect(key).to_be_disabled()
    form.get_by_test_id("pa-clear-public_key").click()                           # 不清除: taken back
    expect(key).to_be_enabled()
    expect(key).to_have_attribute("placeholder", "留空则保持不变")
    secret.fill("typed then cleared")
    form.get_by_test_id("pa-clear-app_secret").click()
    expect(secret).to_be_disabled()
    expect(secret).to_have_value("")
    expect(secret).to_have_attribute("placeholder", "保存时清除已保存的值")
    expect(form.get_by_test_id("pa-clear-app_secret")).to_have_text("不清除")
    expect(form.get_by_test_id("pa-clear-public_key")).to_have_text("清除")
    for name in ("cert_serial_no", "apiv3_key"):
        form.locator(f"input[name=pa-{name}]").fill(direct[name])
    form.locator("textarea[name=pa-private_key]").fill(PEM)
    shot(page, "app-secret-cleared-on-save")
    form.get_by_test_id("pa-save").click()
    expect(page.get_by_test_id("pa-form-wechat_pay")).to_have_count(0)
    secrets = store.repos.payment_accounts.get(org.id, "wechat_pay").secrets
    assert "app_secret" not in secrets and secrets["public_key"] == public_key
    # Follow-up: the listing names the secrets set, so the one cleared has no 清除 (nothing stored to clear) and
    # asks for what goes in it; the one kept says it is saved
    page.get_by_test_id("pa-edit-wechat_pay").click()
    form = page.get_by_test_id("pa-form-wechat_pay")
    expect(form.get_by_test_id("pa-saved-public_key")).to_have_text("已保存")
    expect(form.get_by_test_id("pa-clear-app_secret")).to_have_count(0)
    shot(page, "only-a-saved-secret-can-be-cleared")
    page.goto(f"{stack['site']}/organiser.html?lang=en")
    form = _edit_wechat_pay(page)
    expect(form.get_by_test_id("pa-clear-public_key")).to_have_text("Clear")
    expect(form.get_by_test_id("pa-saved-public_key")).to_have_text("Saved")
    expect(form.get_by_test_id("pa-clear-app_secret")).to_have_count(0)
    expect(form.get_by_test_id("pa-saved-app_secret")).to_have_count(0)
    expect(form.locator("input[name=pa-app_secret]")).to_have_attribute(
        "placeholder", "needed to pay inside WeChat (JSAPI); the AppID's official account")
    page.get_by_test_id("pa-edit-alipay").click()                                # a new connection: nothing to clear
    expect(page.get_by_test_id("pa-form-alipay").locator("[data-testid^=pa-clear-]")).to_have_count(0)
    # an account saved before the names were stored: unknown, so each optional secret has its 清除 as before
    raw = store.repos.table.get(keys.payment_account(org.id, "wechat_pay"))
    store.repos.table.put({k: v for k, v in raw.items() if k != "secrets_set"})
    page.reload()
    form = _edit_wechat_pay(page)
    expect(form.get_by_test_id("pa-clear-app_secret")).to_have_text("Clear")
    expect(form.get_by_test_id("pa-clear-public_key")).to_have_text("Clear")
    expect(form.locator("[data-testid^=pa-saved-]")).to_have_count(0)
