"""`cdk synth` as `make synth` runs it (the CDK CLI from npm on the Node it installs, then cfn-lint), once per
stage and test session, and skipped when nothing it reads changed since the last synth into the same folder:
the source, the requirements, the infra code, the Node tooling and the installed Python packages."""
from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CDK = ROOT / "node_modules" / ".bin" / "cdk"
INPUTS = ("app.py", "requirements.txt", ".chalice/config.json", "package.json", "package-lock.json", "chalicelib",
          "infra", "frontend")
_done: dict[str, dict] = {}


def out_dir(stage: str, region: str | None = None) -> Path:
    return ROOT / "infra" / (f"cdk.out.{stage}" + (f".{region}" if region else ""))


def inputs_digest(stage: str, region: str | None = None) -> str:
    h = hashlib.sha256(f"{stage}:{region or ''}".encode())
    for name in INPUTS:
        base = ROOT / name
        files = sorted(p for p in base.rglob("*") if p.is_file()) if base.is_dir() else [base]
        for p in files:
            rel = p.relative_to(ROOT)
            if any(part.startswith(("cdk.out", "chalice.out", "__pycache__")) for part in rel.parts):
                continue
            h.update(str(rel).encode() + b"\0" + p.read_bytes() + b"\0")
    for dist in sorted(f"{d.metadata['Name']}=={d.version}" for d in metadata.distributions()):
        h.update(dist.encode() + b"\0")
    return h.hexdigest()


def env() -> dict:
    """The CDK CLI and jsii run on the Node version the project installs (package.json), not the machine's."""
    e = dict(os.environ, PATH=f"{ROOT / 'node_modules' / '.bin'}{os.pathsep}{os.environ.get('PATH', '')}")
    e.pop("AWS_ENDPOINT_URL_DYNAMODB", None)
    e.pop("JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION", None)
    return e


def synth(stage: str, region: str | None = None) -> dict:
    """The stage's template (for `region`: `make synth REGION=…`), synthesized (or reused) and linted — for a region,
    against that region's resource types. The run's output is kept beside it."""
    done_key = f"{stage}:{region or ''}"
    if done_key in _done:
        return _done[done_key]
    from scripts.site_build import built_site
    built_site()   # the stack deploys Vite's output (frontend/dist)
    out = out_dir(stage, region)
    path = out / f"cardgames-{stage}.template.json"
    stamp = out / ".inputs-digest"
    digest = inputs_digest(stage, region)
    # One synth at a time on this checkout (pytest-xdist's workers, two test runs): every synth clears
    # infra/chalice.out and shares Chalice's dependency cache (.chalice/deployments). The second to come reuses
    # the first one's output through the digest.
    (ROOT / ".data").mkdir(exist_ok=True)
    with open(ROOT / ".data" / "synth.lock", "w") as lock:   # not under infra/: that is hashed into the digest
        fcntl.flock(lock, fcntl.LOCK_EX)
        _synth_unless_current(stage, region, out, path, stamp, digest)
    _done[done_key] = json.loads(path.read_text())
    return _done[done_key]


def _synth_unless_current(stage: str, region: str | None, out: Path, path: Path, stamp: Path, digest: str) -> None:
    if not (path.exists() and stamp.exists() and stamp.read_text() == digest):
        stamp.unlink(missing_ok=True)
        # Each synth leaves Chalice's package (40 MB) in infra/chalice.out/<uuid>/; the cloud assembly keeps its
        # own copy, so earlier ones are only disk.
        shutil.rmtree(ROOT / "infra" / "chalice.out", ignore_errors=True)
        region_args = ["-c", f"region={region}"] if region else []
        run = subprocess.run([str(CDK), "synth", "-c", f"stage={stage}", *region_args, "-q", "-o", str(out)], cwd=ROOT / "infra",
                             env=env(), capture_output=True, text=True, timeout=900)
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
        (out / "synth.log").write_text(run.stdout + run.stderr)
        lint = subprocess.run([str(Path(sys.executable).parent / "cfn-lint"), str(path), "--ignore-checks", "W3005",
                               *(["--regions", region] if region else [])],
                              capture_output=True, text=True, timeout=300)
        # cfn-lint's exit code is a bit set: 2 errors, 4 warnings, 8 informational. Errors and warnings fail.
        assert lint.returncode == 0, lint.stdout + lint.stderr
        stamp.write_text(digest)


def synth_log(stage: str) -> str:
    log = out_dir(stage) / "synth.log"
    return log.read_text() if log.exists() else ""


def function_asset(stage: str, template: dict, logical_id: str) -> Path:
    """The file `cdk deploy` uploads for a function: its code's S3 key looked up in the stage's asset manifest."""
    props = template["Resources"][logical_id]["Properties"]
    key = (props.get("CodeUri") or props.get("Code"))
    key = key.get("Key") or key.get("S3Key")
    manifest = json.loads((out_dir(stage) / f"cardgames-{stage}.assets.json").read_text())
    for asset in manifest["files"].values():
        if any(d["objectKey"] == key for d in asset["destinations"].values()):
            assert asset["source"]["packaging"] == "file", asset
            return out_dir(stage) / asset["source"]["path"]
    raise AssertionError(f"no asset uploads {key}")
