"""The local stage's payments in Chromium (issue 40): the demo cashier (演示支付) walked from registration to a
refund, and a checkout whose provider is unreachable answering the manage link within 10 s, the same people
then resuming their entry."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from datetime import date, timedelta

import pytest
from playwright.sync_api import expect

from chalicelib.models import EventConfig, TournamentIn
from chalicelib.services import organisers, tournaments
from scripts.site_build import built_site
from tests.e2e.conftest import ROOT


def pair_event(name):
    return EventConfig.model_validate({"name": name, "game": "guandan", "entry": {"kind": "pair"}, "capacity": 8,
                                       "fee": {"amount": 2000, "per": "person"},
                                       "stages": [{"format": "swiss", "rounds": 3}]})


def tournament(store, providers):
    org, _ = organisers.create_organiser(store, "演示支付商会")
    t = tournaments.create_tournament(store, org, TournamentIn(
        name="演示杯", venue="南宁", currency="CNY", starts_on=date.today() + timedelta(days=9),
        payments={"providers": providers}))
    return t, tournaments.create_event(store, org, t.id, pair_event("掼蛋双人赛"))


def fill(page, site, t, ev, phone):
    page.goto(f"{site}/register.html?e={ev.id}&t={t.id}&lang=zh")
    page.locator("#f-team").fill("演示一队")
    page.locator("#f-club").fill("南宁河池商会")
    page.locator("#f-m0-name").fill("张三")
    page.locator("#f-m0-phone").fill(phone)
    page.locator("#f-m1-name").fill("李四")


def test_the_demo_cashier_pays_and_the_withdrawal_is_refunded(store, stack, phone, monkeypatch):
    monkeypatch.setenv("SITE_URL", stack["site"])
    t, ev = tournament(store, ["demo", "offline"])
    page = phone.new_page()
    fill(page, stack["site"], t, ev, "13700000001")
    expect(page.get_by_test_id("demo-form-note")).to_contain_text("演示支付")
    page.get_by_test_id("submit").click()
    page.wait_for_url(f"{stack['api']}/demo-pay/**")                  # the hosted page: the demo cashier
    expect(page.get_by_role("alert")).to_contain_text("演示支付 · 不会真实扣款")
    expect(page.locator(".amount")).to_have_text("¥40.00")
    page.get_by_role("button", name="确认支付 · Pay (demo)").click()   # a signed notification, verified by the API
    page.wait_for_url(f"{stack['site']}/entry.html?id=*&paid=1")
    expect(page.get_by_test_id("status")).to_have_text("已确认")
    expect(page.get_by_test_id("demo-note")).to_contain_text("演示支付")
    entry = next(e for e in store.repos.entries.list(ev.id) if e.name == "演示一队")
    payment = store.repos.payments.get(entry.payment_id)
    assert (entry.status, entry.amount_paid, payment.provider, payment.state) == ("confirmed", 4000, "demo", "confirmed")
    page.get_by_test_id("cancel").click()                              # withdraw: refunded through the demo
    page.get_by_role("dialog").get_by_role("button", name="取消报名").click()
    expect(page.get_by_test_id("status")).to_have_text("已取消")
    expect(page.get_by_text("已退 ¥40.00")).to_be_visible()
    payment = store.repos.payments.get(entry.payment_id)
    assert (payment.state, payment.amount_refunded) == ("refunded", 4000)
    page.goto(f"{stack['api']}/demo-pay/{payment_token(page, stack, entry.payment_id)}")
    expect(page.locator("main")).to_contain_text("已退款 ¥40.00")


def payment_token(page, stack, payment_id):
    """The cashier's link of this order, as the demo adapter in the API made it (the same key derivation)."""
    import hashlib
    import hmac
    secret = hmac.new(os.environ["TABLE_CODE_SECRET"].encode(), b"cardgames demo payments v1", hashlib.sha256).digest()
    return f"{payment_id}.{hmac.new(secret, f'demo-order:{payment_id}'.encode(), hashlib.sha256).hexdigest()[:24]}"


@pytest.fixture
def unreachable_stripe(stack):
    """The API and site again, with Stripe's keys but no way to reach Stripe (its proxy refuses)."""
    from scripts import ddblocal
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))          # bound, never listening: connections are refused at once
    api_port, site_port = ddblocal.free_port(), ddblocal.free_port()
    env = dict(os.environ, STORE="embedded", STORE_PATH=stack["store_path"], TABLE_NAME=stack["table"], STAGE="local",
               PUBLISH_DIR=tempfile.mkdtemp(prefix="e2e-stranded-"), API_URL=f"http://127.0.0.1:{api_port}",
               SITE_URL=f"http://127.0.0.1:{site_port}", AWS_DEFAULT_REGION="ap-east-1", AWS_ACCESS_KEY_ID="local",
               AWS_SECRET_ACCESS_KEY="local", STRIPE_SECRET_KEY="sk_test_unreachable", DDB_READ_TIMEOUT_S="10",
               HTTPS_PROXY=f"http://127.0.0.1:{closed.getsockname()[1]}", NO_PROXY="127.0.0.1,localhost")
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
        yield {"api": env["API_URL"], "site": env["SITE_URL"]}
    finally:
        for p in procs:
            ddblocal.stop(p)
        closed.close()


def test_an_unreachable_provider_strands_no_one(store, unreachable_stripe, phone):
    site = unreachable_stripe["site"]
    t, ev = tournament(store, ["stripe", "offline"])
    page = phone.new_page()
    fill(page, site, t, ev, "13700000002")
    started = time.monotonic()
    page.get_by_test_id("submit").click()
    failed = page.get_by_test_id("checkout-failed")
    expect(failed).to_be_visible(timeout=10_000)
    assert time.monotonic() - started < 10
    expect(failed).to_contain_text("在线付款暂时无法打开")
    expect(failed).to_contain_text("名额为您保留至")
    expect(page.get_by_test_id("pay")).to_contain_text("请到报到台现场付款")           # the desk, offered
    expect(page.get_by_text("您的报名管理链接")).to_be_visible()                        # the manage link, given
    first = page.evaluate("Object.keys(localStorage).find((k) => k.startsWith('manage-')).slice(7)")
    page.get_by_test_id("retry").click()                                                 # 再试一次: still down
    expect(failed).to_be_visible()
    again = phone.new_page()                                                             # the same people again
    fill(again, site, t, ev, "13700000002")
    again.get_by_test_id("submit").click()
    expect(again.get_by_test_id("checkout-failed")).to_be_visible(timeout=10_000)
    assert again.evaluate("Object.keys(localStorage).filter((k) => k.startsWith('manage-'))") == [f"manage-{first}"]
    entries = [e for e in store.repos.entries.list(ev.id) if e.status == "pending_payment"]
    assert [e.id for e in entries] == [first] and entries[0].hold_expires_at is not None
