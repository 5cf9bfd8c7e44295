"""Entries as CSV (UTF-8 with BOM, so Excel shows Chinese names) and XLSX (openpyxl)."""
from __future__ import annotations

import csv
import io

from ..models import Entry

HEADERS = ["编号 id", "名称 name", "单位 club", "队员 members", "电话 phone", "状态 status", "应付 due",
           "已付 paid", "付款 payment", "签到 checked in", "报名时间 registered"]


def _rows(entries: list[Entry]):
    for e in entries:
        yield [e.id, e.name, e.club, "、".join(m.name for m in e.members),
               " ".join(m.phone for m in e.members if m.phone), e.status, e.amount_due / 100, e.amount_paid / 100,
               e.payment_state, "是" if e.checked_in else "", e.created_at.strftime("%Y-%m-%d %H:%M")]


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
    ws.append([title])
    ws.append(HEADERS)
    for row in _rows(entries):
        ws.append(row)
    for col, width in zip("ABCDEFGHIJK", (28, 18, 18, 24, 16, 16, 8, 8, 10, 8, 18)):
        ws.column_dimensions[col].width = width
    out = io.BytesIO()
    wb.save(out)
    return out.getvalue()
