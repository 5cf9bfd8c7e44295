"""Knockout (淘汰赛): standard bracket positions, byes to the top seeds, single and double elimination.

Positions follow the standard seeding in which seed s meets seed size+1−s in round one and the seed
numbers of every region (half, quarter, …) sum equally (1 v 16, 8 v 9, …). Best-of-N and ties are
decided by the game's scoring (extra games, lots); this module only says who meets whom.
"""
from __future__ import annotations

from collections.abc import Sequence


def bracket_size(n: int) -> int:
    size = 1
    while size < n:
        size *= 2
    return size


def bracket_order(size: int) -> list[int]:
    """Seed numbers in bracket order for a bracket of `size` (a power of two)."""
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [x for s in order for x in (s, total - s)]
    return order


def first_round(seeded: Sequence[str]) -> list[tuple[str, str | None]]:
    """Entries in seed order → round-one matches in bracket order; a missing opponent (None) is a bye,
    which by construction falls to the top seeds first."""
    n = len(seeded)
    size = bracket_size(max(n, 2))
    order = bracket_order(size)
    matches = []
    for k in range(0, size, 2):
        a, b = order[k], order[k + 1]
        ea = seeded[a - 1] if a <= n else None
        eb = seeded[b - 1] if b <= n else None
        if ea is None and eb is None:
            continue
        if ea is None:
            ea, eb = eb, None
        matches.append((ea, eb))
    return matches


def next_round(winners: Sequence[str]) -> list[tuple[str, str | None]]:
    """Winners of the previous round, in bracket order → the next round's matches."""
    return [(winners[k], winners[k + 1] if k + 1 < len(winners) else None) for k in range(0, len(winners), 2)]


def third_place_match(played: Sequence[Sequence[str | None]], winners: Sequence[str]) -> tuple[str, str] | None:
    """The 3rd-place match (三四名决赛), drawn alongside the final between the semi-final losers. `played`: the
    round just played, as (a, b) slots (b None: a bye), `winners`: each slot's winner in the same order. Only a
    semi-final (two slots) with two matches played gives one; a semi-final bye leaves a single loser, who is 3rd
    without a match (None)."""
    if len(played) != 2 or len(winners) != 2:
        return None
    losers = [b if w == a else a for (a, b), w in zip(played, winners) if b is not None]
    return (losers[0], losers[1]) if len(losers) == 2 else None


def knockout_reached(round_no: int, won: bool, third_place: bool = False) -> float:
    """How far an entry went, for the knockout stage's places (higher ranks first): a match's loser reached its
    round, its winner half a round more. The 3rd-place match is played in the final's round R but ranks below
    the finalists (R − 0.5 from their semi-final win, even before the final is played) and above the semi-finals'
    losers (R − 1): its winner 3rd (R − 0.75), its loser 4th (R − 0.875), not the tie-break chain."""
    if third_place:
        return round_no - (0.75 if won else 0.875)
    return round_no + (0.5 if won else 0.0)


def double_elimination_round(upper: Sequence[str], lower: Sequence[str], dropped: Sequence[str]):
    """One round of double elimination. `upper`: unbeaten entries in bracket order; `lower`: entries with
    one loss still in; `dropped`: those who just lost in the upper bracket (they join the lower one,
    reversed so they do not meet their last opponents' neighbours again at once).
    Returns (upper matches, lower matches, grand final or None)."""
    if len(upper) == 1 and len(lower) + len(dropped) == 1:
        return [], [], (upper[0], (list(lower) + list(dropped))[0])
    pool = []
    drops = list(reversed(dropped))
    survivors = list(lower)
    while survivors or drops:  # interleave: a survivor meets a newcomer where possible
        if survivors:
            pool.append(survivors.pop(0))
        if drops:
            pool.append(drops.pop(0))
    upper_matches = next_round(list(upper)) if len(upper) > 1 else []
    lower_matches = next_round(pool) if len(pool) > 1 else ([(pool[0], None)] if pool else [])
    return upper_matches, lower_matches, None


def region_sums(size: int, region: int) -> list[int]:
    """Sum of seed numbers in each consecutive region of `region` bracket slots (tests: all equal)."""
    order = bracket_order(size)
    return [sum(order[k:k + region]) for k in range(0, size, region)]


def redrawn_round(winners: Sequence[str], seed: int | str, round_no: int) -> list[tuple[str, str | None]]:
    """Seed 003 (Tractor): "胜者晋级，负者淘汰，晋级后重新抽签比赛" — each round after the first is drawn afresh
    among the winners by lot (reproducible from the round's published seed), not read off a fixed bracket.
    An odd number of winners (only after byes) gives the last one drawn a bye."""
    from .common import rng_for
    drawn = sorted(winners)
    rng_for(seed, "knockout-redraw", round_no).shuffle(drawn)
    return [(drawn[k], drawn[k + 1] if k + 1 < len(drawn) else None) for k in range(0, len(drawn), 2)]


def chosen_round(seeded: Sequence[str], choices: Sequence[tuple[str, str]]) -> list[tuple[str, str | None]]:
    """Seed 000 "有权…优先选择淘汰赛对手" (rules.md §8): the better-placed entries of the previous stage choose
    their opponents in order. `seeded`: the stage's entries best first; `choices`: (chooser, opponent) in the
    order the director recorded them. Each chooser must be the best-placed entry not yet paired; entries left
    when the choices end are paired by seeding (best left v worst left). Raises ValueError saying which choice
    is out of turn."""
    from ...errors import InvalidRequest
    left = list(seeded)
    pairs: list[tuple[str, str | None]] = []
    for k, (chooser, opponent) in enumerate(choices, start=1):
        if not left or chooser != left[0]:
            raise InvalidRequest(f"选择第 {k} 项不合次序 · Choice {k}: it is {left[0] if left else 'nobody'}'s turn to "
                                 f"choose, not {chooser}'s.", {"choice": k, "turn": left[0] if left else None})
        if opponent == chooser or opponent not in left:
            raise InvalidRequest(f"选择第 {k} 项的对手不可选 · Choice {k}: {opponent} is not an opponent still to choose.",
                                 {"choice": k, "opponent": opponent})
        left.remove(chooser)
        left.remove(opponent)
        pairs.append((chooser, opponent))
    while left:
        best = left.pop(0)
        pairs.append((best, left.pop() if left else None))
    return pairs
