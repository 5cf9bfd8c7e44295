"""Made for WeChat groups, in WeChat's in-app browser (its user agent) on the real stack: a published page and the
registration page carry the link card WeChat reads (title, description, og:image / itemprop image, a first image),
the card's image is the poster served beside the pages, and the poster's QR code opens the registration page."""
from __future__ import annotations

import io
import re
from datetime import date, timedelta

import zxingcpp
from PIL import Image
from playwright.sync_api import expect

from chalicelib.models import EventConfig, TournamentIn
from chalicelib.publish.sinks import LocalSink
from chalicelib.services import organisers, publishing, tournaments
from tests.e2e.conftest import SHOTS, _no_csp_violations
from tests.e2e.test_app import WECHAT_UA


def card(page) -> dict:
    return page.evaluate("""() => Object.fromEntries([...document.head.querySelectorAll('meta[property], meta[name], meta[itemprop]')]
        .map((m) => [m.getAttribute('property') || m.getAttribute('itemprop') || m.getAttribute('name'), m.content]))""")


def test_wechat_reads_a_link_card_on_published_and_registration_pages(stack, store, browser, monkeypatch, shot):
    monkeypatch.setenv("SITE_URL", stack["site"])
    d = store
    org, _ = organisers.create_organiser(d, "分享测试商会")
    t = tournaments.create_tournament(d, org, TournamentIn(name="分享测试杯", venue="南宁", starts_on=date.today() + timedelta(days=9)))
    ev = tournaments.create_event(d, org, t.id, EventConfig.model_validate(
        {"name": "掼蛋双人赛", "game": "guandan", "entry": "pair", "capacity": 16, "fee": {"amount": 5000, "per": "entry"},
         "stages": [{"format": "swiss", "rounds": 3}]}))
    d.publisher = LocalSink(stack["publish_dir"])
    publishing.publish_tournament(d, t.id)

    ctx = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, locale="zh-CN",
                              user_agent=WECHAT_UA)
    blocked = _no_csp_violations(ctx)
    page = ctx.new_page()
    page.goto(f"{stack['site']}/t/{t.id}/{ev.id}/index.html")
    c = card(page)
    assert c["og:title"] == "掼蛋双人赛 · 分享测试杯" and c["name"] == c["og:title"]
    assert "南宁" in c["description"] and "¥50.00 / 队" in c["og:description"]
    assert c["og:image"] == c["image"] == f"{stack['site']}/t/{t.id}/{ev.id}/poster.png"
    # the first image of the HTML as a crawler reads it (a browser running the page never fetches it: <noscript>)
    html = page.request.get(page.url).text()
    first_img = re.search(r'<img src="([^"]+)"', html.split("<body>", 1)[1]).group(1)
    assert first_img == c["og:image"]
    poster = page.request.get(c["og:image"])
    assert poster.status == 200 and poster.headers["content-type"] == "image/png"
    (SHOTS / "wechat-event-poster.png").write_bytes(poster.body())
    found = zxingcpp.read_barcodes(Image.open(io.BytesIO(poster.body())))
    assert [f.text for f in found] == [f"{stack['site']}/register.html?e={ev.id}&t={t.id}"]
    shot(page, "published-event")

    page.goto(found[0].text)                              # the poster's QR code, scanned inside WeChat
    expect(page.get_by_test_id("event-name")).to_have_text("掼蛋双人赛")
    expect(page).to_have_title("掼蛋双人赛 · 分享测试杯")
    c = card(page)
    assert c["og:image"] == c["image"] == f"{stack['site']}/t/{t.id}/{ev.id}/poster.png"
    assert c["og:title"] == "掼蛋双人赛 · 分享测试杯" and "南宁" in c["description"] and "50" in c["description"]
    assert page.evaluate("document.body.firstElementChild.id") == "share-img"
    assert page.request.get(c["og:image"]).status == 200
    shot(page, "register-in-wechat")

    page.goto(f"{stack['site']}/index.html?t={t.id}")    # the tournament's own page: its card, its poster
    expect(page).to_have_title("分享测试杯")
    c = card(page)
    assert c["og:image"] == f"{stack['site']}/t/{t.id}/poster.png" and "掼蛋双人赛" in c["og:description"]
    whole = page.request.get(c["og:image"])
    assert [f.text for f in zxingcpp.read_barcodes(Image.open(io.BytesIO(whole.body())))] == [f"{stack['site']}/day.html?t={t.id}"]
    (SHOTS / "wechat-tournament-poster.png").write_bytes(whole.body())
    ctx.close()
    assert not blocked, blocked
