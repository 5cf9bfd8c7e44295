"""The tournament's messages (api.md v1.3 "Messages"): what was sent and its state; the director's notice."""
from __future__ import annotations

from chalice import Blueprint

from ..models.messages import MessageList, NoticeAnswer, NoticeIn
from ..services import messages as svc
from .routing import route

bp = Blueprint(__name__)
TAG = "messages"


@route(bp, "/tournaments/{tid}/messages", "GET", summary="What was sent to the tournament's participants, and its state",
       auth="organiser", response=MessageList, tag=TAG, roles=())
def list_messages(ctx, tid):
    return MessageList(messages=svc.list_messages(ctx.deps, ctx.organiser, tid))


@route(bp, "/tournaments/{tid}/messages", "POST", summary="The director's notice to all, an event, the unpaid or "
       "those not checked in", auth="organiser", body=NoticeIn, response=NoticeAnswer, status=202, tag=TAG, roles=(),
       headers=("Idempotency-Key",))
def send_notice(ctx, tid):
    return NoticeAnswer(**svc.notice(ctx.deps, ctx.organiser, tid, ctx.body.text, ctx.body.to,
                                     ctx.header("idempotency-key")))
