"""The outbox as the console sees it, and the director's notice (api.md v1.3 "Messages")."""
from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field

from .base import Out, Strict


class MessageView(Out):
    id: str
    channel: Literal["sms", "email", "wechat"]
    to: str = Field(description="masked: 138****5678, l***@example.com")
    template: str
    lang: str
    state: Literal["queued", "sent", "delivered", "failed"]
    tries: int
    at: datetime = Field(description="when it was queued")
    next_at: datetime | None = Field(default=None, description="the next try, while queued")
    sent_at: datetime | None = None
    error: str | None = Field(default=None, description="the last failure's kind: unavailable, refused, rate_limited …")
    tournament_id: str | None = None


class MessageList(Out):
    messages: list[MessageView]


class NoticeIn(Strict):
    text: str = Field(min_length=1, max_length=300)
    to: str = Field(pattern=r"^(all|unpaid|not_checked_in|event:[0-9A-Za-z]{1,40})$",
                    description='"all" | "event:<eid>" | "unpaid" | "not_checked_in"')


class NoticeAnswer(Out):
    queued: int = Field(description="messages queued (one per phone or e-mail reached)")
    entries: int = Field(description="entries the notice is for")
