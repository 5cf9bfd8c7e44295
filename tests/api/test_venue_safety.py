"""Safe on a hall's Wi-Fi (issue 20), through the routes: secrets of the installation, credentials with
lineage, limits that hold and never lock out the innocent, clean input, money that adds up."""
from __future__ import annotations

import hashlib
import hmac
import json
import os
import stat
import threading

import pytest

from chalicelib import bootstrap
from chalicelib.services.organisers import create_account, reset_password
from tests.api.play import draw, people, setup_event
from tests.factories import Api

GUANDAN = {"name": "掼蛋", "game": "guandan", "entry": "pair", "capacity": 8, "fee": {"amount": 0},
           "stages": [{"format": "swiss", "rounds": 3, "scoring": {"method": "level_points"}}]}


# ----------------------------------------------------------------------------- 1. secrets per installation

def test_a_code_computed_with_the_old_built_in_secret_is_refused(api):
    from chalicelib.services.rounds import CODE_ALPHABET, CODE_LENGTH
    _, eid, _ = setup_event(api, GUANDAN, people(4, 2, "队"))
    rnd = draw(api, eid)
    # what anyone could compute before: the fixed local secret and the event id from the public page
    digest = hmac.new(b"local-development-only", f"{eid}:{rnd['number']}:1:0".encode(), hashlib.sha256).digest()
    forged = "".join(CODE_ALPHABET[b % len(CODE_ALPHABET)] for b in digest[:CODE_LENGTH])
    base = f"/events/{eid}/rounds/{rnd['number']}/tables/1"
    assert forged not in rnd["tables"][0]["codes"]
    assert api.get(base, token=None, headers={"X-Table-Code": forged}).status_code == 403
    assert api.get(base, token=None, headers={"X-Table-Code": rnd["tables"][0]["codes"][0]}).status_code == 200


def test_no_stage_has_a_built_in_secret(api, monkeypatch):
    from chalicelib.config import get_settings
    _, eid, _ = setup_event(api, GUANDAN, people(4, 2, "队"))
    monkeypatch.setenv("STAGE", "local")
    monkeypatch.delenv("TABLE_CODE_SECRET")
    get_settings.cache_clear()
    r = api.post(f"/events/{eid}/rounds", {"seed": 1})
    assert r.status_code == 500 and r.data["code"] == "misconfigured"


def test_the_installation_makes_its_secrets_once_private_to_its_user(tmp_path):
    from scripts.installation import ensure_secrets
    first = ensure_secrets(tmp_path)
    assert set(first) == {"TABLE_CODE_SECRET", "LOOKUP_SECRET"} and all(len(v) == 64 for v in first.values())
    assert stat.S_IMODE(os.stat(tmp_path / "secrets.json").st_mode) == 0o600
    assert ensure_secrets(tmp_path) == first                      # kept across restarts
    assert ensure_secrets(tmp_path / "other") != first            # and each installation has its own


def test_logins_are_stored_under_a_keyed_hash_not_in_clear(moto_repos):
    from chalicelib.store import dynamo
    create_account(bootstrap.deps(), "密钥商会", "138 0000 2222", "correct horse")
    keys = [i["PK"]["S"] for i in dynamo.client().scan(TableName=moto_repos.table.name)["Items"]]
    assert not any("13800002222" in k for k in keys)
    assert any(k.startswith("LOGIN#") for k in keys)


def test_a_login_stored_in_clear_by_an_older_version_moves_under_its_hash(chalice_client, moto_repos):
    from chalicelib.services.organisers import _hasher, create_organiser
    from chalicelib.store import dynamo, keys
    org, _ = create_organiser(bootstrap.deps(), "旧版商会")
    moto_repos.table.put({**keys.login("13800003333"), "kind": "login", "organiser_id": org.id,
                          "password_hash": _hasher().hash("old version pw")})
    api = Api(chalice_client, None)
    assert api.post("/auth/sign-in", {"login": "13800003333", "password": "old version pw"}).status_code == 200
    pks = [i["PK"]["S"] for i in dynamo.client().scan(TableName=moto_repos.table.name)["Items"]]
    assert "LOGIN#13800003333" not in pks
    assert api.post("/auth/sign-in", {"login": "13800003333", "password": "old version pw"}).status_code == 200


# ----------------------------------------------------------------------------- 2. credentials with lineage

