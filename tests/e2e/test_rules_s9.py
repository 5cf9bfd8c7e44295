"""rules.md §9 in Chromium: a mixed-pairs registration of two men refused with the reason in zh, en and vi, and a
Guandan tribute entered with one tap on the table phone (a wrong one refused with the reason, the right one kept
in the deal list). The console's early-finish notice is in test_chief_referee.py."""
from __future__ import annotations

from playwright.sync_api import expect

from chalicelib.models import RegistrationIn
from chalicelib.services import registration, rounds
from tests.e2e.test_browser import make_tournament

REFUSED = {"zh": "混合双人赛须一男一女报名，请填写每人性别",
           "en": "A mixed pair is one man and one woman: give each member's gender",
           "vi": "Đôi nam nữ phải gồm một nam và một nữ: hãy ghi giới tính từng người"}


def test_a_mixed_pair_of_two_men_is_refused_with_the_reason_in_three_languages(store, stack, browser, shot):
    _, _, t, (ev,) = make_tournament(store, [
        {"name": "男女混双", "game": "guandan", "entry": "pair", "capacity": 10, "fee": {"amount": 0}, "mixed_pairs": True,
         "stages": [{"format": "swiss", "rounds": 3}]}])
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = ctx.new_page()
    for k, lang in enumerate(("zh", "en", "vi")):
        page.goto(f"{stack['site']}/register.html?e={ev.id}&t={t.id}&lang={lang}")
        expect(page.get_by_test_id("mixed-hint")).to_be_visible()
        first, second = page.get_by_test_id("member-0"), page.get_by_test_id("member-1")
        first.locator("#f-m0-name").fill("张三")
        first.locator("#f-m0-phone").fill(f"1380000000{k}")
        second.locator("#f-m1-name").fill("李四")
        page.get_by_test_id("gender-0-m").click()
        page.get_by_test_id("gender-1-m").click()
        page.get_by_test_id("submit").click()
        expect(page.get_by_text(REFUSED[lang])).to_be_visible()
        shot(page, f"mixed-pair-refused-{lang}")
    # one man and one woman: taken
    page.get_by_test_id("gender-1-f").click()
    page.get_by_test_id("submit").click()
    expect(page.get_by_test_id("done")).to_be_visible()
    (entry,) = store.repos.entries.list(ev.id)
    assert [m.gender for m in entry.members] == ["m", "f"]
    ctx.close()


def test_a_tribute_is_one_tap_on_the_phone_and_a_wrong_one_is_refused(store, stack, browser, shot):
    org, _, t, (ev,) = make_tournament(store, [
        {"name": "掼蛋贡牌", "game": "guandan", "entry": "pair", "capacity": 8, "fee": {"amount": 0},
         "stages": [{"format": "swiss", "rounds": 2, "early_finish": False}]}])
    for i in range(2):
        r = registration.register(store, ev.id, RegistrationIn(name=f"贡{i + 1}队", members=[
            {"name": f"甲{i}", "phone": f"1362000{i:04d}"}, {"name": f"乙{i}"}]), None)
        registration.check_in(store, ev.id, r.entry.id)
    rnd, _ = rounds.draw_next(store, org, ev.id, 1)
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True, locale="zh-CN")
    page = ctx.new_page()
    page.goto(f"{stack['site']}/score.html?e={ev.id}&r=1&t=1&c={rnd.tables[0].codes[0]}")
    expect(page.get_by_test_id("seat-N")).to_be_visible()
    expect(page.get_by_test_id("tribute")).to_have_count(0)           # the first deal has none
    for seat in ("N", "S", "E", "W"):                                  # deal 1: N–S 双下 E–W
        page.get_by_test_id(f"seat-{seat}").click()
    expect(page.get_by_test_id("tribute-double")).to_contain_text("双贡 ✓")   # what the previous deal calls for
    page.get_by_test_id("tribute-single").click()                      # a wrong one: refused with the reason
    for seat in ("E", "N", "W", "S"):
        page.get_by_test_id(f"seat-{seat}").click()
    expect(page.get_by_text("贡牌与上一副不符：上一副双下应双贡")).to_be_visible()
    shot(page, "tribute-refused")
    page.get_by_test_id("tribute-double").click()                      # one tap, then the order
    for seat in ("E", "N", "W", "S"):
        page.get_by_test_id(f"seat-{seat}").click()
    expect(page.get_by_test_id("deal-tribute-2")).to_have_text("双贡")
    shot(page, "tribute-kept")
    ctx.close()
