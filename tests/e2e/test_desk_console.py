"""The desk at 1280 px (issue 39): a walk-in added after the deadline, and every irreversible console action asking
first with its consequence in words (and undone where that is cheap). No console error on these pages."""
from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import pytest
from playwright.sync_api import expect

from chalicelib.models import EventConfig, RegistrationIn, TournamentIn
from chalicelib.services import organisers, registration, tournaments


def _event(d, name, **cfg):
    org, token = organisers.create_organiser(d, name)
    t = tournaments.create_tournament(d, org, TournamentIn(name=f"{name}杯", venue="南宁", starts_on=date.today()))
    closed = (datetime.now(timezone.utc) - timedelta(hours=1)).isoformat()
    config = {"name": "掼蛋双人赛", "game": "guandan", "entry": "pair", "capacity": 16, "fee": {"amount": 4000, "per": "entry"},
              "registration": {"opens_at": "2020-01-01T00:00:00Z", "closes_at": closed},
              "stages": [{"format": "swiss", "rounds": 3}]} | cfg
    return token, tournaments.create_event(d, org, t.id, EventConfig.model_validate(config))


@pytest.fixture
def console(desk):
    """The console at 1280 px, with every console error and uncaught exception collected."""
    errors: list[str] = []
    # Chromium's own favicon.ico request is not the page's (the pages name no icon)
    desk.on("console", lambda m: errors.append(f"{m.text} {m.location['url']}")
            if m.type == "error" and not m.location["url"].endswith("/favicon.ico") else None)
    desk.on("weberror", lambda e: errors.append(str(e.error)))
    yield desk, errors


def _open(ctx, stack, token):
    # about:blank has no localStorage: set only on the site's pages
    ctx.add_init_script(f"if (location.protocol.startsWith('http')) {{ localStorage.setItem('organiserToken', '{token}'); "
                        "localStorage.setItem('lang', 'zh') }")
    page = ctx.new_page()
    page.goto(f"{stack['site']}/organiser.html")
    expect(page.get_by_test_id("entries")).to_be_attached()
    return page


def test_a_walk_in_is_added_at_the_desk_after_the_deadline(stack, store, console, shot):
    ctx, errors = console
    token, ev = _event(store, "现场报名商会")
    page = _open(ctx, stack, token)
    page.get_by_test_id("walk-in").click()
    form = page.get_by_test_id("walk-in-form")
    expect(form).to_contain_text("报名费 ¥40.00")
    form.get_by_test_id("walk-in-name").locator("input").fill("现场一队")
    form.get_by_test_id("walk-in-member-0").locator("input").fill("陆一")
    form.get_by_test_id("walk-in-phone-0").locator("input").fill("13600000001")
    form.get_by_test_id("walk-in-member-1").locator("input").fill("陆二")
    form.get_by_test_id("walk-in-cash").click()
    shot(page, "walk-in-form")
    form.get_by_test_id("walk-in-submit").click()
    expect(page.get_by_test_id("notice")).to_contain_text("已加入：现场一队")
    row = page.locator("[data-entry]", has_text="现场一队")
    expect(row).to_contain_text("已确认")
    expect(row).to_contain_text("已付 ¥40.00")
    [entry] = store.repos.entries.list(ev.id)
    assert (entry.status, entry.amount_paid, entry.payment_state) == ("confirmed", 4000, "paid")
    shot(page, "walk-in-added")
    assert not errors, errors
