"""What the published pages show, worked out from the records (issue 37 item 4: the publisher's pure part).
No store, no clock, no sink, no settings: the publisher (services/publishing.py) reads the records, works out the
standings, and hands them in; this module words the rounds, the entry pages, the corrections and the inputs'
digests. Its `cache` arguments (a dict per event, held by publish/cache.PublishCache) only spare work: the same
records give the same pages with a cold cache or a warm one (tests/unit/test_publish_containers.py)."""
from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from ..services.names import readable   # a pure helper (no store): the reason's ids as names
from .i18n import translator
from .place_files import places_chunks, places_file

def with_players(prizes: dict, entries: dict) -> dict:
    """The prize list names a team's or pair's players beside its name (issue 39), names only."""
    for p in prizes["prizes"]:
        e = entries.get(p["entry_id"])
        members = [m.name for m in e.members] if e else []
        p["players"] = members if len(members) > 1 or (members and members[0] != p["name"]) else []
    return prizes


def entry_pages_data(warm: dict, entry_list, entries: dict, outs: list[dict], page_of: str):
    """What the entry pages show: (their entries, each one's history, one digest of its page's inputs per entry: the
    same string object while they stay the same, so the page's check is not worked out again). With the same entries
    but for some re-worded rounds, only the entries of the tables those rounds re-worded are worked out again (after
    one result: two of 10,000), not every entry's history and digest. The places after each round are not an input
    (a close moves every entry's): the page names its places file instead (publish/place_files.py)."""
    prev = warm.get("entry_pages")
    same = (prev is not None and prev["entries"] is entry_list and prev["page_of"] == page_of
            and len(prev["outs"]) == len(outs))
    if same:
        public_entries, history, parts, entry_inputs = prev["public"], prev["history"], prev["parts"], prev["inputs"]
        todo = _moved_entries(prev["outs"], outs)
        _histories_of(todo, outs, history, parts)
        todo &= public_entries.keys()
    else:
        public_entries = {e: PublicEntry(x) for e, x in entries.items()
                          if x.status in ("confirmed", "withdrawn", "disqualified")}
        history, parts, entry_inputs = _histories(outs)
        todo = public_entries
    chunks = places_chunks(len(public_entries))
    for e in todo:
        entry_inputs[e] = hashlib.sha1("\n".join([page_of, repr(public_entries[e]), *parts.get(e, ()),
                                                  places_file(e, chunks)]).encode()).hexdigest()
    # an entry's parts are read only for its digest, just made: not held for every entry (those worked out again
    # later are put back by _histories_of)
    parts.clear()
    # (gen, since, moved): which entries' inputs moved since the last record (`since`: its `gen`, a token of
    # its own), for the pages' writer to visit only theirs (site_pages._EventPages.entries_moved)
    warm["entry_pages"] = {"entries": entry_list, "page_of": page_of, "outs": outs,
                           "public": public_entries, "history": history, "parts": parts, "inputs": entry_inputs,
                           "gen": object(), "since": prev.get("gen") if same else None,
                           "moved": todo if same else None}
    return public_entries, history, entry_inputs


class ShownEntry:
    """An entry as the publisher keeps it once the standings are worked out (issue 43): what its pages, the board
    and find-my-table read of it — id, name, club, its members' names, status — in slots sharing the model's
    strings, not the whole model (~2 KB an entry with its members' models: ~200 MiB at 100,000 entries)."""
    __slots__ = ("id", "name", "club", "members", "status")

    def __init__(self, entry):
        self.id, self.name, self.club, self.status = entry.id, entry.name, entry.club, entry.status
        self.members = tuple(MemberName(m.name) for m in entry.members)

    def shown(self) -> tuple:
        return self.id, self.name, self.club, self.status, tuple(m.name for m in self.members)


class MemberName:
    """A member as the pages show one: the name only."""
    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name


def shown_entries(entry_list: list, held: list | None = None) -> list[ShownEntry]:
    """The entries as shown; `held` (entries as shown before) itself when they show the same."""
    out = [ShownEntry(e) for e in entry_list]
    if held and shown_only(held) and len(held) == len(out) and all(
            a.shown() == b.shown() for a, b in zip(held, out)):
        return held
    return out


def shown_only(entry_list: list) -> bool:
    """Whether the entries are held as shown (ShownEntry), not as read."""
    return bool(entry_list) and type(entry_list[0]) is ShownEntry


class PublicEntry(Mapping):
    """What the pages show of an entry ({"name", "club", "members": its members' names}), read from the entry when
    a page reads it (issue 43: ~50 B an entry held, not a dict and a list of ~300 B); its repr is the dict's."""
    __slots__ = ("_entry",)
    _KEYS = ("name", "club", "members")

    def __init__(self, entry):
        self._entry = entry

    def __getitem__(self, key: str):
        if key == "name":
            return self._entry.name
        if key == "club":
            return self._entry.club
        if key == "members":
            return [m.name for m in self._entry.members]
        raise KeyError(key)

    def __iter__(self):
        return iter(self._KEYS)

    def __len__(self) -> int:
        return 3

    def __repr__(self) -> str:   # (an entry page's inputs are worked out from it)
        return repr(dict(self))


class _NameMap(Mapping):
    """{entry id: {"name": its name}} for readable reasons, from the names (one dict an entry not held)."""
    __slots__ = ("_names",)

    def __init__(self, names: dict):
        self._names = names

    def __getitem__(self, eid: str) -> dict:
        return {"name": self._names[eid]}

    def __contains__(self, eid) -> bool:
        return eid in self._names

    def __iter__(self):
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


