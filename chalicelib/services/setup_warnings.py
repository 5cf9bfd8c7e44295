"""Set-up warnings (issue 23): things an organiser probably did not mean, said on the answer of a create or edit
without refusing it — a registration deadline already past (the public page then says 已截止), a deadline after
the event's start (the first draw closes registration anyway), a stage scheduled outside the tournament's days, a
prize-shrink threshold above the capacity (the prizes always shrink). Stable codes; the console words them
(console.warn_<code>) with the params, which are the tournament's local times as "YYYY-MM-DD HH:MM"."""
from __future__ import annotations

from datetime import datetime, time
from zoneinfo import ZoneInfo

from ..models import EventConfig, SetupWarning, Tournament
from .referee import round_times

CODES = ("deadline_past", "deadline_after_start", "stage_outside_days", "shrink_always")


def _local(value: datetime, tz: str) -> str:
    return value.astimezone(ZoneInfo(tz)).strftime("%Y-%m-%d %H:%M")


def event_start(config: EventConfig, tournament: Tournament) -> datetime:
    """Its first scheduled round, else the tournament's first day at 00:00 (local)."""
    if config.stages:
        start, _ = round_times(config.stages[0], 1, tournament.timezone)
        if start is not None:
            return start
    return datetime.combine(tournament.starts_on, time(0, 0), tzinfo=ZoneInfo(tournament.timezone))


def event_warnings(config: EventConfig, tournament: Tournament, now: datetime,
                   event_id: str | None = None) -> list[SetupWarning]:
    tz = tournament.timezone
    out: list[SetupWarning] = []

    def warn(code: str, **params) -> None:
        out.append(SetupWarning(code=code, params=params, event_id=event_id))

    closes = config.registration.closes_at
    if closes is not None and closes.tzinfo is None:
        closes = closes.replace(tzinfo=ZoneInfo(tz))
    start = event_start(config, tournament)
    if closes is not None and closes < now:
        warn("deadline_past", at=_local(closes, tz))
    if closes is not None and closes > start:
        warn("deadline_after_start", at=_local(closes, tz), start=_local(start, tz))
    for i, stage in enumerate(config.stages, start=1):
        first, _ = round_times(stage, 1, tz)
        if first is None:
            continue
        day = first.astimezone(ZoneInfo(tz)).date()
        if not tournament.starts_on <= day <= tournament.ends_on:
            warn("stage_outside_days", n=i, day=day.isoformat())
    shrink = config.prize_shrink
    if shrink is not None and shrink.below_entries > config.capacity:
        warn("shrink_always", below=shrink.below_entries, capacity=config.capacity)
    return out
