"""A spreadsheet someone uploaded, read within bounds (issue 36): a small upload must not take the API's memory
(a 345 KB XLSX of 3 million cells took 3 GB), its time, or the answer's size (one 50 MB cell), and its XML must not
reach a parser with a DTD (XXE, billion laughs).

An XLSX is a zip of XML parts. Before openpyxl opens it, every part is read here once, streaming, with the
standard library's expat: the bytes it inflates to (counted as they come, whatever the zip's header declares),
no DTD or entity declaration, and in the worksheets and shared strings the rows, columns, cells and characters
per cell. Only a file within every bound reaches openpyxl (read-only: rows stream), and then only as many rows and
columns as the bounds allow. Every refusal names the bound: 422 `import_too_large` for a bound, 422
`import_unreadable` for what is not a sheet (or a DTD).
"""
from __future__ import annotations

import csv
import io
import re
import time
import zipfile

from .. import errors

MAX_ROWS = 1000                    # entries a sheet may hold (rows with something in them, the header aside)
MAX_LINES = 5000                   # sheet rows read at all, blank ones included (a template formats 500)
MAX_COLUMNS = 100                  # a team of 12 takes 39
MAX_CELLS = 150_000                # cells written in one worksheet
MAX_CELL_CHARS = 1000              # characters in one cell
MAX_UNZIPPED_BYTES = 20 * 1024 * 1024   # what an XLSX's parts inflate to, together (1,000 teams of six: ~3 MB)
MAX_PARTS = 200
MAX_SECONDS = 4.0
ECHO_CHARS = 100                   # an answer quotes at most this much of a cell
_CHUNK = 64 * 1024


def too_large(zh: str, en: str, limit: str, value) -> errors.ImportTooLarge:
    return errors.ImportTooLarge(f"{zh} · {en}", {"limit": limit, "max": value})


def clip(text: str | None) -> str | None:
    """What an answer may quote of a cell: its first ECHO_CHARS characters."""
    if text is None or len(text) <= ECHO_CHARS:
        return text
    return text[:ECHO_CHARS] + "…"


class _Clock:
    def __init__(self):
        self.deadline = time.monotonic() + MAX_SECONDS

    def check(self) -> None:
        if time.monotonic() > self.deadline:
            raise too_large(f"文件读取超过 {MAX_SECONDS:g} 秒", f"Reading the file took longer than {MAX_SECONDS:g} s.",
                            "seconds", MAX_SECONDS)


# --------------------------------------------------------------------------- CSV

def csv_rows(text: str) -> list[list[str]]:
    clock = _Clock()
    rows: list[list[str]] = []
    try:
        for n, row in enumerate(csv.reader(io.StringIO(text)), start=1):
            _check_row(n, len(row), max((len(c) for c in row), default=0))
            rows.append([cell.strip() for cell in row])
            if n % 500 == 0:
                clock.check()
    except csv.Error as exc:   # a field past the csv module's own bound (128 K characters) among them
        if "field larger than field limit" in str(exc):
            raise _cell_too_long() from None
        raise errors.ImportUnreadable(f"CSV 无法读取 · The CSV cannot be read: {exc}") from None
    return rows


def _check_row(line: int, columns: int, longest: int) -> None:
    if line > MAX_LINES:
        raise too_large(f"最多 {MAX_LINES} 行", f"At most {MAX_LINES} lines per sheet.", "lines", MAX_LINES)
    if columns > MAX_COLUMNS:
        raise too_large(f"第 {line} 行超过 {MAX_COLUMNS} 列", f"Row {line} has more than {MAX_COLUMNS} columns.",
                        "columns", MAX_COLUMNS)
    if longest > MAX_CELL_CHARS:
        raise _cell_too_long(line)


def _cell_too_long(line: int | None = None) -> errors.ImportTooLarge:
    where, at = (f"第 {line} 行有", f"Row {line} has") if line else ("有", "A cell has")
    return too_large(f"{where}单元格超过 {MAX_CELL_CHARS} 个字符", f"{at} a cell of more than {MAX_CELL_CHARS} characters.",
                     "cell_chars", MAX_CELL_CHARS)


