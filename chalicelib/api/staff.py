"""A tournament's staff (api.md v1.1) and the organiser's sign-in with a password."""
from __future__ import annotations

from typing import Literal

from chalice import Blueprint
from pydantic import Field

from ..models import Organiser, Out, Strict
from ..services import organisers as accounts
from ..services import principals
from .routing import route

bp = Blueprint(__name__)
TAG = "staff"


class StaffIn(Strict):
    name: str = Field(min_length=1, max_length=40)
    role: Literal["director", "desk", "scorer"]


class StaffMember(Out):
    id: str
    tournament_id: str
    name: str
    role: str
    created_at: str
    created_by: str = Field(default="", description="the organiser token or session that added the member")
    created_by_label: str = Field(default="", description="that device's or token's name (empty: no longer signed in)")


class NewStaff(StaffMember):
    token: str = Field(description="shown once")
    link: str = Field(description="opens the console signed in, on a phone")
    qr_svg: str = Field(description="the link as a QR code (SVG) to show or print")


class StaffList(Out):
    staff: list[StaffMember]


@route(bp, "/tournaments/{tid}/staff", "POST", summary="Add a staff member (director, desk or scorer)",
       auth="organiser", body=StaffIn, response=NewStaff, status=201, tag=TAG, owner_only=True)
def add_staff(ctx, tid):
    import io

    import segno
    member, token = principals.add_staff(ctx.deps, tid, ctx.body.name, ctx.body.role, ctx.token_id)
    link = principals.sign_in_link(token)
    buf = io.BytesIO()
    segno.make(link, error="m").save(buf, kind="svg", scale=4, xmldecl=False, svgns=True)
    return NewStaff(**member, token=token, link=link, qr_svg=buf.getvalue().decode())


@route(bp, "/tournaments/{tid}/staff", "GET", summary="The tournament's staff (no tokens)", auth="organiser",
       response=StaffList, tag=TAG, owner_only=True)
def list_staff(ctx, tid):
    return _staff_list(ctx, tid)


def _staff_list(ctx, tid) -> StaffList:
    labels = {t["id"]: t.get("label", "") for t in ctx.deps.repos.organisers.tokens(ctx.organiser.id)}
    return StaffList(staff=[{**m, "created_by_label": labels.get(m.get("created_by", ""), "")}
                            for m in sorted(ctx.deps.repos.staff.list(tid), key=lambda m: m["created_at"])])


@route(bp, "/tournaments/{tid}/staff/{id}", "DELETE", summary="Remove a staff member: its sign-in stops at once",
       auth="organiser", response=StaffList, tag=TAG, owner_only=True)
def remove_staff(ctx, tid, id):
    ctx.deps.repos.staff.delete(tid, id)
    return _staff_list(ctx, tid)


class SignInIn(Strict):
    login: str = Field(min_length=1, max_length=200, description="phone number or e-mail")
    password: str = Field(min_length=1, max_length=200)
    device: str = Field(default="", max_length=100, description="a name for this device, shown in the device list")


class Session(Out):
    token: str
    id: str
    expires_at: int
    organiser: Organiser


@route(bp, "/auth/sign-in", "POST", summary="Sign in with a phone number or e-mail and a password (a 12-hour session)",
       body=SignInIn, response=Session, tag=TAG, errors_=("unauthorized", "rate_limited"))
def sign_in(ctx):
    source = ctx.client
    device = ctx.body.device or (ctx.header("user-agent") or "")[:100]
    record, token, organiser = accounts.sign_in(ctx.deps, ctx.body.login, ctx.body.password, source, device)
    return Session(token=token, id=record["id"], expires_at=record["expires_at"], organiser=organiser)
