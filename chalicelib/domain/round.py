"""A round as the draw makes it, its pure part: the choices of a 'choice' knockout, the round's document, the
event state after the draw. The service (services/rounds.py) reads the field and the pairings the engine
draws, and saves what these return."""
from __future__ import annotations

from datetime import datetime
from typing import Any

from .. import errors
from ..engine.formats.knockout import chosen_round


KNOCKOUT_ROUNDS = {2: "final", 4: "semi_final", 8: "quarter_final", 16: "round_of_16", 32: "round_of_32", 64: "round_of_64"}


def knockout_round_name(entries: int) -> str | None:
    """A single-elimination round named by its bracket's size (entries in play, byes included, up to the next
    power of two): 2 the final (决赛), 4 the semi-finals (半决赛), 8 the quarter-finals (1/4决赛), 16 1/8决赛 …"""
    size = 2
    while size < entries:
        size *= 2
    return KNOCKOUT_ROUNDS.get(size)


def apply_choices(plan: dict, stage, stage_round: int, choices: list | None) -> None:
    """rules.md §8 knockout_draw 'choice': the first round's bracket is the entries' choices, best placed first.
    Choices for any other round are refused."""
    chooses = stage.format == "knockout" and stage.knockout_draw == "choice"
    if choices and not (chooses and stage_round == 1):
        raise errors.InvalidRequest("只有“选择对手”淘汰赛的第一轮才有选择 · 'choices' belong to the first round of a knockout "
                                    "whose draw is 'choice'.")
    if chooses and stage_round == 1:
        plan["bracket"] = [list(m) for m in chosen_round(plan["entries"], [tuple(c) for c in choices or []])]
        plan["choices"] = [list(c) for c in choices or []]


def drawn_doc(eid: str, stage_idx: int, n: int, stage_round: int, seed: int, plan: dict, stage, tables: list[dict],
              byes: list, bye_why: dict, notes: list[str], late: list, *, now: datetime,
              starts_at: datetime | None, ends_at: datetime | None) -> dict[str, Any]:
    """The new round's document: open, with its seed (the draw is reproducible), byes and why, notes, times, and
    a single-elimination round's name (决赛, 半决赛 …) when every table is a match of two."""
    knockout = plan["format"] == "knockout"
    named = knockout and not stage.double_elimination and all(len(t["sides"]) == 2 for t in tables)
    return {"event_id": eid, "stage": stage_idx, "number": n, "stage_round": stage_round, "seed": seed,
            "round_name": knockout_round_name(2 * len(plan["bracket"])) if named else None,
            "status": "open", "format": plan["format"], "byes": byes, "bye_why": bye_why, "notes": notes,
            "drawn_at": now.isoformat(),
            "starts_at": starts_at.isoformat() if starts_at else None, "ends_at": ends_at.isoformat() if ends_at else None,
            "bracket": plan.get("bracket") if knockout else None,
            "late_entries": late, "early_finish": dict(plan.get("early_finish", {}))}


def drawn_state(state: dict, stage_idx: int, n: int, stage_round: int) -> dict:
    """The event's state once round n is drawn: its stage, n open, n in the list of rounds."""
    return {**state, "stage": stage_idx, "open_round": n,
            "rounds": [*state["rounds"], {"n": n, "stage": stage_idx, "stage_round": stage_round}]}
