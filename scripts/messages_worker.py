"""The outbox's worker as a process of its own, for a stack started without scripts/dev.py (the browser tests'):
what AWS's scheduled function does, every EVERY_S seconds (an organiser's reset code is sent here, not in its
request). The environment (store, messages' providers) is the API's.

    python -m scripts.messages_worker [--every 1.0]"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--every", type=float, default=1.0, help="seconds between passes")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from chalicelib.api.jobs import deliver_messages
    while True:
        try:
            deliver_messages()
        except Exception as exc:   # noqa: BLE001 — the store may be starting or busy: the next pass tries again
            print(f"Message worker: a pass failed ({type(exc).__name__}); trying again.", flush=True)
        time.sleep(args.every)


if __name__ == "__main__":
    main()
