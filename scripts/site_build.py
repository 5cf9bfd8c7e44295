"""The built front end (frontend/dist), for tests run on their own: `make site` builds it; this builds it when it is
missing or older than its sources, with the project's own Vite (npm install from package.json first)."""
from __future__ import annotations

import fcntl
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DIST = ROOT / "frontend" / "dist"


def _newest_source() -> float:
    files = [p for p in (ROOT / "frontend").rglob("*") if p.is_file() and "dist" not in p.relative_to(ROOT / "frontend").parts]
    return max(p.stat().st_mtime for p in files + [ROOT / "package.json"])


def _stale() -> bool:
    marker = DIST / "score.html"
    return not marker.exists() or marker.stat().st_mtime < _newest_source()


def built_site() -> Path:
    if _stale():
        # One build at a time (pytest-xdist's workers both start an e2e stack): the second waits, then finds it fresh.
        (ROOT / ".data").mkdir(exist_ok=True)
        with open(ROOT / ".data" / "site-build.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if _stale():
                if not (ROOT / "node_modules" / ".bin" / "vite").exists():
                    subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--loglevel=error"], cwd=ROOT, check=True)
                subprocess.run(["npm", "run", "--silent", "build", "--", "--logLevel", "warn"], cwd=ROOT, check=True)
    return DIST
