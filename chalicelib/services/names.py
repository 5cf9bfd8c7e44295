"""Entry ids to names, for texts the engine wrote with ids (it knows nothing else)."""
from __future__ import annotations

import re

_ULID = re.compile(r"\b[0-9A-HJKMNP-TV-Z]{26}\b")


def ids_in(text: str) -> set[str]:
    """The entry ids (ULIDs) a text names: what readable() looks up."""
    return set(_ULID.findall(text or ""))


def readable(reason: str, names: dict[str, dict]) -> str:
    for eid in ids_in(reason):
        if eid in names:
            reason = reason.replace(eid, names[eid]["name"])
    return reason
