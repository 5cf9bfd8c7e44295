"""Early finish in Swiss (seed 000, rules.md §5 and §8): "积分编排赛最后一轮之前，有参赛队必然获得阶段第一位时，
不安排该队参加本阶段剩余的比赛。同时有参赛队必然获得阶段第二名时也不安排…以此类推。该队本阶段剩余比赛的得分为其
之前所有场次的平均得分。但对于分阶段进行的积分编排赛，下阶段带分进行时，仍应安排这些队参加本阶段剩余的比赛。"

Three parts: places 1, 2, 3 … each decided only when every place above is decided too; the average is
over matches played (a bye is not a match); and none of it when the next stage carries points over
(the stage config's default, models/events.py)."""
from __future__ import annotations

from typing import Iterable, Mapping

from ..numbers import share


def certain_places(scores: Mapping[str, float], averages: Mapping[str, float], rounds_left: int,
                   max_per_round: float, decided: Iterable[str] = ()) -> list[str]:
    """Entries newly certain of the next places, best first, with `rounds_left` rounds still to play (this
    one included). `decided`: entries already out (their places are above every other's).

    An entry is certain of the best place still open when its final total, scoring its average in each
    remaining round, is strictly above what any other open entry could reach by scoring the most in every
    remaining round; a possible tie is not certain (tie-breaks could still go either way). Then the next
    place is tested the same way among the rest (以此类推), and so on until one is not certain."""
    if rounds_left <= 0:
        return []
    open_ = {e: s for e, s in scores.items() if e not in set(decided)}
    out: list[str] = []
    while len(open_) >= 2:
        leader = max(open_, key=lambda e: (open_[e], e))
        final = open_[leader] + averages.get(leader, 0.0) * rounds_left
        best_other = max(s for e, s in open_.items() if e != leader) + max_per_round * rounds_left
        if not final > best_other + 1e-9:
            break
        out.append(leader)
        del open_[leader]
    return out


def certain_first(scores: dict[str, float], averages: dict[str, float], rounds_left: int,
                  max_per_round: float) -> str | None:
    """The entry certain of first place, or None (the first step of `certain_places`)."""
    if len(scores) < 2:
        return None
    places = certain_places(scores, averages, rounds_left, max_per_round)
    return places[0] if places else None


def averages_of_played(records: Iterable, entries: Iterable[str]) -> dict[str, dict[str, float]]:
    """Entry → its average per point name over the matches it played in these MatchRecords: a bye (and a
    round already scored as an early finisher's average) is not a match played."""
    played: dict[str, list] = {e: [] for e in entries}
    for rec in records:
        if rec.bye:
            continue
        for e, pts in rec.points.items():
            if e in played:
                played[e].append(pts)
    return {e: played_average(m) for e, m in played.items()}


def played_average(matches: Iterable[Mapping[str, float]]) -> dict[str, float]:
    """"其之前所有场次的平均得分": per point name, the average over the matches played (pass no byes),
    rounded half-up to two decimals."""
    matches = list(matches)
    names = {k for m in matches for k in m}
    return {k: share([m.get(k, 0.0) for m in matches], len(matches)) for k in sorted(names)} if matches else {}
