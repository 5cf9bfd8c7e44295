"""Individual ratings from confirmed tables (issue 42), by openskill's Plackett–Luce model (Weng & Lin's Bayesian
rating for teams and multi-player games): every player of a side is rated on their own, so both partners of a pair
move, and so does each member of a team. Pure: what a table says in, new (mu, sigma) out.

How a table becomes games to rate:
- two sides (a Guandan or Tractor pair, a Guandan team match, a Gouji 3 v 3 table): one game, the sides ranked by
  their outcome (1 win, 0.5 draw, 0 loss);
- a Dou Dizhu table with its deals: one game per deal, the landlord against the two farmers together;
  with only the round's final totals: one game of three, ranked by table points (场分), ties level.
A forfeit is not a game: nobody played.
"""
from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Mapping, Sequence

MU, SIGMA = 25.0, 25.0 / 3    # openskill's defaults
DISPLAY_BASE, DISPLAY_SCALE = 1000, 40


@dataclass(frozen=True)
class Rating:
    mu: float = MU
    sigma: float = SIGMA
    tables: int = 0

    @property
    def display(self) -> int:
        """One number for the pages: the conservative estimate mu − 3σ (openskill's ordinal) on a scale where a
        new player shows 1000."""
        return round(DISPLAY_BASE + DISPLAY_SCALE * (self.mu - 3 * self.sigma))

    def provisional(self, needed: int) -> bool:
        return self.tables < needed


@dataclass(frozen=True)
class Game:
    teams: tuple[tuple[str, ...], ...]    # player ids per team
    ranks: tuple[float, ...]              # 1 = best; equal ranks are a draw


_model = None


def model():
    global _model
    if _model is None:
        from openskill.models import PlackettLuce   # imported on first use: a cold start that rates nothing skips it
        _model = PlackettLuce(mu=MU, sigma=SIGMA)
    return _model


def games_of_table(table: Mapping, players: Mapping[str, Sequence[str]]) -> list[Game]:
    """The games a confirmed table counts as. `players`: entry id → the player ids who played for it."""
    if table.get("status") != "confirmed":
        return []
    sides = [s["entry_id"] for s in table.get("sides") or []]
    if any(not players.get(e) for e in sides) or len(sides) < 2:
        return []
    team = {e: tuple(players[e]) for e in sides}
    deals = (table.get("result") or {}).get("deals")
    if len(sides) == 3 and isinstance(deals, list) and deals:
        seat_of = {seat: s["entry_id"] for s in table["sides"] for seat in s.get("seats") or ()}
        out = []
        for deal in deals:
            landlord = seat_of.get(deal.get("landlord")) if isinstance(deal, dict) else None
            if landlord is None or deal.get("winner") not in ("landlord", "farmers"):
                continue
            farmers = tuple(p for e in sides if e != landlord for p in team[e])
            won = deal["winner"] == "landlord"
            out.append(Game((team[landlord], farmers), (1, 2) if won else (2, 1)))
        if out:
            return out
    if len(sides) == 3:
        pts = {e: float(((table.get("points") or {}).get(e) or {}).get("table_points", 0)) for e in sides}
        return [Game(tuple(team[e] for e in sides), _ranks([pts[e] for e in sides]))]
    outcome = table.get("outcome") or {}
    return [Game(tuple(team[e] for e in sides), _ranks([float(outcome.get(e, 0)) for e in sides]))]


def _ranks(scores: Sequence[float]) -> tuple[float, ...]:
    """Higher score, better (lower) rank; level scores the same rank."""
    return tuple(float(1 + sum(1 for o in scores if o > s)) for s in scores)


def rate(ratings: Mapping[str, Rating], games: Sequence[Game]) -> dict[str, Rating]:
    """The new ratings of everyone who played `games` (in order); players not in `ratings` start at the default.
    Each player's table count grows by one per call, however many deals the table had."""
    m = model()
    now = {p: ratings.get(p, Rating()) for g in games for t in g.teams for p in t}
    for g in games:
        teams = [[m.rating(mu=now[p].mu, sigma=now[p].sigma) for p in t] for t in g.teams]
        new = m.rate(teams, ranks=list(g.ranks))
        for t, rated in zip(g.teams, new, strict=True):
            for p, r in zip(t, rated, strict=True):
                now[p] = Rating(r.mu, r.sigma, now[p].tables)
    return {p: Rating(r.mu, r.sigma, r.tables + 1) for p, r in now.items()}
