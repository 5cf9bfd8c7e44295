"""A check for publisher changes that must not move a published byte (issue 29): publish stores cold with force and
record every file's digest, with one checkout and then another, and compare.

    # 1. (optional) dump the store of every moto test that published pages:
    GOLDEN_DUMP=/tmp/g/stores .venv/bin/python -m pytest -q -p no:cacheprovider -p tests.publish_golden tests/api/...
    # 2. in each checkout (the base one and yours): the dumped stores and a seeded big event (bench/publish.py's
    #    seed, ids from a counter: the same bytes every run), every file's sha1 into a JSON file
    GOLDEN_STORES=/tmp/g/stores GOLDEN_N=3000 .venv/bin/python -m tests.publish_golden /tmp/g/base.json
    # 3. what differs (PUBLISH_PAGE_ROWS=4 in step 2 pages the small events too)
    .venv/bin/python -m tests.publish_golden --compare /tmp/g/base.json /tmp/g/mine.json

The stores are raw items: they replay with code that reads the same table layout as the code that dumped them.
"""
from __future__ import annotations

import hashlib
import json
import os
import pickle
import re
import sys
from datetime import datetime, UTC
from pathlib import Path

import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item, nextitem):
    """With GOLDEN_DUMP set: each moto test's store, when its sink holds published pages."""
    out = os.environ.get("GOLDEN_DUMP")
    repos = item.funcargs.get("moto_repos") if out else None
    if repos is not None:
        try:
            from chalicelib import bootstrap
            from chalicelib.store import dynamo
            d = bootstrap.deps()
            files = getattr(d.publisher, "files", None) or {}
            tids = sorted({k.split("t/", 1)[1].split("/")[0] for k in files if k.endswith("index.html") and "t/" in k})
            if tids:
                items, kw = [], {"TableName": repos.table.name}
                while True:
                    page = dynamo.client().scan(**kw)
                    items.extend(page["Items"])
                    if "LastEvaluatedKey" not in page:
                        break
                    kw["ExclusiveStartKey"] = page["LastEvaluatedKey"]
                Path(out).mkdir(parents=True, exist_ok=True)
                name = re.sub(r"[^A-Za-z0-9_.-]", "_", item.nodeid)[:180] + ".pkl"
                (Path(out) / name).write_bytes(pickle.dumps({"items": items, "tids": tids,
                                                             "now": d.clock().isoformat()}))
        except Exception as exc:   # noqa: BLE001 — never break the test run
            print("golden dump failed", item.nodeid, exc)
    yield


def _cold() -> None:
    from chalicelib import bootstrap
    from chalicelib.services import publishing
    from chalicelib.store import rounds as store_rounds
    publishing.forget_warm(bootstrap.deps())   # the publisher's cache (its places too) of the Deps overridden
    store_rounds._ROUND_CACHE.clear()


def _digests(sink, label: str, out: dict) -> None:
    for k, body in sink.files.items():
        if "/.manifest" in k or k.endswith(".manifest.json"):
            continue   # the publisher's own bookkeeping, not a published page
        out[f"{label}/{k}"] = hashlib.sha1(body).hexdigest()


def _on_table(name: str):
    from chalicelib.store import dynamo, schema
    from chalicelib.store.repositories import Repos
    dynamo.reset_client()
    schema.ensure_table(dynamo.client(), name)
    return Repos(dynamo.Table(name))


def replay(out_path: str) -> None:
    os.environ.setdefault("AWS_DEFAULT_REGION", "ap-east-1")
    os.environ.setdefault("AWS_ACCESS_KEY_ID", "golden")
    os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "golden")
    os.environ.setdefault("TABLE_CODE_SECRET", "0" * 64)
    from moto import mock_aws
    from chalicelib import bootstrap
    from chalicelib.publish.sinks import MemorySink
    from chalicelib.services import publishing
    from chalicelib.store import dynamo
    result: dict[str, str] = {}
    stores = sorted(Path(os.environ["GOLDEN_STORES"]).glob("*.pkl")) if os.environ.get("GOLDEN_STORES") else []
    for fn in stores:
        data = pickle.loads(fn.read_bytes())
        now = datetime.fromisoformat(data["now"])
        with mock_aws():
            repos = _on_table("g")
            for i in range(0, len(data["items"]), 25):
                dynamo.client().batch_write_item(RequestItems={"g": [{"PutRequest": {"Item": it}}
                                                                     for it in data["items"][i:i + 25]]})
            sink = MemorySink()
            d = bootstrap.Deps(repos=repos, clock=lambda now=now: now, publisher=sink)
            bootstrap.override(d)
            for tid in data["tids"]:
                _cold()
                publishing.publish_tournament(d, tid, force=True)
            bootstrap.override(None)
        _digests(sink, fn.stem, result)
    n = int(os.environ.get("GOLDEN_N", "0"))
    if n:   # a big event (paged rounds and standings, find.json), the same ids every run
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
        from ulid import ULID
        from bench.publish import seed
        counter = iter(range(1, 10**9))
        clock = lambda: datetime(2026, 12, 12, 10, tzinfo=UTC)  # noqa: E731
        with mock_aws():
            repos = _on_table("big")
            sink = MemorySink()
            d = bootstrap.Deps(repos=repos, clock=clock, publisher=sink)
            bootstrap.override(d)
            t, *_ = seed(repos, clock, n, int(os.environ.get("GOLDEN_ROUNDS", "9")),
                         lambda: str(ULID.from_int(next(counter))))
            _cold()
            publishing.publish_tournament(d, t.id, force=True)
            bootstrap.override(None)
        _digests(sink, f"big{n}", result)
    dynamo.reset_client()
    Path(out_path).write_text(json.dumps(result, sort_keys=True, indent=0))
    print(f"{len(result):,} files from {len(stores)} stores" + (f" and a {n:,}-entry event" if n else ""))


def compare(a_path: str, b_path: str) -> int:
    a, b = json.loads(Path(a_path).read_text()), json.loads(Path(b_path).read_text())
    only_a, only_b = sorted(a.keys() - b.keys()), sorted(b.keys() - a.keys())
    differ = sorted(k for k in a.keys() & b.keys() if a[k] != b[k])
    for label, keys in (("only in the first", only_a), ("only in the second", only_b), ("differ", differ)):
        for k in keys[:20]:
            print(label, k)
    print(f"{len(a):,} and {len(b):,} files: {len(differ)} differ, {len(only_a)} only in the first, "
          f"{len(only_b)} only in the second")
    return 1 if differ or only_a or only_b else 0


if __name__ == "__main__":
    if sys.argv[1] == "--compare":
        sys.exit(compare(sys.argv[2], sys.argv[3]))
    replay(sys.argv[1])
