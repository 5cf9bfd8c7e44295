"""Entry ids to names, for texts the engine wrote with ids (it knows nothing else)."""
from __future__ import annotations

import re

_ULID = re.compile(r"\b[0-9A-HJKMNP-TV-Z]{26}\b")


def readable(reason: str, names: dict[str, dict]) -> str:
    for eid in set(_ULID.findall(reason or "")):
        if eid in names:
            reason = reason.replace(eid, names[eid]["name"])
    return reason
