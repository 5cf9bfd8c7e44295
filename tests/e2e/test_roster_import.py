"""The secretariat's sheet at the desk, in a real browser on the real stack: the template downloads, the sheet's
rows are shown (a bad phone and a phone already entered marked, nothing written), then the import writes the good
row only; on a phone-width screen nothing scrolls sideways, and the tab speaks one language."""
from __future__ import annotations

import io
from datetime import date, timedelta

from openpyxl import Workbook, load_workbook
from playwright.sync_api import expect

from chalicelib.models import EventConfig, RegistrationIn, TournamentIn
from chalicelib.services import organisers, registration, tournaments
from tests.e2e.conftest import _no_csp_violations
from tests.e2e.test_app import assert_one_language

HEADER = ["队名 Team name", "单位/商会 Club", "队员1 姓名 Member 1 name", "队员1 手机 Member 1 phone",
          "队员1 会员码 Member 1 code", "队员2 姓名 Member 2 name", "队员2 手机 Member 2 phone",
          "队员2 会员码 Member 2 code", "已付款（是/否） Paid (yes/no)"]


def sheet(rows) -> bytes:
    wb = Workbook()
    for r in [HEADER, *rows]:
        wb.active.append(r)
    out = io.BytesIO()
    wb.save(out)
    return out.getvalue()


def test_a_bad_row_is_shown_before_anything_is_written(stack, store, browser, shot, tmp_path):
    d = store
    org, token = organisers.create_organiser(d, "秘书处测试商会")
    t = tournaments.create_tournament(d, org, TournamentIn(name="名单导入杯", venue="南宁", starts_on=date.today() + timedelta(days=5)))
    ev = tournaments.create_event(d, org, t.id, EventConfig.model_validate(
        {"name": "掼蛋双人赛", "game": "guandan", "entry": "pair", "capacity": 16, "fee": {"amount": 5000, "per": "entry"},
         "stages": [{"format": "swiss", "rounds": 3}]}))
    registration.register(d, ev.id, RegistrationIn(name="网上报名队", members=[{"name": "韦一", "phone": "13500000001"},
                                                                             {"name": "韦二"}]), None)
    path = tmp_path / "名单.xlsx"
    path.write_bytes(sheet([["南宁一队", "南宁商会", "覃三", "13500000002", "", "覃四", "", "", "是"],
                            ["南宁二队", "南宁商会", "蒙五", "12345", "", "蒙六", "", "", "否"],
                            ["南宁三队", "南宁商会", "黄七", "13500000001", "", "黄八", "", "", "否"]]))

    for width, height in ((1280, 900), (360, 780)):
        ctx = browser.new_context(viewport={"width": width, "height": height}, locale="zh-CN",
                                  is_mobile=width < 500, has_touch=width < 500, accept_downloads=True)
        blocked = _no_csp_violations(ctx)
        # before the page's scripts (a setItem after a first load could lose to the page writing its own language)
        ctx.add_init_script(f"localStorage.setItem('organiserToken', '{token}'); localStorage.setItem('lang', 'zh')")
        page = ctx.new_page()
        page.goto(f"{stack['site']}/organiser.html")
        page.get_by_role("tab", name="名单导入").click()
        if width > 500:
            with page.expect_download() as dl:
                page.get_by_test_id("template-xlsx").click()
            ws = load_workbook(io.BytesIO(dl.value.path().read_bytes())).worksheets[0]
            assert [c.value for c in ws[1]] == HEADER
        page.get_by_test_id("import-file").set_input_files(str(path))
        counts = page.get_by_test_id("import-counts")
        expect(counts).to_contain_text("可导入 1 行" if width > 500 else "可导入 0 行，已导入过 1 行")
        expect(counts).to_contain_text("尚未写入")
        expect(page.get_by_test_id("import-row-2")).to_have_attribute("data-status", "ok" if width > 500 else "exists")
        bad = page.get_by_test_id("import-row-3")
        expect(bad).to_have_attribute("data-status", "error")
        expect(bad.get_by_test_id("row-problem")).to_have_text("队员 1 · 手机号：填写有误，请检查")
        dup = page.get_by_test_id("import-row-4")
        expect(dup).to_have_attribute("data-status", "duplicate")
        expect(dup).to_contain_text("135****0001")           # masked: the desk recognises it, a passer-by cannot copy it
        assert "13500000001" not in page.get_by_test_id("roster-import").inner_html()
        assert len(d.repos.entries.list(ev.id)) == (1 if width > 500 else 2)   # the dry run wrote nothing
        assert_one_language(page, "zh", ("import", width))
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        shot(page, f"preview-{width}")
        if width > 500:
            page.get_by_test_id("import-go").click()
            expect(counts).to_contain_text("已导入 1 行")
            expect(page.get_by_test_id("import-row-2")).to_have_attribute("data-status", "created")
            names = sorted(e.name for e in d.repos.entries.list(ev.id))
            assert names == ["南宁一队", "网上报名队"]
            one = next(e for e in d.repos.entries.list(ev.id) if e.name == "南宁一队")
            assert (one.status, one.amount_paid) == ("confirmed", 5000)
            shot(page, "imported")
        else:   # the same sheet again, on a phone: the row imported on the desktop is found, nothing new to write
            expect(page.get_by_test_id("import-go")).to_be_disabled()
        ctx.close()
        assert not blocked, blocked