def _moved_entries(before: list[dict], outs: list[dict]) -> set[str]:
    """The entries whose rows a re-worded round changed (the same round objects: none)."""
    dirty: set[str] = set()
    for old, new in zip(before, outs, strict=True):
        if old is new:
            continue
        moved = _moved_in_round(old, new)
        if moved is not None:
            dirty |= moved
            continue
        a, b = round_by_entry(old), round_by_entry(new)
        dirty.update(e for e in a.keys() | b.keys() if [p for _, p in a.get(e, ())] != [p for _, p in b.get(e, ())])
    return dirty


def _moved_in_round(old: dict, new: dict) -> set[str] | None:
    """The entries whose rows differ between two wordings of a round, told from its table rows that are not the
    same objects (a row kept is its table's words kept: the same history rows and parts), and the new wording's
    rows by entry made from the old's with theirs (after one result: two entries, not 100,000 compared and
    mapped again). None when that cannot tell (another round, other byes, many tables re-worded)."""
    rows_a, rows_b = old["round"]["tables"], new["round"]["tables"]
    if (old.get("by_entry") is None or "by_entry" in new or len(rows_a) != len(rows_b)
            or old["round"]["number"] != new["round"]["number"]
            or [b["entry_id"] for b in old["round"]["byes"]] != [b["entry_id"] for b in new["round"]["byes"]]):
        return None
    changed = {i for i, (x, y) in enumerate(zip(rows_a, rows_b)) if x is not y}
    if len(changed) * 2 > len(rows_b):
        return None
    now: dict[str, list[tuple]] = {e["entry_id"]: [] for i in changed for e in rows_a[i]["sides"]}
    at = 0
    history, parts = new["history"], new["parts"]
    for i, row in enumerate(rows_b):   # the changed tables' rows in the new wording's history (table by table)
        width = len(row["sides"])
        if i in changed:
            for k in range(at, at + width):
                now.setdefault(history[k][0], []).append((history[k][1], parts[k][1]))
        at += width
    by_entry = old["by_entry"]
    seated = {}
    for i in changed:
        for e in rows_a[i]["sides"]:
            seated[e["entry_id"]] = seated.get(e["entry_id"], 0) + 1
    if any(len(by_entry.get(e, ())) != seated.get(e, 0) for e in now):   # also elsewhere in the round: mapped whole
        return None
    dirty = {e for e, rows in now.items() if [p for _, p in rows] != [p for _, p in by_entry.get(e, ())]}
    new["by_entry"] = {**by_entry, **{e: rows for e, rows in now.items() if rows}}
    for e in [e for e, rows in now.items() if not rows]:
        new["by_entry"].pop(e, None)
    return dirty


def _histories(outs: list[dict]) -> tuple[dict, dict, dict]:
    """Every entry's history rows and entry-page parts, round by round (and an empty digest per entry, to fill)."""
    history: dict = {}
    parts: dict = {}
    for out in outs:
        for (e, item), (_, part) in zip(out["history"], out["parts"], strict=True):
            history.setdefault(e, []).append(item)
            parts.setdefault(e, []).append(part)
    return history, parts, {}


def _histories_of(todo: set[str], outs: list[dict], history: dict, parts: dict) -> None:
    """Those entries' history rows and parts worked out again (the others' stand)."""
    if not todo:
        return
    maps = [round_by_entry(out) for out in outs]
    for e in todo:
        pairs = [x for m in maps for x in m.get(e, ())]
        history[e] = [item for item, _ in pairs]
        parts[e] = [part for _, part in pairs]


def round_by_entry(out: dict) -> dict[str, list[tuple]]:
    """A worded round's history rows and entry-page parts by entry (worked out once per worded round)."""
    m = out.get("by_entry")
    if m is None:
        m = out["by_entry"] = {}
        for (e, item), (_, part) in zip(out["history"], out["parts"], strict=True):
            m.setdefault(e, []).append((item, part))
    return m


CORRECTING = ("result_entered", "result_changed", "result_corrected", "result_overridden", "dispute_settled",
               "pairing_edited", "forfeit_recorded", "force_majeure")


