"""The secretariat's spreadsheet at the desk: the event's template, a dry run row by row, then the import."""
from __future__ import annotations

import base64
import binascii

from chalice import Blueprint, Response
from typing import Annotated

from pydantic import Field

from .. import errors
from ..models.base import Out, Strict
from ..services import roster_import as svc
from ..services.tournaments import own_event
from .routing import route

bp = Blueprint(__name__)
TAG = "desk"
# A sheet of 1,000 teams of six is ~150 KB as XLSX, ~200 KB in base64: room to spare under the 1 MB request bound.
MAX_FILE_BYTES = 600 * 1024


class ImportIn(Strict):
    file: str = Field(min_length=1, max_length=MAX_FILE_BYTES * 4 // 3 + 4, description="the XLSX or CSV file, base64")
    filename: str = Field(default="", max_length=200)
    dry_run: bool = Field(default=True, description="true: only say what each row would do; nothing is written")
    mapping: dict[Annotated[str, Field(max_length=200)], Annotated[str, Field(max_length=40)]] | None = Field(
        default=None, max_length=200, description="the desk's reading of the sheet's own headers: header → column key "
                                                  "(see `fields`), or \"\" to leave that column out; overrides the synonyms")


class ImportField(Out):
    key: str
    label: str


class ImportColumn(Out):
    """One of the sheet's own headers and what it was read as (api.md v1.3)."""
    header: str
    key: str | None = Field(description="the column it was read as; null: not read (an unknown header, or one left out)")
    label: str | None = None
    by: str | None = Field(default=None, description="header (its words) | mapping (the desk's) | again (a column "
                                                     "already read from an earlier header) | null (not recognised)")


class ImportMember(Out):
    name: str
    phone: str | None = Field(default=None, description="masked: 138****5678")
    member_code: str | None = None
    gender: str | None = Field(default=None, description="a mixed event's member gender: m / f (rules.md §9)")


class ImportRow(Out):
    row: int = Field(description="the sheet's own row number (the header is row 1)")
    status: str = Field(description="ok | exists (imported before) | duplicate | error | created (by this import)")
    name: str = ""
    club: str = ""
    members: list[ImportMember] = []
    paid: bool = False
    code: str | None = Field(default=None, description="the error's code, as the API's own")
    field: str | None = Field(default=None, description="the column the error is about (a column key)")
    message: str = ""
    will_be: str | None = Field(default=None, description="the entry's status: confirmed | pending_payment | waitlisted")
    entry_id: str | None = None
    same_as_row: int | None = None


class ImportAnswer(Out):
    dry_run: bool
    rows: list[ImportRow]
    counts: dict[str, int]
    columns: list[ImportColumn]
    fields: list[ImportField] = Field(default_factory=list, description="the event's columns a header can be read as")


@route(bp, "/events/{eid}/entries/import-template", "GET", summary="The event's roster template (?format=xlsx|csv)",
       auth="organiser", tag=TAG, raw=True, query=(("format", {"type": "string", "enum": ["csv", "xlsx"]}),))
def import_template(ctx, eid):
    event = own_event(ctx.deps, ctx.organiser, eid)
    fmt = (ctx.query("format") or "xlsx").lower()
    if fmt == "csv":
        return Response(body=svc.template_csv(event), status_code=200, headers={
            "Content-Type": "text/csv; charset=utf-8",
            "Content-Disposition": f'attachment; filename="roster-{event.id}.csv"'})
    if fmt == "xlsx":
        return Response(body=svc.template_xlsx(event), status_code=200, headers={
            "Content-Type": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            "Content-Disposition": f'attachment; filename="roster-{event.id}.xlsx"'})
    raise errors.InvalidRequest("format must be csv or xlsx")


@route(bp, "/events/{eid}/entries/import", "POST", summary="Import the secretariat's sheet (dry_run: rows only)",
       auth="organiser", body=ImportIn, response=ImportAnswer, tag=TAG, max_body=MAX_FILE_BYTES * 4 // 3 + 4096,
       errors_=("import_unreadable", "import_too_large", "import_columns_missing", "payload_too_large"))
def import_roster(ctx, eid):
    """Nothing is written on a dry run. The import writes the rows that are ok, each under registration's rules,
    and answers every row again (created / exists / the error that refused it now)."""
    event = own_event(ctx.deps, ctx.organiser, eid)
    try:
        content = base64.b64decode(ctx.body.file, validate=True)
    except (binascii.Error, ValueError):
        raise errors.InvalidRequest("file: not base64", {"field": "file"}) from None
    if len(content) > MAX_FILE_BYTES:
        raise errors.PayloadTooLarge(f"The file is {len(content)} bytes; the limit is {MAX_FILE_BYTES}.")
    return ImportAnswer.model_validate(svc.run(ctx.deps, event, content, dry_run=ctx.body.dry_run, mapping=ctx.body.mapping))
