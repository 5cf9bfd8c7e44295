"""The hall (issue 28): the round clock and the director's announcements."""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from .base import Out, Strict

__all__ = ["ClockIn", "ClockOut", "AnnouncementIn", "Announcement", "AnnouncementList"]


class ClockIn(Strict):
    action: Literal["start", "pause", "resume", "extend"]
    minutes: int | None = Field(default=None, ge=-60, le=120, description="extend: minutes more (less, negative: "
                                "the referee shortens the overtime); start: the round's length, default its schedule "
                                "or the scoring method's minutes")


class ClockOut(Out):
    tournament_id: str
    event_id: str
    round: int
    game: str
    state: Literal["scheduled", "running", "paused"]
    starts_at: str | None = None
    ends_at: str | None = None
    paused_at: str | None = None
    extended_minutes: int = 0


class AnnouncementIn(Strict):
    text: str = Field(min_length=1, max_length=200)


class Announcement(Out):
    id: str
    text: str
    at: str


class AnnouncementList(Out):
    announcements: list[Announcement]