def round_site(event, rules, doc: dict, tables: list[dict], names: dict, name_map: dict, tournament,
                memo: dict | None = None) -> dict:
    """One round as its pages show it: its worded tables, each entry's history row and entry-page part, and a
    digest of its results (for the feed's version). `memo`: each table's words by its number, reused while the
    table is the same object (after one result, one table of 5,000 is worded again, not the round)."""
    scoring = event.config.stages[doc["stage"]].scoring
    pnames = list(rules.point_names[scoring.method])
    if doc.get("format") == "knockout":   # issue 23: a knockout's win 1 / loss 0 is not 小组积分; the winner shows
        pnames = [p for p in pnames if p != "group_points"] or pnames
    memo = {} if memo is None else memo
    patched = _tables_patched(doc, tables, names, name_map, pnames, memo)
    if patched is not None:
        rtables, history, parts, pieces, third = patched
    else:
        rtables, history, parts, pieces = [], [], [], []
        for t in tables:
            hit = memo.get(t["number"])
            if hit is None or hit[0] is not t:
                hit = (t, *table_site(doc, t, names, name_map, pnames))
                memo[t["number"]] = hit
            _, rt, hist, part, piece = hit
            rtables.append(rt)
            history.extend(hist)
            parts.extend((e, part) for e, _ in hist)
            pieces.append(piece)
        third = any((t.get("why") or {}).get("third_place") for t in tables)
    widths = {len(t["sides"]) for t in tables} if patched is None else {memo["_last"][5]}
    memo["_last"] = (tables, rtables, history, parts, pieces, widths.pop() if len(widths) == 1 else None,
                     len(history), third)
    # a bye the engine gave no rule for is the format's (a round robin's is its schedule, not "ranked last")
    byes = [{"entry_id": b, "name": names.get(b, "?"), "reason": r,
             "why": (doc.get("bye_why") or {}).get(b) or bye_rule(doc)} for b, r in doc.get("byes", [])]
    for b in byes:
        parts.append((b["entry_id"], f"bye {doc['number']}"))
        history.append((b["entry_id"], {"round": doc["number"], "bye": True, "status": "confirmed",
                                        "opponents": [], "points": {}, "point_names": []}))
    early = [{"name": names.get(e, "?"), "place": info.get("place", 1), "from_round": info.get("from_round"),
              "average": info.get("average", {}), "why": early_why(info)}
             for e, info in (doc.get("early_finish") or {}).items()]
    rnd = {"number": doc["number"], "status": doc["status"], "seed": doc["seed"], "tables": rtables,
           "round_name": doc.get("round_name"),   # a knockout round by its size (决赛, 半决赛 …)
           "third_place": third,
           "byes": byes, "early_finish": early, "starts_at": doc.get("starts_at"), "ends_at": doc.get("ends_at"),
           "point_names": pnames,
           "starts": local_time(doc["starts_at"], tournament.timezone) if doc.get("starts_at") else "",
           "ends": local_time(doc["ends_at"], tournament.timezone, "%H:%M") if doc.get("ends_at") else ""}
    digest = json.dumps([doc["number"], doc["status"]]) + "".join(pieces)
    return {"round": rnd, "history": history, "parts": parts, "digest": digest}


_NOTHING: dict = {}   # a worded row's empty `why` and `points`, shared by most rows: never written to


def _tables_patched(doc: dict, tables: list[dict], names: dict, name_map: dict, pnames: list[str], memo: dict):
    """The round's worded tables as the last wording with this memo had them (`memo["_last"]`), those whose table
    is not the same object worded again in their places (after one result: one of 50,000, the rest copied, not
    visited); None when that cannot be (no last wording, other tables, many changed, tables of unlike sizes).
    (rows, history rows, entry-page parts, digest pieces, whether a table is for third place)."""
    last = memo.get("_last")
    if last is None or last[5] is None or len(last[0]) != len(tables):
        return None
    was, rows, history, parts, pieces, width, size, third = last
    changed = [i for i, (a, b) in enumerate(zip(was, tables)) if a is not b]
    if len(changed) * 2 > len(tables) or any(tables[i]["number"] != was[i]["number"]
                                             or len(tables[i]["sides"]) != width for i in changed):
        return None
    rows, pieces, history, parts = list(rows), list(pieces), history[:size], parts[:size]
    for i in changed:
        t = tables[i]
        hit = memo.get(t["number"])
        if hit is None or hit[0] is not t:
            hit = memo[t["number"]] = (t, *table_site(doc, t, names, name_map, pnames))
        _, rows[i], hist, part, pieces[i] = hit
        history[i * width:(i + 1) * width] = hist
        parts[i * width:(i + 1) * width] = [(e, part) for e, _ in hist]
    if third:   # a third-place table among them (a knockout's few): looked for again
        third = any((t.get("why") or {}).get("third_place") for t in tables)
    else:
        third = any((tables[i].get("why") or {}).get("third_place") for i in changed)
    return rows, history, parts, pieces, third


# json.dumps(x, sort_keys=True, default=str), without a new encoder for each of 45,000 tables
_PIECE_JSON = json.JSONEncoder(sort_keys=True, default=str)


def table_site(doc: dict, t: dict, names: dict, name_map: dict, pnames: list[str]):
    """One table worded: (its row, its sides' history rows, the entry pages' part, its digest piece)."""
    sides = [SideRow(s["entry_id"], names.get(s["entry_id"], "?"), s["seats"]) for s in t["sides"]]
    shown = t["status"] in ("entered", "confirmed", "forfeit")
    # most tables have no reason, penalties or rooms: one empty value for all of them (read only; issue 43)
    row = TableRow(t["number"], sides, t["status"], readable(t.get("reason", ""), name_map), t.get("why") or _NOTHING,
                   pnames, t.get("edited"), (penalties_of_table(t, names) if shown else None) or (),
                   t.get("points") if shown else _NOTHING, (room_levels(t, sides) if shown else None) or ())
    # Each entry page is keyed by its inputs; a table's part is worded once here for both sides, and held as its
    # digest (40 characters, not the ~200 of its words: one a table of every round, 150,000 at 100,000 entries)
    levels = deal_levels(t, sides) if shown else None
    part = hashlib.sha1(repr((doc["number"], t["status"], sides, t.get("points") if shown else None, pnames,
                              levels)).encode()).hexdigest()
    points = t.get("points", {}) if shown else None
    history = [(s["entry_id"], HistoryRow(doc["number"], t["status"], sides, points, pnames, levels, s["entry_id"]))
               for s in sides]
    piece = _PIECE_JSON.encode([t["number"], t["status"], row["points"], [s["entry_id"] for s in sides]])
    return row, history, part, piece


