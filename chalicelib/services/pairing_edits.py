"""The chief referee's pairing edits of the open round (api.md v1.2, issue 24): swap entries between tables,
move entries to the bye, give tables whole, fix a table number for an entry (固定桌号, kept by later draws).

Warnings come from the engine with the draw's own cost function (engine/formats/edits.py). A table whose result
was entered cannot change (409 table_started). The edit, its reason and the warnings go to the audit log; the
edited tables carry the reason, and the published round page marks them (编排调整).
"""
from __future__ import annotations

from .. import errors
from ..bootstrap import Deps
from ..engine.formats import edits
from ..engine.games import game as game_rules
from ..ids import new_id
from ..models import Organiser, PairingEditIn, RoundOut
from .principals import who_of
from .rounds import (_contestants, code_hash, entry_names, load_round, round_out, stage_cfg, table_code)
from .tournaments import own_event

BYE = 0   # the bye's place in a layout


def _layout(tables: list[dict], byes: list) -> dict[str, int]:
    where = {s["entry_id"]: t["number"] for t in tables for s in t["sides"]}
    where.update({b: BYE for b, _ in byes})
    return where


def _apply(body: PairingEditIn, where: dict[str, int], per_table: int) -> dict[int, list[str]]:
    """The new layout {table: [entries]} (BYE: the byes), or 422 naming what does not add up."""
    where = dict(where)
    mentioned = {e for pair in body.swap for e in pair} | {e for t in body.tables for e in t.sides} | set(body.byes)
    unknown = sorted(e for e in mentioned if e not in where)
    if unknown:
        raise errors.InvalidRequest(f"这些参赛者不在本轮 · Not in this round: {', '.join(unknown)}.", {"entries": unknown})
    for a, b in body.swap:
        where[a], where[b] = where[b], where[a]
    given: set[str] = set()
    for t in body.tables:
        for e in t.sides:
            if e in given:
                raise errors.InvalidRequest(f"{e} 出现两次 · {e} is placed twice.", {"entries": [e]})
            given.add(e)
            where[e] = t.number
    named = {t.number for t in body.tables}
    for e, k in list(where.items()):
        if k in named and e not in given:   # a table given whole keeps only the entries it names
            where[e] = -1
    for e in body.byes:
        where[e] = BYE
    lost = sorted(e for e, k in where.items() if k == -1)
    if lost:
        raise errors.InvalidRequest(f"这些参赛者没有桌次，请放到轮空 · Left without a table (put them in 'byes'): "
                                    f"{', '.join(lost)}.", {"entries": lost})
    layout: dict[int, list[str]] = {}
    for e, k in where.items():
        layout.setdefault(k, []).append(e)
    bad = sorted(k for k, es in layout.items() if k != BYE and len(es) != per_table)
    if bad:
        raise errors.InvalidRequest(f"桌 {', '.join(map(str, bad))} 人数不对（每桌 {per_table} 方）· Tables "
                                    f"{', '.join(map(str, bad))} do not have {per_table} sides.", {"tables": bad})
    return layout


def _renumber(layout: dict[int, list[str]], fixed: dict[str, int]) -> dict[int, list[str]]:
    """Each fixed entry's table takes its number (the table there moves to the number it leaves)."""
    out = dict(layout)
    for e, number in fixed.items():
        at = next((k for k, es in out.items() if k != BYE and e in es), None)
        if at is None or at == number:
            continue
        out[at], out[number] = out.get(number), out[at]
        if out[at] is None:
            del out[at]
    return out


