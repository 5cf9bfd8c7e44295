"""Publishing: renders the tournament's static pages and feeds, and writes them to the sink.

Runs after every drawn round, confirmed result and correction (inline locally; from a queue in AWS when
PUBLISH_QUEUE_URL is set) and on demand. Only names and clubs appear: never a phone number or email.
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
from datetime import datetime
from functools import lru_cache
from itertools import islice
from zoneinfo import ZoneInfo

from markupsafe import Markup

from .. import errors
from ..bootstrap import Deps
from ..engine.games import game as game_rules
from ..publish.i18n import LANGS as PAGE_LANGS, prefix as lang_prefix, translator
from ..publish.render import render
from ..publish.failures import log_failure
from .beside import Beside
from .gc_pause import gc_paused
from .names import readable


log = logging.getLogger("cardgames.publish")
LANGS = tuple(PAGE_LANGS)   # zh at /t/, the others at /{lang}/t/ (publish/i18n.py)


def _sink(deps: Deps):
    if deps.publisher is not None:
        return deps.publisher
    from ..publish.sinks import default_sink
    return default_sink()


def event_site_data(deps: Deps, event, tournament, warm: dict | None = None,
                    tables: list[tuple[int, int, int]] | None = None) -> dict:
    from .reads import entries_known
    warm = {} if warm is None else warm
    cached = tables is not None and all(k in warm for k in ("entries", "state", "rounds", "revs"))
    if cached:
        entry_list, read = warm["entries"], None
    else:   # the entries read beside the rounds: the store works on one while this process parses the other
        from concurrent.futures import ThreadPoolExecutor
        with ThreadPoolExecutor(max_workers=1) as pool:
            later = pool.submit(deps.repos.entries.list, event.id)
            state = deps.repos.rounds.state(event.id)
            # the revs before the rounds: a write between the two reads makes the next publish re-read, never miss it
            revs = deps.repos.rounds.round_revs(event.id, state.get("rounds", []))
            read = (state, revs, deps.repos.rounds.rounds_for_publishing(event.id, state))
            entry_list = later.result()
    with entries_known(event.id, entry_list):   # the standings and charts read the same entries, not again
        return _event_site_data(deps, event, tournament, warm, tables if cached else None, entry_list, read)


def _event_site_data(deps: Deps, event, tournament, warm: dict, tables, entry_list, read) -> dict:
    """What one event's pages show. `warm`: this publisher's cache of the event (kept between publishes in this
    process: its entries, state, rounds and each round's worded rows); with `tables`, only those tables' results
    changed since the cache was filled (a result's publish: the event's other items are not read again)."""
    from .standings import bonuses, event_standings
    rules = game_rules(event.config.game)
    if tables is not None:
        state = warm["state"]
        all_rounds = _patched_rounds(deps, event.id, warm, tables)
    else:
        state, warm["revs"], all_rounds = read   # (event_site_data's reads)
        warm["names_token"] = None
    warm.update(entries=entry_list, state=state, rounds=all_rounds)
    hit = warm.get("entry_maps")
    if hit and hit[0] is entry_list:   # the same entries (by event): not worked out again for 10,000 of them
        entries, names, name_map = hit[1]
    else:
        entries = {e.id: e for e in entry_list}
        names = {e: x.name for e, x in entries.items()}
        name_map = {e: {"name": n} for e, n in names.items()}
        warm["entry_maps"] = (entry_list, (entries, names, name_map))
    if warm.get("names_token") is None:
        warm["names_token"] = hashlib.sha1(repr(sorted(names.items())).encode()).hexdigest()
    from ..config import get_settings
    from .prizes import event_prizes
    # A big field's standings (the engine's tie-breaks over every record: seconds at 10,000 entries) follow the
    # closed rounds: a result in the open round publishes its round, its entries and the feed, and the
    # standings move when the round closes (or a closed round's result is corrected).
    settings = get_settings()
    open_rounds = {(doc["stage"], doc["number"]) for doc, _ in all_rounds if doc and doc.get("status") == "open"}
    later = (tables is not None and len(entry_list) > settings.publish_live_standings_max
             and all((stage, n) in open_rounds for stage, n, _ in tables) and "standings" in warm)
    wanted = not later and bool(state.get("plans"))
    # a big field's standings worked out in a child beside the rounds' wording below (each ~1 s of a core)
    standings_job = Beside(lambda: event_standings(deps, event, state=state, rounds=all_rounds, entries=entry_list),
                           fork=wanted and len(entry_list) >= settings.publish_beside_min)
    try:
        rounds = []
        outs = []
        worded = warm.setdefault("worded", {})
        digests = []
        for doc, tables_ in all_rounds:
            key = (doc["stage"], doc["number"])
            hit = worded.get(key)
            if hit and hit[0] is doc and hit[1] is tables_ and hit[2] == warm["names_token"]:
                out = hit[3]
            else:   # a round read again (or first seen): worded once, kept while its document and tables stay the same
                tmemo = warm.setdefault("table_words", {})
                m = tmemo.get(key)
                if m is None or m[0] is not doc or m[1] != warm["names_token"]:
                    tmemo[key] = (doc, warm["names_token"], {})   # the table memo holds for one document and names
                out = _round_site(event, rules, doc, tables_, names, name_map, tournament, tmemo[key][2])
                worded[key] = (doc, tables_, warm["names_token"], out)
            rounds.append(out["round"])
            digests.append(out["digest"])
            outs.append(out)
        from .charts_data import places_by_round
        # after each closed round: the charts' data, kept in the publisher's own state beside the pages (a new
        # publisher process reads it instead of working out the standings once per closed round)
        closed_key = [(doc, tables_) for doc, tables_ in all_rounds if doc and doc.get("status") == "closed"]
        hit = warm.get("places_of")
        if hit and len(hit[0]) == len(closed_key) and all(a is c and b is d for (a, b), (c, d) in zip(hit[0], closed_key)) \
                and hit[1] == state.get("stage", 0):
            places = hit[2]   # the same closed rounds (the same objects): the same places
        else:
            saved = _saved_places(deps, tournament.id, event.id, warm)
            keep: dict = {}
            places = places_by_round(deps, event, state, all_rounds, saved, keep, memo=deps.publish_cache.places)
            if set(keep) != set(saved):
                _save_places(deps, tournament.id, event.id, keep)
                warm["places"] = keep
            warm["places_of"] = (closed_key, state.get("stage", 0), places)
        corrections = _corrections(deps, event, tournament, names, warm)
        chain = warm["chain_view"]
        # Appeals on the public page: names, outcome and ruling only (never the text a side wrote or who paid)
        appeals = [{"round": x["round"], "table": x["table"], "name": names.get(x["entry_id"], ""), "status": x["status"],
                    "outcome": x.get("outcome"), "ruling": x.get("ruling", "")}
                   for x in sorted(deps.repos.rounds.appeals(event.id), key=lambda x: x["lodged_at"])]
        bonus = bonuses(deps, event, rounds=all_rounds, entries=entry_list) if event.config.game == "doudizhu" else None
        page_of = repr((tournament.name, tournament.venue, str(tournament.starts_on), str(tournament.ends_on),
                        event.id, event.config.name, event.config.game))
        public_entries, history, entry_inputs = _entry_pages_data(warm, entry_list, entries, outs, places, page_of)
        # the standings last: worked out beside all of the above for a big field
        if later:
            standings, prizes = warm["standings"], warm["prizes"]
        else:
            standings = standings_job.result() if wanted else None
            prizes = (event_prizes(deps, event, state=state, rounds=all_rounds, entries=entry_list, standings=standings,
                                   appeals=appeals) if wanted else None)
            warm["standings"], warm["prizes"] = standings, prizes
        rows = standings.standings if standings else []
        hit = warm.get("rows_of")
        if hit and hit[0] is standings:
            shown_rows = hit[1]   # the standings as last published (a big field's, during a round): not dumped again
        else:
            _lots_as_order(rows)
            shown_rows = [r.model_dump() for r in rows]
            warm["rows_of"] = (standings, shown_rows)
        h = hashlib.sha1()
        for digest in digests:
            h.update(digest.encode())
        version = hashlib.sha1(json.dumps([h.hexdigest(), [(r.entry_id, r.rank) for r in rows], len(corrections), appeals],
                                          sort_keys=True, default=str).encode()).hexdigest()[:16]
        stages = event.config.stages
        ko = bool(standings) and 0 < standings.stage <= len(stages) and stages[standings.stage - 1].format == "knockout"
        reached = ko or any(r.reached for r in rows)   # a multi-stage event's final ranking says where each went out
        # an appeal still open (待裁决) keeps the final places and prizes provisional, on every page that shows them
        waiting = sum(1 for a in appeals if a["status"] == "lodged") if standings and standings.final else 0
        return {"event": {"id": event.id, "name": event.config.name, "game": event.config.game},
                "rounds": rounds, "standings": shown_rows, "final": bool(standings and standings.final),
                # a knockout stage's 小组积分 (win 1 / loss 0) says nothing: how far each went does (the `reached` column)
                "point_names": [p for p in (rules.point_names[standings.method] if standings else []) if not (ko and p == "group_points")],
                # the lots' draw value is no figure a reader can use ("抽签决定" says a tie went to the lots)
                "tiebreak_names": [k for k in (standings.tiebreaks if standings else []) if k not in rules.point_names.get(standings.method, ())
                                   and not (ko and k == "group_points") and k != "lots"], "knockout": reached,
                "has_prizes": any(r.prize for r in rows), "has_decided": any(r.decided_by for r in rows), "histories": history, "corrections": corrections, "chain": chain,
                "appeals": appeals, "provisional": waiting > 0, "open_appeals": waiting,
                "prizes": ({**_with_players(prizes.model_dump(), entries), "provisional": waiting > 0, "open_appeals": waiting}
                           if prizes and prizes.final else None),
                "bonuses": bonus.model_dump() if bonus else None, "names": names, "version": version,
                "open_round": state.get("open_round", 0), "places": places,
                "entries": public_entries, "entry_inputs": entry_inputs,
                "playing": sum(1 for x in entries.values() if x.status == "confirmed"),
                "withdrawn": sum(1 for x in entries.values() if x.status == "withdrawn")}

    finally:   # the caller failed before taking the standings: the child is not left behind
        standings_job.close()

def _with_players(prizes: dict, entries: dict) -> dict:
    """The prize list names a team's or pair's players beside its name (issue 39), names only."""
    for p in prizes["prizes"]:
        e = entries.get(p["entry_id"])
        members = [m.name for m in e.members] if e else []
        p["players"] = members if len(members) > 1 or (members and members[0] != p["name"]) else []
    return prizes


def _entry_pages_data(warm: dict, entry_list, entries: dict, outs: list[dict], places: dict, page_of: str):
    """What the entry pages show: (their entries, each one's history, one digest of its page's inputs per entry: the
    same string object while they stay the same, so the page's check is not worked out again). With the same entries,
    rounds and places but for some re-worded rounds, only the entries of the tables those rounds re-worded are
    worked out again (after one result: two of 10,000), not every entry's history and digest."""
    prev = warm.get("entry_pages")
    same = (prev is not None and prev["entries"] is entry_list and prev["places"] is places
            and prev["page_of"] == page_of and len(prev["outs"]) == len(outs))
    if same:
        dirty: set[str] = set()
        for old, new in zip(prev["outs"], outs):
            if old is new:
                continue
            a, b = _round_by_entry(old), _round_by_entry(new)
            dirty.update(e for e in a.keys() | b.keys() if [p for _, p in a.get(e, ())] != [p for _, p in b.get(e, ())])
        public_entries, history, parts, entry_inputs = prev["public"], prev["history"], prev["parts"], prev["inputs"]
        todo = dirty
    else:
        public_entries = {e: {"name": x.name, "club": x.club, "members": [m.name for m in x.members]}
                          for e, x in entries.items() if x.status in ("confirmed", "withdrawn", "disqualified")}
        history, parts, entry_inputs = {}, {}, {}
        todo = None
    maps = [_round_by_entry(out) for out in outs] if todo else None
    if todo is None:
        for out in outs:
            for (e, item), (_, part) in zip(out["history"], out["parts"]):
                history.setdefault(e, []).append(item)
                parts.setdefault(e, []).append(part)
    else:
        for e in todo:
            pairs = [x for m in maps for x in m.get(e, ())]
            history[e] = [item for item, _ in pairs]
            parts[e] = [part for _, part in pairs]
    by_entry = places["by_entry"]
    for e in (public_entries if todo is None else todo & public_entries.keys()):
        info = public_entries[e]
        place = (repr(by_entry[e]),) if e in by_entry else ()
        entry_inputs[e] = hashlib.sha1("\n".join([page_of, repr(info), *parts.get(e, ()), *place]).encode()).hexdigest()
    warm["entry_pages"] = {"entries": entry_list, "places": places, "page_of": page_of, "outs": outs,
                           "public": public_entries, "history": history, "parts": parts, "inputs": entry_inputs}
    return public_entries, history, entry_inputs


def _round_by_entry(out: dict) -> dict[str, list[tuple]]:
    """A worded round's history rows and entry-page parts by entry (worked out once per worded round)."""
    m = out.get("by_entry")
    if m is None:
        m = out["by_entry"] = {}
        for (e, item), (_, part) in zip(out["history"], out["parts"]):
            m.setdefault(e, []).append((item, part))
    return m


def _places_key(tid: str, eid: str) -> str:
    return f"t/{tid}/{eid}/.places.json"


def _saved_places(deps: Deps, tid: str, eid: str, warm: dict) -> dict:
    """The places the publisher stored after each closed round ({digest: {entry_id: place}}), read once a process."""
    if "places" not in warm:
        try:
            raw = _sink(deps).read(_places_key(tid, eid))
            data = json.loads(raw) if raw else {}
            ids = data.get("entries") or []
            warm["places"] = {d: {e: r for e, r in zip(ids, ranks) if r} for d, ranks in (data.get("places") or {}).items()}
        except (ValueError, AttributeError, TypeError):
            warm["places"] = {}
    return warm["places"]


def _save_places(deps: Deps, tid: str, eid: str, places: dict) -> None:
    ids = sorted(set().union(*places.values())) if places else []
    body = {"entries": ids, "places": {d: [p.get(e, 0) for e in ids] for d, p in places.items()}}
    _sink(deps).write(_places_key(tid, eid), json.dumps(body, separators=(",", ":")).encode())


_CORRECTING = ("result_entered", "result_changed", "result_corrected", "result_overridden", "dispute_settled",
               "pairing_edited", "forfeit_recorded", "force_majeure")
AUDIT_SKEW_MS = 120_000   # audit ids are ULIDs of the writer's clock: re-read that far back, so none is missed


def _corrections(deps: Deps, event, tournament, names: dict, warm: dict) -> list[dict]:
    """The corrections page's rows, from the audit log. The publisher keeps the records that can show there
    (a handful: most are plain results) and afterwards reads only the records written since it last read (ids
    are time-ordered ULIDs; a margin covers clocks a little apart), not the whole log after every result."""
    from ulid import ULID
    kept = warm.setdefault("audit", {})
    import time as _time
    since = warm.get("audit_since")
    read_at = int(_time.time() * 1000)   # the ids' clock: the writers' own, not the tournament's
    chain, seq_of = warm.setdefault("chain", {}), warm.setdefault("chain_seq", {})
    count, _ = deps.repos.rounds.audit_head(event.id)   # before the records: they hold at least this much
    items = deps.repos.rounds.audit_items(event.id, since)
    if since is not None and not _chain_whole(chain, items, count):
        # a record that committed later than the margin allows for (a long-retried append): the whole log again
        for held in (kept, chain, seq_of):
            held.clear()
        items = deps.repos.rounds.audit_items(event.id)
    for item in items:
        a = json.loads(item["data"])
        if item.get("chain"):   # kept as the stored JSON text: a big day's chain is 100,000 records
            seq_of[a["id"]] = seq = int(item["seq"])
            chain[seq] = item["chain"]
        if a["action"] not in _CORRECTING:
            continue
        if a["action"] in ("result_entered", "result_changed") and not penalties_of_table(
                {"result": (a.get("after") or {}).get("result")}, names):
            continue   # a plain result: nothing for the corrections page
        kept[a["id"]] = a
    warm["audit_since"] = str(ULID.from_timestamp(max(0, read_at - AUDIT_SKEW_MS) / 1000))[:10] + "0" * 16
    _chain_view(event.id, chain, warm)
    from .principals import display_who
    corrections: list[dict] = []
    for a in (kept[k] for k in sorted(kept)):
        if a["action"] in ("result_entered", "result_changed", "result_corrected", "result_overridden", "dispute_settled"):
            for pen in penalties_of_table({"result": (a.get("after") or {}).get("result")}, names):
                if not any(x["kind"] == "penalty" and x["round"] == a.get("round") and x["table"] == a.get("table")
                           and x["after"] == pen["text"] for x in corrections):   # a penalty once, however often re-entered
                    corrections.append({"at": _local(a["at"], tournament.timezone), "round": a.get("round"),
                                        "table": a.get("table"), "before": "", "after": pen["text"], "penalty": pen,
                                        "reason": "", "kind": "penalty", "who": display_who(a.get("who", "")),
                                        "seq": seq_of.get(a["id"])})
        if a["action"] == "pairing_edited":   # the chief referee's pairing edits, with their published reason
            corrections.append({"at": _local(a["at"], tournament.timezone), "round": a.get("round"),
                                "table": "、".join(str(k) for k in (a.get("after") or {}).get("tables", {})),
                                "before": _layout_text(a.get("before"), names), "after": _layout_text(a.get("after"), names),
                                "reason": a.get("reason", ""), "kind": a["action"], "who": display_who(a.get("who", "")),
                                "seq": seq_of.get(a["id"])})
        if a["action"] in ("result_corrected", "result_overridden", "forfeit_recorded", "force_majeure", "dispute_settled"):
            corrections.append({"at": _local(a["at"], tournament.timezone), "round": a.get("round"), "table": a.get("table"),
                                "before": _short(a.get("before"), names), "after": _short(a.get("after"), names),
                                "reason": a.get("reason", ""),
                                "kind": a["action"], "who": display_who(a.get("who", "")), "seq": seq_of.get(a["id"])})
    return corrections


def _chain_whole(chain: dict, items: list[dict], count: int) -> bool:
    """Whether the entries held and those just read make the chain from 1 to at least the head read before them."""
    seqs = set(chain) | {int(i["seq"]) for i in items if i.get("seq") is not None}
    top = max(seqs, default=0)
    return top >= count and len(seqs) == top


def _chain_view(eid: str, chain: dict, warm: dict) -> None:
    """The event's audit chain as published (audit.json, the corrections page's footer): its entries (JSON text)
    from record 1 to the first gap (none in a whole store), rebuilt only when it grew."""
    from ..auditchain import genesis
    n = 0
    while n + 1 in chain:
        n += 1
    view = warm.get("chain_view")
    if view is not None and view["count"] == n:
        return
    entries = [chain[seq] for seq in range(1, n + 1)]
    warm["chain_view"] = {"count": n, "head": json.loads(entries[-1])["hash"] if entries else genesis(eid),
                          "entries": entries}


def _round_site(event, rules, doc: dict, tables: list[dict], names: dict, name_map: dict, tournament,
                memo: dict | None = None) -> dict:
    """One round as its pages show it: its worded tables, each entry's history row and entry-page part, and a
    digest of its results (for the feed's version). `memo`: each table's words by its number, reused while the
    table is the same object (after one result, one table of 5,000 is worded again, not the round)."""
    scoring = event.config.stages[doc["stage"]].scoring
    pnames = list(rules.point_names[scoring.method])
    if doc.get("format") == "knockout":   # issue 23: a knockout's win 1 / loss 0 is not 小组积分; the winner shows
        pnames = [p for p in pnames if p != "group_points"] or pnames
    rtables, history, parts, pieces = [], [], [], []
    memo = {} if memo is None else memo
    for t in tables:
        hit = memo.get(t["number"])
        if hit is None or hit[0] is not t:
            hit = (t, *_table_site(doc, t, names, name_map, pnames))
            memo[t["number"]] = hit
        _, rt, hist, part, piece = hit
        rtables.append(rt)
        history.extend(hist)
        parts.extend((e, part) for e, _ in hist)
        pieces.append(piece)
    # a bye the engine gave no rule for is the format's (a round robin's is its schedule, not "ranked last")
    from .rounds import _bye_rule
    byes = [{"entry_id": b, "name": names.get(b, "?"), "reason": r,
             "why": (doc.get("bye_why") or {}).get(b) or _bye_rule(doc)} for b, r in doc.get("byes", [])]
    for b in byes:
        parts.append((b["entry_id"], f"bye {doc['number']}"))
        history.append((b["entry_id"], {"round": doc["number"], "bye": True, "status": "confirmed",
                                        "opponents": [], "points": {}, "point_names": []}))
    early = [{"name": names.get(e, "?"), "place": info.get("place", 1), "from_round": info.get("from_round"),
              "average": info.get("average", {}), "why": _early_why(info)}
             for e, info in (doc.get("early_finish") or {}).items()]
    rnd = {"number": doc["number"], "status": doc["status"], "seed": doc["seed"], "tables": rtables,
           "round_name": doc.get("round_name"),   # a knockout round by its size (决赛, 半决赛 …)
           "third_place": any((t.get("why") or {}).get("third_place") for t in tables),
           "byes": byes, "early_finish": early, "starts_at": doc.get("starts_at"), "ends_at": doc.get("ends_at"),
           "point_names": pnames,
           "starts": _local(doc["starts_at"], tournament.timezone) if doc.get("starts_at") else "",
           "ends": _local(doc["ends_at"], tournament.timezone, "%H:%M") if doc.get("ends_at") else ""}
    digest = json.dumps([doc["number"], doc["status"]]) + "".join(pieces)
    return {"round": rnd, "history": history, "parts": parts, "digest": digest}


# json.dumps(x, sort_keys=True, default=str), without a new encoder for each of 45,000 tables
_PIECE_JSON = json.JSONEncoder(sort_keys=True, default=str)


def _table_site(doc: dict, t: dict, names: dict, name_map: dict, pnames: list[str]):
    """One table worded: (its row, its sides' history rows, the entry pages' part, its digest piece)."""
    sides = [{"entry_id": s["entry_id"], "name": names.get(s["entry_id"], "?"), "seats": s["seats"]} for s in t["sides"]]
    shown = t["status"] in ("entered", "confirmed", "forfeit")
    row = {"number": t["number"], "sides": sides, "status": t["status"],
           "reason": readable(t.get("reason", ""), name_map), "why": t.get("why") or {},
           "point_names": pnames, "edited": t.get("edited"),
           "penalties": penalties_of_table(t, names) if shown else [],
           "points": t.get("points") if shown else {},
           "rooms": _room_levels(t, sides) if shown else []}
    # Each entry page is keyed by its inputs; a table's part is worded once here for both sides.
    levels = _deal_levels(t, sides) if shown else None
    part = repr((doc["number"], t["status"], sides, t.get("points") if shown else None, pnames, levels))
    history = [(s["entry_id"], {
        "round": doc["number"], "bye": False, "status": t["status"],
        "opponents": [o for o in sides if o["entry_id"] != s["entry_id"]],
        "points": t.get("points", {}).get(s["entry_id"], {}) if shown else {}, "point_names": pnames,
        "levels": _mine_first(levels, sides, s["entry_id"]) if levels else None}) for s in sides]
    piece = _PIECE_JSON.encode([t["number"], t["status"], row["points"], [s["entry_id"] for s in sides]])
    return row, history, part, piece


def _patched_rounds(deps: Deps, eid: str, warm: dict, changed: list[tuple[int, int, int]]) -> list:
    """The cached rounds with the changed tables read again (one small read each). A round whose `rev` moved by
    more than the writes named (a result entered without a publish asked, say) or whose document changed is
    read again whole; a round the cache does not hold means the state moved: read the event again."""
    from collections import Counter
    refs = warm["state"].get("rounds", [])
    revs = deps.repos.rounds.round_revs(eid, refs)
    named = Counter((stage, n) for stage, n, _ in changed)
    out = list(warm["rounds"])
    where = {(doc["stage"], doc["number"]): i for i, (doc, _) in enumerate(out) if doc}
    if set(revs) != set(warm["revs"]) or any(k not in where for k in named):
        raise _Stale()
    for key, (rev, doc_data) in revs.items():
        old_rev, old_data = warm["revs"][key]
        if (rev, doc_data) == (old_rev, old_data):
            continue
        i = where[key]
        if doc_data == old_data and rev - old_rev == named.get(key, 0):
            doc, tables = out[i]
            for t in sorted({t for stage, n, t in changed if (stage, n) == key}):
                _, table = deps.repos.rounds.get_table(eid, key[0], key[1], t)
                if table is None:
                    raise _Stale()
                tables = [table if x["number"] == t else x for x in tables]
            out[i] = (doc, tables)
        else:
            out[i] = deps.repos.rounds.get_round(eid, key[0], key[1])
    warm["revs"] = revs
    return out


class _Stale(Exception):
    """The publisher's cache does not hold what a change names: read the event again."""


def _lots_as_order(rows) -> None:
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


def _early_why(info: dict) -> dict | None:
    """rules.md §9, why an entry finished early, for the round page: its points, its worst total, the most any
    other can reach (None for one decided before the reasons were kept)."""
    if "worst" not in info:
        return None
    return {"score": f"{info['score']:g}", "worst": f"{info['worst']:g}", "best": f"{info['best_other']:g}",
            "left": info["rounds_left"]}


def _short(snapshot, names: dict[str, str] | None = None) -> str:
    """A result in a corrections row, each side named: "东兰一队 13 / 2 · 河池二队 7 / 0"."""
    if not snapshot:
        return ""
    pts = snapshot.get("points") or {}
    names = names or {}
    return " · ".join(" ".join(x for x in (names.get(e, ""), " / ".join(f"{v:g}" for v in p.values())) if x)
                      for e, p in pts.items())


def _layout_text(snapshot, names: dict[str, str]) -> str:
    """A pairing edit's tables in a corrections row: "3: 甲 – 乙 · 5: 丙 – 丁"."""
    if not snapshot:
        return ""
    return " · ".join(f"{k}: " + " – ".join(names.get(e, "?") for e in es) for k, es in (snapshot.get("tables") or {}).items())


def _local(iso: str, tz: str, fmt: str = "%m-%d %H:%M") -> str:
    try:
        return datetime.fromisoformat(iso).astimezone(ZoneInfo(tz)).strftime(fmt)
    except ValueError:
        return iso


LEASE_SECONDS = 60   # renewed while a publish runs (_LeaseKept) and before each further publish
LEASE_RENEWED_FOR_S = 600   # at most: a publish still running then is stuck (one of 10,000 entries to S3: ~1 min)


def publish_latest(deps: Deps, tid: str, *, force: bool = False, wait_seconds: float = 0.0,
                   then_in_background: bool = False, changes: list[str] | None = None) -> dict | None:
    """Publishes the tournament as it is now, one publisher at a time: asks that arrive while another publishes
    only count themselves, and that publisher publishes again before it stops if any came in — so the last
    pages written always come from data read after the last ask, and a hall of phones confirming at once costs
    a publish or two, not one each (concurrent publishes could also write older pages over newer ones).
    Returns the stats of the publish made here, or None when another publisher took the ask over.
    `wait_seconds`: how long to wait for the lease (on demand); otherwise leave the ask to the holder.
    `then_in_background`: publish once here, and any further rounds in a thread (a request must not wait on a
    hall's worth of them; the queue consumers in AWS keep them in line).
    `changes`: what changed (publish_requests.table_change; None or "*": anything may have)."""
    import time
    from ..ids import new_id
    leases = deps.repos.publish_leases
    me = new_id()
    leases.ask(tid, changes) if changes and changes != ["*"] else leases.ask(tid)
    deadline = time.monotonic() + wait_seconds
    while not leases.acquire(tid, me, _epoch(deps), LEASE_SECONDS):
        if time.monotonic() >= deadline:
            if wait_seconds:
                raise errors.Conflict("正在发布，请稍后再试 · The results are being published; try again in a moment.")
            return None
        time.sleep(0.2)
    stats = _publish_while_asked(deps, tid, me, force, once=then_in_background)
    if stats is _MORE:
        import threading
        threading.Thread(target=_publish_while_asked, args=(deps, tid, me, False), kwargs={"background": True},
                         daemon=True, name=f"publish-{tid}").start()
        return None
    return stats


_MORE = object()


def _publish_while_asked(deps: Deps, tid: str, me: str, force: bool, once: bool = False,
                         background: bool = False):
    """The lease holder's loop: publish, then stop if no ask came in since the count was read. With `once`,
    returns _MORE instead of publishing a second time, still holding the lease (the caller hands the loop on).
    In the background a failure is logged (the lease is given back; the next ask publishes again)."""
    leases = deps.repos.publish_leases
    stats = None
    try:
        while True:
            if once and stats is not None:
                return _MORE
            seen, taken = leases.take(tid)
            with _LeaseKept(deps, tid, me):
                stats = publish_tournament(deps, tid, force=force, asked=(seen, taken))
            if leases.release(tid, me, seen):
                return stats
            if not leases.acquire_again(tid, me, _epoch(deps), LEASE_SECONDS):   # expired and taken: theirs now
                return stats
            force = False   # asks came in meanwhile: publish what changed since
    except BaseException as exc:
        try:
            leases.release(tid, me)
        except Exception:   # the store is down too: the lease expires by itself
            pass
        if background:
            log_failure(tid, exc)
            return None
        raise


class _LeaseKept:
    """Renews the lease while a publish runs, a third of its length apart: a big tournament's publish to S3 takes
    longer than the lease (bench/publish.py's S3 figures at 10,000 entries), and a lease that ran out under it
    would let a second publisher write older pages over newer ones. A publisher that dies stops renewing, and one
    stuck stops after LEASE_RENEWED_FOR_S: its lease runs out LEASE_SECONDS later, as before."""

    def __init__(self, deps: Deps, tid: str, me: str):
        import threading
        self.deps, self.tid, self.me = deps, tid, me
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._renew, daemon=True, name=f"lease-{tid}")

    def _renew(self) -> None:
        import time
        leases = self.deps.repos.publish_leases
        until = time.monotonic() + LEASE_RENEWED_FOR_S
        while not self.stop.wait(LEASE_SECONDS / 3):
            if time.monotonic() > until:   # a publish this long is stuck: its lease runs out, the next ask publishes
                log.error("publishing tournament %s: still running after %d s, its lease left to run out", self.tid,
                          LEASE_RENEWED_FOR_S)
                return
            try:
                if not leases.acquire_again(self.tid, self.me, _epoch(self.deps), LEASE_SECONDS):
                    log.error("publishing tournament %s: the lease was taken by another publisher", self.tid)
                    return
            except Exception as exc:   # the store did not answer: tried again a third of a lease later
                log.warning("publishing tournament %s: the lease not renewed (%s)", self.tid, type(exc).__name__)

    def __enter__(self) -> "_LeaseKept":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.thread.join()


def _epoch(deps: Deps) -> int:
    return int(deps.clock().timestamp())


# The publisher's own state between publishes in this process (issue 29) is `deps.publish_cache`
# (publish/cache.py), per tournament: each event's data and the cache it was worked out from, the manifests, and
# the ask count it is current with. A result's publish uses it only when the asks taken since are exactly the ones
# after that count and all name tables (see `_by_event`).

def forget_warm(deps: Deps | None = None) -> None:
    """As a new publisher process (a cold Lambda container) starts."""
    if deps is None:
        from ..bootstrap import deps as current
        deps = current()
    deps.publish_cache.forget()


def publish_tournament(deps: Deps, tid: str, *, fork_over: int = 600, force: bool = False,
                       asked: tuple[int, list[str]] | None = None) -> dict:
    """Renders the tournament's pages in every language and writes those that changed (`force`: all).
    Big tournaments render the other languages in forked processes beside Chinese (two cores) when the sink
    writes outside memory. `asked`: the lease's ask count and the changes taken with it (publish_latest): when
    they are all table results, only the events they name are read again and published (by event)."""
    import time
    t0 = time.perf_counter()
    with gc_paused():   # a publish allocates tens of thousands of short-lived dicts (services/gc_pause.py)
        try:
            stats = _publish(deps, tid, fork_over=fork_over, force=force, asked=asked)
        except BaseException:
            deps.publish_cache.drop(tid)   # half-updated: the next publish reads everything
            raise
    stats["timing"] = {**stats.get("timing", {}), "total": time.perf_counter() - t0}
    deps.publish_cache.last_stats[tid] = stats
    return stats


def _by_event(warm: dict | None, asked) -> dict[str, list[tuple[int, int, int]]] | None:
    """{event id: [(stage, round, table)…]} when the publisher's cache plus the changes taken are the whole
    story since it was filled; None when anything may have changed (read everything again)."""
    if not warm or asked is None or warm.get("asked") is None:
        return None
    seen, changes = asked
    if warm["asked"] + len(changes) != seen:   # someone else published meanwhile, or a publisher crashed
        return None
    out: dict[str, list[tuple[int, int, int]]] = {}
    for c in changes:
        kind, _, rest = c.partition(":")
        if kind == "hall":   # the clock or the announcements: read with every publish, no event's data
            continue
        if kind != "table":
            return None
        eid, stage, n, t = rest.rsplit(":", 3)
        out.setdefault(eid, []).append((int(stage), int(n), int(t)))
    return out


def _publish(deps: Deps, tid: str, *, fork_over: int, force: bool, asked=None) -> dict:
    import time
    timing: dict[str, float] = {}
    t0 = time.perf_counter()
    tournament, events = deps.repos.tournaments.get_with_events(tid)
    if tournament is None:
        raise errors.NotFound("tournament not found")
    sink = _sink(deps)
    warm = deps.publish_cache.tournament(tid)
    by_event = _by_event(warm, asked)
    if warm is None or warm.get("sink") is not sink:   # another sink: nothing cached holds for it
        warm = deps.publish_cache.fresh(tid, sink)
        by_event = None
    warm["asked"] = None   # until this publish is through
    updated = deps.clock().astimezone(ZoneInfo(tournament.timezone)).strftime("%Y-%m-%d %H:%M")
    summaries = []
    datas = []
    skip: set[str] = set()   # events nothing changed in (by event): their pages are left as they are
    for event in sorted(events, key=lambda e: e.id):
        ev_warm = warm["events"].setdefault(event.id, {})
        if by_event is not None and event.id not in by_event and "data" in ev_warm and not force:
            data = ev_warm["data"]
            skip.add(event.id)
        else:
            try:
                data = event_site_data(deps, event, tournament, ev_warm,
                                       by_event.get(event.id) if by_event is not None else None)
            except _Stale:
                data = event_site_data(deps, event, tournament, ev_warm)
            ev_warm["data"] = data
        datas.append((event, data))
        summaries.append({"id": event.id, "name": event.config.name, "game": event.config.game,
                          "entries": data["playing"], "rounds": len(data["rounds"]),
                          "round_status": data["rounds"][-1]["status"] if data["rounds"] else "open",
                          "leaders": [{"name": r["name"], "points": r["points"], "point_names": data["point_names"]}
                                      for r in data["standings"][:3]], "version": data["version"],
                          "withdrawn": data["withdrawn"]})
    t_version = hashlib.sha1("".join(s["version"] for s in summaries).encode()).hexdigest()[:16]
    for event, data in datas:
        if event.id not in skip:
            data["page_inputs"] = _page_inputs(tournament, event, data, warm["events"][event.id])
    from .hall import hall_data
    # the board, find.html and the clock and announcements in the feeds
    hall = hall_data(deps, tid, datas, warm.setdefault("hall_tables", {}))
    # The board reloads when what it shows moves (the draw, the standings it shows), not on every result in a
    # 5,000-table round; its clock and announcements it updates from the feed without reloading.
    draw_memo = warm.setdefault("draw_keys", {})
    find_inputs = "[" + ", ".join(_draw_key(ev, draw_memo) for ev in hall["events"]) + "]"   # who sits where
    hall["version"] = hashlib.sha1(repr([find_inputs, [(ev["id"], ev.get("standings"), ev.get("point_names"))
                                                       for ev in hall["events"]]]).encode()).hexdigest()[:16]
    hall["find_inputs"] = hashlib.sha1(find_inputs.encode()).hexdigest()
    hall["pages_of"] = {event.id: page_rows() for event, _ in datas}

    def run(lang: str) -> dict:
        stats = {"files": 0, "written": 0, "bytes": 0, "largest": ("", 0)}
        # Only pages whose bytes changed are written: a manifest of content hashes per language and tournament
        # (after one result that is a handful of pages, not thousands of S3 PUTs).
        manifest_key = f"{lang_prefix(lang)}t/{tid}/.manifest.json"
        kept = warm["manifests"].get(lang)   # by event, nobody else published since: what this process wrote last
        old_manifest = {} if force else kept if (by_event is not None and kept) else _load_manifest(sink, manifest_key)
        old, old_inputs = old_manifest.get("pages", {}), old_manifest.get("inputs", {})
        new: dict[str, str] = {}
        new_inputs: dict[str, str] = {}
        for eid in skip:   # an event nothing changed in: its pages stay as they are
            folder = f"{lang_prefix(lang)}t/{tid}/{eid}/"
            new.update((k, v) for k, v in old.items() if k.startswith(folder))
            new_inputs.update((k, v) for k, v in old_inputs.items() if k.startswith(folder))
        # Writes (disk or S3) run beside the rendering: they wait on I/O, rendering on the CPU. Thousands of files
        # to a folder: a writer process (publish/sinks.py says why); else a few threads (S3's waits are long).
        from concurrent.futures import ThreadPoolExecutor
        writer = sink.writer() if many and hasattr(sink, "writer") else None
        pool = ThreadPoolExecutor(max_workers=getattr(sink, "THREADS", 8)) if writer is None and getattr(sink, "parallel", False) else None
        pending = []

        def write(key: str, text: str | bytes) -> None:
            body = text if isinstance(text, bytes) else text.encode("utf-8")
            digest = hashlib.sha1(body).hexdigest()
            new[key] = digest
            stats["files"] += 1
            stats["bytes"] += len(body)
            if len(body) > stats["largest"][1]:
                stats["largest"] = (key, len(body))
            if old.get(key) == digest:
                return
            stats["written"] += 1
            if writer:
                writer.write(key, body)
            elif pool:
                pending.append(pool.submit(sink.write, key, body))
            else:
                sink.write(key, body)

        digests = warm.setdefault("input_digests", {}).setdefault(lang, {})

        def unchanged(key: str, inputs) -> bool:
            """Pages keyed by their inputs (entry histories: most of the files) are not even rendered again
            when those inputs and the templates are as last time. An entry page's inputs are one digest, the same
            object while they stay the same (by event): its page's digest is not worked out again then."""
            hit = digests.get(key)
            if hit is not None and hit[0] is inputs:
                digest = hit[1]
            else:   # repr, not sorted JSON: the inputs are built in a fixed order, and this runs for every entry page
                digest = hashlib.sha1(repr((_templates_version(), lang, inputs)).encode()).hexdigest()
                if isinstance(inputs, str):
                    digests[key] = (inputs, digest)
            new_inputs[key] = digest
            if old_inputs.get(key) == digest and key in old:
                new[key] = old[key]
                stats["files"] += 1
                return True
            return False

        t1 = time.perf_counter()
        try:
            _render_language(lang, write, tournament, tid, [(e, d) for e, d in datas if e.id not in skip], summaries,
                             updated, t_version, unchanged, hall, warm["events"], datas)
        except BaseException:
            if writer:
                writer.close(abandon=True)
            raise
        t2 = time.perf_counter()
        if writer:
            writer.close()   # raises if a file was not written
        if pool:
            pool.shutdown(wait=True)
        for f in pending:
            f.result()  # surface a failed write
        # Last, once every page is out: a crash before this leaves the old manifest, so pages are rewritten.
        manifest = {"pages": new, "inputs": new_inputs}
        _save_manifest(sink, manifest_key, manifest, old_manifest)
        warm["manifests"][lang] = manifest
        stats["timing"] = {"render": t2 - t1, "write": time.perf_counter() - t2}
        return stats

    pages = sum(len(d["entries"]) + len(d["rounds"]) + 5 for e, d in datas if e.id not in skip)
    timing["read"] = time.perf_counter() - t0
    many = pages > fork_over and by_event is None   # a publish of every page of a big tournament
    forked = getattr(sink, "forkable", False) and many and hasattr(os, "fork")
    if forked:
        parts = _run_forked(run)
        for lang in LANGS[1:]:   # written by the children: read from the sink next time
            warm["manifests"].pop(lang, None)
    else:
        parts = [run(lang) for lang in LANGS]
    largest = max((p["largest"] for p in parts), key=lambda x: x[1])
    for p in parts:   # rendering (the languages side by side when forked) and what was left of the writes
        for k, v in (p.get("timing") or {}).items():
            timing[k] = max(timing.get(k, 0.0), v) if forked else timing.get(k, 0.0) + v
    if asked is not None:
        warm["asked"] = asked[0]   # current with every ask up to this count
    return {"files": sum(p["files"] for p in parts), "written": sum(p["written"] for p in parts),
            "bytes": sum(p["bytes"] for p in parts), "largest": list(largest), "timing": timing,
            "by_event": sorted(by_event) if by_event is not None else None}


def _results_card(share: dict, datas: list[dict], lang: str) -> dict:
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


def _share(tournament, events, prefix, write, unchanged, event=None) -> dict:
    """The link card of a tournament's (or an event's) pages, and its poster (drawn with the Chinese pages only,
    and only when what it shows changed: a result changes no poster)."""
    from .links import site_url
    from . import posters
    tid = tournament.id
    folder = f"t/{tid}/" + (f"{event.id}/" if event else "")
    if write is not None:
        key = prefix + (f"{event.id}/" if event else "") + "poster.png"
        poster = posters.event_poster(tournament, event) if event else posters.tournament_poster(tournament, events)
        if not unchanged(key, repr(poster)):
            try:
                write(key, posters.render_png(poster))
            except errors.Misconfigured:   # no CJK font here: the pages go out without their image, never fail
                log.warning("poster %s not drawn: no CJK font", key)
    from ..publish.poster import has_font
    site = site_url()
    image = f"{site}/{folder}poster.png" if has_font() else None
    if event:
        c = event.config
        description = " · ".join(x for x in (posters.dates(tournament), tournament.venue, posters.kind_text(event),
                                             posters.fee_text(event, tournament.currency)) if x)
        return {"title": f"{c.name} · {tournament.name}", "description": description, "image": image,
                "url": f"{site}/{folder}index.html"}
    return {"title": tournament.name, "description": posters.share_description(tournament, events), "image": image,
            "url": f"{site}/{folder}index.html"}


ENTRY_SHARDS = 16   # an event's entry pages' part of the manifest, in this many files


@lru_cache(maxsize=200_000)
def _shard(key: str) -> str:
    """Which part of the manifest a page's line is kept in: the tournament's own pages ("t"), an event's pages
    (its id), or, for the entry pages that are most of them, one of ENTRY_SHARDS parts of the event's."""
    rest = key.split("/t/", 1)[-1] if "/t/" in key else key[2:] if key.startswith("t/") else key
    parts = rest.split("/")
    if len(parts) < 3:
        return "t"
    eid, name = parts[1], parts[-1]
    if name.startswith("entry-"):
        return f"{eid}-e{int(hashlib.sha1(name.encode()).hexdigest()[:4], 16) % ENTRY_SHARDS}"
    return eid


def _save_manifest(sink, key: str, manifest: dict, before: dict) -> None:
    """The manifest as its parts (`.manifest/<part>.json`) and an index naming them: a publish writes only the
    parts whose lines changed (after one result: the event's part and two entry parts, not 30,000 lines). The
    index is written last, once its parts are out."""
    old = before.get("_shards") or {}
    shards: dict[str, dict] = {}
    if old and "pages" in before and "inputs" in before:
        # only the parts holding a line that changed are worked out again (one result: 3 of 50, not 60,000 lines)
        changed: set[str] = set()
        for field in ("pages", "inputs"):
            now, was = manifest[field], before[field]
            changed.update(k for k, _ in now.items() - was.items())
            changed.update(was.keys() - now.keys())
        touched: dict[str, set] = {}
        for k in changed:
            touched.setdefault(_shard(k), set()).add(k)
        for name, part in old.items():
            if name not in touched:
                shards[name] = part["body"]
        for name, keys_ in touched.items():
            body = old[name]["body"] if name in old else {"pages": {}, "inputs": {}}
            lines = {f: {k: manifest[f][k] for k in (body[f].keys() | keys_) if k in manifest[f]} for f in ("pages", "inputs")}
            if lines["pages"] or lines["inputs"]:
                shards[name] = lines
    else:
        for field in ("pages", "inputs"):
            for k, v in manifest[field].items():
                shards.setdefault(_shard(k), {"pages": {}, "inputs": {}})[field][k] = v
    folder = key[: -len(".manifest.json")] + ".manifest/"
    index, kept = {}, {}
    for name, body in shards.items():
        if name in old and (old[name]["body"] is body or old[name]["body"] == body):
            index[name] = old[name]["digest"]
        else:
            raw = json.dumps(body, sort_keys=True).encode()
            index[name] = hashlib.sha1(raw).hexdigest()[:16]
            sink.write(f"{folder}{name}.json", raw)
        kept[name] = {"body": body, "digest": index[name]}
    if index != before.get("_index"):
        sink.write(key, json.dumps({"shards": index}, sort_keys=True).encode())
    manifest["_shards"], manifest["_index"] = kept, index


def _load_manifest(sink, key: str) -> dict:
    """The manifest as the last publisher left it: an index and its parts (or, written before parts, one file)."""
    try:
        raw = sink.read(key)
        data = json.loads(raw) if raw else {}
        if not isinstance(data, dict):
            return {}
        if "pages" in data:
            return data
        index = data.get("shards") or {}
        folder = key[: -len(".manifest.json")] + ".manifest/"
        out = {"pages": {}, "inputs": {}, "_shards": {}, "_index": index}
        for name, digest in index.items():
            part = sink.read(f"{folder}{name}.json")
            if part is None:   # a part missing: every page is checked again (written when it changed)
                return {}
            body = json.loads(part)
            out["pages"].update(body.get("pages", {}))
            out["inputs"].update(body.get("inputs", {}))
            out["_shards"][name] = {"body": body, "digest": digest}
        return out
    except (ValueError, AttributeError):
        return {}


@lru_cache(maxsize=1)
def _templates_version() -> str:
    """The templates and the catalog as this code carries them (the same in every container of a release)."""
    from ..publish.i18n import CATALOG
    from ..publish.render import TEMPLATES
    h = hashlib.sha1(CATALOG.read_bytes())
    for path in sorted(TEMPLATES.iterdir()):
        h.update(path.read_bytes())
    return h.hexdigest()


FORKED_LANGUAGE_S = 240   # a language's child answers within this (a 10,000-entry one to S3 takes about a minute)


def _run_forked(run) -> list[dict]:
    """Each language but Chinese in a child process, Chinese here; the children's figures come back through pipes.
    A child that has not answered by the deadline is killed and its language fails the publish (the lease is given
    back; the next ask publishes again): a child forked while another thread held a lock it needs never would."""
    import signal
    import time
    from ..forked import close_kept, fork_with_pipe, read_until
    children = []
    out = []
    try:
        for lang in LANGS[1:]:
            pid, fd = fork_with_pipe(child_reads=False)
            if pid == 0:  # a child: render and write its language, report, and leave without running any cleanup
                code = 1
                try:
                    view = memoryview(json.dumps(run(lang)).encode())
                    while view:
                        view = view[os.write(fd, view):]
                    code = 0
                finally:
                    os._exit(code)
            children.append((lang, pid, fd))
        out.append(run(LANGS[0]))
    finally:   # every child forked is read and reaped, also when a fork or Chinese failed
        failed = []
        deadline = time.monotonic() + FORKED_LANGUAGE_S
        for lang, pid, read_end in children:
            body = read_until(read_end, deadline)
            close_kept(read_end)
            if body is None:
                log.error("publishing the pages in %s: no answer in %d s, the child stopped", lang, FORKED_LANGUAGE_S)
                os.kill(pid, signal.SIGKILL)
            _, status = os.waitpid(pid, 0)
            if status != 0 or not body:
                failed.append(lang)
                continue
            part = json.loads(body)
            out.append({**part, "largest": tuple(part["largest"])})
    if failed:
        raise RuntimeError(f"publishing the pages in {', '.join(failed)} failed")
    return out


def _render_language(lang, write, tournament, tid, datas, summaries, updated, t_version, unchanged, hall,
                     ev_warms: dict | None = None, all_datas: list | None = None) -> None:
    """Every page of one language (and, with Chinese, the feeds that both languages' pages poll). `ev_warms`: the
    publisher's state per event (rendered fragments are kept there)."""
    ev_warms = {} if ev_warms is None else ev_warms
    from ..publish.render import TEMPLATES
    prefix = f"{lang_prefix(lang)}t/{tid}/"
    for asset in ("style.css", "live.js", "hall.css", "hall.js", "find.js"):   # no inline script on a published page (the CSP forbids it)
        write(prefix + asset, (TEMPLATES / asset).read_text(encoding="utf-8"))

    def other(page: str) -> list[tuple[str, str]]:   # the same page in the other languages, for the nav's links
        return [(x, f"/{lang_prefix(x)}t/{tid}/{page}") for x in LANGS if x != lang]

    events = [e for e, _ in datas]
    share = _results_card(_share(tournament, events, prefix, write if lang == "zh" else None, unchanged),
                          [d for _, d in datas], lang)
    base = {"tournament": tournament, "updated": updated, "share": share}
    write(prefix + "index.html", render("tournament.html", lang, **base, root="", css="style.css", events=summaries,
                                        other_lang=other("index.html"), feed_url="feed.json", feed_version=t_version))
    _render_hall(lang, write, tournament, tid, prefix, other, base, hall, t_version, unchanged)
    # One printable page with every event's prizes, for the closing ceremony (seed 003: one ceremony a day)
    day_prizes = [d["prizes"] for _, d in datas if d["prizes"]]
    write(prefix + "prizes.html", render("prizes.html", lang, **base, root="", css="style.css", events_prizes=day_prizes,
                                         currency=tournament.currency, other_lang=other("prizes.html"),
                                         feed_url="feed.json", feed_version=t_version))
    for event, data in datas:
        ep_rel = f"{event.id}/"
        ep = prefix + ep_rel
        ctx = {**base, **data, "root": "../", "css": "../style.css", "feed_url": "feed.json",
               "feed_version": data["version"],
               "share": _results_card(_share(tournament, events, prefix, write if lang == "zh" else None, unchanged, event),
                                      [data], lang)}
        t_ = translator(lang)
        rows = page_rows()
        round_pages = {r["number"]: _round_pages(r, rows, t_) for r in data["rounds"]}
        fragments = ev_warms.setdefault(event.id, {}).setdefault("fragments", {})
        tables_of = ev_warms[event.id].setdefault("round_tables", {}).get(lang)
        if tables_of is None:   # the round pages' tables in this language, each row kept while its table is the same
            from ..publish.round_tables import RoundTables
            tables_of = ev_warms[event.id]["round_tables"][lang] = RoundTables(lang)

        def round_html(r, k=0):
            """A page of a round's tables, kept while its inputs stay the same: the event page shows page 1 of
            the latest round, and after a result on another page that page need not be rendered again."""
            digest = data["page_inputs"]["rounds"][r["number"]][k]
            hit = fragments.get((lang, r["number"], k))
            if hit is None or hit[0] != digest:
                latest = r is data["rounds"][-1]   # results come in to it: its rows are kept
                hit = (digest, Markup(tables_of.render(round_pages[r["number"]][1][k], keep=latest)))
                if latest and k == 0:   # only what the event page shows is worth keeping
                    fragments[(lang, r["number"], k)] = hit
            return hit[1]

        last = data["rounds"][-1] if data["rounds"] else None
        write(ep + "index.html", render("event.html", lang, **ctx, round_html=round_html(last) if last else "",
                                        pager=_pager(round_pages[last["number"]][0], 1) if last else None,
                                        other_lang=other(ep_rel + "index.html")))
        standings_pages = _pages(data["standings"], rows)
        standings_table = None   # its rows written without the template engine (publish/standings_table.py)
        s_pager = [{"n": i, "href": _page_name("standings", i),
                    "label": t_("ranks_from_to", a=chunk[0]["rank"] or "", b=next((r["rank"] for r in reversed(chunk)
                                                                                       if r["rank"]), "")) if chunk else ""}
                   for i, chunk in enumerate(standings_pages, start=1)]
        for i, chunk in enumerate(standings_pages, start=1):
            key = ep + _page_name("standings", i)
            # a big field's standings: only the pages whose rows moved are rendered again
            if len(standings_pages) > 1 and unchanged(key, data["page_inputs"]["standings"][i - 1]):
                continue
            if standings_table is None:
                from ..publish.standings_table import StandingsTable
                standings_table = StandingsTable(lang)
            write(key, render("standings.html", lang, **{**ctx, "standings": chunk}, pager=_pager(s_pager, i),
                              table_html=Markup(standings_table.render(chunk, data, tournament.currency)),
                              other_lang=other(ep_rel + _page_name("standings", i))))
        if lang == "zh":   # the audit chain's files: data, in no language (docs/audit-chain.md)
            _write_chain(write, unchanged, tid, event.id, ep, data["chain"])
        if not unchanged(ep + "corrections.html", data["page_inputs"]["corrections"]):
            write(ep + "corrections.html", render("corrections.html", lang, **ctx,
                                                  other_lang=other(ep_rel + "corrections.html")))
        if data["prizes"]:
            write(ep + "prizes.html", render("prizes.html", lang, **ctx, events_prizes=[data["prizes"]],
                                             currency=tournament.currency, other_lang=other(ep_rel + "prizes.html")))
        if data["bonuses"] is not None:
            write(ep + "bonuses.html", render("bonuses.html", lang, **ctx, currency=tournament.currency,
                                              other_lang=other(ep_rel + "bonuses.html")))
        for r in data["rounds"]:
            pager, slices = round_pages[r["number"]]
            for k, part in enumerate(slices):
                name = _page_name(f"round-{r['number']}", k + 1)
                key = ep + name
                # finished rounds do not change; in a big round, one result changes the one page holding its table
                if unchanged(key, data["page_inputs"]["rounds"][r["number"]][k]):
                    continue
                write(key, render("round.html", lang, **ctx, r=r, round_html=round_html(r, k), pager=_pager(pager, k + 1),
                                  other_lang=other(ep_rel + name)))
        # Entry pages get a small context: they are most of the files.
        small = {**base, "updated": None, "root": "../", "css": "../style.css", "feed_url": "feed.json",
                 "feed_version": data["version"], "event": data["event"], "places": data["places"]}
        entry_pages = None   # the frame is rendered once, when the first entry page is not as it was
        for eid_, info in data["entries"].items():
            key = ep + f"entry-{eid_}.html"
            if unchanged(key, data["entry_inputs"][eid_]):
                continue
            if entry_pages is None:
                from ..publish.entry_page import EntryPages
                entry_pages = EntryPages(lang, small, ep_rel, other)
            write(key, entry_pages.render(info, data["histories"].get(eid_, []), eid_))
    if lang == "zh":
        for event, data in all_datas or datas:   # every event's feed, also those whose pages were left: the clock
            ev_hall = next(h for h in hall["events"] if h["id"] == event.id)
            feed = {"version": data["version"], "updated": updated, "event_id": event.id,
                    "name": event.config.name, "game": event.config.game, "clock": ev_hall["clock"],
                    "announcements": hall["announcements"],
                    "rounds": [{"number": r["number"], "status": r["status"]} for r in data["rounds"]],
                    "open_round": data["open_round"],
                    "top": list(islice(({"rank": r["rank"], "name": r["name"], "points": r["points"]}
                                         for r in data["standings"] if r["rank"] is not None), 10))}
            for x in LANGS:   # every language's pages poll the feed beside them
                write(f"{lang_prefix(x)}t/{tid}/{event.id}/feed.json", json.dumps(feed, ensure_ascii=False))
        tfeed = json.dumps({"version": t_version, "hall_version": hall["version"], "updated": updated,
                            "events": [{"id": s["id"], "version": s["version"], "name": h["name"], "game": h["game"],
                                        "clock": h["clock"]} for s, h in zip(summaries, hall["events"])],
                            "announcements": hall["announcements"]}, ensure_ascii=False)
        for x in LANGS:
            write(f"{lang_prefix(x)}t/{tid}/feed.json", tfeed)


def _write_chain(write, unchanged, tid: str, eid: str, ep: str, chain: dict) -> None:
    """audit.json (what the chain holds, the segment files, and the records past the last full segment) and the full
    segments audit-<k>.json of SEGMENT records each: a full segment never changes again, so it is not even rendered
    again (its last hash stands for everything in it). Records are spliced in as stored (JSON text), not re-encoded."""
    from ..auditchain import FORMAT, SEGMENT, genesis
    entries = chain["entries"]
    full = len(entries) // SEGMENT

    def with_records(head: dict, records: list[str]) -> str:
        return json.dumps(head, ensure_ascii=False, separators=(",", ":"))[:-1] + ',"records":[' + ",".join(records) + "]}"
    segments = []
    for k in range(full):
        part = entries[k * SEGMENT:(k + 1) * SEGMENT]
        name, last_hash = f"audit-{k + 1}.json", json.loads(part[-1])["hash"]
        if not unchanged(ep + name, last_hash):
            write(ep + name, with_records({"format": FORMAT, "event_id": eid, "first": k * SEGMENT + 1}, part))
        segments.append({"href": name, "first": k * SEGMENT + 1, "last": (k + 1) * SEGMENT, "last_hash": last_hash})
    if unchanged(ep + "audit.json", f"{chain['count']}:{chain['head']}"):
        return
    write(ep + "audit.json", with_records({"format": FORMAT, "hash": "sha256", "tournament_id": tid, "event_id": eid,
                                           "genesis": genesis(eid), "count": chain["count"], "head": chain["head"],
                                           "segments": segments}, entries[full * SEGMENT:]))


def page_rows() -> int:
    from ..config import get_settings
    return max(1, get_settings().publish_page_rows)


def _pages(rows: list, size: int) -> list[list]:
    """A list split into pages of `size` (one page, however short or empty, when it fits)."""
    return [rows] if len(rows) <= size else [rows[i:i + size] for i in range(0, len(rows), size)]


def _page_name(base: str, i: int) -> str:
    """Page 1 keeps the page's old name (standings.html, round-3.html); the others are standings-2.html …"""
    return f"{base}.html" if i == 1 else f"{base}-{i}.html"


def _pager(pages: list[dict], i: int) -> dict:
    return {"pages": pages, "i": i}


def _round_pages(r: dict, size: int, t) -> tuple[list[dict], list[dict]]:
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
        links.append({"n": i, "href": _page_name(f"round-{r['number']}", i), "label": label})
        slices.append(part)
    return links, slices


def _page_inputs(tournament, event, data: dict, ev_warm: dict) -> dict:
    """The digest of what each standings and round page shows, worked out once a publish for every language
    (and for a round, once while its worded rows stay the same objects: finished rounds, not every result)."""
    size = page_rows()
    # the tournament and event as the page's header and link card show them
    page_of = {"t": tournament.model_dump_json(), "e": data["event"], "c": event.config.model_dump_json()}
    memo = ev_warm.setdefault("page_inputs", {})
    rounds = {}
    rows = ev_warm.setdefault("row_reprs", {})   # the latest round's tables as digested: (round, table) → (row, repr)
    for r in data["rounds"]:
        hit = memo.get(r["number"])
        if hit is None or hit[0] is not r or hit[1] != (size, repr(page_of)):
            latest = r is data["rounds"][-1]
            if latest and any(n != r["number"] for n, _ in rows):
                rows.clear()

            def row(tb):   # each row's repr kept while it is the same object (after one result: one of 5,000 again)
                if not latest:
                    return repr(tb)
                kept = rows.get((r["number"], tb["number"]))
                if kept is None or kept[0] is not tb:
                    kept = rows[(r["number"], tb["number"])] = (tb, repr(tb))
                return kept[1]

            slices = _round_pages(r, size, lambda key, **kw: "")[1]
            digests = [hashlib.sha1((repr([page_of, {k: v for k, v in part.items() if k != "tables"}, len(slices)])
                                     + "".join(row(tb) for tb in part["tables"])).encode()).hexdigest()
                       for part in slices]
            hit = memo[r["number"]] = (r, (size, repr(page_of)), digests)
        rounds[r["number"]] = hit[2]
    chunks_ = _pages(data["standings"], size)
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


def _render_hall(lang, write, tournament, tid, prefix, other, base, hall, t_version, unchanged) -> None:
    """The projector board and find-my-table (issue 28): the tournament's current rounds, in every language.
    Each is rendered again only when what it shows changed (a big round's board is thousands of rows). Past
    publish_find_inline entries, find.html carries no hits but searches find.json (fetched as one types)."""
    from ..config import get_settings
    from ..publish.qr import qr_svg
    from .links import site_url
    find_url = f"{site_url()}/{prefix}find.html"
    ctx = {**base, "root": "", "css": "style.css", "feed_url": "feed.json", "feed_version": t_version, "hall": hall}
    if not unchanged(prefix + "hall.html", [hall["version"], hall["announcements"],
                                            [ev["clock"] for ev in hall["events"]], find_url, base["share"]]):
        write(prefix + "hall.html", render("hall.html", lang, **{**ctx, "feed_version": hall["version"]},
                                           find_qr=qr_svg(find_url), find_url=find_url, other_lang=other("hall.html")))
    hits = sum(len(s["sides"]) for ev in hall["events"] if ev["round"] for s in ev["round"]["tables"]) + \
        sum(len(ev["round"]["byes"]) for ev in hall["events"] if ev["round"])
    big = hits > get_settings().publish_find_inline
    inputs = [hall["find_inputs"], big, base["share"]]
    if unchanged(prefix + "find.html", inputs) and (not big or unchanged(prefix + "find.json", inputs)):
        return
    if big:
        write(prefix + "find.json", json.dumps({"hits": _find_hits(lang, hall)}, ensure_ascii=False,
                                               separators=(",", ":")))
    write(prefix + "find.html", render("find.html", lang, **ctx, find_index="find.json" if big else None,
                                       other_lang=other("find.html")))


def _draw_key(ev: dict, memo: dict) -> str:
    """repr() of (event id, name, round number, [each table's sides], [the byes]): who sits where, not the results.
    Each table's piece is kept while its draw is the same (a result moves a table's status only)."""
    r = ev["round"]
    if not r:
        return repr((ev["id"], ev["name"], None))
    kept = memo.setdefault(ev["id"], {})
    pieces = []
    for t in r["tables"]:
        hit = kept.get(t["number"])
        if hit is None or hit[0] is not t["sides"]:
            hit = kept[t["number"]] = (t["sides"], repr((t["number"], [(s["entry_id"], s["name"], s["seats"], s["club"],
                                                                         s["members"], s["q"]) for s in t["sides"]])))
        pieces.append(hit[1])
    byes = repr([(b["entry_id"], b["name"], b["club"], b["members"], b["q"]) for b in r["byes"]])
    return f"({ev['id']!r}, {ev['name']!r}, {r['number']!r}, [{', '.join(pieces)}], {byes})"


def _find_hits(lang: str, hall: dict) -> list[list[str]]:
    """find.json's rows, worded in the page's language: [keys, name, members, where, table, seat, link]. The
    link is the round's page that holds the table (big rounds are in pages)."""
    from ..publish.render import seats_text
    t = translator(lang)
    out = []
    for ev in hall["events"]:
        r = ev["round"]
        if not r:
            continue
        size = hall["pages_of"].get(ev["id"], page_rows())
        total = len(r["tables"]) + len(r["byes"])
        where = f"{ev['name']} · {t('round', n=r['number'])}"

        def link(i: int) -> str:
            return f"{ev['id']}/" + (_page_name(f"round-{r['number']}", i // size + 1) if total > size
                                     else f"round-{r['number']}.html")

        for i, tb in enumerate(r["tables"]):
            for s in tb["sides"]:
                out.append([s["q"], s["name"], t("list_sep").join(s["members"]), where, t("table_n", n=tb["number"]),
                            f"{t('seat')} {seats_text(s['seats'], lang)}", link(i)])
        for j, b in enumerate(r["byes"]):
            out.append([b["q"], b["name"], t("list_sep").join(b["members"]), where, t("bye"), "",
                        link(len(r["tables"]) + j)])
    return out


def _deal_levels(table: dict, sides: list[dict]) -> list[list[int]] | None:
    """Guandan: both sides' levels after each deal, as the table played them (from the scored deals)."""
    log = (table.get("details") or {}).get("deals")
    if not log or len(sides) != 2 or not all(isinstance(d, dict) and d.get("levels") for d in log):
        return None
    return [list(d["levels"]) for d in log]


def _mine_first(levels: list[list[int]], sides: list[dict], me: str) -> list[list[int]]:
    return levels if sides[0]["entry_id"] == me else [list(reversed(x)) for x in levels]


def _room_levels(table: dict, sides: list[dict]) -> list[dict]:
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
