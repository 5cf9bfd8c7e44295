"""`import app` from the source tree (issue 43 item 5: < 250 ms), beside references measured in the same run:
`python -c pass` (the interpreter's own start) and `import boto3` (what every Lambda function pays that touches AWS).

Each figure is the median of RUNS fresh interpreters, the three commands taking turns so a busy machine weighs on
them alike. Two conditions: with bytecode (a cache of this run's, written first: the deployed package carries its
.pyc files, so this is the cold start's own figure) and without (this machine's sessions run with
PYTHONDONTWRITEBYTECODE=1 and the venv holds no .pyc, so every import compiles its modules). CPU time beside wall
time: on a shared machine it is the steadier figure. Then the modules that cost most (`python -X importtime`, with
bytecode, the median of IMPORTTIME_RUNS runs per module), self time and cumulative.

    .venv/bin/python bench/import_app.py            (RUNS=15 by default; BENCH_RUNS=N to change)
"""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUNS = int(os.environ.get("BENCH_RUNS", "15"))
IMPORTTIME_RUNS = 5
BAR_MS = 250
HEAVY = ("numpy", "highspy", "stripe", "openpyxl", "PIL", "jinja2", "segno", "openskill", "wechatpayv3", "alipay",
         "rustworkx", "boto3", "botocore")

# Wall and CPU ms from before the import to after it (the interpreter's start is the `pass` reference's).
TIMED = ("import sys, time; t, c = time.perf_counter(), time.process_time(); {stmt}; "
         "print((time.perf_counter() - t) * 1000, (time.process_time() - c) * 1000)")
COMMANDS = {
    "import app": TIMED.format(stmt="import app"),
    "reference: import boto3": TIMED.format(stmt="import boto3"),
    "reference: pass": TIMED.format(stmt="pass"),
}


def _env(pyc: Path | None) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")}
    if pyc is None:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env["PYTHONPYCACHEPREFIX"] = str(Path(tempfile.gettempdir()) / "no-such-pyc-cache")   # no .pyc found either
    else:
        env["PYTHONPYCACHEPREFIX"] = str(pyc)
    return env


def _process(code: str, env: dict) -> tuple[float, float, float]:
    """(whole process wall ms, import wall ms, import CPU ms) of one fresh interpreter."""
    import time
    t = time.perf_counter()
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    whole = (time.perf_counter() - t) * 1000
    wall, cpu = run.stdout.strip().splitlines()[-1].split()
    return whole, float(wall), float(cpu)


def measure(env: dict) -> dict[str, list[tuple[float, float, float]]]:
    out: dict[str, list] = defaultdict(list)
    for _ in range(RUNS):
        for label, code in COMMANDS.items():
            out[label].append(_process(code, env))
    return out


def show(title: str, runs: dict) -> float:
    print(title)
    for label, rows in runs.items():
        whole, wall, cpu = (statistics.median(r[i] for r in rows) for i in range(3))
        print(f"  {label:<26} import wall median {wall:6.1f} ms (min {min(r[1] for r in rows):5.1f}, "
              f"max {max(r[1] for r in rows):6.1f}); CPU median {cpu:6.1f} ms; whole process {whole:6.1f} ms")
    return statistics.median(r[1] for r in runs["import app"])


def importtime(env: dict) -> None:
    """The modules that cost most, median over a few runs of `python -X importtime -c 'import app'`."""
    self_us: dict[str, list[int]] = defaultdict(list)
    cumulative_us: dict[str, list[int]] = defaultdict(list)
    for _ in range(IMPORTTIME_RUNS):
        run = subprocess.run([sys.executable, "-X", "importtime", "-c", "import app"], cwd=ROOT, env=env,
                             capture_output=True, text=True, check=True)
        for line in run.stderr.splitlines():
            if not line.startswith("import time:") or "self [us]" in line:
                continue
            own, cumulative, name = line.removeprefix("import time:").split("|")
            self_us[name.strip()].append(int(own))
            cumulative_us[name.strip()].append(int(cumulative))
    for title, table in (("cumulative", cumulative_us), ("self", self_us)):
        top = sorted(((statistics.median(v), k) for k, v in table.items()), reverse=True)[:15]
        print(f"  top modules by {title} time (ms): " + ", ".join(f"{k} {us / 1000:.1f}" for us, k in top))


def loaded_heavy(env: dict) -> list[str]:
    run = subprocess.run([sys.executable, "-c", f"import sys, app; print(sorted(m for m in {HEAVY!r} if m in sys.modules))"],
                         cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    return run.stdout.strip()


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        cached = _env(Path(tmp) / "pyc")
        subprocess.run([sys.executable, "-c", "import app, boto3"], cwd=ROOT, env=cached, check=True)   # the cache
        print(f"`import app` from {ROOT}, {RUNS} fresh interpreters each, taking turns (bar: {BAR_MS} ms); "
              f"load average {os.getloadavg()[0]:.1f}")
        with_bytecode = show("with bytecode (as the deployed package, which carries its .pyc files):", measure(cached))
        show("without bytecode (every module compiled at import):", measure(_env(None)))
        print(f"heavy libraries loaded by `import app`: {loaded_heavy(cached)}")
        importtime(cached)
        print(f"`import app` with bytecode: median {with_bytecode:.0f} ms, "
              f"{'within' if with_bytecode < BAR_MS else 'OVER'} the {BAR_MS} ms bar; "
              f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
