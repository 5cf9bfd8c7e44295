"""Entries as CSV (UTF-8 with BOM, so Excel shows Chinese names) and XLSX (openpyxl).

Cells that a spreadsheet would read as a formula (=, +, -, @, tab, CR first: OWASP's CSV injection list)
get a leading apostrophe in both formats, and XLSX cells are written as strings, never formulas: the
sheet also holds phone numbers. Money is shown in the currency's own unit (JPY has no minor unit)."""
from __future__ import annotations

import csv
import io
import re

from ..models import Entry
from ..money import money

HEADERS = ["编号 id", "名称 name", "单位 club", "队员 members", "电话 phone", "状态 status", "应付 due",
           "已付（扣除退款） paid (net)", "已退 refunded", "币种 currency", "付款 payment", "签到 checked in", "报名时间 registered",
           "应退 owed back"]
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


# What a spreadsheet cannot hold or should not show: C0/C1 controls (openpyxl refuses them: one BEL in one
# name broke the whole export) and bidi overrides. Input refuses them now; older data is cleaned here anyway.
_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def neutralise(value):
    if isinstance(value, str):
        value = _UNSAFE.sub("", value)
        if value.startswith(FORMULA_START):
            return "'" + value
    return value


def _rows(entries: list[Entry]):
    for e in entries:
        row = [e.id, e.name, e.club, "、".join(m.name for m in e.members),
               " ".join(m.phone for m in e.members if m.phone), e.status, money(e.amount_due, e.currency),
               money(e.amount_paid, e.currency), money(e.amount_refunded, e.currency), e.currency, e.payment_state, "是" if e.checked_in else "",
               e.created_at.strftime("%Y-%m-%d %H:%M"), money(e.owed, e.currency) if e.owed else ""]
        yield [neutralise(v) for v in row]


def entries_csv(entries: list[Entry]) -> str:
    buf = io.StringIO()
    buf.write("\ufeff")
    writer = csv.writer(buf)
    writer.writerow(HEADERS)
    writer.writerows(_rows(entries))
    return buf.getvalue()


def entries_xlsx(entries: list[Entry], title: str) -> bytes:
    from openpyxl import Workbook
    wb = Workbook()
    ws = wb.active
    ws.title = "entries"
    for r, row in enumerate([[neutralise(title)], HEADERS, *_rows(entries)], start=1):
        for c, value in enumerate(row, start=1):
            cell = ws.cell(row=r, column=c)
            cell.value = value
            if isinstance(value, str):
                cell.data_type = "s"   # text, even when it looks like a formula
    for col, width in zip("ABCDEFGHIJKL", (28, 18, 18, 24, 16, 16, 8, 8, 6, 10, 8, 18)):
        ws.column_dimensions[col].width = width
    out = io.BytesIO()
    wb.save(out)
    return out.getvalue()
