"""What the services that change a table share (results, team matches, the referee): loading it as a domain
`Table`, its audit row, saving it with that row in one transaction, and the answer's shape. A neutral module,
so those services need not import each other's private helpers."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:   # the type only: the composition root (bootstrap) imports the services, not the reverse
    from ..bootstrap import Deps
from ..domain.actor import Actor
from ..domain.table import Place, Table
from ..ids import new_id
from ..models import RoundTable, TableSide
from .rounds import load_table


def load(deps: Deps, eid: str, n: int, t: int) -> tuple[dict, dict, Table]:
    """The event state's head, round n's document and its table t as a `Table`."""
    state, doc, item = load_table(deps, eid, n, t)
    return state, doc, Table.load(item)


def place_of(event, doc: dict) -> Place:
    return Place(event.tournament_id, event.id, doc["stage"], doc["number"])


def audit_row(deps: Deps, actor: Actor, action: str, n: int, t: int, before=None, after=None, reason: str = "") -> dict:
    return {"id": new_id(), "at": deps.clock().isoformat(), "who": actor.ident, "action": action, "round": n,
            "table": t, "before": before, "after": after, "reason": reason}


def save(deps: Deps, eid: str, doc: dict, before: Table, after: Table, record: dict) -> None:
    """The table at its new version with its audit row, only if nobody changed it since `before` was read."""
    deps.repos.rounds.save_table(eid, doc["stage"], doc["number"], after.to_item(), before.version, record)


def table_view(table: dict | Table, names: dict | None = None) -> RoundTable:
    """The answer's shape of a table, with the sides' names when given."""
    if isinstance(table, Table):
        table = table.to_item()
    names = names or {}
    sides = [TableSide(entry_id=s["entry_id"], seats=s["seats"], name=names.get(s["entry_id"], "")) for s in table["sides"]]
    return RoundTable(**{k: v for k, v in table.items() if k in RoundTable.model_fields and k != "sides"}, sides=sides)
