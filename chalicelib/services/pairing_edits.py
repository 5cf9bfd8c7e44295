"""The chief referee's pairing edits of the open round (api.md v1.2, issue 24): swap entries between tables,
move entries to the bye, give tables whole, fix a table number for an entry (固定桌号, kept by later draws).

Warnings come from the engine with the draw's own cost function (engine/formats/edits.py). A table whose result
was entered cannot change (409 table_started). The edit, its reason and the warnings go to the audit log; the
edited tables carry the reason, and the published round page marks them (编排调整).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .. import errors
if TYPE_CHECKING:   # the type only: the composition root (bootstrap) imports the services, not the reverse
    from ..bootstrap import Deps
from ..domain.events import RoundEdited
from ..domain.pairing import (BYE, apply_edit, changed_tables, edit_record, edited_doc, fixed_after, keep_home_sides,
                              layout_of, rebuilt_tables, renumber)
from ..engine.formats import edits
from ..engine.games import game as game_rules
from ..ids import new_id
from ..models import Organiser, PairingEditIn, RoundOut
from .principals import who_of
from .rounds import code_hash, contestants, entry_names, first_page_out, load_round, stage_cfg, table_code
from .tournaments import own_event


def edit_round(deps: Deps, organiser: Organiser, eid: str, n: int, body: PairingEditIn) -> RoundOut:
    """Load the open round → the domain's new layout and tables (domain/pairing.py) → the engine's warnings →
    save the edit with its audit row in one transaction → dispatch RoundEdited (the round is published)."""
    event = own_event(deps, organiser, eid)
    state, doc, tables = load_round(deps, eid, n)
    reason = _editable(event, state, doc, n, body)
    per_table = game_rules(event.config.game).sides_per_table
    before = layout_of(tables, doc.get("byes", []))
    fixed = fixed_after(state.get("fixed_tables", {}), body, before)
    layout = renumber(apply_edit(body, before, per_table), {e: k for e, k in fixed.items() if e in before})
    byes = sorted(layout.pop(BYE, []))
    old = {t["number"]: t for t in tables}
    field = contestants(deps, event, doc["stage"], state["plans"][str(doc["stage"])], state, before=n)
    missing = [e for e in before if e not in {c.id for c in field}]
    if missing:   # withdrawn since the draw: not for an edit to bring back
        raise errors.Conflict(f"这些参赛者已退出 · No longer in the event: {', '.join(missing)}.", {"entries": missing})
    if per_table == 2:   # a new pairing's home side as the draw would seat it; an unchanged pairing keeps its own
        layout = keep_home_sides(layout, old, lambda es: edits.seat_home(field, doc["stage_round"], *es))
    changed, removed = changed_tables(layout, old, per_table)
    names = entry_names(deps, eid)
    warnings = _warnings(event, doc, field, layout, byes, old, per_table, names)
    who = who_of(organiser)
    edited = {"reason": reason, "at": deps.clock().isoformat(), "by": who}
    new_tables, writes = rebuilt_tables(
        layout, changed, old, game_rules(event.config.game).side_seats(per_table),
        lambda k: [code_hash(table_code(eid, n, k, i)) for i in range(per_table)], reason, edited, fixed)
    new_doc = edited_doc(doc, byes, before, reason, edited, changed)
    out = first_page_out(new_doc, new_tables, names, with_codes=True)   # the console reads only the warnings
    out.warnings = warnings
    if body.dry_run:
        return out
    if not changed and not removed and fixed == state.get("fixed_tables", {}) and byes == sorted(b for b, _ in doc.get("byes", [])):
        raise errors.InvalidRequest("编排没有变化 · The edit changes nothing.")
    audit = {"id": new_id(), "at": edited["at"], "who": who, "action": "pairing_edited", "round": n, "reason": reason,
             **edit_record(old, doc, layout, changed, removed, byes, fixed, warnings)}
    deps.repos.rounds.edit_round(eid, new_doc, writes, [(k, old[k]["version"]) for k in removed],
                                 {**state, "fixed_tables": fixed}, state["version"], audit)
    deps.dispatch([RoundEdited(event.tournament_id, eid, doc["stage"], n)])
    return out


def _editable(event, state: dict, doc: dict, n: int, body: PairingEditIn) -> str:
    """The edit's reason, once the round is one an edit may change."""
    if doc["status"] != "open" or state.get("open_round") != n:
        raise errors.Conflict("只能调整尚未结束的当前轮 · Only the open round can be edited.")
    if event.config.entry.kind == "team" and event.config.game == "guandan":
        raise errors.Conflict("团体赛的对阵请用重新编排 · Team matches are not edited here: redraw the round.")
    reason = body.reason.strip()
    if not reason and not body.dry_run:
        raise errors.InvalidRequest("编排调整需要说明理由 · A pairing edit needs a 'reason'.",
                                    [{"field": "reason", "type": "missing", "message": "required"}])
    return reason


def _warnings(event, doc: dict, field, layout: dict, byes: list[str], old: dict, per_table: int,
              names: dict) -> list[dict]:
    """The engine's warnings on the new layout, with the draw's own cost function, and the entries' names."""
    round_no, separate = doc["stage_round"], stage_cfg(event, doc["stage"]).separate_related
    if per_table == 2:
        drawn = edits.layout_costs(field, round_no, {k: [s["entry_id"] for s in t["sides"]] for k, t in old.items()},
                                   [b for b, _ in doc.get("byes", [])], separate)
        warnings = edits.warnings(field, round_no, layout, byes, drawn=drawn, separate_related=separate)
    else:
        warnings = edits.group_warnings(field, layout, byes)
    for w in warnings:   # the console shows names, not ids
        w["names"] = [[names.get(e, {}).get("name", "") for e in es] if isinstance(es, list)
                      else names.get(es, {}).get("name", "") for es in w.get("entries", [])]
    return warnings

