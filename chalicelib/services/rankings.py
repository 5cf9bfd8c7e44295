"""Rankings across events (issue 42): an organiser's ranking list, the events it counts, each player's points and
individual rating, the public answers and the open results file (docs/rankings.md).

Load → compute (engine/rankings.py, engine/ratings.py: pure) → save (store/rankings.py). The result hook
`on_result_confirmed` and `on_round_closed` are plain handlers of the domain's ResultConfirmed / ResultCorrected and
RoundClosed events (the lead wires them to the bus); until then results.py and rounds.py call them, once each.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import csv
import io
import logging
from datetime import datetime, time, UTC

from .. import errors
if TYPE_CHECKING:   # the type only: the composition root (bootstrap) imports the services, not the reverse
    from ..bootstrap import Deps
from ..engine.rankings import PlayerTotal, PointsTable, event_points, positions, totals
from ..engine.ratings import Rating, games_of_table, rate
from ..ids import new_id
from ..models import Event, Organiser
from ..players import entry_player_ids
from .gc_pause import gc_paused
from .reads import entries_of
from .standings import event_standings

log = logging.getLogger("cardgames.rankings")

DEFAULT_PROVISIONAL_TABLES = 10


# --------------------------------------------------------------------------- the ranking and its events

def create_ranking(deps: Deps, organiser: Organiser, body) -> dict:
    ranking = {"id": new_id(), "organiser_id": organiser.id, "name": body.name, "game": body.game,
               "points": body.points.model_dump(exclude_none=True), "rating": body.rating,
               "provisional_tables": body.provisional_tables, "created_at": deps.clock().isoformat()}
    deps.repos.rankings.create(ranking)
    return ranking


def get_ranking(deps: Deps, rid: str) -> dict:
    ranking = deps.repos.rankings.get(rid)
    if ranking is None:
        raise errors.NotFound("没有这个排名 · No such ranking.")
    return ranking


def own_ranking(deps: Deps, organiser: Organiser, rid: str) -> dict:
    ranking = deps.repos.rankings.get(rid)
    if ranking is None or ranking["organiser_id"] != organiser.id:
        raise errors.NotFound("没有这个排名 · No such ranking.")
    return ranking


def count_event(deps: Deps, organiser: Organiser, rid: str, event_id: str) -> dict:
    """The event's organiser counts its event in a ranking: the ranking's owner for its own events, another
    organiser for theirs (that act is its consent; nobody can count someone else's event)."""
    ranking = get_ranking(deps, rid)
    event = deps.repos.events.get(event_id)
    if event is None:
        raise errors.NotFound("没有这个比赛项目 · No such event.")
    if event.organiser_id != organiser.id:
        raise errors.Forbidden("只有该项目的主办方可以将其计入排名 · Only the event's organiser can count it in a ranking "
                               "(its consent).")
    if event.config.game != ranking["game"]:
        raise errors.InvalidConfig(f"该排名只计{ranking['game']}项目 · This ranking counts {ranking['game']} events only.")
    tournament = deps.repos.tournaments.get(event.tournament_id)
    counted = {"event_id": event.id, "tournament_id": event.tournament_id, "organiser_id": event.organiser_id,
               "event": event.config.name, "tournament": tournament.name if tournament else "",
               "date": (tournament.starts_on.isoformat() if tournament else deps.clock().date().isoformat()),
               "counted_by": organiser.id, "counted_at": deps.clock().isoformat(),
               "own": event.organiser_id == ranking["organiser_id"]}
    if deps.repos.rankings.add_event(rid, counted):
        catch_up_event(deps, ranking, event)   # tables confirmed before it was counted, and its places if final
    return counted


# --------------------------------------------------------------------------- players of an event

def players_of_entries(deps: Deps, eid: str) -> tuple[dict[str, list[str]], dict[str, list[tuple[str, str]]], dict]:
    """entry → its members' player ids; entry → [(player id, name)]; player id → (name, club)."""
    ids, named, people = {}, {}, {}
    for e in entries_of(deps, eid):
        pids = entry_player_ids(e)
        ids[e.id] = pids
        named[e.id] = [(p, m.name) for p, m in zip(pids, e.members, strict=True)]
        people.update({p: (m.name, e.club) for p, m in zip(pids, e.members, strict=True)})
    return ids, named, people


def _who_played(table: dict, members: dict[str, list[str]]) -> dict[str, list[str]]:
    """The players of each side: the members who sat in a team match's rooms (table["played"]), else all of them."""
    played = table.get("played") or {}
    out = {}
    for s in table.get("sides") or []:
        e = s["entry_id"]
        roster = members.get(e) or []
        seats = sorted({i for room in played.values() if isinstance(room, dict) for i in room.get(e) or []})
        out[e] = [roster[i] for i in seats if 0 <= i < len(roster)] or roster
    return out


# --------------------------------------------------------------------------- ratings from confirmed tables

def on_result_confirmed(deps: Deps, tournament_id: str, event_id: str, stage: int, round_no: int, table_no: int,
                        version: int) -> None:
    """A table's result was confirmed (or corrected): every ranking counting the event rates it once for this
    version; a correction takes back the mu change its earlier version made and rates the new result from the
    players' current ratings (docs/rankings.md: the exact figures are a rebuild's). A failure is logged, never
    raised: the result stands whatever the rankings do (a rebuild repairs them)."""
    try:
        rids = deps.repos.rankings.rankings_of_event(event_id)
        if not rids:
            return
        _, table = deps.repos.rounds.get_table(event_id, stage, round_no, table_no)
        if table is None:
            return
        members, _, people = players_of_entries(deps, event_id)
        for rid in rids:
            ranking = deps.repos.rankings.get(rid)
            if ranking and ranking.get("rating"):
                _count_table(deps, rid, (event_id, stage, round_no, table_no), table, members, people)
        if table.get("status") in ("confirmed", "forfeit") and _event_final(deps, event_id):
            refresh_event_points(deps, event_id, rids)   # a correction after the last round moves places
    except errors.DomainError as exc:
        log.warning("ranking update of event %s table %s/%s failed: %s", event_id, round_no, table_no, exc.code)


def _count_table(deps: Deps, rid: str, ref: tuple, table: dict, members: dict[str, list[str]],
                 people: dict[str, tuple[str, str]]) -> bool:
    """Rates one table in one ranking, once per version. Returns whether it changed anything."""
    repo = deps.repos.rankings
    for _ in range(5):   # a concurrent change to one of the players: read again and redo
        mark = repo.table_mark(rid, *ref)
        if mark is not None and mark["version"] >= int(table.get("version", 0)):
            return False   # this version (or a later one) is counted already
        games = games_of_table(table, _who_played(table, members))
        pids = sorted({p for g in games for team in g.teams for p in team} | set(mark["deltas"] if mark else ()))
        if not pids and mark is None:
            return False
        stored = repo.players_by_id(rid, pids)
        before = {p: Rating(s["mu"] - (mark["deltas"].get(p, 0.0) if mark else 0.0), s["sigma"],
                            s["tables"] - (1 if mark and p in mark["deltas"] else 0)) for p, s in stored.items()}
        after = rate(before, games) if games else {}
        changed = []
        for p in pids:
            b = before.get(p, Rating())
            a = after.get(p, b)
            name, club = people.get(p, ("", ""))
            s = stored.get(p, {"player_id": p, "version": 0, "results": {}, "name": name, "club": club})
            changed.append({**s, "player_id": p, "mu": a.mu, "sigma": a.sigma, "tables": a.tables})
        deltas = {p: after[p].mu - before.get(p, Rating()).mu for p in after}
        try:
            repo.count_table(rid, ref, int(table.get("version", 0)), changed, deltas, mark)
            return True
        except errors.VersionConflict:
            continue
    raise errors.VersionConflict("ranking players changed meanwhile")


def catch_up_event(deps: Deps, ranking: dict, event: Event) -> None:
    """An event newly counted: its tables confirmed so far, in play order, and its places if it is final."""
    if ranking.get("rating"):
        members, _, people = players_of_entries(deps, event.id)
        for doc, tables in deps.repos.rounds.all_rounds(event.id):
            for t in tables:
                if t.get("status") == "confirmed":
                    _count_table(deps, ranking["id"], (event.id, doc["stage"], doc["number"], t["number"]), t, members,
                                 people)
    if _event_final(deps, event.id):
        refresh_event_points(deps, event.id, [ranking["id"]])


# --------------------------------------------------------------------------- points from final places

def on_round_closed(deps: Deps, tournament_id: str, event_id: str, stage: int, round_no: int) -> bool:
    """A round closed: if that ended the event, its final places become points in every ranking counting it.
    Returns whether they did (services/ranking_pages.py publishes then)."""
    try:
        rids = deps.repos.rankings.rankings_of_event(event_id)
        if rids and _event_final(deps, event_id):
            refresh_event_points(deps, event_id, rids)
            return True
    except errors.DomainError as exc:
        log.warning("ranking points of event %s failed: %s", event_id, exc.code)
    return False


def _event_final(deps: Deps, eid: str) -> bool:
    """Cheap first (the state's head: the last stage's rounds all drawn and none open), then the standings'."""
    event = deps.repos.events.get(eid)
    if event is None:
        return False
    state = deps.repos.rounds.state_head(eid)
    plan = (state.get("plans") or {}).get(str(len(event.config.stages) - 1))
    if not plan or state.get("open_round"):
        return False
    return event_standings(deps, event).final


def event_places(deps: Deps, eid: str) -> tuple[list[tuple[str, int | None]], int]:
    """(entry, final place) of every row of the event's final standings, and the field size."""
    event = deps.repos.events.get(eid)
    out = event_standings(deps, event)
    rows = [(r.entry_id, r.rank) for r in out.standings]
    return rows, len(rows)


def refresh_event_points(deps: Deps, eid: str, rids: list[str]) -> None:
    rows, field = event_places(deps, eid)
    _, named, people = players_of_entries(deps, eid)
    for rid in rids:
        ranking = deps.repos.rankings.get(rid)
        if ranking is None:
            continue
        pts = event_points(PointsTable.from_config(ranking["points"]), [p for _, p in rows], field)
        wanted = {pid: (name, people[pid][1], place, pt)
                  for (e, place), pt in zip(rows, pts, strict=True) for pid, name in named.get(e, [])}
        for _ in range(5):
            stored = deps.repos.rankings.players_by_id(rid, list(wanted))
            changed = []
            for pid, (name, club, place, pt) in wanted.items():
                s = stored.get(pid) or {"player_id": pid, "mu": Rating().mu, "sigma": Rating().sigma, "tables": 0,
                                        "results": {}, "version": 0}
                if s["results"].get(eid) == [place, pt] and s.get("name") == name:
                    continue
                changed.append({**s, "name": name, "club": club, "results": {**s["results"], eid: [place, pt]}})
            try:
                deps.repos.rankings.save_players(rid, changed)
                break
            except errors.VersionConflict:
                continue


# --------------------------------------------------------------------------- rebuild from scratch

@gc_paused()   # hundreds of thousands of small objects kept to the end: the collector's passes only walk them
def rebuild(deps: Deps, organiser: Organiser, rid: str) -> dict:
    """Every counted event read again: ratings replayed table by table in play order (events by date), places
    and points from each final standings; what was stored is replaced."""
    ranking = own_ranking(deps, organiser, rid)
    table = PointsTable.from_config(ranking["points"])
    events = sorted(deps.repos.rankings.events(rid), key=lambda c: (c["date"], c["event_id"]))
    state = RebuildState()
    for counted in events:
        eid = counted["event_id"]
        members, named, people = players_of_entries(deps, eid)
        if ranking.get("rating"):
            for doc, tables in deps.repos.rounds.all_rounds(eid):
                for t in tables:
                    state.table((eid, doc["stage"], doc["number"], t["number"]), t, _who_played(t, members), people)
        if _event_final(deps, eid):
            rows, field = event_places(deps, eid)
            pts = event_points(table, [p for _, p in rows], field)
            for (e, place), pt in zip(rows, pts, strict=True):
                for pid, name in named.get(e, []):
                    state.result(pid, name, people[pid][1], eid, place, pt)
    deps.repos.rankings.replace_all(rid, state.players(), state.marks)
    return {"players": len(state.people), "tables": len(state.marks), "events": len(events)}


class RebuildState:
    """What a rebuild accumulates in memory before it writes (also the benchmark's subject)."""

    def __init__(self):
        self.ratings: dict[str, Rating] = {}
        self.people: dict[str, dict] = {}
        self.marks: dict[tuple, tuple[int, dict]] = {}

    def table(self, ref: tuple, t: dict, players: dict[str, list[str]], people: dict | None = None) -> None:
        games = games_of_table(t, players)
        if not games:
            return
        for pid in (p for g in games for team in g.teams for p in team):
            if pid not in self.people:   # (a set difference with the dict's keys would copy them every table)
                name, club = (people or {}).get(pid, ("", ""))
                self.people[pid] = {"player_id": pid, "results": {}, "name": name, "club": club}
        after = rate(self.ratings, games)
        self.marks[ref] = (int(t.get("version", 0)), {p: a.mu - self.ratings.get(p, Rating()).mu for p, a in after.items()})
        self.ratings.update(after)

    def result(self, pid: str, name: str, club: str, eid: str, place, points: float) -> None:
        person = self.people.setdefault(pid, {"player_id": pid, "results": {}})
        person.update(name=name, club=club)
        person["results"][eid] = [place, points]

    def players(self) -> list[dict]:
        out = []
        for pid in self.people.keys() | self.ratings.keys():
            r = self.ratings.get(pid, Rating())
            p = self.people.get(pid, {"player_id": pid, "results": {}})
            out.append({**p, "name": p.get("name", ""), "club": p.get("club", ""), "mu": r.mu, "sigma": r.sigma,
                        "tables": r.tables})
        return out


# --------------------------------------------------------------------------- what is shown

def _date(iso: str) -> datetime:
    return datetime.combine(datetime.fromisoformat(iso).date(), time(0), tzinfo=UTC)


def board(deps: Deps, rid: str, now: datetime) -> dict:
    """The ranking as it stands at `now`: every player with points or a rating, best first."""
    ranking = get_ranking(deps, rid)
    table = PointsTable.from_config(ranking["points"])
    events = {c["event_id"]: c for c in deps.repos.rankings.events(rid)}
    players = deps.repos.rankings.players(rid)
    by_id = {p["player_id"]: p for p in players}
    results = [{"player_id": p["player_id"], "name": p["name"], "club": p["club"], "event_id": eid,
                "date": _date(events[eid]["date"]), "place": place, "points": pts}
               for p in players for eid, (place, pts) in p["results"].items() if eid in events]
    rows = totals(table, results, now)
    ranked = {r.player_id for r in rows}
    # rated players with no final place yet (an event under way) follow, without points
    rows += [PlayerTotal(p["player_id"], p["name"], p["club"]) for p in sorted(players, key=lambda p: p["player_id"])
             if p["player_id"] not in ranked and p["tables"]]
    need = int(ranking.get("provisional_tables", DEFAULT_PROVISIONAL_TABLES))
    out = []
    for pos, r in zip(positions(rows), rows, strict=True):
        p = by_id[r.player_id]
        row = {"position": pos, "player_id": r.player_id, "name": r.name or p["name"], "club": r.club or p["club"],
               "points": r.points, "events": r.events}
        if ranking.get("rating"):
            rt = Rating(p["mu"], p["sigma"], p["tables"])
            row["rating"] = {"mu": round(rt.mu, 3), "sigma": round(rt.sigma, 3), "display": rt.display,
                             "tables": rt.tables, "provisional": rt.provisional(need)}
        row["results"] = sorted(({"event_id": x["event_id"], "tournament": events[x["event_id"]]["tournament"],
                                  "event": events[x["event_id"]]["event"], "date": events[x["event_id"]]["date"],
                                  "place": x["place"], "points": x["points"], "points_now": x["points_now"]}
                                 for x in r.results), key=lambda x: (x["date"], x["event_id"]), reverse=True)
        out.append(row)
    return {"ranking": ranking, "events": sorted(events.values(), key=lambda c: c["date"], reverse=True), "rows": out}


PAGE_ROWS = 200


def public_ranking(deps: Deps, rid: str, page: int = 1) -> dict:
    b = board(deps, rid, deps.clock())
    rows = b["rows"]
    pages = max(1, -(-len(rows) // PAGE_ROWS))
    if not 1 <= page <= pages:
        raise errors.NotFound(f"没有第 {page} 页 · No page {page}.")
    shown = rows[(page - 1) * PAGE_ROWS: page * PAGE_ROWS]
    return {"id": rid, "name": b["ranking"]["name"], "game": b["ranking"]["game"],
            "players": [{k: v for k, v in r.items() if k != "results"} for r in shown],
            "page": page, "pages": pages, "total": len(rows),
            "events": [{k: c[k] for k in ("event_id", "tournament", "event", "date")} for c in b["events"]],
            "updated_at": deps.clock().isoformat()}


def public_player(deps: Deps, pid: str) -> dict:
    rids = deps.repos.rankings.rankings_of_player(pid)
    if not rids:
        raise errors.NotFound("没有这位选手 · No such player.")
    results, rankings, name, club = {}, [], "", ""
    for rid in rids:
        b = board(deps, rid, deps.clock())
        row = next((r for r in b["rows"] if r["player_id"] == pid), None)
        if row is None:
            continue
        name, club = name or row["name"], club or row["club"]
        rankings.append({"ranking_id": rid, "name": b["ranking"]["name"], "game": b["ranking"]["game"],
                         "position": row["position"], "points": row["points"],
                         **({"rating": row["rating"]} if "rating" in row else {})})
        for x in row["results"]:
            results[x["event_id"]] = {k: x[k] for k in ("tournament", "event", "date", "place", "points")}
    return {"player_id": pid, "name": name, "club": club,
            "results": sorted(results.values(), key=lambda x: x["date"], reverse=True), "rankings": rankings}


# --------------------------------------------------------------------------- the open results file

EXPORT_FIELDS = ("ranking_id", "ranking", "game", "player_id", "name", "club", "position", "total_points",
                 "event_id", "tournament", "event", "date", "place", "points", "points_now", "rating_mu",
                 "rating_sigma", "rating", "tables", "provisional")


def export_rows(deps: Deps, organiser: Organiser, rid: str) -> list[dict]:
    """One row per player and event (docs/rankings.md says each field); a rated player with no final place yet
    has one row with the event fields empty."""
    own_ranking(deps, organiser, rid)
    b = board(deps, rid, deps.clock())
    out = []
    for r in b["rows"]:
        rating = r.get("rating") or {}
        common = {"ranking_id": rid, "ranking": b["ranking"]["name"], "game": b["ranking"]["game"],
                  "player_id": r["player_id"], "name": r["name"], "club": r["club"], "position": r["position"],
                  "total_points": r["points"], "rating_mu": rating.get("mu"), "rating_sigma": rating.get("sigma"),
                  "rating": rating.get("display"), "tables": rating.get("tables"),
                  "provisional": rating.get("provisional")}
        for x in r["results"] or [{}]:
            out.append({**common, "event_id": x.get("event_id"), "tournament": x.get("tournament"),
                        "event": x.get("event"), "date": x.get("date"), "place": x.get("place"),
                        "points": x.get("points"), "points_now": x.get("points_now")})
    return out


def export_csv(rows: list[dict]) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(EXPORT_FIELDS), lineterminator="\r\n")
    w.writeheader()
    for r in rows:
        w.writerow({k: ("" if r.get(k) is None else r[k]) for k in EXPORT_FIELDS})
    return "\ufeff" + buf.getvalue()   # the BOM: Excel opens the Chinese names as UTF-8


# --------------------------------------------------------------------------- seeding round 1 by rating

def rating_order(deps: Deps, event: Event, ids: list[str]) -> list[str]:
    """Round 1's order by the ranking's rating (event option seeding "rating"): an entry's rating is the mean of
    its members' (a player with none counts as new); level entries keep the order of the draw of lots."""
    rid = getattr(event.config, "seeding_ranking", None) or next(
        (r for r in deps.repos.rankings.rankings_of_event(event.id)
         if (deps.repos.rankings.get(r) or {}).get("rating")), None)
    if rid is None:
        return ids
    members, _, _ = players_of_entries(deps, event.id)
    stored = deps.repos.rankings.players_by_id(rid, [p for e in ids for p in members.get(e, [])])

    def strength(e: str) -> float:
        ps = members.get(e) or []
        rs = [Rating(stored[p]["mu"], stored[p]["sigma"]) if p in stored else Rating() for p in ps]
        return sum(r.mu - 3 * r.sigma for r in rs) / len(rs) if rs else 0.0

    return sorted(ids, key=strength, reverse=True)   # sorted() is stable: ties stay in the lots' order