def test_a_staff_link_dies_with_the_token_that_created_it(api):
    tid, eid, _ = setup_event(api, GUANDAN, people(4, 2, "队"))
    second = api.post("/organiser/tokens", {"label": "秘书的电脑"}).data
    as_second = Api(api.c, second["token"])
    made = as_second.post(f"/tournaments/{tid}/staff", {"name": "王裁判", "role": "director"}).data
    kept = api.post(f"/tournaments/{tid}/staff", {"name": "李记分", "role": "scorer"}).data
    listed = {m["name"]: m for m in api.get(f"/tournaments/{tid}/staff").data["staff"]}
    assert listed["王裁判"]["created_by"] == second["id"] and listed["王裁判"]["created_by_label"] == "秘书的电脑"
    director = Api(api.c, made["token"])
    assert director.get(f"/events/{eid}/entries").status_code == 200
    gone = api.delete(f"/organiser/tokens/{second['id']}").data
    assert gone["revoked"] == [second["id"]] and gone["staff_removed"] == [made["id"]]
    for path in (f"/events/{eid}/entries", f"/events/{eid}/entries/export?format=csv"):
        assert director.get(path).status_code == 401
    assert director.patch(f"/tournaments/{tid}", {"name": "改名"}).status_code == 401
    assert Api(api.c, kept["token"]).get(f"/events/{eid}/rounds/1").status_code in (200, 404)   # still in


def test_a_password_reset_ends_every_session_and_what_they_issued(chalice_client):
    org, first_token = create_account(bootstrap.deps(), "重置商会", "13800004444", "old password")
    api = Api(chalice_client, None)
    session = api.post("/auth/sign-in", {"login": "13800004444", "password": "old password"}).data["token"]
    as_session = Api(chalice_client, session)
    tid = as_session.post("/tournaments", {"name": "周末赛", "timezone": "Asia/Shanghai", "currency": "CNY",
                                           "starts_on": "2026-12-12"}).data["id"]
    staff = as_session.post(f"/tournaments/{tid}/staff", {"name": "张台", "role": "desk"}).data["token"]
    heir = as_session.post("/organiser/tokens", {"label": "脚本"}).data["token"]
    assert Api(chalice_client, staff).get("/organiser").status_code == 200
    reset_password(bootstrap.deps(), "13800004444", "new password")
    for token in (session, staff, heir):
        assert Api(chalice_client, token).get("/organiser").status_code == 401
    assert Api(chalice_client, first_token).get("/tournaments").status_code == 200   # the account's own API token


def test_sign_out_everywhere(chalice_client):
    create_account(bootstrap.deps(), "退出商会", "13800005555", "pass word 1")
    api = Api(chalice_client, None)
    a, b = (api.post("/auth/sign-in", {"login": "13800005555", "password": "pass word 1"}).data["token"] for _ in "ab")
    out = Api(chalice_client, a).delete("/organiser/sessions")
    assert out.status_code == 200 and len(out.data["revoked"]) == 2
    assert Api(chalice_client, a).get("/tournaments").status_code == 401
    assert Api(chalice_client, b).get("/tournaments").status_code == 401


# ----------------------------------------------------------------------------- 3. limits

