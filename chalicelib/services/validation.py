"""Turns pydantic errors into the `details` of a 400 invalid_request: one entry per field."""
from __future__ import annotations

import re

_FIELD_PREFIX = re.compile(r"^(?:Value error, )?([A-Za-z_][\w\.\[\]]*): (.*)$", re.S)


def validation_details(exc) -> list[dict]:
    out = []
    for err in exc.errors(include_url=False, include_input=False):
        loc = ".".join(str(p) for p in err.get("loc", ()) if p not in ("function-after", "function-before"))
        msg = err.get("msg", "invalid")
        m = _FIELD_PREFIX.match(msg)
        if m:  # model-level checks name their field first ("entry: …")
            loc = ".".join(x for x in (loc, m.group(1)) if x)
            msg = m.group(2)
        elif msg.startswith("Value error, "):
            msg = msg[len("Value error, "):]
        out.append({"field": loc or "body", "message": msg, "type": err.get("type")})
    return out