def edit_round(deps: Deps, organiser: Organiser, eid: str, n: int, body: PairingEditIn) -> RoundOut:
    event = own_event(deps, organiser, eid)
    state, doc, tables = load_round(deps, eid, n)
    if doc["status"] != "open" or state.get("open_round") != n:
        raise errors.Conflict("只能调整尚未结束的当前轮 · Only the open round can be edited.")
    if event.config.entry.kind == "team" and event.config.game == "guandan":
        raise errors.Conflict("团体赛的对阵请用重新编排 · Team matches are not edited here: redraw the round.")
    reason = body.reason.strip()
    if not reason and not body.dry_run:
        raise errors.InvalidRequest("编排调整需要说明理由 · A pairing edit needs a 'reason'.",
                                    [{"field": "reason", "type": "missing", "message": "required"}])
    rules = game_rules(event.config.game)
    per_table = rules.sides_per_table
    before = _layout(tables, doc.get("byes", []))
    layout = _apply(body, before, per_table)
    fixed = dict(state.get("fixed_tables", {}))
    for f in body.fixed:
        if f.entry_id not in before:
            raise errors.InvalidRequest(f"{f.entry_id} 不在本轮 · Not in this round.", {"entries": [f.entry_id]})
        fixed[f.entry_id] = f.table
    for e in body.unfix:
        fixed.pop(e, None)
    if len(set(fixed.values())) != len(fixed):
        raise errors.InvalidRequest("两个参赛者固定在同一桌 · Two entries are fixed to the same table.")
    layout = _renumber(layout, {e: k for e, k in fixed.items() if e in before})
    byes = sorted(layout.pop(BYE, []))
    old = {t["number"]: t for t in tables}
    plan = state["plans"][str(doc["stage"])]
    field = _contestants(deps, event, doc["stage"], plan, state, before=n)
    known = {c.id for c in field}
    missing = [e for e in before if e not in known]
    if missing:   # withdrawn since the draw: not for an edit to bring back
        raise errors.Conflict(f"这些参赛者已退出 · No longer in the event: {', '.join(missing)}.", {"entries": missing})
    round_no = doc["stage_round"]
    if per_table == 2:
        layout = {k: edits.seat_home(field, round_no, *es) if set(es) != _entries(old.get(k)) else
                  [s["entry_id"] for s in old[k]["sides"]] for k, es in layout.items()}
    changed = sorted(k for k, es in layout.items() if set(es) != _entries(old.get(k)) or
                     (per_table == 2 and k in old and es != [s["entry_id"] for s in old[k]["sides"]]))
    removed = sorted(k for k in old if k not in layout)
    started = sorted(k for k in [*changed, *removed] if k in old and old[k]["status"] != "pending")
    if started:
        raise errors.TableStarted(f"桌 {', '.join(map(str, started))} 已录入成绩，不能调整 · Tables "
                                  f"{', '.join(map(str, started))} have a result entered.", {"tables": started})
    separate = stage_cfg(event, doc["stage"]).separate_related
    if per_table == 2:
        drawn = edits.layout_costs(field, round_no, {k: [s["entry_id"] for s in t["sides"]] for k, t in old.items()},
                                   [b for b, _ in doc.get("byes", [])], separate)
        warnings = edits.warnings(field, round_no, layout, byes, drawn=drawn, separate_related=separate)
    else:
        warnings = edits.group_warnings(field, layout, byes)
    names = entry_names(deps, eid)
    for w in warnings:   # the console shows names, not ids
        w["names"] = [[names.get(e, {}).get("name", "") for e in es] if isinstance(es, list)
                      else names.get(es, {}).get("name", "") for es in w.get("entries", [])]
    now = deps.clock().isoformat()
    who = who_of(organiser)
    edited = {"reason": reason, "at": now, "by": who}
    new_tables, writes = [], []
    for k in sorted(layout):
        if k not in changed:
            new_tables.append(old[k])
            continue
        seats = rules.side_seats(per_table)
        base = old.get(k, {})
        table = {"number": k, "home": layout[k][0], "reason": f"pairing edited: {reason}",
                 "why": {"kind": "edited", "reason": reason, "was": base.get("why")}, "status": "pending",
                 "version": base.get("version", -1) + 1, "edited": edited,
                 "sides": [{"entry_id": e, "seats": list(seats[i])} for i, e in enumerate(layout[k])],
                 "code_hashes": [code_hash(table_code(eid, n, k, i)) for i in range(per_table)],
                 "points": {}, "details": {}}
        new_tables.append(table)
        writes.append((table, base.get("version") if base else None))
    new_byes = [(b, "bye: pairing edited") if before.get(b) != BYE else next(x for x in doc["byes"] if x[0] == b)
                for b in byes]
    new_doc = {**doc, "byes": new_byes,
               "bye_why": {**{b: w for b, w in doc.get("bye_why", {}).items() if b in byes},
                           **{b: {"kind": "bye", "rule": "edited", "reason": reason} for b in byes if before.get(b) != BYE}},
               "edits": [*doc.get("edits", []), {**edited, "tables": changed, "byes": [b for b in byes if before.get(b) != BYE]}]}
    for i, t in enumerate(new_tables):
        marks = sorted(e for e, k in fixed.items() if k == t["number"] and e in _entries(t)) or None
        if t["number"] in changed:
            t["fixed"] = marks
        elif marks != t.get("fixed"):   # only the mark moved: the same table, rewritten at its version
            new_tables[i] = {**t, "fixed": marks}
            writes.append((new_tables[i], t["version"]))
    out = round_out(new_doc, new_tables, names, with_codes=True)
    out.warnings = warnings
    if body.dry_run:
        return out
    if not changed and not removed and fixed == state.get("fixed_tables", {}) and byes == sorted(b for b, _ in doc.get("byes", [])):
        raise errors.InvalidRequest("编排没有变化 · The edit changes nothing.")
    audit = {"id": new_id(), "at": now, "who": who, "action": "pairing_edited", "round": n, "reason": reason,
             "before": {"tables": {k: [s["entry_id"] for s in old[k]["sides"]] for k in [*changed, *removed] if k in old},
                        "byes": [b for b, _ in doc.get("byes", [])]},
             "after": {"tables": {k: layout[k] for k in changed}, "byes": byes, "fixed": fixed,
                       "warnings": [w["code"] for w in warnings]}}
    new_state = {**state, "fixed_tables": fixed}
    deps.repos.rounds.edit_round(eid, new_doc, writes, [(k, old[k]["version"]) for k in removed], new_state,
                                 state["version"], audit)
    from .publish_requests import request_publish
    request_publish(deps, event.tournament_id)
    return out


def _entries(table: dict | None) -> set[str]:
    return {s["entry_id"] for s in table["sides"]} if table else set()

