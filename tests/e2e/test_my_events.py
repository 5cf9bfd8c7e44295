""""我的" in Chromium (api.md v1.3 "Players", issue 41): one phone registered with two organisers signs in with the
SMS code read from the stack's outbox file, sees both tournaments, withdraws from the paid one, and the refund's
message lands in the outbox. The stack here is the e2e one's store with the API started with messages on (the SMS
providers' stand-ins, an outbox file), as `make run` starts it."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request
from datetime import date, timedelta
from pathlib import Path

import pytest
from playwright.sync_api import expect

from chalicelib.models import EventConfig, TournamentIn
from chalicelib.services import organisers, tournaments
from scripts.site_build import built_site
from tests.e2e.conftest import ROOT, _no_csp_violations

PHONE = "13712340001"


@pytest.fixture(scope="module")
def standins():
    from scripts.message_standins import Standins
    s = Standins().start()
    yield s
    s.stop()


@pytest.fixture
def messages_stack(stack, standins):
    """The API and the site again on the e2e store, the API's messages through the stand-ins into an outbox file."""
    from scripts import ddblocal
    outbox = str(Path(tempfile.mkdtemp(prefix="e2e-outbox-")) / "outbox.jsonl")
    api_port, site_port = ddblocal.free_port(), ddblocal.free_port()
    env = dict(os.environ, STORE="embedded", STORE_PATH=stack["store_path"], TABLE_NAME=stack["table"], STAGE="local",
               PUBLISH_DIR=stack["publish_dir"], API_URL=f"http://127.0.0.1:{api_port}",
               SITE_URL=f"http://127.0.0.1:{site_port}", AWS_DEFAULT_REGION="ap-east-1", AWS_ACCESS_KEY_ID="local",
               AWS_SECRET_ACCESS_KEY="local", **standins.env("tencent", outbox))
    env.pop("STRIPE_SECRET_KEY", None)
    log = open(ROOT / ".data" / "e2e-api.log", "ab")
    procs = [subprocess.Popen([sys.executable, "-m", "scripts.api_server", "--host", "127.0.0.1", "--port",
                               str(api_port)], cwd=str(ROOT), env=env, stdout=log, stderr=subprocess.STDOUT,
                              start_new_session=True),
             subprocess.Popen([sys.executable, "-m", "scripts.site_server", "--port", str(site_port), "--frontend",
                               str(built_site()), "--published", stack["publish_dir"], "--api",
                               f"http://127.0.0.1:{api_port}"], cwd=str(ROOT), env=env, stdout=log,
                              stderr=subprocess.STDOUT, start_new_session=True)]
    try:
        ddblocal.wait_for_port(api_port, 60)
        ddblocal.wait_for_port(site_port, 30)
        yield {"api": env["API_URL"], "site": env["SITE_URL"], "outbox": outbox,
               "config": standins.config("tencent", outbox), "stack_outbox": stack["outbox_file"]}
    finally:
        for p in procs:
            ddblocal.stop(p)


def _tournament(store, organiser: str, name: str, days: int):
    org, _ = organisers.create_organiser(store, organiser)
    t = tournaments.create_tournament(store, org, TournamentIn(
        name=name, venue="南宁", currency="CNY", starts_on=date.today() + timedelta(days=days),
        payments={"providers": ["demo", "offline"]}))
    ev = tournaments.create_event(store, org, t.id, EventConfig.model_validate({
        "name": "掼蛋双人赛", "game": "guandan", "entry": {"kind": "pair"}, "capacity": 8,
        "fee": {"amount": 2000, "per": "person"}, "stages": [{"format": "swiss", "rounds": 3}]}))
    return t, ev


