"""The audit log as a hash chain (issue 36 item 9, docs/audit-chain.md): a day's results entered, confirmed, disputed,
settled, corrected and forfeited through the API, published to a folder; scripts/verify_log passes it and fails,
naming the record, on any edited, removed, reordered or inserted record."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from chalicelib import auditchain, bootstrap
from chalicelib.publish.sinks import LocalSink
from chalicelib.store import audit_chain
from scripts.verify_log import verify
from tests.api.play import draw, enter_and_confirm, people, setup_event

ROOT = Path(__file__).resolve().parents[2]
PHONE = "13912345678"


def guandan():
    return {"name": "掼蛋", "game": "guandan", "entry": "pair", "capacity": 40, "fee": {"amount": 0},
            "stages": [{"format": "swiss", "rounds": 3, "early_finish": False, "scoring": {"method": "level_points"}}]}


def as_side(rnd, t, k):
    return {"token": None, "headers": {"X-Table-Code": rnd["tables"][t - 1]["codes"][k]}}


def one_chain_record(eid: str, record_id: str = "01HAAAAAAAAAAAAAAAAAAAAAA0") -> None:
    """The event's first record appended as the version before lanes did (its one chain, format 1): the event
    is one created before, and keeps its one chain."""
    table = bootstrap.deps().repos.rounds.t
    record = {"id": record_id, "at": "2026-12-01T01:00:00+00:00", "who": "organiser:x", "action": "event_created"}
    audit_chain._append(table, eid, record, (), False, None, audit_chain.head(table, eid))


def chains(index: dict) -> list[tuple[int | None, dict]]:
    """(lane, chain) of a published audit.json: the event's one chain (lane None), or each lane's."""
    if index["format"] == auditchain.FORMAT:
        return [(None, index)]
    return [(c["lane"], c) for c in index["chains"]]


def lane0(index: dict) -> dict:
    """The chain that holds the records of no table and of tables 1–19: the one chain, or lane 0."""
    return chains(index)[0][1]


@pytest.fixture(params=["lanes", "one chain"])
def day(api, tmp_path, request):
    """A published day: every kind of result change, the site in a folder; with lanes, also records of tables in
    lanes 1 and 2; or an event created before lanes (its one chain). → (site folder, tid, eid, api)"""
    site = tmp_path / "site"
    bootstrap.deps().publisher = LocalSink(str(site))
    tid, eid, _ = setup_event(api, guandan(), people(8, 2, "队"))
    if request.param == "one chain":
        one_chain_record(eid)
    rnd = draw(api, eid)
    ids = [[s["entry_id"] for s in t["sides"]] for t in rnd["tables"]]
    enter_and_confirm(api, eid, rnd, rnd["tables"][0], {"final": {"levels": {ids[0][0]: 10, ids[0][1]: 8}}})
    base = f"/events/{eid}/rounds/1/tables/2"
    a, b = ids[1]
    assert api.put(f"{base}/result", {"version": 0, "final": {"levels": {a: 10, b: 8}}}, **as_side(rnd, 2, 0)).status_code == 200
    disputed = api.post(f"{base}/dispute", {"reason": f"记错了，请打 {PHONE}"}, **as_side(rnd, 2, 1))
    assert disputed.status_code == 200, disputed.data
    settled = api.put(f"{base}/result", {"version": 2, "final": {"levels": {a: 10, b: 9}}, "reason": "裁判核对记分表"})
    assert settled.status_code == 200 and settled.data["status"] == "confirmed", settled.data
    c, d = ids[2]
    enter_and_confirm(api, eid, rnd, rnd["tables"][2], {"final": {"levels": {c: 10, d: 8}}})
    corrected = api.put(f"/events/{eid}/rounds/1/tables/3/result",
                        {"version": 2, "final": {"levels": {c: 8, d: 10}}, "reason": "记反了方向"})
    assert corrected.status_code == 200, corrected.data
    e, _ = ids[3]
    assert api.post(f"/events/{eid}/rounds/1/tables/4/forfeit", {"entry_id": e, "reason": "未到场"}).status_code == 200
    if request.param == "lanes":   # a big round's tables 21 and 45: lanes 1 and 2 (pack 1 and 2)
        for k, t in enumerate((21, 45, 45)):
            bootstrap.deps().repos.rounds.add_audit(eid, {"id": f"01KAAAAAAAAAAAAAAAAAAAAAA{k}", "who": "table 1 side 1",
                                                          "at": "2026-12-01T02:00:00+00:00", "round": 1, "table": t,
                                                          "action": "result_entered", "reason": ""})
    assert api.post(f"/tournaments/{tid}/publish").status_code == 200
    return site, tid, eid, api


def test_the_published_chain_holds_every_record_and_nothing_private(day):
    site, tid, eid, api = day
    audit = api.get(f"/events/{eid}/audit").data["audit"]
    index = json.loads((site / f"t/{tid}/{eid}/audit.json").read_text("utf-8"))
    entries = [e for _, c in chains(index) for e in c["records"]]
    # every record of the store, once, in its chain from record 1, the page's footer at the event's head
    assert sorted(e["id"] for e in entries) == sorted(x["id"] for x in audit) and len(entries) == index["count"]
    heads = []
    for lane, c in chains(index):
        assert [e["seq"] for e in c["records"]] == list(range(1, c["count"] + 1))
        heads.append((c["count"], auditchain.check(eid, c["records"], c["count"], c["head"], lane=lane)))
    if index["format"] == auditchain.FORMAT_LANES:   # 16 lanes; the tables 21 and 45 in lanes 1 and 2
        assert [c["count"] for _, c in chains(index)][1:4] == [1, 2, 0] and len(heads) == auditchain.LANES
        assert auditchain.event_head(eid, heads) == index["head"]
    else:
        assert heads[0][1] == index["head"] and "lane" not in entries[0]
    actions = [e["action"] for e in entries]
    for action in ("result_entered", "result_confirmed", "result_disputed", "dispute_settled", "result_corrected",
                   "forfeit_recorded"):
        assert action in actions, action
    page = (site / f"t/{tid}/{eid}/corrections.html").read_text("utf-8")
    assert f'data-count="{index["count"]}" data-head="{index["head"]}"' in page
    corrected = next(e for e in entries if e["action"] == "result_corrected")
    number = corrected["seq"] if index["format"] == auditchain.FORMAT else f"{corrected['lane']}-{corrected['seq']}"
    assert f'data-seq="{number}"' in page and corrected["reason"] == "记反了方向"
    assert f'data-head="{index["head"]}"' in (site / f"en/t/{tid}/{eid}/corrections.html").read_text("utf-8")
    # the side's dispute text (a phone in it) stays in the store: the chain binds it by a salted digest only
    published = (site / f"t/{tid}/{eid}/audit.json").read_text("utf-8")
    assert PHONE not in published and "organiser:" not in published and "请打" not in published
    # the organiser, holding the store, checks the private part too
    items = bootstrap.deps().repos.rounds.audit_items(eid)
    assert audit_chain.check_items(eid, items) == len(audit)
    tampered = dict(items[0], data=items[0]["data"].replace('"at"', '"at" ', 1).replace("2026", "2025", 1))
    with pytest.raises(auditchain.Broken):
        audit_chain.check_items(eid, [tampered, *items[1:]])


def _edit(site: Path, tid: str, eid: str, change, lane: int = 0) -> Path:
    """A copy of the site whose event audit.json has its records (lane 0's, or `lane`'s) changed by `change(records)`."""
    copy = site.parent / f"copy{len(list(site.parent.iterdir()))}"
    shutil.copytree(site, copy)
    path = copy / f"t/{tid}/{eid}/audit.json"
    index = json.loads(path.read_text("utf-8"))
    change(chains(index)[lane][1]["records"])
    path.write_text(json.dumps(index, ensure_ascii=False), "utf-8")
    return copy


def test_the_verifier_passes_the_site_and_names_the_first_bad_record(day):
    site, tid, eid, api = day
    run = subprocess.run([sys.executable, "-m", "scripts.verify_log", str(site)], cwd=ROOT, capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    index = json.loads((site / f"t/{tid}/{eid}/audit.json").read_text("utf-8"))
    assert run.stdout.startswith("OK 1 event chain(s), ") and f"{index['count']} records" in run.stdout
    n, lane = lane0(index)["count"], "" if index["format"] == auditchain.FORMAT else "lane 0 "

    def edit_points(records):   # a result's points changed after the fact
        k = next(i for i, e in enumerate(records) if e["action"] == "result_corrected")
        after = records[k]["after"]["points"]
        first = next(iter(after))
        after[first]["level_points"] = 99
    bad = _edit(site, tid, eid, edit_points)
    code, line = verify(str(bad))
    seq = next(e["seq"] for e in lane0(json.loads((bad / f"t/{tid}/{eid}/audit.json").read_text("utf-8")))["records"]
               if e["action"] == "result_corrected")
    assert code == 1 and f"{lane}record {seq}: its fields do not match its hash" in line, line
    run = subprocess.run([sys.executable, "-m", "scripts.verify_log", str(bad)], cwd=ROOT, capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 1 and f"record {seq}" in run.stderr

    code, line = verify(str(_edit(site, tid, eid, lambda r: r.pop(4))))   # record 5 removed
    assert code == 1 and f"{lane}record 5: found seq 6 where 5 belongs" in line, line
    code, line = verify(str(_edit(site, tid, eid, lambda r: r.pop())))   # the last one removed
    assert code == 1 and f"{lane}record {n}: the chain ends at record {n - 1} but {n} are published" in line, line
    code, line = verify(str(_edit(site, tid, eid, lambda r: r.insert(3, r.pop(2)))))   # records 3 and 4 swapped
    assert code == 1 and f"{lane}record 3: found seq 4" in line, line

    def renumbered(records):   # 3 and 4 swapped and renumbered: their links give it away
        records.insert(3, records.pop(2))
        records[2]["seq"], records[3]["seq"] = 3, 4
    code, line = verify(str(_edit(site, tid, eid, renumbered)))
    assert code == 1 and f"{lane}record 3: its prev is not the hash" in line, line

    def inserted(records):   # a forged record, hashed correctly but not linked into the rest
        forged = {**records[1], "seq": 3, "prev": records[1]["hash"], "reason": "forged"}
        forged["hash"] = auditchain.entry_hash(forged)
        records.insert(2, forged)
    code, line = verify(str(_edit(site, tid, eid, inserted)))
    assert code == 1 and "record 4: found seq 4" not in line and f"{lane}record 4" in line, line

    if index["format"] == auditchain.FORMAT_LANES:   # in another lane: its second record (table 45) altered
        code, line = verify(str(_edit(site, tid, eid, lambda r: r[1].update(table=46), lane=2)))
        assert code == 1 and "lane 2 record 2: its fields do not match its hash" in line, line
        code, line = verify(str(_edit(site, tid, eid, lambda r: r.pop(), lane=2)))
        assert code == 1 and "lane 2 record 2: the chain ends at record 1 but 2 are published" in line, line

    # a witnessed head pins the end: a chain cut short and re-headed is caught
    index = json.loads((site / f"t/{tid}/{eid}/audit.json").read_text("utf-8"))
    assert verify(str(site / f"t/{tid}/{eid}/audit.json"), head=index["head"])[0] == 0
    assert verify(str(site / f"t/{tid}/{eid}/audit.json"), head="0" * 64)[0] == 1

    # over HTTP from the site server (a real process), from the tournament's address (its feed names the events)
    from scripts import ddblocal
    port = ddblocal.free_port()
    (site.parent / "frontend").mkdir()
    server = subprocess.Popen([sys.executable, "-m", "scripts.site_server", "--port", str(port), "--frontend",
                               str(site.parent / "frontend"), "--published", str(site)], cwd=ROOT,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        ddblocal.wait_for_port(port, 30)
        url = f"http://127.0.0.1:{port}/t/{tid}/"
        code, line = verify(url)
        assert code == 0 and f"{eid}:" in line, line
        path = site / f"t/{tid}/{eid}/corrections.html"
        page = path.read_text("utf-8")
        index = json.loads((site / f"t/{tid}/{eid}/audit.json").read_text("utf-8"))
        count = index["count"]
        page = page.replace(f'data-count="{count}"', f'data-count="{count - 1}"')
        if index["format"] == auditchain.FORMAT_LANES:   # one lane's count one less, the sum with it
            counts = [c["count"] for c in index["chains"]]
            page = page.replace(f'data-counts="{",".join(map(str, counts))}"',
                                f'data-counts="{",".join(map(str, [counts[0] - 1, *counts[1:]]))}"')
        path.write_text(page, "utf-8")
        code, line = verify(url)   # the page's head is not the hash of the record it names
        assert code == 1 and "corrections.html: the page's head" in line, line
    finally:
        ddblocal.stop(server)


def test_segments_hold_long_chains(api, tmp_path, monkeypatch):
    """Past SEGMENT records, full segments go to audit-<k>.json (not rewritten after) and the verifier joins them."""
    monkeypatch.setattr(auditchain, "SEGMENT", 4)
    site = tmp_path / "site"
    bootstrap.deps().publisher = LocalSink(str(site))
    tid, eid, _ = setup_event(api, guandan(), people(8, 2, "队"))
    rnd = draw(api, eid)
    for t in rnd["tables"]:
        a, b = (s["entry_id"] for s in t["sides"])
        enter_and_confirm(api, eid, rnd, t, {"final": {"levels": {a: 10, b: 8}}})
    assert api.post(f"/tournaments/{tid}/publish").status_code == 200
    folder = site / f"t/{tid}/{eid}"
    index = json.loads((folder / "audit.json").read_text("utf-8"))
    lane = index["chains"][0]   # tables 1–19: lane 0
    assert index["count"] == lane["count"] == 9
    assert [s["href"] for s in lane["segments"]] == ["audit-0-1.json", "audit-0-2.json"]
    assert [e["seq"] for e in lane["records"]] == [9]
    assert verify(str(site))[0] == 0
    (folder / "audit-0-2.json").unlink()
    code, line = verify(str(site))
    assert code == 1 and "lane 0 record 5: segment audit-0-2.json is missing" in line, line


def test_appending_twice_appends_once_and_old_records_are_chained_by_the_migration(moto_repos, monkeypatch):
    from chalicelib.store import keys, migrations
    from chalicelib.store.dynamo import Op
    table = moto_repos.table
    record = {"id": "01JZZZZZZZZZZZZZZZZZZZZZZ1", "at": "2026-12-01T02:00:00+00:00", "who": "table 1 side 1",
              "action": "result_entered", "round": 1, "table": 1, "before": None, "after": None, "reason": ""}
    assert audit_chain.append(table, "E1", record) is not None
    assert audit_chain.append(table, "E1", record) is None   # a retry of a committed append (SDK or caller)
    assert moto_repos.rounds.audit_head("E1")[0] == 1
    # another process appended between this one's read of the head and its write: it moves on from the real head
    assert audit_chain.append(table, "E1", {**record, "id": "01JZZZZZZZZZZZZZZZZZZZZZZ2"})["seq"] == 2
    real_head, reads = audit_chain.lane_head, []

    def late_read(t, eid, lane):
        reads.append(eid)
        if len(reads) == 1:   # the first read: then the other process appends
            seen = real_head(t, eid, lane)
            other = {**record, "id": "01JZZZZZZZZZZZZZZZZZZZZZZ3"}
            t.transact(audit_chain._ops(eid, other, seen, False, lane)[1])
            return seen
        return real_head(t, eid, lane)
    monkeypatch.setattr(audit_chain, "lane_head", late_read)
    assert audit_chain.append(table, "E1", {**record, "id": "01JZZZZZZZZZZZZZZZZZZZZZZ4"})["seq"] == 4
    monkeypatch.setattr(audit_chain, "lane_head", real_head)
    assert audit_chain.check_items("E1", moto_repos.rounds.audit_items("E1")) == 4
    # records written before the chain (no seq): chained in id order, once
    for i in range(3):
        old = {**record, "id": f"01JAAAAAAAAAAAAAAAAAAAAAA{i}", "action": "round_closed"}
        table.transact([Op.put({**keys.audit("E2", old["id"]), "kind": "audit", "data": json.dumps(old)})])
    assert migrations.chain_audit(table) == 3
    assert migrations.chain_audit(table) == 0
    items = moto_repos.rounds.audit_items("E2")
    assert audit_chain.check_items("E2", items) == 3
    assert [json.loads(i["chain"])["id"][-1] for i in sorted(items, key=lambda i: int(i["seq"]))] == ["0", "1", "2"]


@pytest.mark.parametrize("processes", [False, True], ids=["one process", "as many processes"])
def test_writers_at_once_make_one_unbroken_chain(local_repos, monkeypatch, processes):
    """8 threads appending at once (as results confirmed together do): every record in one chain, no fork. Within
    one process they take turns; as separate processes would (Lambda: no lock shared, no head known) only the
    head's condition keeps them apart. On DynamoDB Local: moto's store is not safe for threads."""
    repos = local_repos
    if processes:
        monkeypatch.setattr(audit_chain, "_lock", lambda eid: threading.Lock())
    threads, each = 8, 4
    barrier = threading.Barrier(threads)
    errors: list[BaseException] = []

    def writer(k):
        try:
            barrier.wait()
            for i in range(each):
                repos.rounds.add_audit("E", {"id": f"01J{k:02d}{i:02d}" + "Z" * 19, "at": "2026-12-01T02:00:00+00:00",
                                             "who": f"table {k} side 1", "action": "result_confirmed", "round": 1,
                                             "table": k, "before": None, "after": None, "reason": ""})
        except BaseException as exc:   # noqa: BLE001 - reported below
            errors.append(exc)
    workers = [threading.Thread(target=writer, args=(k,)) for k in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)
    assert not errors, errors
    items = repos.rounds.audit_items("E")
    assert len(items) == threads * each and audit_chain.check_items("E", items) == threads * each
    assert repos.rounds.audit_head("E")[0] == threads * each


def test_results_confirmed_at_once_on_dynamodb_local(local_api, monkeypatch):
    """Tables confirmed by 8 threads at once through the result service: each confirmation and its record commit
    together, the chain has every one."""
    from chalicelib.services import publish_requests, results
    monkeypatch.setattr(publish_requests, "request_publish", lambda *a, **k: None)   # the chain, not the pages
    api = local_api
    tid, eid, _ = setup_event(api, guandan(), people(16, 2, "队"))
    rnd = draw(api, eid)
    for t in rnd["tables"]:
        a, b = (s["entry_id"] for s in t["sides"])
        r = api.put(f"/events/{eid}/rounds/1/tables/{t['number']}/result", {"version": 0, "final": {"levels": {a: 10, b: 8}}},
                    **as_side(rnd, t["number"], 0))
        assert r.status_code == 200, r.data
    deps = bootstrap.deps()
    barrier = threading.Barrier(len(rnd["tables"]))
    failed: list[BaseException] = []

    def confirm(t):
        try:
            barrier.wait()
            results.confirm_result(deps, eid, 1, t, results.Actor("side", f"table {t} side 2", side=1))
        except BaseException as exc:   # noqa: BLE001
            failed.append(exc)
    workers = [threading.Thread(target=confirm, args=(t["number"],)) for t in rnd["tables"]]
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)
    assert not failed, failed
    assert all(t["status"] == "confirmed" for t in api.get(f"/events/{eid}/rounds/1").data["tables"])
    items = deps.repos.rounds.audit_items(eid)
    confirmed = [json.loads(i["data"]) for i in items if json.loads(i["data"])["action"] == "result_confirmed"]
    assert len(confirmed) == len(rnd["tables"]) == 8
    assert audit_chain.check_items(eid, items) == len(items)


def test_a_record_committed_late_is_still_published(api):
    """The publisher reads only records with ids from two minutes before its last read; a record whose id is older
    (a writer's slow clock, a long-retried append) leaves a gap below the head, and the publisher reads it all again."""
    from chalicelib.services.publishing import publish_tournament
    tid, eid, _ = setup_event(api, guandan(), people(4, 2, "队"))
    rnd = draw(api, eid)
    a, b = (s["entry_id"] for s in rnd["tables"][0]["sides"])
    enter_and_confirm(api, eid, rnd, rnd["tables"][0], {"final": {"levels": {a: 10, b: 8}}})
    d = bootstrap.deps()
    publish_tournament(d, tid)
    before = json.loads(d.publisher.files[f"t/{tid}/{eid}/audit.json"])["count"]
    d.repos.rounds.add_audit(eid, {"id": "01HAAAAAAAAAAAAAAAAAAAAAAA", "at": "2026-12-01T02:05:00+00:00",
                                   "who": "organiser:x", "action": "round_closed", "round": 1})
    publish_tournament(d, tid)
    index = json.loads(d.publisher.files[f"t/{tid}/{eid}/audit.json"])
    lane = index["chains"][0]   # a record of no table: lane 0
    assert index["count"] == before + 1 and lane["records"][-1]["id"] == "01HAAAAAAAAAAAAAAAAAAAAAAA"
    assert auditchain.check(eid, lane["records"], lane["count"], lane["head"], lane=0)
