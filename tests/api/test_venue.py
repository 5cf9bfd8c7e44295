"""Venue mode (issue 16): every printed or encoded link uses the address phones in the hall can open."""
from __future__ import annotations

from tests.api.play import draw, people, setup_event


def test_table_cards_and_staff_links_use_the_public_url(api, monkeypatch):
    monkeypatch.setenv("PUBLIC_URL", "http://192.168.1.20:8080")
    from chalicelib.config import get_settings
    get_settings.cache_clear()
    cfg = {"name": "掼蛋", "game": "guandan", "entry": "pair", "capacity": 8, "fee": {"amount": 0},
           "stages": [{"format": "swiss", "rounds": 3}]}
    tid, eid, _ = setup_event(api, cfg, people(4, 2, "队"))
    draw(api, eid)
    cards = api.get(f"/events/{eid}/rounds/1/cards").body.decode()
    assert "http://192.168.1.20:8080/score.html?e=" in cards and "127.0.0.1" not in cards
    staff = api.post(f"/tournaments/{tid}/staff", {"name": "李", "role": "scorer"}).data
    assert staff["link"].startswith("http://192.168.1.20:8080/organiser.html#staff=")


def test_lan_address_and_public_url_precedence(monkeypatch):
    import importlib

    import scripts.dev as dev
    monkeypatch.setenv("HOST", "0.0.0.0")
    monkeypatch.delenv("PUBLIC_URL", raising=False)
    dev = importlib.reload(dev)
    site, api = dev.public_urls()
    lan = dev.lan_address()
    assert site == f"http://{lan}:{dev.SITE_PORT}" and api == f"http://{lan}:{dev.API_PORT}"
    monkeypatch.setenv("PUBLIC_URL", "https://hall.example.org")
    site, api = dev.public_urls()
    assert site == "https://hall.example.org" and api == f"http://hall.example.org:{dev.API_PORT}"
    monkeypatch.delenv("HOST")
    importlib.reload(dev)
