"""The organiser's desk: entries list and export, check-in, cash payments, withdrawals, partner joining."""
from __future__ import annotations

from typing import get_args

from chalice import Blueprint, Response

from .. import errors
from ..models import (DeskEntryIn, Entry, EntryStatus, JoinIn, OfflinePaymentIn, Out, RefundPaidIn, RegistrationAnswer,
                      WithdrawIn)
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
    return entry.model_copy(update={"manage_token_hash": "", "refund_owed": entry.owed})


@route(bp, "/events/{eid}/entries", "GET", summary="Entries with contact data (search: ?q=, ?status=)",
       auth="organiser", response=EntryList, tag=TAG,
       query=(("q", {"type": "string", "maxLength": 100}),
              ("status", {"type": "string", "enum": list(get_args(EntryStatus))})))
def list_entries(ctx, eid):
    event = own_event(ctx.deps, ctx.organiser, eid)
    entries = svc.list_entries(ctx.deps, eid, ctx.query("q"), ctx.query("status"))
    return EntryList(entries=[_strip(e) for e in entries], counters=event.counters.model_dump())


@route(bp, "/events/{eid}/entries/desk", "POST", summary="A walk-in at the desk: registered after the deadline "
       "(and after the first draw when the event takes late entries), paid at once", auth="organiser", body=DeskEntryIn,
       response=RegistrationAnswer, status=201, headers=("Idempotency-Key",), tag=TAG,
       errors_=("event_full", "registration_closed", "not_eligible", "roster_size", "phone_required",
                "idempotency_conflict", "duplicate_entry"))
def desk_entry(ctx, eid):
    from ..services.desk_entries import walk_in
    own_event(ctx.deps, ctx.organiser, eid)
    return walk_in(ctx.deps, eid, ctx.body, ctx.header("idempotency-key"), ctx.organiser)


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
       response=Entry, tag=TAG, errors_=("not_confirmed", "late_entry_closed"))
def check_in(ctx, eid, id):
    own_event(ctx.deps, ctx.organiser, eid)
    return _strip(svc.check_in(ctx.deps, eid, id))


@route(bp, "/events/{eid}/entries/{id}/check-in", "DELETE", summary="Undo a check-in (before a draw takes the entry)",
       auth="organiser", response=Entry, tag=TAG, errors_=("conflict", "version_conflict"))
def undo_check_in(ctx, eid, id):
    from ..services.desk_entries import undo_check_in as undo
    own_event(ctx.deps, ctx.organiser, eid)
    return _strip(undo(ctx.deps, eid, id, ctx.organiser))


class Skipped(Out):
    entry_id: str
    name: str
    status: str
    reason_zh: str
    reason_en: str
    code: str | None = None      # an error code the front end words (late_entry_closed)


class CheckInAll(Out):
    checked_in: int
    skipped: list[Skipped] = []


SKIP_WHY = {"pending_payment": ("未付款", "not paid"), "waitlisted": ("候补中，尚无名额", "waiting for a place"),
            "partner_wanted": ("尚未组队", "still looking for a partner")}


@route(bp, "/events/{eid}/check-in-all", "POST", summary="Check in every confirmed entry (the desk's shortcut)",
       auth="organiser", response=CheckInAll, tag=TAG)
def check_in_all(ctx, eid):
    """Checks in every confirmed entry and says which it skipped, and why (unpaid, waiting, no partner)."""
    own_event(ctx.deps, ctx.organiser, eid)
    done, skipped = 0, []
    for entry in svc.list_entries(ctx.deps, eid):
        if entry.status == "confirmed" and not entry.checked_in:
            try:
                svc.check_in(ctx.deps, eid, entry.id)
            except errors.LateEntryClosed:   # after the last round a late entry could join (issue 24)
                skipped.append(Skipped(entry_id=entry.id, name=entry.name, status=entry.status,
                                       reason_zh="已过补报时间", reason_en="late entries closed",
                                       code="late_entry_closed"))
                continue
            done += 1
        elif entry.status in SKIP_WHY:
            zh, en = SKIP_WHY[entry.status]
            skipped.append(Skipped(entry_id=entry.id, name=entry.name, status=entry.status, reason_zh=zh, reason_en=en))
    return CheckInAll(checked_in=done, skipped=skipped)


@route(bp, "/events/{eid}/check-in-list", "GET", summary="A printable check-in list for the desk (HTML)",
       auth="organiser", tag=TAG, raw=True)