# --------------------------------------------------------------------------- XLSX

def _unreadable(why: str) -> errors.ImportUnreadable:
    return errors.ImportUnreadable(f"XLSX 无法读取 · The XLSX cannot be read ({why}).")


class _Refused(Exception):
    """Stops expat from inside a handler; carries the refusal out."""

    def __init__(self, error: errors.DomainError):
        self.error = error


_COLUMN = re.compile(r"([A-Z]{1,3})(\d{1,7})")


def _column_number(letters: str) -> int:
    n = 0
    for ch in letters:
        n = n * 26 + ord(ch) - 64
    return n


class _Part:
    """One XML part through expat: no DTD, no entities; in a worksheet, its rows, columns and cells; in the shared
    strings, each string's length."""

    def __init__(self, name: str, kind: str):
        from xml.parsers import expat
        self.name, self.kind = name, kind
        self.p = expat.ParserCreate()
        self.p.StartDoctypeDeclHandler = self._doctype
        self.p.EntityDeclHandler = self._entity
        self.p.ExternalEntityRefHandler = self._external
        self.p.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
        self.p.StartElementHandler = self._start
        self.p.EndElementHandler = self._end
        self.p.CharacterDataHandler = self._text
        self.rows = self.cells = self.row_cells = self.chars = 0
        self.line = 0
        self.in_text = self.started = self.malformed = False

    def _doctype(self, *_):
        raise _Refused(_unreadable(f"{self.name}: 含 DTD，不予读取 · it has a DTD, which is refused"))

    def _entity(self, *_):
        raise _Refused(_unreadable(f"{self.name}: 含实体声明 · it declares entities, which is refused"))

    def _external(self, *_):
        raise _Refused(_unreadable(f"{self.name}: 引用外部实体 · it refers to an external entity"))

    def _start(self, tag, attrs):
        local = tag.rsplit("}", 1)[-1].rsplit(":", 1)[-1]
        if self.kind == "other" and not self.started:   # known by its root, wherever the workbook put it
            self.kind = {"worksheet": "sheet", "sst": "strings"}.get(local, "other")
        self.started = True
        if self.kind == "sheet":
            if local == "row":
                self.rows += 1
                self.row_cells = 0
                self.line = int(attrs["r"]) if str(attrs.get("r", "")).isdigit() else self.line + 1
                if self.rows > MAX_LINES or self.line > MAX_LINES:
                    raise _Refused(too_large(f"最多 {MAX_LINES} 行", f"At most {MAX_LINES} lines per sheet.",
                                             "lines", MAX_LINES))
            elif local == "c":
                self.cells += 1
                self.row_cells += 1
                ref = _COLUMN.fullmatch(str(attrs.get("r", "")))
                column = _column_number(ref.group(1)) if ref else self.row_cells
                if column > MAX_COLUMNS or self.row_cells > MAX_COLUMNS:
                    raise _Refused(too_large(f"第 {self.line} 行超过 {MAX_COLUMNS} 列",
                                             f"Row {self.line} has more than {MAX_COLUMNS} columns.",
                                             "columns", MAX_COLUMNS))
                if self.cells > MAX_CELLS:
                    raise _Refused(too_large(f"单元格超过 {MAX_CELLS} 个", f"More than {MAX_CELLS} cells in a sheet.",
                                             "cells", MAX_CELLS))
                self.chars = 0
            elif local in ("v", "t"):
                self.in_text = True
        elif self.kind == "strings":
            if local == "si":
                self.chars = 0
            elif local == "t":
                self.in_text = True

    def _end(self, tag):
        local = tag.rsplit("}", 1)[-1].rsplit(":", 1)[-1]
        if local in ("v", "t"):
            self.in_text = False

    def _text(self, data):
        if self.in_text:
            self.chars += len(data)
            if self.chars > MAX_CELL_CHARS:
                raise _Refused(_cell_too_long(self.line if self.kind == "sheet" else None))

    def feed(self, data: bytes, final: bool = False) -> None:
        from xml.parsers import expat
        try:
            self.p.Parse(data, final)
        except _Refused as refused:
            raise refused.error from None
        except expat.ExpatError as exc:
            self.malformed = True
            raise _unreadable(f"{self.name}: {expat.errors.messages.get(exc.code, 'not XML')}") from None


