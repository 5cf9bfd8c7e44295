"""Prizes (rules.md §2, §6): the event's prize table, shrunk when it has few entries (seed 003), given by
the final standings."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:   # the type only: the composition root (bootstrap) imports the services, not the reverse
    from ..bootstrap import Deps
from ..engine.standings import allocate_prizes
from ..models import Event, PrizeRow, PrizesOut
from .prize_rules import counted_entries, open_appeals, prize_table
from .standings import event_standings


def event_prizes(deps: Deps, event: Event, *, state=None, rounds=None, entries=None, standings=None,
                 appeals: list[dict] | None = None) -> PrizesOut:
    """`standings`: the last stage's, when the caller has them already (publishing); `appeals` likewise."""
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
