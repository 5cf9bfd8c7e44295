"""Prizes (rules.md §2, §6): the event's prize table, shrunk when it has few entries (seed 003), given by
the final standings."""
from __future__ import annotations

from ..bootstrap import Deps
from ..engine.standings import allocate_prizes
from ..models import Event, PrizeRow, PrizesOut


def counted_entries(deps: Deps, event: Event, entries=None) -> int:
    """Entries that took part: confirmed ones, disqualified ones and those withdrawn after they were drawn
    (rules.md §9 counts entries registered, not only those that played: only a withdrawal before the draw does
    not count); cancelled and waiting ones do not count."""
    entries = entries if entries is not None else deps.repos.entries.list(event.id)
    count = sum(1 for e in entries if e.status in ("confirmed", "disqualified"))
    withdrawn = {e.id for e in entries if e.status == "withdrawn"}
    if withdrawn:   # read only then: the stage plans say who was drawn
        plans = deps.repos.rounds.state(event.id).get("plans", {})
        count += len(withdrawn & {x for plan in plans.values() for x in plan.get("entries", [])})
    return count


def prize_table(event: Event, entries: int) -> tuple[list, bool]:
    shrink = event.config.prize_shrink
    if shrink and entries < shrink.below_entries:
        return list(shrink.prizes), True
    return list(event.config.prizes), False


def open_appeals(deps: Deps, eid: str, appeals: list[dict] | None = None) -> int:
    """Appeals lodged and not yet decided (待裁决): while any is open, final places and prizes are provisional."""
    appeals = appeals if appeals is not None else deps.repos.rounds.appeals(eid)
    return sum(1 for a in appeals if a.get("status") == "lodged")


def event_prizes(deps: Deps, event: Event, *, state=None, rounds=None, entries=None, standings=None,
                 appeals: list[dict] | None = None) -> PrizesOut:
    """`standings`: the last stage's, when the caller has them already (publishing); `appeals` likewise."""
    from .standings import event_standings
    entries = entries if entries is not None else deps.repos.entries.list(event.id)
    count = counted_entries(deps, event, entries)
    table, shrunk = prize_table(event, count)
    last = len(event.config.stages) - 1
    if standings is None or standings.stage != last + 1:
        standings = event_standings(deps, event, last, state=state, rounds=rounds, entries=entries)
    names = {e.id: e.name for e in entries}
    rows = []
    if standings.final:
        for p in allocate_prizes(standings.standings, table):
            rows.append(PrizeRow(place=p["place"], entry_id=p["entry_id"], name=names.get(p["entry_id"], ""),
                                 amount=p["amount"], label=p["label"]))
    tournament = deps.repos.tournaments.get(event.tournament_id)
    waiting = open_appeals(deps, event.id, appeals) if standings.final else 0
    return PrizesOut(event_id=event.id, event_name=event.config.name, final=standings.final, shrunk=shrunk,
                     entries=count, currency=tournament.currency if tournament else "CNY", prizes=rows,
                     provisional=waiting > 0, open_appeals=waiting)