def check_xlsx(content: bytes) -> None:
    """Every part of the zip within the bounds (see the module's doc), or the refusal that names the bound."""
    clock = _Clock()
    try:
        archive = zipfile.ZipFile(io.BytesIO(content))
        infos = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError) as exc:
        raise _unreadable(type(exc).__name__) from None
    if len(infos) > MAX_PARTS:
        raise too_large(f"压缩包内文件超过 {MAX_PARTS} 个", f"More than {MAX_PARTS} parts in the XLSX.", "parts", MAX_PARTS)
    limit_mb = MAX_UNZIPPED_BYTES // (1024 * 1024)
    bomb = too_large(f"解压后超过 {limit_mb} MB", f"The XLSX inflates to more than {limit_mb} MB.",
                     "unzipped_bytes", MAX_UNZIPPED_BYTES)
    if sum(i.file_size for i in infos) > MAX_UNZIPPED_BYTES:   # what the zip declares, before inflating a byte
        raise bomb
    total = 0
    for info in infos:
        if info.is_dir():
            continue
        # Every part is parsed, whatever its name: openpyxl opens a worksheet wherever the workbook's relationships
        # point (a sheet named .bin was read unchecked). A part not named .xml/.rels may be no XML at all (an image)
        # or not well-formed (VML, Excel's legacy drawings): its bounds are checked as far as it parses (as far as
        # any XML parser could read it), and a syntax error there is no refusal, only the end of its parsing.
        strict = info.filename.endswith((".xml", ".rels"))
        part = _Part(info.filename, "other")
        try:
            with archive.open(info) as stream:
                while chunk := stream.read(_CHUNK):
                    total += len(chunk)   # counted as inflated: a header that lies about the size changes nothing
                    if total > MAX_UNZIPPED_BYTES:
                        raise bomb
                    if part:
                        part = _fed(part, chunk, strict)
                    clock.check()
            if part:
                _fed(part, b"", strict, final=True)
        except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, EOFError, OSError, ValueError) as exc:
            raise _unreadable(f"{info.filename}: {type(exc).__name__}") from None
        except RuntimeError as exc:   # an encrypted part
            raise _unreadable(f"{info.filename}: {exc}") from None


def _fed(part: _Part, data: bytes, strict: bool, final: bool = False) -> _Part | None:
    """`data` through the part's parser; a part not named as XML that stops parsing is only counted from there."""
    try:
        part.feed(data, final)
    except errors.ImportUnreadable:
        if strict or not part.malformed:   # a DTD or an entity is refused in any part
            raise
        return None
    return part


def xlsx_rows(content: bytes, cell_text) -> list[list[str]]:
    """The first worksheet's rows as text (`cell_text` turns a value into it), after check_xlsx."""
    check_xlsx(content)
    clock = _Clock()
    from openpyxl import load_workbook
    rows: list[list[str]] = []
    try:
        wb = load_workbook(io.BytesIO(content), read_only=True, data_only=True)
        try:
            ws = wb.worksheets[0]
            for n, row in enumerate(ws.iter_rows(max_row=MAX_LINES, max_col=MAX_COLUMNS, values_only=True), start=1):
                texts = [cell_text(v) for v in row]
                _check_row(n, 0, max(map(len, texts), default=0))   # whatever the parts' check could not see
                rows.append(texts)
                if n % 200 == 0:
                    clock.check()
        finally:
            wb.close()
    except errors.DomainError:
        raise
    except Exception as exc:   # noqa: BLE001 — whatever else openpyxl meets in a file it cannot read is the file's fault, not ours
        raise _unreadable(type(exc).__name__) from None
    return rows