def _post(url: str, body: dict | None = None) -> dict:
    req = urllib.request.Request(url, data=json.dumps(body or {}).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as resp:
        text = resp.read().decode()
    return json.loads(text) if text.startswith("{") else {}


def _outbox(path: str, template: str) -> list[dict]:
    if not os.path.exists(path):
        return []
    lines = [json.loads(x) for x in Path(path).read_text(encoding="utf-8").splitlines() if x.strip()]
    return [x for x in lines if x["template"] == template and x["to"].endswith(PHONE)]


def _code(path: str) -> str:
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        sent = _outbox(path, "sign_in_code")
        if sent:
            return re.search(r"\d{6}", sent[-1]["text"]).group(0)
        time.sleep(0.2)
    raise AssertionError("no sign-in code in the outbox")


def test_sign_in_by_code_see_both_tournaments_withdraw_and_get_the_refund_message(store, messages_stack, browser, shot):
    api, site, outbox = messages_stack["api"], messages_stack["site"], messages_stack["outbox"]
    t1, ev1 = _tournament(store, "河池商会", "南宁冬季赛", 9)
    t2, ev2 = _tournament(store, "柳州商会", "柳州杯", 20)
    members = [{"name": "王五", "phone": PHONE}, {"name": "赵六"}]
    paid = _post(f"{api}/events/{ev1.id}/entries", {"name": "王五队", "members": members})
    _post(f"{api}/demo-pay/{paid['checkout_url'].rstrip('/').rsplit('/', 1)[1]}/pay")   # 确认支付 at the cashier
    assert store.repos.entries.get(ev1.id, paid["entry"]["id"]).status == "confirmed"
    held = _post(f"{api}/events/{ev2.id}/entries", {"name": "王五队", "members": members})
    assert held["entry"]["status"] == "pending_payment"

    ctx = browser.new_context(viewport={"width": 360, "height": 780}, device_scale_factor=2, is_mobile=True,
                              has_touch=True, locale="zh-CN")
    blocked = _no_csp_violations(ctx)
    page = ctx.new_page()
    page.goto(f"{site}/register.html?e={ev1.id}&t={t1.id}&lang=zh")
    page.get_by_test_id("me-link").click()                              # linked from the registration form
    page.wait_for_url(f"{site}/me.html")
    page.locator("#me-phone").fill(PHONE)
    page.get_by_test_id("ask-code").click()
    expect(page.get_by_test_id("ask-code")).to_contain_text("秒后重试")
    page.locator("#me-code").fill(_code(outbox))
    shot(page, "zh-sign-in")
    page.get_by_test_id("sign-in-submit").click()
    cards = page.get_by_test_id("registration")
    expect(cards).to_have_count(2)
    expect(cards.nth(0)).to_contain_text("柳州杯")                        # newest first
    expect(cards.nth(1)).to_contain_text("南宁冬季赛")
    expect(cards.nth(0)).to_contain_text("柳州商会")
    expect(cards.nth(0).get_by_test_id("pay")).to_be_visible()            # held, waiting for payment
    shot(page, "zh-both")
    from chalicelib.store.entries import phone_hash_of
    assert store.repos.players.by_phone_hash(phone_hash_of(PHONE))["lang"] == "zh-CN"   # messages' language
    mine = page.locator(f"[data-entry='{paid['entry']['id']}']")
    mine.get_by_test_id("withdraw").click()
    page.get_by_role("dialog").get_by_role("button", name="取消报名").click()
    expect(mine.get_by_test_id("reg-status")).to_have_text("已取消")
    expect(mine.get_by_test_id("withdraw")).to_have_count(0)
    expect(mine).to_contain_text("已退 ¥40.00")
    entry = store.repos.entries.get(ev1.id, paid["entry"]["id"])
    assert (entry.status, entry.amount_refunded) == ("cancelled", 4000)  # refunded through the demo provider
    shot(page, "zh-withdrawn")
    # the refund's message: the worker's pass (make run's thread) sends it, and the outbox file has it
    from chalicelib.messages.outbox import deliver_due
    from chalicelib.messages.setup import from_config
    store.extra["messaging"] = from_config(messages_stack["config"])
    from datetime import UTC, datetime
    # past the quiet hours (21:00–08:00 there) if in them; the stack's store holds the whole run's e2e messages,
    # so passes until none is left due (one pass takes the 50 oldest: in a full run this one was not among them)
    for _ in range(40):
        if not any(deliver_due(store, datetime.now(UTC) + timedelta(hours=12), limit=200).values()):
            break
    # (the stack's own worker, on the same store, may have sent it first: into the stack's outbox file)
    [refund] = _outbox(outbox, "refunded") + _outbox(messages_stack["stack_outbox"], "refunded")
    assert "¥40.00" in refund["text"] and "掼蛋双人赛" in refund["text"]
    # what is held, downloaded; the erasure waits for the tournaments to end
    with page.expect_download() as download:
        page.get_by_test_id("export").click()
    held_data = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
    assert held_data["player"]["phone"] == PHONE and {e["tournament"] for e in held_data["entries"]} == {"南宁冬季赛", "柳州杯"}
    page.get_by_test_id("erase").click()
    page.get_by_role("dialog").get_by_role("button", name="删除", exact=True).click()
    expect(page.get_by_test_id("error")).to_contain_text("还有未结束的比赛报名")
    expect(page.get_by_role("dialog")).to_have_count(0)
    shot(page, "zh-erase-refused")
    # "manage" opens the other entry's page as the player, no link needed
    page.locator(f"[data-entry='{held['entry']['id']}']").get_by_test_id("manage").click()
    expect(page.get_by_test_id("status")).to_have_text("待付款")
    expect(page.get_by_test_id("me-link")).to_be_visible()              # and back to 我的
    page.goto(f"{site}/me.html?lang=en")
    expect(page.get_by_test_id("registration").nth(1)).to_contain_text("Cancelled")
    shot(page, "en-both")
    ctx.close()
    assert not blocked, blocked
