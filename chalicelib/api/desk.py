"""The organiser's desk: entries list and export, check-in, cash payments, withdrawals, partner joining."""
from __future__ import annotations

from typing import get_args

from chalice import Blueprint, Response

from .. import errors
from ..models import Entry, EntryStatus, JoinIn, OfflinePaymentIn, Out, WithdrawIn
from ..services import registration as svc
from ..services.tournaments import own_event
from .routing import route

bp = Blueprint(__name__)
TAG = "desk"


class EntryList(Out):
    entries: list[Entry]
    counters: dict


class JoinAnswer(Out):
    entry: Entry
    manage_token: str


def _strip(entry: Entry) -> Entry:
    return entry.model_copy(update={"manage_token_hash": ""})


@route(bp, "/events/{eid}/entries", "GET", summary="Entries with contact data (search: ?q=, ?status=)",
       auth="organiser", response=EntryList, tag=TAG,
       query=(("q", {"type": "string", "maxLength": 100}),
              ("status", {"type": "string", "enum": list(get_args(EntryStatus))})))
def list_entries(ctx, eid):
    event = own_event(ctx.deps, ctx.organiser, eid)
    entries = svc.list_entries(ctx.deps, eid, ctx.query("q"), ctx.query("status"))
    return EntryList(entries=[_strip(e) for e in entries], counters=event.counters.model_dump())


@route(bp, "/events/{eid}/entries/export", "GET", summary="Entries as CSV or XLSX (?format=csv|xlsx)",
       auth="organiser", tag=TAG, raw=True, query=(("format", {"type": "string", "enum": ["csv", "xlsx"]}),))
def export_entries(ctx, eid):
    from ..services.export import entries_csv, entries_xlsx
    event = own_event(ctx.deps, ctx.organiser, eid)
    fmt = (ctx.query("format") or "csv").lower()
    entries = svc.list_entries(ctx.deps, eid)
    if fmt == "csv":
        return Response(body=entries_csv(entries), status_code=200, headers={
            "Content-Type": "text/csv; charset=utf-8",
            "Content-Disposition": f'attachment; filename="entries-{event.id}.csv"'})
    if fmt == "xlsx":
        return Response(body=entries_xlsx(entries, event.config.name), status_code=200, headers={
            "Content-Type": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            "Content-Disposition": f'attachment; filename="entries-{event.id}.xlsx"'})
    raise errors.InvalidRequest("format must be csv or xlsx")


@route(bp, "/events/{eid}/entries/{id}/check-in", "POST", summary="Check an entry in", auth="organiser",
       response=Entry, tag=TAG, errors_=("not_confirmed",))
def check_in(ctx, eid, id):
    own_event(ctx.deps, ctx.organiser, eid)
    return _strip(svc.check_in(ctx.deps, eid, id))


class CheckInAll(Out):
    checked_in: int


@route(bp, "/events/{eid}/check-in-all", "POST", summary="Check in every confirmed entry (the desk's shortcut)",
       auth="organiser", response=CheckInAll, tag=TAG)
def check_in_all(ctx, eid):
    own_event(ctx.deps, ctx.organiser, eid)
    done = 0
    for entry in svc.list_entries(ctx.deps, eid, status="confirmed"):
        if not entry.checked_in:
            svc.check_in(ctx.deps, eid, entry.id)
            done += 1
    return CheckInAll(checked_in=done)


@route(bp, "/events/{eid}/entries/{id}/payments", "POST", summary="Record a cash or transfer payment",
       auth="organiser", body=OfflinePaymentIn, response=Entry, status=201, tag=TAG, errors_=("not_holding_place",))
def record_payment(ctx, eid, id):
    own_event(ctx.deps, ctx.organiser, eid)
    return _strip(svc.record_offline_payment(ctx.deps, eid, id, ctx.body))


@route(bp, "/events/{eid}/entries/{id}/withdraw", "POST", summary="Withdraw an entry (refund per the event's rule)",
       auth="organiser", body=WithdrawIn, response=Entry, tag=TAG)
def withdraw(ctx, eid, id):
    own_event(ctx.deps, ctx.organiser, eid)
    return _strip(svc.withdraw(ctx.deps, eid, id, ctx.body))


@route(bp, "/events/{eid}/entries/join", "POST", summary="Join partner seekers into a pair or team (商会协调组队)",
       auth="organiser", body=JoinIn, response=JoinAnswer, status=201, tag=TAG, errors_=("roster_size", "event_full"))
def join(ctx, eid):
    own_event(ctx.deps, ctx.organiser, eid)
    entry, token = svc.join_partners(ctx.deps, eid, ctx.body)
    return JoinAnswer(entry=_strip(entry), manage_token=token)
