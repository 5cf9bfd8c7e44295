"""Pairing formats behind one entry point, `draw_round`. The formats know nothing of card games."""
from __future__ import annotations

from collections.abc import Sequence

from ...errors import NoValidPairing
from .common import Contestant, Draw, Pairing
from .seating import group_round
from .swiss import pair_round, pair_special_round

__all__ = ["Contestant", "Draw", "Pairing", "draw_round", "NoValidPairing"]


def draw_round(fmt: str, contestants: Sequence[Contestant], round_no: int, *, seats_per_table: int = 2,
               separate_related: bool = False, rounds_left: int = 0, forbid_rematches: bool = False) -> Draw:
    """Swiss-type formats drawn from the current standings. Round robin and knockout rounds follow fixed
    schedules (round_robin.schedule, knockout.first_round/next_round) and are laid out by the service."""
    if seats_per_table == 3:
        return group_round(contestants, round_no, rounds_left=rounds_left, forbid_rematches=forbid_rematches,
                           separate_related=separate_related)
    if fmt == "swiss":
        return pair_round(contestants, round_no, separate_related=separate_related, forbid_rematches=forbid_rematches)
    if fmt == "special_swiss":
        return pair_special_round(contestants, round_no, forbid_rematches=forbid_rematches)
    raise NoValidPairing(f"the {fmt} format is drawn from its schedule, not from standings")
