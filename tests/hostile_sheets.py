"""Hostile spreadsheets for the roster import's bounds (issue 36), made on the spot: the tests
(tests/api/test_roster_import_bounds.py) and the benchmark (bench/import_bounds.py) send the same files."""
from __future__ import annotations

import io
import struct
import zipfile

from tests.api.test_roster_import import xlsx

SHEET = "xl/worksheets/sheet1.xml"
STRINGS = "xl/sharedStrings.xml"
NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'


def base() -> bytes:
    return xlsx([["一队", "南宁河池商会", "张三", "13800000001", "", "李四", "", "", "否"]],
                ["队名", "单位", "队员1", "手机1", "会员码1", "队员2", "手机2", "会员码2", "已付款"])


def with_part(content: bytes, name: str, data: bytes | None = None, *, chunks=None) -> bytes:
    """The workbook with one part replaced: `data`, or deflated from `chunks` (made lazily: a bomb's 100 MB of
    XML never sits in memory whole)."""
    src = zipfile.ZipFile(io.BytesIO(content))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            if info.filename != name:
                dst.writestr(info, src.read(info))
        if chunks is None:
            dst.writestr(name, data)
        else:
            info = zipfile.ZipInfo(name)
            info.compress_type = zipfile.ZIP_DEFLATED
            with dst.open(info, "w", force_zip64=True) as part:
                for chunk in chunks:
                    part.write(chunk)
    return out.getvalue()


def lying_about_size(content: bytes, name: str, declared: int) -> bytes:
    """The zip's headers (local and central) say `name` inflates to `declared` bytes."""
    data = bytearray(content)
    raw = name.encode()
    for sig, size_at, name_len_at, name_at in ((b"PK\x03\x04", 22, 26, 30), (b"PK\x01\x02", 24, 28, 46)):
        at = data.find(sig)
        while at != -1:
            n = struct.unpack_from("<H", data, at + name_len_at)[0]
            if bytes(data[at + name_at:at + name_at + n]) == raw:
                struct.pack_into("<I", data, at + size_at, declared)
            at = data.find(sig, at + 4)
    return bytes(data)


def zip_bomb(megabytes: int = 100) -> bytes:
    return with_part(base(), SHEET, chunks=(b" " * (1 << 20) for _ in range(megabytes)))


def many_cells(rows: int, per_row: int, cell: bytes = b"<c/>") -> bytes:
    def sheet():
        yield f'<worksheet {NS}><sheetData>'.encode()
        cells = cell * per_row
        for _ in range(rows):
            yield b"<row>" + cells + b"</row>"
        yield b"</sheetData></worksheet>"
    return with_part(base(), SHEET, chunks=sheet())


def long_cell(megabytes: int = 50) -> bytes:
    def strings():
        yield f'<sst {NS} count="1" uniqueCount="1"><si><t>'.encode()
        for _ in range(megabytes):
            yield b"A" * (1 << 20)
        yield b"</t></si></sst>"
    return with_part(base(), STRINGS, chunks=strings())


def xxe() -> bytes:
    return with_part(base(), SHEET, (
        f'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>'
        f'<worksheet {NS}><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>&e;</t></is></c></row>'
        f'</sheetData></worksheet>').encode())


def billion_laughs() -> bytes:
    return with_part(base(), STRINGS, (
        '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
        + "".join(f'<!ENTITY lol{i} "{("&lol%s;" % (i - 1 if i > 1 else "")) * 10}">' for i in range(1, 10))
        + f']><sst {NS}><si><t>&lol9;</t></si></sst>').encode())


def thousand_teams() -> bytes:
    """The largest sheet the import takes: 1,000 teams of six on the template's columns."""
    header = ["队名", "单位"] + [h for k in range(1, 7) for h in (f"队员{k}", f"手机{k}", f"会员码{k}")] + ["已付款"]
    rows = [[f"{n}队", "南宁河池商会"] + [v for k in range(6) for v in (f"队员{n}-{k}", f"138{n:04d}{k:04d}", "")] + ["否"]
            for n in range(1000)]
    return xlsx(rows, header)
