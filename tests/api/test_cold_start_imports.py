"""Issue 43, item 5: the API handler's import and its everyday requests never load the heavy libraries only some
requests need — numpy and highspy (the exact three-seat seating solver), the payment SDK, the spreadsheet
reader, the poster renderer. A fresh process on an embedded store: the handler imported, an event set up and
drawn through it (a pair Swiss draw: rustworkx, not HiGHS), then a tournament's read (its organiser's), a phone's
poll of its table, a result and its confirmation."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NEVER_ON_THE_HOT_PATH = ("numpy", "highspy", "stripe", "openpyxl", "PIL")

DAY = """
import json, sys
heavy = %r
from app import app
loaded = {"import app": sorted(m for m in heavy if m in sys.modules)}
from chalice.test import Client
from chalicelib import bootstrap
from chalicelib.services.organisers import create_organiser
from chalicelib.store import dynamo, schema
from tests.api.play import draw, people, setup_event
from tests.factories import Api
from chalicelib.services import publish_requests
schema.ensure_table(dynamo.client(), "cardgames")
asked = []   # in AWS a message on the queue: the publisher (posters, pages) is another function's work
publish_requests.request_publish = lambda deps, tid, change=None: asked.append(change)
with Client(app) as client:
    _, token = create_organiser(bootstrap.deps(), "冷启动商会")
    api = Api(client, token)
    tid, eid, _ = setup_event(api, {"name": "掼蛋", "game": "guandan", "entry": "pair", "capacity": 8,
                                    "fee": {"amount": 0}, "stages": [{"format": "swiss", "rounds": 3}]},
                              people(4, 2, "对"))
    t = draw(api, eid)["tables"][0]
    base = f"/events/{eid}/rounds/1/tables/{t['number']}"
    a, b = (s["entry_id"] for s in t["sides"])
    code = lambda side: {"headers": {"X-Table-Code": t["codes"][side]}, "token": None}
    statuses = [api.get(f"/tournaments/{tid}").status_code, api.get(base, **code(0)).status_code,
                api.put(f"{base}/result", {"version": 0, "final": {"levels": {a: 14, b: 9}}}, **code(0)).status_code,
                api.post(f"{base}/confirm", **code(1)).status_code]
loaded["requests"] = sorted(m for m in heavy if m in sys.modules)
print(json.dumps({"statuses": statuses, "loaded": loaded, "publishes_asked": len(asked)}))
""" % (NEVER_ON_THE_HOT_PATH,)   # noqa: UP031 — the script is full of braces; % keeps them literal


def _run(code: str, env: dict, *args: str) -> dict:
    proc = subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_a_cold_handler_answers_reads_and_results_without_the_heavy_libraries(tmp_path):
    env = {**os.environ, "STORE": "embedded", "STORE_PATH": str(tmp_path / "store.sqlite3"),
           "PUBLISH_DIR": str(tmp_path / "site"), "TABLE_CODE_SECRET": "cold-start-test-" + "0" * 32}
    for name in ("PUBLISH_BUCKET", "PUBLISH_QUEUE_URL", "STRIPE_SECRET_KEY", "STRIPE_SECRET_ARN"):
        env.pop(name, None)
    out = _run(DAY, env)
    assert out["statuses"] == [200, 200, 200, 200], out
    assert out["loaded"] == {"import app": [], "requests": []}, out
    assert out["publishes_asked"] >= 2     # the draw's and the confirmed result's (the requests did what they do)
