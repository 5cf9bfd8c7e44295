"""The chief referee's pairing edit of the open round (api.md v1.2, issue 24), its pure part: the new layout
from swaps, tables given whole, byes and fixed tables (固定桌号); which tables change; the tables and round
document it leaves. The service (services/pairing_edits.py) reads the round, asks the engine for warnings,
and saves what this returns.

A table whose result was entered cannot change (409 table_started)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any
from collections.abc import Callable

from .. import errors
from .table import Table, TableStatus

if TYPE_CHECKING:
    from ..models import PairingEditIn

BYE = 0   # the bye's place in a layout


def layout_of(tables: list[dict], byes: list) -> dict[str, int]:
    where = {s["entry_id"]: t["number"] for t in tables for s in t["sides"]}
    where.update({b: BYE for b, _ in byes})
    return where


def apply_edit(body: PairingEditIn, where: dict[str, int], per_table: int) -> dict[int, list[str]]:
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


def renumber(layout: dict[int, list[str]], fixed: dict[str, int]) -> dict[int, list[str]]:
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


def fixed_after(fixed: dict[str, int], body, before: dict[str, int]) -> dict[str, int]:
    """The event's fixed tables after the edit's `fixed` and `unfix` (entries of this round only)."""
    fixed = dict(fixed)
    for f in body.fixed:
        if f.entry_id not in before:
            raise errors.InvalidRequest(f"{f.entry_id} 不在本轮 · Not in this round.", {"entries": [f.entry_id]})
        fixed[f.entry_id] = f.table
    for e in body.unfix:
        fixed.pop(e, None)
    if len(set(fixed.values())) != len(fixed):
        raise errors.InvalidRequest("两个参赛者固定在同一桌 · Two entries are fixed to the same table.")
    return fixed


def entries_of(table: dict | None) -> set[str]:
    return {s["entry_id"] for s in table["sides"]} if table else set()


def _order(table: dict) -> list[str]:
    return [s["entry_id"] for s in table["sides"]]


def changed_tables(layout: dict[int, list[str]], old: dict[int, dict], per_table: int) -> tuple[list[int], list[int]]:
    """The tables the edit changes (their entries, or at a two-sided table their home side) and those it removes;
    409 table_started when any of them has a result."""
    changed = sorted(k for k, es in layout.items() if set(es) != entries_of(old.get(k)) or
                     (per_table == 2 and k in old and es != _order(old[k])))
    removed = sorted(k for k in old if k not in layout)
    started = sorted(k for k in [*changed, *removed] if k in old and old[k]["status"] != TableStatus.PENDING)
    if started:
        raise errors.TableStarted(f"桌 {', '.join(map(str, started))} 已录入成绩，不能调整 · Tables "
                                  f"{', '.join(map(str, started))} have a result entered.", {"tables": started})
    return changed, removed


def rebuilt_tables(layout: dict[int, list[str]], changed: list[int], old: dict[int, dict], seats: list,
                   code_hashes: Callable[[int], list[str]], reason: str, edited: dict,
                   fixed: dict[str, int]) -> tuple[list[dict], list[tuple[dict, int | None]]]:
    """Every table after the edit (stored items) and the writes: (table, the version it must still be at — None
    for a new number). A changed table is a new pending table one version on, carrying the reason; an
    unchanged one is rewritten only when its fixed mark moved."""
    tables, writes = [], []
    for k in sorted(layout):
        marks = sorted(e for e, at in fixed.items() if at == k and e in layout[k]) or None
        if k not in changed:
            if marks != old[k].get("fixed"):   # only the mark moved: the same table, rewritten at its version
                writes.append(({**old[k], "fixed": marks}, old[k]["version"]))
                tables.append(writes[-1][0])
            else:
                tables.append(old[k])
            continue
        base = old.get(k, {})
        table = Table.new(k, [(e, list(seats[i])) for i, e in enumerate(layout[k])], code_hashes(k),
                          f"pairing edited: {reason}", {"kind": "edited", "reason": reason, "was": base.get("why")},
                          version=base.get("version", -1) + 1, edited=edited, fixed=marks).to_item()
        tables.append(table)
        writes.append((table, base.get("version") if base else None))
    return tables, writes


def edited_doc(doc: dict, byes: list[str], before: dict[str, int], reason: str, edited: dict,
               changed: list[int]) -> dict[str, Any]:
    """The round's document after the edit: its byes (with why), and the edit in its list."""
    new = [b for b in byes if before.get(b) != BYE]
    return {**doc, "byes": [(b, "bye: pairing edited") if b in new else next(x for x in doc["byes"] if x[0] == b)
                            for b in byes],
            "bye_why": {**{b: w for b, w in doc.get("bye_why", {}).items() if b in byes},
                        **{b: {"kind": "bye", "rule": "edited", "reason": reason} for b in new}},
            "edits": [*doc.get("edits", []), {**edited, "tables": changed, "byes": new}]}


def keep_home_sides(layout: dict[int, list[str]], old: dict[int, dict],
                    seat_home: Callable[[list[str]], list[str]]) -> dict[int, list[str]]:
    """A two-sided layout's home sides: a new pairing's as the draw seats it (`seat_home`, the engine's), an
    unchanged pairing keeps its own."""
    return {k: seat_home(es) if set(es) != entries_of(old.get(k)) else _order(old[k]) for k, es in layout.items()}


def edit_record(old: dict[int, dict], doc: dict, layout: dict[int, list[str]], changed: list[int],
                removed: list[int], byes: list[str], fixed: dict[str, int], warnings: list[dict]) -> dict:
    """The audit record's before and after of an edit: the tables it touched, the byes, the fixed tables and the
    warnings' codes."""
    return {"before": {"tables": {k: _order(old[k]) for k in [*changed, *removed] if k in old},
                       "byes": [b for b, _ in doc.get("byes", [])]},
            "after": {"tables": {k: layout[k] for k in changed}, "byes": byes, "fixed": fixed,
                      "warnings": [w["code"] for w in warnings]}}
