"""The Lambda package's budgets, measured on the artifact `cdk synth` builds for the dev stage (the zip
`cdk deploy` uploads; synthesized here unless tests/infra's last synth of the same inputs is there):

- size: unzipped bytes against Lambda's 250 MB limit, zipped bytes, the largest parts;
- cold start: the handler's import (`import app`) in a fresh `python -I -S -B` with only the unpacked package
  and the runtime's boto3 on its path, as Lambda's init runs it (median of RUNS fresh processes), against
  the 300 ms bar. Beside it, in the same run: `import app` from the source tree (the bar's old measurement)
  and the same package without its bytecode (what a read-only /var/task compiled at every cold start).
Lambda's own runtime start (before the import) is not in these figures.
"""
from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.deploy import artifact  # noqa: E402
from tests.infra import cdk  # noqa: E402

RUNS = 7
BAR_MS = 300
MB = 1024 * 1024
TIMED = "import sys, time; sys.path[:0] = sys.argv[1:]; t = time.perf_counter(); import app; print((time.perf_counter() - t) * 1000)"


def import_ms(args: list[str], cwd: Path, env: dict | None = None) -> list[float]:
    out = []
    for _ in range(RUNS):
        run = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, check=True)
        out.append(float(run.stdout.strip().splitlines()[-1]))
    return out


def show(label: str, values: list[float]) -> None:
    print(f"  {label:<44} median {statistics.median(values):6.0f} ms   min {min(values):6.0f}   max {max(values):6.0f}")


def main() -> None:
    template = cdk.synth("dev")
    zip_path = cdk.function_asset("dev", template, "APIHandler")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        sizes = artifact.unpack(zip_path, tmp / "task")
        runtime = artifact.runtime_dir(tmp / "runtime")
        print(f"Lambda package {zip_path.name}")
        print(f"  unzipped {sizes['unzipped'] / MB:.1f} MB of Lambda's 250 MB limit ({sizes['unzipped'] / (250 * MB):.0%}); "
              f"zipped {sizes['zipped'] / MB:.1f} MB")
        largest = sorted(sizes["per_top"].items(), key=lambda kv: -kv[1])[:5]
        print("  largest parts: " + ", ".join(f"{n} {b / MB:.1f} MB" for n, b in largest))

        clean = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "AWS_DEFAULT_REGION": "ap-east-1"}
        packaged = import_ms([sys.executable, "-I", "-S", "-B", "-c", TIMED, str(tmp / "task"), str(runtime)], tmp / "task", clean)
        shutil.copytree(tmp / "task", tmp / "nobytecode", ignore=shutil.ignore_patterns("__pycache__"))
        uncompiled = import_ms([sys.executable, "-I", "-S", "-B", "-c", TIMED, str(tmp / "nobytecode"), str(runtime)],
                               tmp / "nobytecode", clean)
        source = import_ms([sys.executable, "-c", TIMED, str(ROOT)], ROOT)
        print(f"Cold start: `import app`, {RUNS} fresh processes each (bar: {BAR_MS} ms)")
        show("from the package (as deployed)", packaged)
        show("reference: from the source tree (venv)", source)
        show("reference: the package without its bytecode", uncompiled)
        verdict = "within" if statistics.median(packaged) < BAR_MS else "OVER"
        print(f"  the package's median is {verdict} the {BAR_MS} ms bar")


if __name__ == "__main__":
    main()
