"""A publish longer than its lease (a 10,000-entry tournament's pages to S3: bench/publish.py) keeps the lease: it
is renewed while the publish runs, so no second publisher starts beside it and writes older pages over newer ones."""
from __future__ import annotations

import threading
import time
from datetime import datetime, UTC

from chalicelib import bootstrap
from chalicelib.services import publishing
from chalicelib.store import keys


def test_the_lease_is_renewed_while_a_long_publish_runs(moto_repos, monkeypatch):
    monkeypatch.setattr(publishing, "LEASE_SECONDS", 3)   # renewed every second
    d = bootstrap.deps()
    d.clock = lambda: datetime.now(UTC)
    leases = d.repos.publish_leases
    seen = {}

    def long_publish(deps, tid, *, force=False, asked=None, **_):
        seen["until"] = int(leases.t.get(keys.publish_lease(tid))["lease_until"])
        time.sleep(2.5)   # past a renewal or two (moto: the only store call meanwhile is the renewal's)
        seen["later"] = int(leases.t.get(keys.publish_lease(tid))["lease_until"])
        seen["other_got_it"] = leases.acquire(tid, "another publisher", seen["until"] + 1, 3)
        return {"files": 0}

    monkeypatch.setattr(publishing, "publish_tournament", long_publish)
    assert publishing.publish_latest(d, "T1")["files"] == 0
    assert seen["later"] > seen["until"]          # renewed while the publish ran
    assert seen["other_got_it"] is False          # so nobody else took it once its first term was over
    assert leases.holder("T1") is None            # given back at the end
    assert not any(t.name.startswith("lease-T1") for t in threading.enumerate())   # the renewing stops with the publish


def test_a_stuck_publish_stops_renewing_its_lease(moto_repos, monkeypatch):
    """A publish still running after LEASE_RENEWED_FOR_S is taken for stuck: its lease is left to run out, so the
    next ask's publisher can take over (a hung language child no longer holds a tournament's lease forever)."""
    monkeypatch.setattr(publishing, "LEASE_SECONDS", 3)
    monkeypatch.setattr(publishing, "LEASE_RENEWED_FOR_S", 1.5)
    d = bootstrap.deps()
    d.clock = lambda: datetime.now(UTC)
    leases = d.repos.publish_leases
    seen = {}

    def stuck_publish(deps, tid, *, force=False, asked=None, **_):
        time.sleep(2.6)
        seen["after_cap"] = int(leases.t.get(keys.publish_lease(tid))["lease_until"])
        seen["renewing"] = any(t.name.startswith(f"lease-{tid}") for t in threading.enumerate())
        time.sleep(1.2)
        seen["later"] = int(leases.t.get(keys.publish_lease(tid))["lease_until"])
        return {"files": 0}

    monkeypatch.setattr(publishing, "publish_tournament", stuck_publish)
    publishing.publish_latest(d, "T2")
    assert seen["renewing"] is False and seen["later"] == seen["after_cap"]
