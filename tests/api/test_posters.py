"""Made for WeChat groups: a poster per tournament and per event (PNG with a QR code to the registration page, read
back with zxing-cpp, a decoder we did not write), and the published pages' link cards (Open Graph and what WeChat's
in-app browser reads: title, description, image)."""
from __future__ import annotations

import io
import re

import pytest
import zxingcpp
from PIL import Image

from chalicelib import bootstrap
from chalicelib.publish.sinks import MemorySink
from chalicelib.services.publishing import publish_tournament
from tests.api.test_publish_incremental import Recording
from tests.api.test_registration import make_event
from tests.factories import doudizhu_event, tournament_body

PNG = {"Accept": "image/png"}
SITE = "http://127.0.0.1:8080"   # settings' default site_url in tests


@pytest.fixture
def day(api):
    tid = api.post("/tournaments", tournament_body(name="恒全杯商会联谊赛", venue="南宁国际会展中心")).data["id"]
    eid = make_event(api, tid)   # 掼蛋积分赛, ¥20 a person, closes 2026-12-11 12:00Z (20:00 in Shanghai)
    ddz = api.post(f"/tournaments/{tid}/events", doudizhu_event()).data["id"]
    return tid, eid, ddz


def qr_text(png: bytes) -> str:
    found = zxingcpp.read_barcodes(Image.open(io.BytesIO(png)))
    assert len(found) == 1, found
    return found[0].text


def test_an_events_poster_is_a_png_whose_qr_code_opens_its_registration_page(api, day):
    tid, eid, _ = day
    r = api.get(f"/events/{eid}/poster.png", headers=PNG)
    assert r.status_code == 200 and r.headers["Content-Type"] == "image/png"
    img = Image.open(io.BytesIO(r.body))
    assert img.size == (1080, 1440)
    assert qr_text(r.body) == f"{SITE}/register.html?e={eid}&t={tid}"
    # Something is written in the title's band (not the plain background colour): the font drew the name.
    band = img.crop((100, 150, 980, 260)).convert("RGB")
    assert len(set(band.getdata())) > 20


def test_a_tournaments_poster_opens_the_days_registration(api, day):
    tid, *_ = day
    r = api.get(f"/tournaments/{tid}/poster.png", headers=PNG)
    assert r.status_code == 200
    assert qr_text(r.body) == f"{SITE}/day.html?t={tid}"


def test_what_the_posters_say(api, day):
    """The words drawn, from the stored data, checked against the seed-style values written here by hand."""
    from chalicelib.services import posters
    tid, eid, ddz = day
    d = bootstrap.deps()
    t, events = d.repos.tournaments.get_with_events(tid)
    event = next(e for e in events if e.id == eid)
    p = posters.event_poster(t, event)
    assert (p.title, p.subtitle) == ("掼蛋积分赛", "恒全杯商会联谊赛")
    assert dict(p.lines) == {"项目": "掼蛋 · 双人", "时间": "2026年12月12日", "地点": "南宁国际会展中心",
                             "报名费": "¥20.00 / 人", "截止": "2026年12月11日 20:00", "名额": "40"}
    whole = posters.tournament_poster(t, events)
    assert whole.title == "恒全杯商会联谊赛" and dict(whole.lines)["截止"] == "2026年12月11日 20:00"
    assert sorted(whole.items) == sorted(["掼蛋积分赛（掼蛋 · 双人） ¥20.00 / 人", "二打一个人赛（斗地主 · 个人） 免费"])


def test_posters_are_the_organisers_own(api, other_api, day):
    tid, eid, _ = day
    assert other_api.get(f"/events/{eid}/poster.png", headers=PNG).status_code == 404
    assert other_api.get(f"/tournaments/{tid}/poster.png", headers=PNG).status_code == 404
    assert api.get(f"/events/{eid}/poster.png", headers=PNG, token=None).status_code == 401


def test_without_a_cjk_font_no_poster_is_drawn_in_boxes(api, day, monkeypatch):
    from chalicelib.publish import poster
    tid, eid, _ = day
    monkeypatch.setattr(poster, "FONT_PATHS", ("/nowhere/{w}.ttc",))
    monkeypatch.delenv("POSTER_FONT", raising=False)
    r = api.get(f"/events/{eid}/poster.png", headers=PNG)
    assert (r.status_code, r.data["code"]) == (500, "misconfigured")
    d = bootstrap.deps()
    d.publisher = sink = MemorySink()
    publish_tournament(d, tid)                       # the pages still go out, without the image
    assert f"t/{tid}/index.html" in sink.files and f"t/{tid}/poster.png" not in sink.files
    assert "og:image" not in sink.files[f"t/{tid}/index.html"].decode()   # no card pointing at nothing


def meta(html: str) -> dict[str, str]:
    found = {}
    for m in re.finditer(r'<meta (?:property|name|itemprop)="([^"]+)" content="([^"]*)"', html):
        found.setdefault(m.group(1), m.group(2))
    return found


def test_published_pages_carry_a_link_card_and_their_posters(api, day):
    tid, eid, _ = day
    d = bootstrap.deps()
    d.publisher = sink = Recording()
    publish_tournament(d, tid)
    index = meta(sink.files[f"t/{tid}/index.html"].decode())
    assert index["og:title"] == "恒全杯商会联谊赛" and index["name"] == "恒全杯商会联谊赛"
    assert "2026年12月12日" in index["og:description"] and "南宁国际会展中心" in index["og:description"]
    assert index["og:image"] == index["image"] == f"{SITE}/t/{tid}/poster.png"
    assert index["og:url"] == f"{SITE}/t/{tid}/index.html" and index["description"] == index["og:description"]
    assert qr_text(sink.files[f"t/{tid}/poster.png"]) == f"{SITE}/day.html?t={tid}"
    for page in (f"t/{tid}/{eid}/index.html", f"t/{tid}/{eid}/standings.html", f"en/t/{tid}/{eid}/index.html"):
        card = meta(sink.files[page].decode())
        assert card["og:title"] == "掼蛋积分赛 · 恒全杯商会联谊赛", page
        assert card["og:image"] == f"{SITE}/t/{tid}/{eid}/poster.png" and "¥20.00 / 人" in card["og:description"]
    assert qr_text(sink.files[f"t/{tid}/{eid}/poster.png"]) == f"{SITE}/register.html?e={eid}&t={tid}"
    html = sink.files[f"t/{tid}/index.html"].decode()
    assert html.index('class="share-img"') < html.index("<header>")   # WeChat's older cards take the first image
    # A publish with nothing new draws no poster again; a changed fee redraws that event's poster only.
    sink.written.clear()
    publish_tournament(d, tid)
    assert not [k for k in sink.written if k.endswith(".png")]
    assert api.patch(f"/events/{eid}", {"fee": {"amount": 3000, "per": "person"}}).status_code == 200
    sink.written.clear()
    publish_tournament(d, tid)
    assert sorted(k for k in sink.written if k.endswith(".png")) == sorted([f"t/{tid}/poster.png", f"t/{tid}/{eid}/poster.png"])
