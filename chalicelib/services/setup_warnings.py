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

CODES = ("deadline_past", "deadline_after_start", "stage_outside_days", "shrink_always", "stages_overlap")


def _rounds_at_most(config: EventConfig, index: int) -> int | None:
    """How many rounds a stage plays at most, when the set-up says (the first stage's round robin from the places
    and groups, a knockout from the places, a Swiss from its rounds); None when only the day will tell."""
    import math
    stage = config.stages[index]
    if stage.format in ("swiss", "special_swiss"):
        return stage.rounds
    if index != 0:
        return None
    if stage.format == "round_robin":
        size = math.ceil(config.capacity / (stage.groups or 1))
        return (size - 1 if size % 2 == 0 else size) * (2 if stage.double else 1)
    if stage.format == "knockout" and not stage.double_elimination:
        return max(1, math.ceil(math.log2(max(2, config.capacity))))
    return None


def _stage_ends(config: EventConfig, index: int, tz: str) -> datetime | None:
    """When a stage's scheduled rounds end: its last listed round, or its last round by the set-up's count."""
    stage = config.stages[index]
    if stage.schedule is None:
        return None
    if stage.schedule.rounds is not None:
        return round_times(stage, len(stage.schedule.rounds), tz)[1]
    count = _rounds_at_most(config, index)
    return round_times(stage, count, tz)[1] if count else None


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
    # a stage scheduled to start while the one before it still plays (issue 39: seed 003's group rounds every 100
    # minutes from 09:30 ran into the knockout's 11:10)
    for i in range(1, len(config.stages)):
        start, _ = round_times(config.stages[i], 1, tz)
        ends = _stage_ends(config, i - 1, tz)
        if start is not None and ends is not None and start < ends:
            warn("stages_overlap", n=i + 1, start=_local(start, tz), prev=i, ends=_local(ends, tz))
    shrink = config.prize_shrink
    if shrink is not None and shrink.below_entries > config.capacity:
        warn("shrink_always", below=shrink.below_entries, capacity=config.capacity)
    return out
