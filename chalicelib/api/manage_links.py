"""The desk sends a participant's manage link again (issue 41), by SMS through the outbox."""
from __future__ import annotations

from typing import Literal

from chalice import Blueprint
from pydantic import Field

from ..models import Out, Strict
from ..services import manage_links as svc
from ..services.tournaments import own_event
from .routing import route

bp = Blueprint(__name__)


class ResendIn(Strict):
    lang: Literal["zh-CN", "en", "vi"] | None = Field(default=None, description="the SMS's language (default zh-CN)")


class Resent(Out):
    sent_to: list[str] = Field(description="the phones it goes to, masked")
    message_ids: list[str]


@route(bp, "/events/{eid}/entries/{id}/manage-link", "POST", summary="Send the entry's manage link again by SMS "
       "(a new link replaces the lost one; once a minute per entry)", auth="organiser", body=ResendIn,
       response=Resent, status=202, tag="desk", errors_=("no_contact", "rate_limited"))
def resend_manage_link(ctx, eid, id):
    own_event(ctx.deps, ctx.organiser, eid)   # someone else's event: 404, as every desk route
    return Resent(**svc.resend(ctx.deps, eid, id, ctx.body.lang))
