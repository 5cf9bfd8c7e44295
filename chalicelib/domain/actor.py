"""Who acts at a table: the organiser (or a staff member, by role) or the holder of one side's table code."""
from __future__ import annotations

from dataclasses import dataclass

from .. import errors


@dataclass(frozen=True)
class Actor:
    kind: str                 # "organiser" | "side"
    ident: str                # organiser id ('staff:<id>:<name>:<role>' for staff), or "table <t> side <i>"
    side: int | None = None

    @property
    def role(self) -> str:
        """The staff role in the audit name ('staff:<id>:<name>:<role>'); the organiser is the owner."""
        if self.kind == "organiser" and self.ident.startswith("staff:"):
            return self.ident.rsplit(":", 1)[-1]
        return "owner" if self.kind == "organiser" else "side"

    @property
    def is_side(self) -> bool:
        return self.kind == "side"


def director_only(actor: Actor, what: tuple[str, str]) -> None:
    """api.md v1.2: settling, overriding (and drawing, closing, forfeits, edits) are the chief referee's; a
    scorer enters and confirms results and records arrivals."""
    if actor.role not in ("owner", "director"):
        raise errors.Forbidden(f"只有裁判长可以{what[0]} · Only the director may {what[1]}.")