class _SlotRow(Mapping):
    """A worded row read like the dict it stands for (its keys in order, its repr: the pages' inputs are digests
    of reprs), held in slots (issue 43: a table's row and each side's are held for every table of every round
    the publisher keeps, 150,000 tables at 100,000 entries: ~0.3 KB a table less than as dicts). Read only."""
    __slots__ = ()
    FIELDS: tuple[str, ...] = ()
    _KEYS: frozenset = frozenset()

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        cls._KEYS = frozenset(cls.FIELDS)

    def __getitem__(self, key: str):
        if key in self._KEYS:   # (no other attribute: a Mapping's methods are no keys)
            return getattr(self, key)
        raise KeyError(key)

    def __iter__(self):
        return iter(self.FIELDS)

    def __len__(self) -> int:
        return len(self.FIELDS)

    def __repr__(self) -> str:
        return repr({k: getattr(self, k) for k in self.FIELDS})


class SideRow(_SlotRow):
    """A side of a worded table: {"entry_id", "name", "seats"}."""
    FIELDS = ("entry_id", "name", "seats")
    __slots__ = FIELDS

    def __init__(self, entry_id, name, seats):
        self.entry_id, self.name, self.seats = entry_id, name, seats


class TableRow(_SlotRow):
    """A worded table as its round page shows it."""
    FIELDS = ("number", "sides", "status", "reason", "why", "point_names", "edited", "penalties", "points", "rooms")
    __slots__ = FIELDS

    def __init__(self, number, sides, status, reason, why, point_names, edited, penalties, points, rooms):
        self.number, self.sides, self.status, self.reason, self.why = number, sides, status, reason, why
        self.point_names, self.edited, self.penalties, self.points, self.rooms = (point_names, edited, penalties,
                                                                                  points, rooms)


class HistoryRow(Mapping):
    """One side's row of a table on its entry page (a history row: round, bye, status, opponents, points,
    point_names, levels), read from the table's worded sides when the page reads it. Issue 43: one for each side
    of every table of every round is held (300,000 at 100,000 entries × 3 rounds); as a dict of seven keys and a
    list it was ~430 B, as this ~90 B."""
    __slots__ = ("_number", "_status", "_sides", "_points", "_pnames", "_levels", "_me")
    _KEYS = ("round", "bye", "status", "opponents", "points", "point_names", "levels")

    def __init__(self, number, status, sides, points, pnames, levels, me):
        self._number, self._status, self._sides, self._points = number, status, sides, points
        self._pnames, self._levels, self._me = pnames, levels, me

    def __getitem__(self, key: str):
        if key == "round":
            return self._number
        if key == "bye":
            return False
        if key == "status":
            return self._status
        if key == "opponents":
            return [o for o in self._sides if o["entry_id"] != self._me]
        if key == "points":   # the table's points (shown ones only) of this side
            return self._points.get(self._me, {}) if self._points is not None else {}
        if key == "point_names":
            return self._pnames
        if key == "levels":
            return mine_first(self._levels, self._sides, self._me) if self._levels else None
        raise KeyError(key)

    def __iter__(self):
        return iter(self._KEYS)

    def __len__(self) -> int:
        return len(self._KEYS)


def lots_as_order(rows) -> None:
    """A published draw of lots shows as the order it gave (1, 2, …) among the entries it separated, and only
    where it decided something; never the raw number."""
    k = 0
    while k < len(rows):
        if "lots" not in rows[k].tiebreaks:
            k += 1
            continue
        j = k
        while j + 1 < len(rows) and "lots" in rows[j + 1].tiebreaks and rows[j + 1].points == rows[k].points:
            j += 1
        group = rows[k:j + 1]
        for order, row in enumerate(group, start=1):
            if len(group) > 1:
                row.tiebreaks = {**row.tiebreaks, "lots": order}
            else:
                row.tiebreaks = {key: v for key, v in row.tiebreaks.items() if key != "lots"}
        k = j + 1


def penalties_of_table(table: dict, names: dict[str, str], lang: str = "zh") -> list[dict]:
    """A table's penalty records (rules.md §8), as entered with its result: kind, offender, deal or game, referee.
    Guandan and Gouji carry them on the result, Tractor on each deal."""
    result = table.get("result")
    if not result:   # most tables (45,000 of a 10,000-entry event's): nothing to look at
        return []
    from ..glossary import term
    found = [dict(p) for p in result.get("penalties") or [] if isinstance(p, dict)]
    for i, deal in enumerate(result.get("deals") or [], start=1):
        if isinstance(deal, dict):
            found.extend({**p, "deal": i} for p in deal.get("penalties") or [] if isinstance(p, dict))
    out = []
    for p in found:
        where = (f"第 {p['deal']} 副" if p.get("deal") else f"第 {p['game']} 局" if p.get("game") else "")
        text = " · ".join(x for x in (names.get(p.get("entry_id", ""), ""), term("penalty", str(p.get("kind", "")), lang),
                                      where) if x)
        out.append({"kind": p.get("kind"), "name": names.get(p.get("entry_id", ""), ""), "deal": p.get("deal"),
                    "game": p.get("game"), "referee": str(p.get("referee") or ""), "text": text})
    return out


def early_why(info: dict) -> dict | None:
    """rules.md §9, why an entry finished early, for the round page: its points, its worst total, the most any
    other can reach (None for one decided before the reasons were kept)."""
    if "worst" not in info:
        return None
    return {"score": f"{info['score']:g}", "worst": f"{info['worst']:g}", "best": f"{info['best_other']:g}",
            "left": info["rounds_left"]}


