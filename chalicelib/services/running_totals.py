"""A Swiss stage's per-entry running totals: what a draw needs of every earlier round (points added, opponents,
byes, losses, home and away, last side, seats, and the points of each match played for an early finisher's
average), kept as of the stage's last closed round.

Each close folds its round into the totals it finds (or, when they are missing or stale, folds every round of
the stage again) and writes them in its own transaction, stamped with each round's [rev, drawn_at]. A draw uses
them only while every stamp is unchanged: a result corrected after a close moves its round's `rev`, and the
draw then folds every round itself, exactly as before. One fold serves both paths, so they cannot disagree.
"""
from __future__ import annotations

import json

PTS, OPP, BYES, HOME, AWAY, LAST, SEATS, LOSSES, PLAYED = range(9)


def _empty() -> list:
    return [[], set(), 0, 0, 0, None, {}, 0, []]


def fold(field: dict[str, list], records, tables: list[dict], primary: str) -> dict[str, list]:
    """Adds rounds' records and tables (services.standings.stage_records, rounds in order) to `field`."""
    def of(e: str) -> list:
        t = field.get(e)
        if t is None:
            t = field[e] = _empty()
        return t
    for rec in records:
        for e, pts in rec.points.items():
            of(e)[PTS].append(pts.get(primary, 0.0))   # kept one by one: the sum is made in the same order
        if rec.bye:
            for e in rec.entries:
                of(e)[BYES] += 1
            continue
        for e, pts in rec.points.items():
            of(e)[PLAYED].append(pts)
        for e in rec.entries:
            t = of(e)
            t[OPP].update(o for o in rec.entries if o != e)
            if rec.outcome.get(e, 1) == 0:
                t[LOSSES] += 1
    for table in tables:
        sides = table["sides"]
        for i, s in enumerate(sides):
            t = of(s["entry_id"])
            if len(sides) == 2:
                t[HOME if i == 0 else AWAY] += 1
                t[LAST] = i == 0
            seat = s["seats"][0]
            t[SEATS][seat] = t[SEATS].get(seat, 0) + 1
    return field


def score_of(field: dict[str, list], e: str, carried: float) -> float:
    score = carried
    for x in field.get(e, _EMPTY)[PTS]:
        score += x
    return score


def get(field: dict[str, list], e: str) -> list:
    return field.get(e, _EMPTY)


_EMPTY = _empty()


def encode(field: dict[str, list]) -> dict:
    """Columns, opponents as places in `ids` (a tenth of the bytes of their ids). The points of each match played
    (`played_text`) as JSON text of their own: over half of the document, and a draw reads them only for an entry
    that finishes early, so a draw parses that text only then (decode)."""
    ids = list(field)
    at = {e: k for k, e in enumerate(ids)}
    cols = [field[e] for e in ids]
    return {"ids": ids, "pts": [t[PTS] for t in cols], "opp": [sorted(at[o] for o in t[OPP]) for t in cols],
            "byes": [t[BYES] for t in cols], "home": [t[HOME] for t in cols], "away": [t[AWAY] for t in cols],
            "last": [t[LAST] for t in cols], "seats": [t[SEATS] for t in cols], "losses": [t[LOSSES] for t in cols],
            "played_text": json.dumps([t[PLAYED] for t in cols], separators=(",", ":"))}


class _Unread:
    """The played column's JSON text, parsed the first time an entry's row is asked for it (played_of)."""

    def __init__(self, text: str):
        self.text, self.column = text, None

    def of(self, k: int) -> list:
        if self.column is None:
            self.column = json.loads(self.text)
        return self.column[k]


def decode(cols: dict, played: bool = True) -> dict[str, list]:
    """encode's columns back to rows (a 100,000-entry draw's: column by column, not a lookup a field an entry).
    `played=False` (a draw): each row's PLAYED is read through played_of, the column's text parsed only if one is
    (a document written before `played_text` has the column itself)."""
    ids = cols["ids"]
    opp = [{ids[o] for o in places} for places in cols["opp"]]
    if "played" in cols:
        column = cols["played"]
    elif played:
        column = json.loads(cols["played_text"])
    else:
        unread = _Unread(cols["played_text"])
        column = [(unread, k) for k in range(len(ids))]
    return dict(zip(ids, map(list, zip(cols["pts"], opp, cols["byes"], cols["home"], cols["away"], cols["last"],
                                       cols["seats"], cols["losses"], column))))


def played_of(row: list) -> list:
    """A row's points of each match played, from a draw's decode too."""
    v = row[PLAYED]
    return v[0].of(v[1]) if type(v) is tuple and type(v[0]) is _Unread else v


def applies(event, stage_idx: int, plan: dict) -> bool:
    """Swiss stages (the other formats draw from their plan and last round). An early finisher's rounds are
    folded at each close as the stage's records have them (its average, from the round it left)."""
    return plan.get("format") in ("swiss", "special_swiss")


def stored(deps, eid: str, stage_idx: int, state: dict) -> dict[str, list] | None:
    """The stage's totals if they are those of its rounds as they stand now (None: fold the rounds instead)."""
    refs = [r for r in state.get("rounds", []) if r["stage"] == stage_idx]
    return _stored(deps, eid, stage_idx, refs, played=False)[0]


def _stored(deps, eid: str, stage_idx: int, refs: list[dict],
            played: bool = True) -> tuple[dict[str, list] | None, dict[str, list]]:
    """(the stored totals if current, else None; the rounds' stamps as they are now). A document with
    `played_text` keeps its stamps as `round_stamps` (its `stamps` null): code from before it, which reads a
    `played` column, finds such a document stale and folds the rounds itself."""
    if not refs:
        return {}, {}
    doc = deps.repos.rounds.totals(eid, stage_idx)
    stamps = {str(n): stamp for n, stamp in deps.repos.rounds.round_stamps(eid, refs).items()}
    if doc is None or doc.get("round_stamps", doc.get("stamps")) != stamps or len(stamps) != len(refs):
        return None, stamps
    return decode(doc["field"], played=played), stamps


def after_close(deps, event, stage_idx: int, state: dict, doc: dict, tables: list[dict], stamp: list) -> dict | None:
    """The totals document a close writes: the stored totals (if current) with this round folded in, else every
    round of the stage folded again. None where totals do not apply."""
    from ..engine.games import game as game_rules
    from .standings import stage_records
    plan = state.get("plans", {}).get(str(stage_idx)) or {}
    if not applies(event, stage_idx, plan):
        return None
    primary = game_rules(event.config.game).point_names[event.config.stages[stage_idx].scoring.method][0]
    n = doc["number"]
    before = [r for r in state.get("rounds", []) if r["stage"] == stage_idx and r["n"] != n]
    # the stamps are read before any table: a result corrected meanwhile leaves the totals stale, never wrong
    field, stamps = _stored(deps, event.id, stage_idx, before)
    if field is not None:
        rounds = [(doc, tables)]
    else:
        field = {}
        rounds = sorted([(d, ts) for d, ts in deps.repos.rounds.all_rounds(event.id) if d["number"] != n]
                        + [(doc, tables)], key=lambda r: r[0]["number"])
    records, tabs = stage_records(deps, event, stage_idx, state, rounds)
    fold(field, records, tabs, primary)
    return {"stage": stage_idx, "through": n, "stamps": None, "round_stamps": {**stamps, str(n): stamp},
            "field": encode(field)}
