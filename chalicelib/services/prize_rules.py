"""The prize table's rules (rules.md §2, §6, §9): which entries count, the shrunk table, and whether open appeals
make the places provisional. Below the standings, so the standings can ask them without importing the prizes."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:   # the type only: the composition root (bootstrap) imports the services, not the reverse
    from ..bootstrap import Deps
from ..domain.entry import EntryStatus
from ..models import Event


def counted_entries(deps: Deps, event: Event, entries=None) -> int:
    """Entries that took part: confirmed ones, disqualified ones and those withdrawn after they were drawn
    (rules.md §9 counts entries registered, not only those that played: only a withdrawal before the draw does
    not count); cancelled and waiting ones do not count."""
    entries = entries if entries is not None else deps.repos.entries.list(event.id)
    count = sum(1 for e in entries if e.status in (EntryStatus.CONFIRMED, EntryStatus.DISQUALIFIED))
    withdrawn = {e.id for e in entries if e.status == EntryStatus.WITHDRAWN}
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