def test_64_concurrent_wrong_passwords_evaluate_exactly_five(local_repos, monkeypatch):
    """On DynamoDB Local (real conditional writes), 64 threads at once: the count is taken before the argon2
    check, so exactly the free five are evaluated."""
    from argon2 import PasswordHasher

    from chalicelib import errors
    from chalicelib.services import organisers
    from chalicelib.store import dynamo
    # this test counts checks, not time: a loaded machine must not turn 64 writes at once into timeouts
    monkeypatch.setattr(dynamo, "READ_TIMEOUT_S", 30.0)
    dynamo.reset_client()
    create_account(bootstrap.deps(), "并发商会", "13800006666", "the right one")
    checked, lock = [0], threading.Lock()
    real = PasswordHasher.verify

    def counting(self, *a, **kw):
        with lock:
            checked[0] += 1
        return real(self, *a, **kw)
    monkeypatch.setattr(PasswordHasher, "verify", counting)
    answers, barrier = [], threading.Barrier(64)

    def attempt(i):
        barrier.wait()
        try:
            organisers.sign_in(bootstrap.deps(), "13800006666", "wrong", f"10.0.0.{i}", "phone")
            answers.append("ok")
        except errors.DomainError as exc:
            answers.append(exc.code)
    threads = [threading.Thread(target=attempt, args=(i,)) for i in range(64)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert checked[0] == 5
    assert answers.count("unauthorized") == 5 and answers.count("rate_limited") == 59


def test_limits_key_on_the_real_client_and_never_refuse_the_right_table_code(api, monkeypatch):
    from chalicelib.config import get_settings
    monkeypatch.setenv("TRUSTED_PROXY_HOPS", "1")
    get_settings.cache_clear()
    _, eid, _ = setup_event(api, GUANDAN, people(4, 2, "队"))
    rnd = draw(api, eid)
    base = f"/events/{eid}/rounds/{rnd['number']}/tables/1"
    code = rnd["tables"][0]["codes"][0]

    def as_client(ip, c):
        return api.get(base, token=None, headers={"X-Table-Code": c, "X-Forwarded-For": f"1.2.3.4, {ip}"})
    for _ in range(5):
        assert as_client("10.0.0.66", "WRONGCODE1").status_code == 403
    limited = as_client("10.0.0.66", "WRONGCODE1")
    assert limited.status_code == 429 and int(limited.headers["Retry-After"]) <= 60
    assert as_client("10.0.0.7", "WRONGCODE1").status_code == 403      # another phone is not held up
    assert as_client("10.0.0.66", code).status_code == 200             # and the right code always goes in
    assert as_client("10.0.0.7", code).status_code == 200
    # a hop the client wrote itself (the left of X-Forwarded-For) does not escape the limit
    assert api.get(base, token=None, headers={"X-Table-Code": "WRONGCODE1",
                                              "X-Forwarded-For": "9.9.9.9, 10.0.0.66"}).status_code == 429


def test_one_phones_failed_sign_ins_do_not_stop_the_rest_of_the_hall(chalice_client, monkeypatch):
    """Addresses told apart through the hall's proxy: the one past its failures is slowed (never refused the right
    password of an account that has not failed); another address keeps every account's five free tries."""
    from chalicelib.config import get_settings
    from chalicelib.services import organisers
    monkeypatch.setattr(organisers, "FAILED_SIGN_INS_PER_SOURCE", 6)   # 20 in production: fewer argon2 checks here
    monkeypatch.setenv("TRUSTED_PROXY_HOPS", "1")
    get_settings.cache_clear()
    create_account(bootstrap.deps(), "大厅商会", "13800007777", "hall password")
    api = Api(chalice_client, None)

    def sign_in(login, password, address):
        return api.post("/auth/sign-in", {"login": login, "password": password},
                        headers={"X-Forwarded-For": address}).status_code
    for i in range(6):
        assert sign_in(f"1390000{i:04d}", "guess guess", "10.0.0.66") == 401
    assert sign_in("13800007777", "hall password", "10.0.0.66") == 200   # slowed, not refused
    assert sign_in("13800006666", "guess one", "10.0.0.66") == 401
    assert sign_in("13800006666", "guess two", "10.0.0.66") == 429       # its delay starts after one try there
    assert sign_in("13800005555", "typo once", "10.0.0.8") == 401
    assert sign_in("13800005555", "typo twice", "10.0.0.8") == 401      # elsewhere the free tries are untouched
    assert sign_in("13800007777", "hall password", "10.0.0.8") == 200


# ----------------------------------------------------------------------------- 4. bounded requests (Lambda path)

def test_a_declared_body_over_one_mib_is_refused_on_every_route(api):
    for method, path in (("POST", "/webhooks/stripe"), ("POST", "/tournaments"), ("GET", "/health")):
        r = api.call(method, path, raw=b"{}", headers={"Content-Length": str(300 * 1024 * 1024)})
        assert r.status_code == 413 and r.data["code"] == "payload_too_large", (method, path)


# ----------------------------------------------------------------------------- 6. clean input

@pytest.mark.parametrize("name", ["张\x07三", "张三\x00", "\x1b[31m张三", "张\u202e三", "张\x85三", "张\n三"])
def test_control_and_direction_characters_are_refused_naming_the_field(api, name):
    tid = api.post("/tournaments", {"name": "周末赛", "timezone": "Asia/Shanghai", "currency": "CNY",
                                    "starts_on": "2026-12-12"}).data["id"]
    eid = api.post(f"/tournaments/{tid}/events", {**GUANDAN, "fee": {"amount": 0}}).data["id"]
    body = {"name": "河池一队", "members": [{"name": name, "phone": "13800000001"}, {"name": "李四"}]}
    r = api.post(f"/events/{eid}/entries", body, token=None)
    assert r.status_code == 422 and r.data["code"] == "invalid_characters"
    assert r.data["details"][0]["field"] == "members.0.name" and "队员 1" in r.data["message"]
    assert api.get(f"/events/{eid}/entries").data["entries"] == []


def test_a_note_may_hold_lines_and_an_old_bel_does_not_break_the_export(api, moto_repos):
    import io

    from openpyxl import load_workbook
    tid = api.post("/tournaments", {"name": "周末赛", "timezone": "Asia/Shanghai", "currency": "CNY",
                                    "starts_on": "2026-12-12"}).data["id"]
    eid = api.post(f"/tournaments/{tid}/events", GUANDAN).data["id"]
    body = {"name": "河池一队", "note": "第一行\n第二行", "members": [{"name": "张三", "phone": "13800000001"},
                                                                   {"name": "李四"}]}
    entry = api.post(f"/events/{eid}/entries", body, token=None).data["entry"]
    # a name an older version accepted, written straight into the store
    from chalicelib.store import keys
    item = moto_repos.table.get(keys.entry(eid, entry["id"]))
    data = json.loads(item["data"])
    data["name"] = "河池\x07一队"
    moto_repos.table.put({**item, "data": json.dumps(data, ensure_ascii=False)})
    x = api.get(f"/events/{eid}/entries/export?format=xlsx",
                headers={"Accept": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"})
    assert x.status_code == 200
    names = [c.value for row in load_workbook(io.BytesIO(x.body)).active.iter_rows() for c in row]
    assert "河池一队" in names


# ----------------------------------------------------------------------------- 7. money that adds up

def test_paid_is_net_of_partial_and_full_refunds(api, fake_stripe):
    from tests.api.test_hardening import _paid_entry, _view
    from tests.api.test_registration import webhook
    tid = api.post("/tournaments", {"name": "周末赛", "timezone": "Asia/Shanghai", "currency": "CNY",
                                    "starts_on": "2026-12-12"}).data["id"]
    eid, r, paid = _paid_entry(api, tid, fake_stripe)
    v = _view(api, r)
    assert (v["amount_paid"], v["amount_refunded"]) == (4000, 0)
    charge = {"id": "ch_1", "object": "charge", "payment_intent": "pi_part", "metadata": paid["metadata"],
              "amount": 4000, "amount_refunded": 1500, "refunded": False}
    webhook(api, "evt_p1", "charge.refunded", charge)
    v = _view(api, r)
    assert (v["amount_paid"], v["amount_refunded"]) == (2500, 1500)
    webhook(api, "evt_p2", "charge.refunded", {**charge, "amount_refunded": 4000, "refunded": True})
    v = _view(api, r)
    assert (v["amount_paid"], v["amount_refunded"], v["payment_state"]) == (0, 4000, "refunded")
    import csv
    import io
    rows = list(csv.DictReader(io.StringIO(api.get(f"/events/{eid}/entries/export?format=csv").body.decode("utf-8-sig"))))
    assert float(rows[0]["已付（扣除退款） paid (net)"]) == 0 and float(rows[0]["已退 refunded"]) == 40


def test_a_cancel_with_a_refund_leaves_nothing_counted_as_paid(api, fake_stripe):
    from tests.api.test_hardening import _paid_entry, _view
    tid = api.post("/tournaments", {"name": "周末赛", "timezone": "Asia/Shanghai", "currency": "CNY",
                                    "starts_on": "2026-12-12"}).data["id"]
    eid, r, _ = _paid_entry(api, tid, fake_stripe)
    assert api.delete(f"/entries/{r['entry']['id']}", token=None,
                      headers={"X-Manage-Token": r["manage_token"]}).status_code == 200
    v = _view(api, r)
    assert (v["status"], v["amount_paid"], v["amount_refunded"]) == ("cancelled", 0, 4000)
    listed = api.get(f"/events/{eid}/entries").data["entries"]
    assert sum(e["amount_paid"] for e in listed) == 0


def test_a_duplicate_delivery_is_2xx_and_only_a_bad_signature_is_4xx(api, fake_stripe):
    from tests.api.test_registration import make_event, pair, register, webhook
    tid = api.post("/tournaments", {"name": "周末赛", "timezone": "Asia/Shanghai", "currency": "CNY",
                                    "starts_on": "2026-12-12"}).data["id"]
    eid = make_event(api, tid)
    register(api, eid, pair())
    sid = list(fake_stripe.sessions)[-1]
    paid = fake_stripe.pay(sid, "pi_dup")
    assert webhook(api, "evt_dup", "checkout.session.completed", paid).status_code == 200
    again = webhook(api, "evt_dup", "checkout.session.completed", paid)
    assert again.status_code == 200 and again.data["status"] == "duplicate"
    bad = webhook(api, "evt_forged", "checkout.session.completed", paid, secret="whsec_wrong")
    assert bad.status_code == 400 and bad.data["code"] == "invalid_signature"    # 4xx only for a bad signature
