"""Early finish in Swiss (seed 000 §26.7, rules.md §9): "积分编排赛最后一轮之前，有参赛队必然获得阶段第一位时，
不安排该队参加本阶段剩余的比赛。同时有参赛队必然获得阶段第二名时也不安排…以此类推。该队本阶段剩余比赛的得分为其
之前所有场次的平均得分。但对于分阶段进行的积分编排赛，下阶段带分进行时，仍应安排这些队参加本阶段剩余的比赛。"

The certainty test (§9): the entry loses every remaining match (the least a loss scores) and every other open
entry wins every remaining match (the most a match gives); it is certain only when it would still be strictly
ahead on the primary points (a tie is not certain: tie-breaks can still move). Places 1, 2, 3 … are tested in
turn, each only while every place above it is certain. The average of the matches played (a bye is not one)
is what an entry found certain is credited afterwards; it is never part of the test. None of it before a stage
that carries points over (services/rounds.py `early_finish_applies`).

Why the test is exact when later pairings are unknown: any other entry X can, in some draw, win every remaining
match while the leader loses every one (X may even be the leader's opponent), so the leader is safe only if
its worst total beats X's best for every X separately; and if it does, no joint outcome can catch it."""
from __future__ import annotations

import heapq

from dataclasses import dataclass
from collections.abc import Iterable, Mapping

from ..numbers import share


@dataclass(frozen=True)
class Certain:
    """An entry found certain of `place`: its points now, its total if it lost every remaining match (`worst`),
    and the most any other open entry can reach (`best_other`, by `chaser`) — the reason in words."""
    entry: str
    place: int
    score: float
    worst: float
    best_other: float
    chaser: str
    rounds_left: int

    def reason(self) -> dict:
        return {"place": self.place, "score": self.score, "worst": self.worst, "best_other": self.best_other,
                "chaser": self.chaser, "rounds_left": self.rounds_left}


def decide_places(scores: Mapping[str, float], rounds_left: int, max_per_round: float,
                  min_per_round: float = 0.0, decided: Iterable[str] = ()) -> list[Certain]:
    """Entries newly certain of the next open places, best first, with `rounds_left` rounds still to play (this
    one included). `decided`: entries already finished early (their places are above every open one's)."""
    if rounds_left <= 0:
        return []
    decided = list(decided)
    gone = set(decided)
    open_ = {e: float(s) for e, s in scores.items() if e not in gone}
    out: list[Certain] = []
    while len(open_) >= 2:
        # the leader and the nearest other: the two largest (score, entry), as max by that key finds them (a
        # 100,000-entry draw's field: one pass in C, not two with a key function)
        (_, leader), (_, chaser) = heapq.nlargest(2, zip(open_.values(), open_))
        worst = open_[leader] + min_per_round * rounds_left
        best_other = open_[chaser] + max_per_round * rounds_left
        if not worst > best_other + 1e-9:
            break
        out.append(Certain(leader, len(decided) + len(out) + 1, open_[leader], worst, best_other, chaser, rounds_left))
        del open_[leader]
    return out


def certain_places(scores: Mapping[str, float], rounds_left: int, max_per_round: float,
                   min_per_round: float = 0.0, decided: Iterable[str] = ()) -> list[str]:
    """The entries of `decide_places`, best first."""
    return [c.entry for c in decide_places(scores, rounds_left, max_per_round, min_per_round, decided)]


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