def short_result(snapshot, names: dict[str, str] | None = None) -> str:
    """A result in a corrections row, each side named: "东兰一队 13 / 2 · 河池二队 7 / 0"."""
    if not snapshot:
        return ""
    pts = snapshot.get("points") or {}
    names = names or {}
    return " · ".join(" ".join(x for x in (names.get(e, ""), " / ".join(f"{v:g}" for v in p.values())) if x)
                      for e, p in pts.items())


def layout_text(snapshot, names: dict[str, str]) -> str:
    """A pairing edit's tables in a corrections row: "3: 甲 – 乙 · 5: 丙 – 丁"."""
    if not snapshot:
        return ""
    return " · ".join(f"{k}: " + " – ".join(names.get(e, "?") for e in es) for k, es in (snapshot.get("tables") or {}).items())


def local_time(iso: str, tz: str, fmt: str = "%m-%d %H:%M") -> str:
    try:
        return datetime.fromisoformat(iso).astimezone(ZoneInfo(tz)).strftime(fmt)
    except ValueError:
        return iso


def pages(rows: list, size: int) -> list[list]:
    """A list split into pages of `size` (one page, however short or empty, when it fits)."""
    return [rows] if len(rows) <= size else [rows[i:i + size] for i in range(0, len(rows), size)]


def page_name(base: str, i: int) -> str:
    """Page 1 keeps the page's old name (standings.html, round-3.html); the others are standings-2.html …"""
    return f"{base}.html" if i == 1 else f"{base}-{i}.html"


def pager(pages: list[dict], i: int) -> dict:
    return {"pages": pages, "i": i}


def round_pages(r: dict, size: int, t) -> tuple[list[dict], list[dict]]:
    """A round's rows (its tables, then its byes) in pages: (the pager's links, each page's slice of the round)."""
    tables, byes = r["tables"], r["byes"]
    total = len(tables) + len(byes)
    if total <= size:
        return [{"n": 1, "href": f"round-{r['number']}.html", "label": ""}], [r]
    links, slices = [], []
    for i, a in enumerate(range(0, total, size), start=1):
        b = min(total, a + size)
        part = {**r, "tables": tables[a:b], "byes": byes[max(0, a - len(tables)):max(0, b - len(tables))]}
        if part["tables"]:
            first, last = part["tables"][0]["number"], part["tables"][-1]["number"]
            label = t("tables_from_to", a=first, b=last) if first != last else t("table_n", n=first)
        else:
            label = t("bye")
        links.append({"n": i, "href": page_name(f"round-{r['number']}", i), "label": label})
        slices.append(part)
    return links, slices


def bye_rule(doc: dict) -> dict:
    """The rule a bye follows when the engine gave none: the format's (as services/rounds.py words it)."""
    return {"rule": "knockout" if doc["format"] == "knockout" else "schedule" if doc["format"] == "round_robin"
            else "lowest_without_bye"}


def page_inputs(tournament, event, data: dict, ev_warm: dict, size: int) -> dict:
    """The digest of what each standings and round page shows, worked out once a publish for every language
    (and for a round, once while its worded rows stay the same objects: finished rounds, not every result).
    `size`: the rows a page holds."""
    # the tournament and event as the page's header and link card show them
    page_of = {"t": tournament.model_dump_json(), "e": data["event"], "c": event.config.model_dump_json()}
    memo = ev_warm.setdefault("page_inputs", {})
    rounds = {}
    rows = ev_warm.setdefault("row_reprs", {})   # the latest round's tables as digested: (round, table) → (row, its digest)
    for r in data["rounds"]:
        hit = memo.get(r["number"])
        if hit is None or hit[0] is not r or hit[1] != (size, repr(page_of)):
            # the open round's rows kept as digested (its results come one by one); a closed round's are not
            # (~1 KB a table: a correction digests its round again)
            latest = r is data["rounds"][-1] and r["status"] != "closed"
            if latest and any(n != r["number"] for n, _ in rows):
                rows.clear()
            hit = memo[r["number"]] = (r, (size, repr(page_of)),
                                       _round_digests(r, page_of, size, rows if latest else None))
            if not latest and any(n == r["number"] for n, _ in rows):
                rows.clear()
        rounds[r["number"]] = hit[2]
    chunks_ = pages(data["standings"], size)
    head = repr([page_of, page_of_event(data), data["final"], data.get("open_appeals", 0), len(chunks_)])
    hit = ev_warm.get("standings_inputs")
    if hit and hit[0] is data["standings"] and hit[1] == (size, head):
        standings = hit[2]   # the same rows (a big field's standings during a round)
    else:
        standings = [hashlib.sha1((head + repr(chunk)).encode()).hexdigest() for chunk in chunks_]
        ev_warm["standings_inputs"] = (data["standings"], (size, head), standings)
    corrections = hashlib.sha1(repr([page_of, data["corrections"], data["appeals"], data["chain"]["count"],
                                     data["chain"]["head"]]).encode()).hexdigest()
    return {"rounds": rounds, "standings": standings, "corrections": corrections}


def page_of_event(data: dict) -> list:
    """What a standings page shows besides its rows (the columns), for its inputs' digest."""
    return [data["event"], data["point_names"], data["tiebreak_names"], data["has_prizes"], data["has_decided"],
            data["knockout"]]


