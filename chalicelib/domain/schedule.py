"""A round's times and the windows that count from them (rules.md §5, §7): pure, `now` passed in.

A round's times come from its stage's schedule; unscheduled rounds fall back to when they were drawn (for
lateness) and when they were closed (for the correction and appeal windows)."""
from __future__ import annotations

from datetime import datetime, timedelta, UTC
from zoneinfo import ZoneInfo


def aware(value: datetime, tz: str) -> datetime:
    """A time without offset is read in the tournament's time zone; stored and compared in UTC."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=ZoneInfo(tz))
    return value.astimezone(UTC)


def round_times(stage, stage_round: int, tz: str) -> tuple[datetime | None, datetime | None]:
    sched = stage.schedule
    if sched is None:
        return None, None
    if sched.rounds is not None:
        if stage_round > len(sched.rounds):
            return None, None
        r = sched.rounds[stage_round - 1]
        return aware(r.starts_at, tz), aware(r.ends_at, tz)
    start = aware(sched.first_round_at, tz) + timedelta(
        minutes=(stage_round - 1) * (sched.round_minutes + sched.break_minutes))
    return start, start + timedelta(minutes=sched.round_minutes)


def parse_time(value) -> datetime | None:
    if not value:
        return None
    out = datetime.fromisoformat(str(value))
    return out if out.tzinfo else out.replace(tzinfo=UTC)


def window_base(doc: dict) -> datetime | None:
    """What the correction and appeal windows count from: the scheduled end, else the round's close."""
    return parse_time(doc.get("ends_at")) or parse_time(doc.get("closed_at"))


def correction_deadline(event, doc: dict) -> datetime | None:
    base = window_base(doc)
    return base + timedelta(minutes=event.config.correction_minutes) if base else None


def correction_open(event, doc: dict, now: datetime) -> bool:
    deadline = correction_deadline(event, doc)
    return deadline is None or now <= deadline


def appeal_deadline(event, doc: dict, now: datetime) -> datetime:
    base = window_base(doc) or now   # an open, unscheduled round: the window runs from now
    return base + timedelta(minutes=event.config.appeals.window_minutes)
