"""What the benchmarks on DynamoDB Local share: the service started and stopped around a run, a table."""
from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("AWS_DEFAULT_REGION", "ap-east-1")
os.environ.setdefault("AWS_ACCESS_KEY_ID", "bench")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "bench")
# A secret of this run only: no installation secret is built in (chalicelib/installation.py).
os.environ.setdefault("TABLE_CODE_SECRET", __import__("secrets").token_hex(32))
# Benches move thousands of items at once on a shared machine: wait for DynamoDB Local longer than a request would.
os.environ.setdefault("DDB_READ_TIMEOUT_S", "30")


STORE: dict = {}   # the running DynamoDB Local's process and port (the venue bench pauses it)


def scratch_dir(prefix: str) -> str:
    """A folder of this run (the pages a bench publishes: 2.5 GB at 100,000 entries), removed when the run ends
    unless BENCH_KEEP_STORE=1: left behind, a session's runs filled the shared disk."""
    import atexit
    import shutil
    import tempfile
    folder = tempfile.mkdtemp(prefix=prefix)
    if os.environ.get("BENCH_KEEP_STORE") != "1":
        pid = os.getpid()   # a forked child's exit leaves it to the process that made it
        atexit.register(lambda: os.getpid() == pid and shutil.rmtree(folder, ignore_errors=True))
    return folder


def on_ddb_local(run) -> None:
    """Starts DynamoDB Local on a free port, runs `run()` against it, and stops it whatever happens.
    BENCH_STORE=embedded: on the embedded store instead (a file of this run; the venue's store, issue 36)."""
    if os.environ.get("BENCH_STORE") == "embedded":
        import shutil
        import tempfile
        folder = tempfile.mkdtemp(prefix="bench-")
        os.environ.update(STORE="embedded", STORE_PATH=str(Path(folder) / "store.sqlite3"))
        print("store: embedded (SQLite in this process)")
        try:
            run()
        finally:   # a 100,000-entry day's store is ~1.4 GB: left behind, a few runs filled the shared disk
            if os.environ.get("BENCH_KEEP_STORE") != "1":
                shutil.rmtree(folder, ignore_errors=True)
        return
    from scripts import ddblocal
    port = ddblocal.free_port()
    proc = ddblocal.start(port, log_path=str(ROOT / ".data" / "ddblocal-bench.log"))
    STORE.update(proc=proc, port=port)
    try:
        os.environ["AWS_ENDPOINT_URL_DYNAMODB"] = f"http://127.0.0.1:{port}"
        run()
    finally:
        ddblocal.stop(proc)


def repos_on(table: str):
    from chalicelib.store import dynamo, schema
    from chalicelib.store.repositories import Repos
    schema.ensure_table(dynamo.client(), table)
    return Repos(dynamo.Table(table))
