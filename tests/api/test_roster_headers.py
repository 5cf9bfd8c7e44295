"""Issue 39: the import reads a secretariat's own headers (seed 003's 队伍名称 / 所属商会 / 队员1电话 / 会员码 / 是否缴费)
by synonyms, answers each header and what it was read as (an unknown one named), takes the desk's mapping over
them, reads "已缴" as paid and names a member without a name as such."""
from __future__ import annotations

import pytest

from tests.api.test_registration import make_event
from tests.api.test_roster_import import by_row, send, xlsx
from tests.factories import tournament_body

OWN = ["序号", "队伍名称", "所属商会", "队员1", "队员1电话", "队员2", "队员2电话", "会员码", "是否缴费", "备注"]
CODES = {"eligibility": {"kind": "codes", "codes": ["HECHI", "YIZHOU"]}, "opens_at": "2026-11-01T00:00:00Z",
         "closes_at": "2026-12-11T12:00:00Z"}


@pytest.fixture
def eid(api):
    tid = api.post("/tournaments", tournament_body()).data["id"]
    return make_event(api, tid, registration=CODES)


def test_a_secretariats_own_headers_are_read_and_each_is_named_back(api, eid):
    sheet = xlsx([[1, "河池一队", "南宁河池商会", "韦一", "13800000001", "韦二", "", "HECHI", "已缴", "早到"],
                  [2, "宜州一队", "南宁宜州商会", "蓝三", "13800000002", "", "13800000003", "YIZHOU", "未缴", ""]], header=OWN)
    r = send(api, eid, sheet)
    assert r.status_code == 200, r.data
    read = {c["header"]: c["key"] for c in r.data["columns"]}
    assert read == {"序号": None, "队伍名称": "name", "所属商会": "club", "队员1": "m1_name", "队员1电话": "m1_phone",
                    "队员2": "m2_name", "队员2电话": "m2_phone", "会员码": "m1_code", "是否缴费": "paid", "备注": None}
    assert [c["header"] for c in r.data["columns"]] == OWN          # every header, in the sheet's order: none dropped
    rows = by_row(r.data)
    assert (rows[2]["status"], rows[2]["name"], rows[2]["club"], rows[2]["paid"]) == ("ok", "河池一队", "南宁河池商会", True)
    assert rows[2]["will_be"] == "confirmed"                       # the member code was read: eligible, paid
    # member 2 has a phone but no name: said of member 2's name, not of the team's
    assert (rows[3]["status"], rows[3]["field"]) == ("error", "m2_name") and "队员2缺少姓名" in rows[3]["message"]


def test_the_desks_mapping_overrides_and_can_leave_a_column_out(api, eid):
    header = ["参赛队", "单位名称", "姓名A", "手机A", "姓名B", "付费"]
    sheet = xlsx([["东兰队", "南宁东兰商会", "覃五", "13800000005", "覃六", "是"]], header=header)
    before = send(api, eid, sheet)
    assert before.status_code == 400 and before.data["code"] == "import_columns_missing"
    assert {h["header"]: h["key"] for h in before.data["details"]["headers"]}["姓名A"] is None   # named, not dropped
    mapping = {"姓名A": "m1_name", "手机A": "m1_phone", "姓名B": "m2_name", "付费": ""}   # "": left out
    r = api.post(f"/events/{eid}/entries/import", {"file": __import__("base64").b64encode(sheet).decode(), "dry_run": True,
                                                    "mapping": mapping})
    assert r.status_code == 200, r.data
    cols = {c["header"]: (c["key"], c["by"]) for c in r.data["columns"]}
    assert cols["姓名A"] == ("m1_name", "mapping") and cols["付费"] == (None, "mapping") and cols["参赛队"] == ("name", "header")
    row = r.data["rows"][0]
    assert (row["name"], row["paid"]) == ("东兰队", False)           # 付费 left out: not read as paid
    assert row["code"] == "not_eligible"                            # no member code column: the event's rule says so
    bad = api.post(f"/events/{eid}/entries/import", {"file": __import__("base64").b64encode(sheet).decode(),
                                                      "mapping": {"姓名A": "m9_name"}})
    assert (bad.status_code, bad.data["code"], bad.data["details"]["keys"]) == (400, "invalid_request", ["m9_name"])


def test_a_column_is_read_once(api, eid):
    header = ["队名", "队员1", "手机", "联系电话", "队员2"]
    r = send(api, eid, xlsx([["一队", "甲", "13800000008", "13900000009", "乙"]], header=header))
    cols = {c["header"]: (c["key"], c["by"]) for c in r.data["columns"]}
    assert cols["手机"] == ("m1_phone", "header") and cols["联系电话"] == (None, "again")
