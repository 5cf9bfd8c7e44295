"""The roster import's bounds (issue 36): hostile files made here — a zip bomb (honest and lying about its size),
3 million cells in a small XLSX, a 50 MB cell, XXE, billion laughs, a CSV of too many columns — each answered
422 within 5 s, with the API's memory (this process: the API runs in it, on moto) growing by < 200 MB, and the
bound named in the answer."""
from __future__ import annotations

import io
import time
import zipfile

import pytest

from chalicelib.services import sheet_reader
from tests.api.test_roster_import import PAIR_HEADER, csv_bytes, row, send, xlsx
from tests.factories import guandan_event, tournament_body
from tests.hostile_sheets import (NS, SHEET, base, billion_laughs, lying_about_size, long_cell, many_cells,
                                  thousand_teams, with_part, xxe, zip_bomb)


@pytest.fixture
def eid(api):
    tid = api.post("/tournaments", tournament_body()).data["id"]
    return api.post(f"/tournaments/{tid}/events", guandan_event()).data["id"]


def rss_growth_mb(fn):
    """Peak RSS during fn() above the RSS before it (the peak reset first: /proc/self/clear_refs)."""
    def status(field):
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) for line in f if line.startswith(field + ":")) / 1024
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    before = status("VmRSS")
    started = time.monotonic()
    result = fn()
    return result, status("VmHWM") - before, time.monotonic() - started


def refused(api, eid, content: bytes, code: str, limit: str | None = None):
    r, grew_mb, seconds = rss_growth_mb(lambda: send(api, eid, content))
    assert r.status_code == 422 and r.data["code"] == code, (r.status_code, r.data)
    if limit:
        assert r.data["details"]["limit"] == limit
    assert seconds < 5, seconds
    assert grew_mb < 200, grew_mb
    assert len(r.body) < 2000   # the answer quotes no file
    return r.data


def test_a_zip_bomb_is_refused_by_its_declared_size(api, eid):
    bomb = zip_bomb(100)
    assert len(bomb) < 600 * 1024
    answer = refused(api, eid, bomb, "import_too_large", "unzipped_bytes")
    assert "20 MB" in answer["message"]


def test_a_zip_bomb_lying_about_its_size_is_refused_as_it_inflates(api, eid):
    liar = lying_about_size(zip_bomb(100), SHEET, 1000)
    assert zipfile.ZipFile(io.BytesIO(liar)).getinfo(SHEET).file_size == 1000
    refused(api, eid, liar, "import_unreadable")   # zipfile stops at the declared size: the part's checksum fails


@pytest.mark.parametrize("rows, per_row, cell, limit", [
    (30_000, 100, b"<c><v>1</v></c>", "unzipped_bytes"),   # 3 M cells, 45 MB of XML: past the declared-size bound
    (30_000, 100, b"<c/>", "cells"),                       # 3 M cells in 12 MB: read until the 150,001st cell
    (300_000, 1, b"<c/>", "lines"),                        # 300,000 rows: read until the 5,001st
])
def test_three_million_cells_in_a_small_xlsx(api, eid, rows, per_row, cell, limit):
    small = many_cells(rows, per_row, cell)
    assert len(small) < 600 * 1024
    refused(api, eid, small, "import_too_large", limit)


def test_one_cell_far_to_the_right_or_far_down(api, eid):
    wide = with_part(base(), SHEET, f'<worksheet {NS}><sheetData><row r="1"><c r="XFD1" t="inlineStr"><is><t>x</t>'
                                    f'</is></c></row></sheetData></worksheet>'.encode())
    refused(api, eid, wide, "import_too_large", "columns")
    deep = with_part(base(), SHEET, f'<worksheet {NS}><sheetData><row r="1048576"><c r="A1048576"><v>1</v></c>'
                                    f'</row></sheetData></worksheet>'.encode())
    refused(api, eid, deep, "import_too_large", "lines")
    # a worksheet is known by its root element, wherever the workbook's relationships put it
    elsewhere = with_part(base(), "xl/sheets-of-mine/roster.xml", f'<worksheet {NS}><sheetData><row r="1"><c r="XFD1">'
                                                                 f'<v>1</v></c></row></sheetData></worksheet>'.encode())
    refused(api, eid, elsewhere, "import_too_large", "columns")


def test_a_50_mb_cell(api, eid):
    big = long_cell(50)
    assert len(big) < 600 * 1024
    refused(api, eid, big, "import_too_large", "unzipped_bytes")


def test_a_cell_longer_than_the_bound_and_what_an_answer_quotes(api, eid):
    long_name = "队" * (sheet_reader.MAX_CELL_CHARS + 1)
    refused(api, eid, xlsx([row(long_name, "13800000001")]), "import_too_large", "cell_chars")
    refused(api, eid, csv_bytes([row(long_name, "13800000001")]), "import_too_large", "cell_chars")
    # within the bound, a row's error quotes the first 100 characters of the cell only
    name = "名" * sheet_reader.MAX_CELL_CHARS
    r = send(api, eid, xlsx([row(name, "13800000001")]))
    assert r.status_code == 200, r.data
    got = r.data["rows"][0]
    assert got["status"] == "error" and got["name"] == "名" * 100 + "…"
    assert len(r.body) < 3000


def test_xxe_and_billion_laughs_are_refused_unread(api, eid):
    answer = refused(api, eid, xxe(), "import_unreadable")
    assert "DTD" in answer["message"] and "root:" not in answer["message"]
    refused(api, eid, billion_laughs(), "import_unreadable")
    # without a DOCTYPE an entity cannot be declared; one used undeclared is not XML
    refused(api, eid, with_part(base(), "[Content_Types].xml", b'<?xml version="1.0"?><Types>&x;</Types>'),
            "import_unreadable")


def test_csv_bounds(api, eid):
    refused(api, eid, csv_bytes([["x"] * (sheet_reader.MAX_COLUMNS + 1)]), "import_too_large", "columns")
    many = csv_bytes([row(f"{n}队", f"138{n:08d}") for n in range(sheet_reader.MAX_ROWS + 1)])
    refused(api, eid, many, "import_too_large", "rows")
    assert len(PAIR_HEADER) <= sheet_reader.MAX_COLUMNS


def test_a_real_sheet_of_a_thousand_teams_passes_the_bounds():
    """The bounds leave room for the largest sheet the import takes: 1,000 teams of six on the template."""
    content = thousand_teams()
    started = time.monotonic()
    got = sheet_reader.xlsx_rows(content, lambda v: "" if v is None else str(v))
    assert len(got) == sheet_reader.MAX_ROWS + 1 and time.monotonic() - started < sheet_reader.MAX_SECONDS
    assert len(content) < 600 * 1024