def check_in_list(ctx, eid):
    import html

    from ..glossary import term
    event = own_event(ctx.deps, ctx.organiser, eid)
    entries = [e for e in svc.list_entries(ctx.deps, eid) if e.status in ("confirmed", "pending_payment", "waitlisted")]
    rows = []
    for k, e in enumerate(sorted(entries, key=lambda e: (e.club, e.name)), start=1):
        tails = " ".join("…" + m.phone[-4:] for m in e.members if m.phone)   # the phone's tail: enough to find them
        rows.append(f"<tr><td>{k}</td><td>{html.escape(e.name)}</td><td>{html.escape(e.club)}</td>"
                    f"<td>{html.escape('、'.join(m.name for m in e.members))}</td><td>{tails}</td>"
                    f"<td>{term('entry_status', e.status)}</td><td>{'✓' if e.checked_in else '☐'}</td></tr>")
    body = (f"<!doctype html><html lang='zh-CN'><meta charset='utf-8'><title>签到表 · {html.escape(event.config.name)}</title>"
            "<style>body{font-family:sans-serif}table{border-collapse:collapse;width:100%}td,th{border:1px solid #999;"
            "padding:4px 6px;font-size:14px}th{background:#eee}</style>"
            f"<h2>{html.escape(event.config.name)} · 签到表 Check-in list</h2><table><tr><th>#</th><th>名称 Name</th>"
            "<th>单位 Club</th><th>队员 Members</th><th>手机尾号 Phone</th><th>状态 Status</th><th>签到 In</th></tr>"
            + "".join(rows) + "</table></html>")
    return Response(body=body, status_code=200, headers={"Content-Type": "text/html; charset=utf-8"})


@route(bp, "/events/{eid}/entries/{id}/payments", "POST", summary="Record a cash or transfer payment",
       auth="organiser", body=OfflinePaymentIn, response=Entry, status=201, tag=TAG, errors_=("not_holding_place",))
def record_payment(ctx, eid, id):
    own_event(ctx.deps, ctx.organiser, eid)
    return _strip(svc.record_offline_payment(ctx.deps, eid, id, ctx.body))


@route(bp, "/events/{eid}/entries/{id}/payments/{pid}", "DELETE", summary="Undo the desk's latest cash or transfer "
       "payment (recorded by mistake): the entry owes its fee again", auth="organiser", response=Entry, tag=TAG,
       errors_=("conflict", "version_conflict"))
def void_payment(ctx, eid, id, pid):
    from ..services.desk_entries import void_payment as void
    own_event(ctx.deps, ctx.organiser, eid)
    return _strip(void(ctx.deps, eid, id, pid, ctx.organiser))


@route(bp, "/events/{eid}/entries/{id}/withdraw", "POST", summary="Withdraw an entry (refund per the event's rule)",
       auth="organiser", body=WithdrawIn, response=Entry, tag=TAG)
def withdraw(ctx, eid, id):
    own_event(ctx.deps, ctx.organiser, eid)
    if (ctx.body.refund_amount is not None or ctx.body.refund is not None) and ctx.principal.role == "desk":
        # the event's rule is the desk's; another amount is the director's decision (with its reason)
        raise errors.Forbidden("改动退款金额需要裁判长或组委会 · Only the director or the organiser changes a refund.")
    return _strip(svc.withdraw(ctx.deps, eid, id, ctx.body))


@route(bp, "/events/{eid}/entries/{id}/refund", "POST", summary="The desk pays back what a withdrawal owes (应退)",
       auth="organiser", body=RefundPaidIn, response=Entry, tag=TAG, roles=("desk",), errors_=("conflict",))
def refund_paid(ctx, eid, id):
    own_event(ctx.deps, ctx.organiser, eid)
    return _strip(svc.mark_refund_paid(ctx.deps, eid, id, ctx.body))


@route(bp, "/events/{eid}/entries/join", "POST", summary="Join partner seekers into a pair or team (商会协调组队)",
       auth="organiser", body=JoinIn, response=JoinAnswer, status=201, tag=TAG, errors_=("roster_size", "event_full"))
def join(ctx, eid):
    own_event(ctx.deps, ctx.organiser, eid)
    entry, token = svc.join_partners(ctx.deps, eid, ctx.body)
    return JoinAnswer(entry=_strip(entry), manage_token=token)