def _round_digests(r: dict, page_of: dict, size: int, rows: dict | None) -> list[str]:
    """Each page of a round: the digest of what it shows. `rows`: the latest round's rows as digested, each row's
    digest kept while it is the same object (after one result: one of 5,000 again); None for a finished round."""
    def row(tb):   # a row's digest, not its repr (~1.2 KB a table of the latest round held otherwise, issue 43)
        if rows is None:
            return hashlib.sha1(repr(tb).encode()).hexdigest()
        kept = rows.get((r["number"], tb["number"]))
        if kept is None or kept[0] is not tb:
            kept = rows[(r["number"], tb["number"])] = (tb, hashlib.sha1(repr(tb).encode()).hexdigest())
        return kept[1]

    slices = round_pages(r, size, lambda key, **kw: "")[1]
    heads = [repr([page_of, {k: v for k, v in part.items() if k != "tables"}, len(slices)]) for part in slices]
    # the latest round's pages as last digested: a page whose head is the same and whose rows are the same
    # objects keeps its digest (after one result: one page of a hundred digested again, not 50,000 rows joined)
    last = rows.get((r["number"], "pages")) if rows is not None else None
    moved: set[int] = set()
    if last is not None and last[0] == size and len(last[1]) == len(r["tables"]) and len(last[2]) == len(heads):
        moved = {i // size for i, (a, b) in enumerate(zip(last[1], r["tables"])) if a is not b}
    else:
        last = None
    digests = [last[3][k] if last is not None and k not in moved and last[2][k] == head else
               hashlib.sha1((head + "".join(row(tb) for tb in part["tables"])).encode()).hexdigest()
               for k, (head, part) in enumerate(zip(heads, slices))]
    if rows is not None:
        rows[(r["number"], "pages")] = (size, r["tables"], heads, digests)
    return digests


def deal_levels(table: dict, sides: list[dict]) -> list[list[int]] | None:
    """Guandan: both sides' levels after each deal, as the table played them (from the scored deals)."""
    log = (table.get("details") or {}).get("deals")
    if not log or len(sides) != 2 or not all(isinstance(d, dict) and d.get("levels") for d in log):
        return None
    return [list(d["levels"]) for d in log]


def mine_first(levels: list[list[int]], sides: list[dict], me: str) -> list[list[int]]:
    return levels if sides[0]["entry_id"] == me else [list(reversed(x)) for x in levels]


def room_levels(table: dict, sides: list[dict]) -> list[dict]:
    """A Guandan team match (集体赛): each room's final levels, home team first ("10 : 6"; A passed → "过A")."""
    rooms = (table.get("details") or {}).get("rooms") or {}
    out = []
    for room in ("open", "closed"):
        info = rooms.get(room)
        if not info:
            continue
        shown = ["过A" if info.get("passed_a") == s["entry_id"] else str(info["levels"].get(s["entry_id"], "")) for s in sides]
        out.append({"room": room, "levels": " : ".join(shown)})
    return out


def results_card(share: dict, datas: list[dict], lang: str) -> dict:
    """Once an event has started its link card shows results, not the registration poster (issue 39: a shared
    standings page still read "扫码报名 · ¥100/人 · 截止…"): each started event's leaders, no poster image."""
    t = translator(lang)
    lines = []
    for d in datas:
        if not d["rounds"]:
            continue
        top = " ".join(f"{r['rank']}. {r['name']}" for r in d["standings"][:3])
        n = len(d["rounds"])
        head = t("final") if d["final"] else t("round", n=n)
        lines.append(f"{d['event']['name']} · {head}" + (f"：{top}" if lang == "zh" and top else f": {top}" if top else ""))
    if not lines:
        return share
    return {**share, "description": " | ".join(lines[:4]), "image": None}


def entry_maps(entry_list: list, cache: dict) -> tuple[dict, dict, dict]:
    """(entries by id, names by id, {id: {"name": …}} for readable reasons), worked out again only for other entries
    (by event: not again for 10,000 of them after each result). Sets the names' token the worded rounds are kept by."""
    hit = cache.get("entry_maps")
    if hit and hit[0] is entry_list:
        entries, names, name_map = hit[1]
    else:
        entries = {e.id: e for e in entry_list}
        names = {e: x.name for e, x in entries.items()}
        name_map = _NameMap(names)
        cache["entry_maps"] = (entry_list, (entries, names, name_map))
    if cache.get("names_token") is None:
        cache["names_token"] = hashlib.sha1(repr(sorted(names.items())).encode()).hexdigest()
    return entries, names, name_map


def word_rounds(event, tournament, rules, all_rounds: list, names: dict, name_map: dict, cache: dict) -> list[dict]:
    """Each round as its pages show it (round_site), kept while its document, its tables and the names are the
    same objects; a round read again is worded again table by table, each table kept while it is the same."""
    outs = []
    worded = cache.setdefault("worded", {})
    token = cache["names_token"]
    for doc, tables_ in all_rounds:
        key = (doc["stage"], doc["number"])
        hit = worded.get(key)
        if hit and hit[0] is doc and hit[1] is tables_ and hit[2] == token:
            out = hit[3]
        else:   # a round read again (or first seen): worded once, kept while its document and tables stay the same
            tmemo = cache.setdefault("table_words", {})
            m = tmemo.get(key)
            if m is None or m[0] is not doc or m[1] != token:
                tmemo[key] = (doc, token, {})   # the table memo holds for one document and names
            out = round_site(event, rules, doc, tables_, names, name_map, tournament, tmemo[key][2])
            if doc.get("status") == "closed":   # its tables change only by a correction: not kept table by table
                del tmemo[key]                  # (~0.5 KB a table; a correction words its round again)
            worded[key] = (doc, tables_, token, out)
        outs.append(out)
    return outs


def correction_rows(kept: dict, seq_of: dict, names: dict, tz: str) -> list[dict]:
    """The corrections page's rows from the audit records that can show there (by id, so in time order): penalties
    entered with a result (each once, however often re-entered), pairing edits with their published reason, and
    corrections, overrides, forfeits, force majeure and settled disputes."""
    from ..services.principals import display_who   # a pure helper: 'staff:<id>:王裁判:scorer' → '王裁判（记分员）'
    corrections: list[dict] = []
    for a in (kept[k] for k in sorted(kept)):
        who, seq, at = display_who(a.get("who", "")), seq_of.get(a["id"]), local_time(a["at"], tz)
        if a["action"] in ("result_entered", "result_changed", "result_corrected", "result_overridden", "dispute_settled"):
            for pen in penalties_of_table({"result": (a.get("after") or {}).get("result")}, names):
                if not any(x["kind"] == "penalty" and x["round"] == a.get("round") and x["table"] == a.get("table")
                           and x["after"] == pen["text"] for x in corrections):
                    corrections.append({"at": at, "round": a.get("round"), "table": a.get("table"), "before": "",
                                        "after": pen["text"], "penalty": pen, "reason": "", "kind": "penalty",
                                        "who": who, "seq": seq})
        if a["action"] == "pairing_edited":
            corrections.append({"at": at, "round": a.get("round"),
                                "table": "、".join(str(k) for k in (a.get("after") or {}).get("tables", {})),
                                "before": layout_text(a.get("before"), names), "after": layout_text(a.get("after"), names),
                                "reason": a.get("reason", ""), "kind": a["action"], "who": who, "seq": seq})
        if a["action"] in ("result_corrected", "result_overridden", "forfeit_recorded", "force_majeure", "dispute_settled"):
            corrections.append({"at": at, "round": a.get("round"), "table": a.get("table"),
                                "before": short_result(a.get("before"), names), "after": short_result(a.get("after"), names),
                                "reason": a.get("reason", ""), "kind": a["action"], "who": who, "seq": seq})
    return corrections


def shows_in_corrections(a: dict, names: dict) -> bool:
    """Whether an audit record can show on the corrections page (most are plain results: they do not)."""
    if a["action"] not in CORRECTING:
        return False
    return a["action"] not in ("result_entered", "result_changed") or bool(penalties_of_table(
        {"result": (a.get("after") or {}).get("result")}, names))


def public_appeals(appeals: list[dict], names: dict) -> list[dict]:
    """Appeals on the public page: names, outcome and ruling only (never the text a side wrote or who paid)."""
    return [{"round": x["round"], "table": x["table"], "name": names.get(x["entry_id"], ""), "status": x["status"],
             "outcome": x.get("outcome"), "ruling": x.get("ruling", "")}
            for x in sorted(appeals, key=lambda x: x["lodged_at"])]


def event_page_of(tournament, event) -> str:
    """What every entry page of an event shows of the tournament and the event (part of their inputs)."""
    return repr((tournament.name, tournament.venue, str(tournament.starts_on), str(tournament.ends_on),
                 event.id, event.config.name, event.config.game))


def shown_standings(standings, cache: dict) -> tuple[Any, list[dict]]:
    """(the standings without their rows, their rows as published): a draw of lots as its order. The rows are held
    once, as published (issue 43 item 2: not also as models, ~1 KB an entry): the first object returned stands for
    the standings from then on (the publisher keeps it), and while it is given back the rows are not dumped again
    (a big field's standings, during a round)."""
    if not standings:
        return standings, []
    hit = cache.get("rows_of")
    if hit and hit[0] is standings:
        return hit
    lots_as_order(standings.standings)
    shown_rows = [ShownRow.of(r) for r in standings.standings]
    cache["rows_of"] = (standings.model_copy(update={"standings": []}), shown_rows)
    return cache["rows_of"]


class ShownRow(Mapping):
    """A standings row as published: the row model's fields (its `model_dump()`'s keys, in its order, and its
    repr), held in slots that share the model's values (issue 43: ~150 B a row, not a dict of 15 keys and copies
    of its points and tie-breaks, ~0.9 KB: 85 MiB at 100,000 entries). Read only once made."""
    FIELDS = ("rank", "entry_id", "name", "club", "points", "tiebreaks", "played", "byes", "prize", "forfeited",
              "decided_by", "decided_values", "reached", "out_in_stage", "disqualified")
    __slots__ = FIELDS

    @classmethod
    def of(cls, row) -> ShownRow:
        """From a StandingRow model (its values themselves, not copies: the model is let go)."""
        out = cls.__new__(cls)
        values = row.__dict__
        for k in cls.FIELDS:
            object.__setattr__(out, k, values[k])
        return out

    def __getitem__(self, key: str):
        return _SHOWN_ROW_SLOTS[key].__get__(self)   # (a KeyError for any other key)

    def __iter__(self):
        return iter(self.FIELDS)

    def __len__(self) -> int:
        return len(self.FIELDS)

    def __repr__(self) -> str:   # the dict's (the pages' inputs, the board's version are digests of reprs)
        return repr(dict(self))


_SHOWN_ROW_SLOTS = {k: ShownRow.__dict__[k] for k in ShownRow.FIELDS}   # each field's slot (its value's reader)


@dataclass(frozen=True)
class EventParts:
    """An event's page data, worked out: what `event_data` puts together."""
    event: Any
    rules: Any
    state: dict
    outs: list            # word_rounds
    entries: dict         # by id
    names: dict
    standings: Any        # StandingsOut or None
    prizes: Any           # PrizesOut or None
    bonuses: Any          # BonusesOut or None (Dou Dizhu)
    corrections: list
    chain: dict           # chain_view
    appeals: list         # public_appeals
    places: dict          # services/charts_data.places_by_round
    entry_pages: tuple    # entry_pages_data
    rankings: list = ()   # the rankings counting the event (issue 42): linked from its standings


def _columns(rules, standings, ko: bool) -> tuple[list[str], list[str]]:
    """(the points' columns, the tie-breaks' columns) a standings page shows."""
    if not standings:
        return [], []
    # a knockout stage's 小组积分 (win 1 / loss 0) says nothing: how far each went does (the `reached` column)
    points = [p for p in rules.point_names[standings.method] if not (ko and p == "group_points")]
    # the lots' draw value is no figure a reader can use ("抽签决定" says a tie went to the lots)
    tiebreaks = [k for k in standings.tiebreaks if k not in rules.point_names.get(standings.method, ())
                 and not (ko and k == "group_points") and k != "lots"]
    return points, tiebreaks


def _version(p: EventParts, rows: list[dict], cache: dict | None = None) -> str:
    """The event feed's version: its rounds' results, the standings' order, the corrections and appeals. `cache`:
    the rounds' hash kept after each worded round while they are the same objects (a result re-words the open
    round: the closed ones are not hashed again) and the standings' order as JSON while the rows are the same
    (a big field's, through a round): the same text as dumping it whole."""
    cache = {} if cache is None else cache
    kept, chain = cache.get("version_rounds") or [], []
    h, same = hashlib.sha1(), True
    for i, out in enumerate(p.outs):
        same = same and i < len(kept) and kept[i][0] is out   # (every round before it the same too)
        if same:
            h = kept[i][1].copy()
        else:
            h.update(out["digest"].encode())
        chain.append((out, h.copy()))
    cache["version_rounds"] = chain
    hit = cache.get("version_rows")
    if hit is None or hit[0] is not rows:
        hit = cache["version_rows"] = (rows, json.dumps([(r["entry_id"], r["rank"]) for r in rows], sort_keys=True,
                                                        default=str))
    text = "[" + ", ".join([json.dumps(h.hexdigest()), hit[1], json.dumps(len(p.corrections)),
                            json.dumps(p.appeals, sort_keys=True, default=str)]) + "]"
    return hashlib.sha1(text.encode()).hexdigest()[:16]


def _knockout(event, standings) -> bool:
    """Whether the standings are a knockout stage's."""
    stages = event.config.stages
    return bool(standings) and 0 < standings.stage <= len(stages) and stages[standings.stage - 1].format == "knockout"


def _prizes_shown(p: EventParts, waiting: int) -> dict | None:
    """The final prize list (with each team's players), provisional while an appeal is open; None before."""
    if not (p.prizes and p.prizes.final):
        return None
    return {**with_players(p.prizes.model_dump(), p.entries), "provisional": waiting > 0, "open_appeals": waiting}


def event_data(p: EventParts, cache: dict) -> dict:
    """What one event's pages show, from its parts worked out."""
    event = p.event
    standings, rows = shown_standings(p.standings, cache)
    version = _version(p, rows, cache)
    hit = cache.get("entry_counts")   # (kept while the entries are the same object: not 100,000 counted a result)
    if hit is None or hit[0] is not p.entries:
        hit = cache["entry_counts"] = (p.entries, (sum(1 for x in p.entries.values() if x.status == "confirmed"),
                                                   sum(1 for x in p.entries.values() if x.status == "withdrawn")))
    counts = hit[1]
    ko = _knockout(event, standings)
    reached = ko or any(r["reached"] for r in rows)   # a multi-stage event's final ranking says where each went out
    # an appeal still open (待裁决) keeps the final places and prizes provisional, on every page that shows them
    final = bool(standings and standings.final)
    waiting = sum(1 for a in p.appeals if a["status"] == "lodged") if final else 0
    point_names, tiebreak_names = _columns(p.rules, standings, ko)
    public_entries, history, entry_inputs = p.entry_pages
    return {"event": {"id": event.id, "name": event.config.name, "game": event.config.game},
            "rankings": list(p.rankings),
            "rounds": [out["round"] for out in p.outs], "standings": rows,
            "final": final, "point_names": point_names,
            "tiebreak_names": tiebreak_names, "knockout": reached,
            "has_prizes": any(r["prize"] for r in rows), "has_decided": any(r["decided_by"] for r in rows),
            "histories": history, "corrections": p.corrections, "chain": p.chain,
            "appeals": p.appeals, "provisional": waiting > 0, "open_appeals": waiting,
            "prizes": _prizes_shown(p, waiting),
            "bonuses": p.bonuses.model_dump() if p.bonuses else None, "names": p.names, "version": version,
            "open_round": p.state.get("open_round", 0), "places": p.places,
            "entries": public_entries, "entry_inputs": entry_inputs,
            "places_chunks": places_chunks(len(public_entries)),
            "playing": counts[0], "withdrawn": counts[1]}
