"""Round robin (循环赛): Berger tables, single or double, and group stages with snake seeding."""
from __future__ import annotations

from collections.abc import Sequence

from .common import Contestant

BYE = None


def berger_rounds(n: int) -> list[list[tuple[int, int]]]:
    """Berger tables for players numbered 1..n (n odd: a dummy n+1 means a bye). Each round is a list of
    (home, away) numbers; every pair meets exactly once."""
    m = n + (n % 2)
    rounds = []
    # The standard rotation: the last number stays, the others turn; home/away alternate for the fixed one.
    ring = list(range(1, m))
    for r in range(m - 1):
        pairs = []
        fixed_opp = ring[0]
        pairs.append((m, fixed_opp) if r % 2 else (fixed_opp, m))
        for k in range(1, m // 2):
            a, b = ring[k], ring[-k]
            pairs.append((a, b) if (r + k) % 2 == 0 else (b, a))  # alternate home sides over rounds
        rounds.append([(a if a <= n else BYE, b if b <= n else BYE) for a, b in pairs])
        ring = [ring[-1]] + ring[:-1]
    return rounds


def schedule(entries: Sequence[str], double: bool = False) -> list[list[tuple[str | None, str | None]]]:
    """Entries in Berger number order → rounds of (home, away); None marks a bye."""
    rounds = [[(entries[a - 1] if a else None, entries[b - 1] if b else None) for a, b in rnd]
              for rnd in berger_rounds(len(entries))]
    if double:
        rounds += [[(b, a) for a, b in rnd] for rnd in rounds]
    return rounds


def snake_groups(seeded: Sequence[Contestant], groups: int) -> list[list[Contestant]]:
    """Seeds 1..G to groups 1..G, then G+1..2G back from G to 1, and so on; then related entries (same club)
    are spread by swapping with an entry of the next seed band in another group when that helps."""
    out: list[list[Contestant]] = [[] for _ in range(groups)]
    for i, c in enumerate(seeded):
        band, pos = divmod(i, groups)
        out[pos if band % 2 == 0 else groups - 1 - pos].append(c)
    _spread_related(out)
    return out


def _clash(group: list[Contestant], c: Contestant, skip: Contestant | None = None) -> int:
    return sum(1 for x in group if x is not skip and x is not c and c.club and x.club == c.club)


def _spread_related(groups: list[list[Contestant]]) -> None:
    """Swap within a seed band (same position in the snake) so same-club entries share groups less."""
    changed = True
    guard = 0
    while changed and guard < 100:
        changed = False
        guard += 1
        for gi, g in enumerate(groups):
            for idx, c in enumerate(g):
                if not _clash(g, c):
                    continue
                for gj, h in enumerate(groups):
                    if gj == gi or idx >= len(h):
                        continue
                    d = h[idx]  # same seed band: swapping keeps the snake's strength balance
                    before = _clash(g, c) + _clash(h, d)
                    g[idx], h[idx] = d, c
                    after = _clash(g, d) + _clash(h, c)
                    if after < before:
                        changed = True
                        break
                    g[idx], h[idx] = c, d
                if changed:
                    break
            if changed:
                break


def number_for_related_first(group: Sequence[Contestant]) -> list[Contestant]:
    """Berger numbers such that related entries meet in the earliest rounds: round 1 pairs number k with
    the fixed-rotation partner, so same-club entries are placed on those first-round pairs."""
    n = len(group)
    first = berger_rounds(n)[0]
    remaining = list(group)
    numbered: dict[int, Contestant] = {}
    by_club: dict[str, list[Contestant]] = {}
    for c in remaining:
        if c.club:
            by_club.setdefault(c.club, []).append(c)
    slots = [(a, b) for a, b in first if a and b]
    for _club, members in sorted(by_club.items(), key=lambda kv: -len(kv[1])):
        while len(members) >= 2 and slots:
            a, b = slots.pop(0)
            x, y = members.pop(0), members.pop(0)
            numbered[a], numbered[b] = x, y
            remaining.remove(x)
            remaining.remove(y)
    free = [k for k in range(1, n + 1) if k not in numbered]
    for k, c in zip(free, sorted(remaining, key=lambda c: c.number)):
        numbered[k] = c
    return [numbered[k] for k in range(1, n + 1)]
