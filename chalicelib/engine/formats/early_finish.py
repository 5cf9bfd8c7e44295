"""Early finish in Swiss (rules.md §5, seed 000): an entry already certain of first place is not drawn in
the remaining rounds and scores its average per round for each of them."""
from __future__ import annotations


def certain_first(scores: dict[str, float], averages: dict[str, float], rounds_left: int,
                  max_per_round: float) -> str | None:
    """The entry certain of first place with `rounds_left` rounds still to play (this one included), or None.

    It is certain when its final total, scoring its average in each remaining round, is strictly above
    what any other entry could reach by winning every remaining round; a possible tie is not certain
    (tie-breaks could still go either way)."""
    if rounds_left <= 0 or len(scores) < 2:
        return None
    leader = max(scores, key=lambda e: (scores[e], e))
    final = scores[leader] + averages.get(leader, 0.0) * rounds_left
    best_other = max(s for e, s in scores.items() if e != leader) + max_per_round * rounds_left
    return leader if final > best_other + 1e-9 else None
