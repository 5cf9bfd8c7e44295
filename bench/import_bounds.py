"""The roster import's bounds (issue 36): each hostile file's time to refusal and peak memory above the start,
beside the largest sheet the import takes (1,000 teams of six), read in the same run — the reference. Targets:
every hostile file refused in < 5 s with < 200 MB of growth (before the bounds: a 345 KB sheet of 3 M cells took
2.8–3.0 GB; a 64 KB upload with one 50 MB cell answered 52 MB of JSON; XXE and billion laughs answered 500).

Each file is made here, then read in a fresh child process (spawned: its heap and peak RSS are its own, the
modules imported before the peak is reset): python bench/import_bounds.py
"""
from __future__ import annotations

import multiprocessing
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _files() -> dict:
    from tests import hostile_sheets as h
    return {
        "1,000 teams of six (the reference)": h.thousand_teams,
        "zip bomb: 100 MB of XML": lambda: h.zip_bomb(100),
        "zip bomb lying about its size": lambda: h.lying_about_size(h.zip_bomb(100), h.SHEET, 1000),
        "3 M cells in 12 MB of XML": lambda: h.many_cells(30_000, 100),
        "300,000 rows": lambda: h.many_cells(300_000, 1),
        "a 50 MB cell": lambda: h.long_cell(50),
        "XXE": h.xxe,
        "billion laughs": h.billion_laughs,
    }


def _status(field: str) -> float:
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(field + ":")) / 1024


def _measure(path: str, queue) -> None:
    import openpyxl  # noqa: F401  (imported before the peak is reset, as in a warm API process)

    from chalicelib import errors
    from chalicelib.services import roster_import
    content = Path(path).read_bytes()
    with open("/proc/self/clear_refs", "w") as f:   # the peak from here on
        f.write("5")
    before = _status("VmRSS")
    started = time.perf_counter()
    try:
        rows = roster_import.read_rows(content)
        outcome = f"read: {len(rows)} rows"
    except errors.DomainError as exc:
        outcome = f"{exc.status} {exc.code} ({(exc.details or {}).get('limit', '')})"
    queue.put((len(content), time.perf_counter() - started, _status("VmHWM") - before, outcome))


def main() -> None:
    import tempfile
    ctx = multiprocessing.get_context("spawn")
    print(f"{'file':38} {'bytes':>9} {'seconds':>8} {'MB grown':>9}  answer")
    with tempfile.TemporaryDirectory() as tmp:
        for n, (name, make) in enumerate(_files().items()):
            path = Path(tmp) / f"{n}.xlsx"
            path.write_bytes(make())
            queue = ctx.Queue()
            child = ctx.Process(target=_measure, args=(str(path), queue))
            child.start()
            size, seconds, grown, outcome = queue.get(timeout=120)
            child.join()
            print(f"{name:38} {size:>9,} {seconds:>8.2f} {grown:>9.1f}  {outcome}")


if __name__ == "__main__":
    main()
