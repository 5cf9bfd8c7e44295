"""This laptop's own secrets, made once on the first `make run` / `make venue` and kept in .data/secrets.json
(mode 0600): the table-code secret (printed codes cannot be computed by anyone holding only an event id) and
the lookup key (login names and rate keys are stored as keyed hashes). Delete the file to start afresh: table
cards printed before then stop working and accounts must be created again."""
from __future__ import annotations

import json
import os
import secrets
from pathlib import Path

NAMES = {"table_code_secret": "TABLE_CODE_SECRET", "lookup_secret": "LOOKUP_SECRET"}


def ensure_secrets(data_dir: Path) -> dict[str, str]:
    """The installation's secrets as environment variables, generated on first use."""
    path = Path(data_dir) / "secrets.json"
    known: dict[str, str] = {}
    if path.exists():
        known = json.loads(path.read_text())
    missing = [k for k in NAMES if not known.get(k)]
    if missing:
        for k in missing:
            known[k] = secrets.token_bytes(32).hex()
        path.parent.mkdir(parents=True, exist_ok=True)
        # Written under a temporary name created with mode 0600, then renamed: never readable by others, never half-written.
        tmp = path.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            json.dump(known, f)
        os.replace(tmp, path)
    os.chmod(path, 0o600)
    return {env: known[k] for k, env in NAMES.items()}
