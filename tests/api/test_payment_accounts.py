"""Each chamber's own merchant account (issue 40, api.md v1.3): the organiser's API (write-only secrets, checks in
words, clear 4xx), and Stripe Connect end to end through the real stripe SDK against the Stripe stand-in — two
organisers, each with its own acct_: each tournament's checkout and refund carry its own Stripe-Account header,
and an event for the other organiser's account changes nothing."""
from __future__ import annotations

import json
import logging

import pytest

from chalicelib import bootstrap
from chalicelib.config import get_settings
from chalicelib.payments.stripe_gateway import StripeGateway, sign_payload
from tests.api.conftest import WEBHOOK_SECRET
from tests.factories import guandan_event, tournament_body
from tests.fakes_connect import ConnectStripe

PEM = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC-secret-body\n-----END PRIVATE KEY-----\n"
APIV3 = "AbCdEf0123456789AbCdEf0123456789"


@pytest.fixture
def connect(moto_repos, monkeypatch):
    monkeypatch.setenv("PAYMENT_ACCOUNTS", "platform")
    get_settings.cache_clear()   # read again (the organisers' fixtures may have read it before)
    fake = ConnectStripe({"acct_1ChamberA": True, "acct_1ChamberB": True, "acct_1ChamberC": True,
                          "acct_1NotReady": False})
    bootstrap.deps().providers["stripe"] = StripeGateway("sk_test_platform", WEBHOOK_SECRET, http_client=fake,
                                                         max_retries=0)
    return fake


def _paid_event(api) -> tuple[str, str]:
    tid = api.post("/tournaments", tournament_body(payments={"providers": ["stripe", "offline"]})).data["id"]
    r = api.post(f"/tournaments/{tid}/events", guandan_event())
    assert r.status_code == 201, r.data
    return tid, r.data["id"]


def _register(api, eid, phone):
    body = {"name": f"队{phone[-3:]}", "members": [{"name": "张三", "phone": phone}, {"name": "李四"}]}
    r = api.post(f"/events/{eid}/entries", body, token=None)
    assert r.status_code == 201, r.data
    return r.data


def _webhook(api, event_id, type_, obj, account):
    payload = json.dumps({"id": event_id, "object": "event", "type": type_, "api_version": "2024-06-20",
                          "created": 1, "account": account, "data": {"object": obj}}).encode()
    return api.post("/webhooks/stripe", raw=payload, token=None,
                    headers={"Stripe-Signature": sign_payload(payload, WEBHOOK_SECRET)})


def test_the_api_keeps_secrets_write_only_and_says_what_is_wrong(api, other_api, caplog):
    caplog.set_level(logging.DEBUG)
    assert api.get("/organiser/payment-accounts").data == {"accounts": [], "offerable": ["offline"], "retired": 0}
    bad = [({"mode": "partner", "sub_mchid": "12345"}, "sub_mchid", "format"),
           ({"mode": "partner"}, "sub_mchid", "missing"),
           ({"mode": "connect", "sub_mchid": "1900000109"}, "mode", "mode"),
           ({"sub_mchid": "1900000109"}, "mode", "missing"),
           ({"mode": "direct", "mchid": "1900000109", "appid": "wx8888888888888888", "cert_serial_no": "5157F09E",
             "apiv3_key": "short", "private_key": PEM}, "apiv3_key", "format"),
           ({"mode": "partner", "sub_mchid": "1900000109", "apiv3_key": APIV3}, "apiv3_key", "not_in_mode")]
    for body, field, reason in bad:
        r = api.put("/organiser/payment-accounts/wechat_pay", body)
        assert (r.status_code, r.data["code"], r.data["details"]) == (400, "payment_account_invalid",
                                                                       {"field": field, "reason": reason}), body
    r = api.put("/organiser/payment-accounts/stripe", {"account": "ac_123456"})
    assert (r.status_code, r.data["details"]["field"]) == (400, "account")
    assert api.put("/organiser/payment-accounts/cash", {"mode": "direct"}).status_code == 404
    direct = {"mode": "direct", "mchid": "1900000109", "appid": "wx8888888888888888",
              "cert_serial_no": "5157F09EFDC096DE15EBE81A47057A72", "apiv3_key": APIV3, "private_key": PEM}
    r = api.put("/organiser/payment-accounts/wechat_pay", direct)
    assert r.status_code == 200, r.data
    assert r.data == {"provider": "wechat_pay", "mode": "direct", "id": "1900000109",
                      "public": {"appid": "wx8888888888888888"}, "state": "unchecked", "checked_at": None,
                      "code": None, "secrets_set": ["apiv3_key", "cert_serial_no", "private_key"]}
    listed = api.get("/organiser/payment-accounts")
    text = json.dumps(listed.data) + json.dumps(r.data) + caplog.text
    assert "secret-body" not in text and APIV3 not in text and "5157F09EFDC" not in text
    assert [a["id"] for a in listed.data["accounts"]] == ["1900000109"]
    assert other_api.get("/organiser/payment-accounts").data["accounts"] == []   # each organiser its own
    # No WeChat service-provider keys on this installation: the check says so in words, and records it
    check = api.post("/organiser/payment-accounts/wechat_pay/check")
    assert (check.data["state"], check.data["code"]) == ("failed", "provider_not_configured") and check.data["message"]
    assert api.get("/organiser/payment-accounts").data["accounts"][0]["state"] == "failed"
    assert api.delete("/organiser/payment-accounts/wechat_pay").data == {"deleted": "wechat_pay"}
    assert api.delete("/organiser/payment-accounts/wechat_pay").status_code == 404
    assert api.post("/organiser/payment-accounts/alipay/check").status_code == 404


def test_a_stripe_check_says_what_is_wrong_and_a_change_resets_it(api, connect):
    for acct, code in (("acct_1Unknown", "account_not_found"), ("acct_1NotReady", "charges_not_enabled")):
        api.put("/organiser/payment-accounts/stripe", {"account": acct})
        r = api.post("/organiser/payment-accounts/stripe/check").data
        assert (r["state"], r["code"]) == ("failed", code) and "Stripe" in r["message"]
    api.put("/organiser/payment-accounts/stripe", {"account": "acct_1ChamberA"})
    assert api.post("/organiser/payment-accounts/stripe/check").data["state"] == "ok"
    assert api.get("/organiser/payment-accounts").data["accounts"][0]["state"] == "ok"
    # the platform asked about the account as the platform (no Stripe-Account header on the retrieve)
    assert {q["account"] for q in connect.requests if q["path"].startswith("/v1/accounts/")} == {None}
    api.put("/organiser/payment-accounts/stripe", {"account": "acct_1ChamberB"})
    assert api.get("/organiser/payment-accounts").data["accounts"][0]["state"] == "unchecked"


def test_each_tournament_pays_and_refunds_through_its_own_organisers_connected_account(api, other_api, connect):
    (tid_a, eid_a), (tid_b, eid_b) = _paid_event(api), _paid_event(other_api)
    # Platform mode, no account yet: the tournament offers no online provider (the desk only), and naming it in
    # 修改赛事 is refused with what may be offered
    assert api.get(f"/public/tournaments/{tid_a}").data["payment_providers"] == ["offline"]
    refused = api.patch(f"/tournaments/{tid_a}", {"payments": {"providers": ["stripe", "offline"]}})
    assert (refused.status_code, refused.data["code"]) == (409, "online_payment_off")
    assert refused.data["details"]["missing"] == ["stripe"] and "stripe" not in refused.data["details"]["providers"]
    for who, acct in ((api, "acct_1ChamberA"), (other_api, "acct_1ChamberB")):
        who.put("/organiser/payment-accounts/stripe", {"account": acct})
        assert who.post("/organiser/payment-accounts/stripe/check").data["state"] == "ok"
    assert api.get(f"/public/tournaments/{tid_a}").data["payment_providers"] == ["stripe", "offline"]
    assert "stripe" in api.get("/organiser/payment-accounts").data["offerable"]
    assert api.patch(f"/tournaments/{tid_a}", {"payments": {"providers": ["stripe", "offline"]}}).status_code == 200
    a, b = _register(api, eid_a, "13800000001"), _register(other_api, eid_b, "13800000002")
    assert a["checkout_url"] and b["checkout_url"]
    created = [q for q in connect.requests if q["path"] == "/v1/checkout/sessions"]
    by_entry = {q["body"]["metadata"]["entry_id"]: q["account"] for q in created}
    assert by_entry == {a["entry"]["id"]: "acct_1ChamberA", b["entry"]["id"]: "acct_1ChamberB"}
    sid_a = next(q for q in created if q["account"] == "acct_1ChamberA") and \
        next(s for s, v in connect.sessions.items() if v["metadata"]["entry_id"] == a["entry"]["id"])
    # A genuine (signed) event, but on the other organiser's account: refused, nothing changes
    forged = _webhook(api, "evt_other", "checkout.session.completed", connect.pay(sid_a, "pi_a"), "acct_1ChamberB")
    assert forged.status_code == 200 and forged.data == {"status": "not_processed", "code": "account_mismatch"}
    manage = {"X-Manage-Token": a["manage_token"]}
    assert api.get(f"/entries/{a['entry']['id']}", token=None, headers=manage).data["status"] == "pending_payment"
    # The platform's own events (no account) are not this chamber's either
    assert _webhook(api, "evt_plat", "checkout.session.completed", connect.sessions[sid_a], None).data["code"] \
        == "account_mismatch"
    ok = _webhook(api, "evt_a", "checkout.session.completed", connect.sessions[sid_a], "acct_1ChamberA")
    assert ok.data["status"] == "confirmed"
    assert api.get(f"/entries/{a['entry']['id']}", token=None, headers=manage).data["status"] == "confirmed"
    out = api.delete(f"/entries/{a['entry']['id']}", token=None, headers=manage).data
    assert out["payment_state"] == "refunded"
    refunds = [q for q in connect.requests if q["path"] == "/v1/refunds"]
    assert [q["account"] for q in refunds] == ["acct_1ChamberA"]
    # An order opened on one account is refunded through that account, never another: B's organiser switches
    # accounts after its entry's order was opened — the replaced account is kept (sealed, counted, never listed)
    # and the refund reaches it, not the account the organiser has now
    sid_b = next(s for s, v in connect.sessions.items() if v["metadata"]["entry_id"] == b["entry"]["id"])
    assert _webhook(other_api, "evt_b", "checkout.session.completed", connect.pay(sid_b, "pi_b"),
                    "acct_1ChamberB").data["status"] == "confirmed"
    taken = other_api.put("/organiser/payment-accounts/stripe", {"account": "acct_1ChamberA"})   # A's: refused
    assert (taken.status_code, taken.data["code"]) == (409, "payment_account_taken")
    other_api.put("/organiser/payment-accounts/stripe", {"account": "acct_1ChamberC"})
    other_api.post("/organiser/payment-accounts/stripe/check")
    listed = other_api.get("/organiser/payment-accounts").data
    assert [x["id"] for x in listed["accounts"]] == ["acct_1ChamberC"] and listed["retired"] == 1
    assert "acct_1ChamberB" not in json.dumps(listed)
    out = other_api.delete(f"/entries/{b['entry']['id']}", token=None, headers={"X-Manage-Token": b["manage_token"]})
    assert out.status_code == 200 and out.data["payment_state"] == "refunded", out.data
    assert [q["account"] for q in connect.requests if q["path"] == "/v1/refunds"] == ["acct_1ChamberA", "acct_1ChamberB"]
    assert "acct_1ChamberC" not in [q["account"] for q in connect.requests if q["path"] == "/v1/refunds"]
    # its refund's event names the old account: it is this payment's (the account it was opened on)
    assert other_api.delete("/organiser/payment-accounts/stripe").status_code == 200
    assert other_api.get("/organiser/payment-accounts").data == {"accounts": [], "offerable": ["offline"],
                                                                  "retired": 2}
    other_api.put("/organiser/payment-accounts/stripe", {"account": "acct_1ChamberB"})
    # The other organiser's account turns out not ready: its tournament stops offering Stripe for new orders
    connect.accounts["acct_1ChamberB"] = False
    assert other_api.post("/organiser/payment-accounts/stripe/check").data["code"] == "charges_not_enabled"
    assert other_api.get(f"/public/tournaments/{tid_b}").data["payment_providers"] == ["offline"]


def test_a_change_that_does_not_name_an_optional_secret_keeps_it(chalice_client):
    """Review finding: a PUT replaced the account whole, so re-entering WeChat Pay's APIv3 key without the
    official account's AppSecret (which the console never shows back) erased it, and paying inside WeChat stopped.
    An optional secret the change does not name is kept — on the same account (mode and id) with the setting it
    goes with unchanged (app_secret ↔ appid, public_key ↔ public_key_id); sent as "" it is cleared (null is "not
    given", api.md v1.1: kept)."""
    from chalicelib.services.organisers import create_organiser
    from tests.factories import Api
    org, token = create_organiser(bootstrap.deps(), "保留密钥商会")
    api = Api(chalice_client, token)
    repo = bootstrap.deps().repos.payment_accounts
    direct = {"mode": "direct", "mchid": "1900000109", "appid": "wx8888888888888888",
              "cert_serial_no": "5157F09EFDC096DE15EBE81A47057A72", "apiv3_key": APIV3, "private_key": PEM,
              "public_key_id": "PUB_KEY_ID_0114232134912410000", "public_key": PEM.replace("PRIVATE", "PUBLIC").strip()}

    def put(body):
        r = api.put("/organiser/payment-accounts/wechat_pay", body)
        assert r.status_code == 200, r.data
        return repo.get(org.id, "wechat_pay").secrets

    assert set(put({**direct, "app_secret": "a" * 32})) == {"cert_serial_no", "apiv3_key", "private_key",
                                                            "public_key", "app_secret"}
    new_key = "Zz" * 16
    secrets = put({k: v for k, v in direct.items() if k != "public_key"} | {"apiv3_key": new_key})
    assert (secrets["apiv3_key"], secrets["app_secret"]) == (new_key, "a" * 32)        # the edit's, and the kept one
    assert secrets["public_key"] == direct["public_key"]
    # the setting a secret goes with changed: that secret belonged to the other one, not kept
    secrets = put({k: v for k, v in direct.items() if k != "public_key"} | {"appid": "wx9999999999999999"})
    assert "app_secret" not in secrets and secrets["public_key"] == direct["public_key"]
    # null is "not given" (api.md v1.1): kept; sent empty: cleared
    put({**direct, "app_secret": "b" * 32})
    assert put({**direct, "app_secret": None, "public_key": None})["app_secret"] == "b" * 32
    assert put({**direct, "app_secret": "", "public_key": ""}).keys() == {"cert_serial_no", "apiv3_key", "private_key"}
    # another merchant (another id): nothing of the old account's secrets comes with it
    put({**direct, "app_secret": "c" * 32})
    other = {k: v for k, v in direct.items() if k != "public_key"} | {"mchid": "1900000110"}
    assert put(other).keys() == {"cert_serial_no", "apiv3_key", "private_key"}
    assert "app_secret" in repo.retired(org.id, "wechat_pay", "1900000109").secrets   # kept for its own orders


def test_a_change_clears_the_optional_secrets_it_names_on_each_store(any_repos):
    """Follow-up: the console could not erase an optional secret — an empty field means "keep" — so a stale
    AppSecret or WeChat Pay public key stayed. `clear` names the ones to erase; the others are still kept, the
    contract's "" still clears, and a required secret (or an answered setting) cannot be cleared: a 400 with its
    own reason, nothing written. Through the API on moto, DynamoDB Local and the embedded store."""
    from chalice.test import Client

    from app import app
    from chalicelib.services.organisers import create_organiser
    from tests.factories import Api
    org, token = create_organiser(bootstrap.deps(), "清除密钥商会")
    repo = bootstrap.deps().repos.payment_accounts
    direct = {"mode": "direct", "mchid": "1900000109", "appid": "wx8888888888888888",
              "cert_serial_no": "5157F09EFDC096DE15EBE81A47057A72", "apiv3_key": APIV3, "private_key": PEM,
              "public_key_id": "PUB_KEY_ID_0114232134912410000"}
    public_key = PEM.replace("PRIVATE", "PUBLIC").strip()
    with Client(app) as client:
        api = Api(client, token)

        def put(body):
            r = api.put("/organiser/payment-accounts/wechat_pay", body)
            assert r.status_code == 200, r.data
            return repo.get(org.id, "wechat_pay").secrets

        full = {**direct, "app_secret": "a" * 32, "public_key": public_key}
        assert {"app_secret", "public_key"} <= put(full).keys()
        secrets = put({**direct, "clear": ["app_secret"]})
        assert "app_secret" not in secrets and secrets["public_key"] == public_key   # the one named; the other kept
        assert put({**direct, "clear": ["public_key"]}).keys() == {"cert_serial_no", "apiv3_key", "private_key"}
        assert put({**direct, "clear": ["app_secret"]})["apiv3_key"] == APIV3           # nothing to clear: fine
        put(full)
        assert put({**direct, "app_secret": ""}).keys() == {"cert_serial_no", "apiv3_key", "private_key", "public_key"}
        version = repo.version(org.id, "wechat_pay")
        for clear, field, reason in ((["private_key"], "private_key", "cannot_clear"),
                                     (["appid"], "appid", "cannot_clear"),
                                     (["sub_appid"], "sub_appid", "not_in_mode"),
                                     (["public_key"], "public_key", "cleared_and_sent")):
            body = {**direct, "clear": clear} | ({"public_key": public_key} if reason == "cleared_and_sent" else {})
            r = api.put("/organiser/payment-accounts/wechat_pay", body)
            assert (r.status_code, r.data["code"], r.data["details"]) == (
                400, "payment_account_invalid", {"field": field, "reason": reason}), clear
            assert PEM not in json.dumps(r.data)
        assert repo.version(org.id, "wechat_pay") == version and "public_key" in repo.get(org.id, "wechat_pay").secrets
        # a mode without optional secrets has nothing to clear
        r = api.put("/organiser/payment-accounts/stripe", {"account": "acct_1ChamberA", "clear": ["account"]})
        assert (r.status_code, r.data["details"]["reason"]) == (400, "cannot_clear")


def test_the_listing_names_the_secrets_set_never_their_values_on_each_store(any_repos):
    """Follow-up: the console offered 清除 for an optional secret even when none was stored, since a listing never
    opens the sealed secrets. The store keeps which secret names are set (names only) beside the sealed values and
    the listing answers them, after a clear, a kept secret and a check alike; an account saved before the names
    were stored answers null (the console then offers 清除 as before). On moto, DynamoDB Local and embedded."""
    from chalice.test import Client

    from app import app
    from chalicelib.services.organisers import create_organiser
    from chalicelib.store import keys
    from tests.factories import Api
    org, token = create_organiser(bootstrap.deps(), "密钥名单商会")
    table = bootstrap.deps().repos.table
    direct = {"mode": "direct", "mchid": "1900000109", "appid": "wx8888888888888888",
              "cert_serial_no": "5157F09EFDC096DE15EBE81A47057A72", "apiv3_key": APIV3, "private_key": PEM,
              "public_key_id": "PUB_KEY_ID_0114232134912410000"}
    required = ["apiv3_key", "cert_serial_no", "private_key"]
    with Client(app) as client:
        api = Api(client, token)

        def listed(provider="wechat_pay"):
            got = api.get("/organiser/payment-accounts").data
            return next(a for a in got["accounts"] if a["provider"] == provider)

        def put(body):
            r = api.put("/organiser/payment-accounts/wechat_pay", body)
            assert r.status_code == 200, r.data
            return r.data["secrets_set"]

        assert put({**direct, "app_secret": "a" * 32}) == sorted([*required, "app_secret"])
        assert listed()["secrets_set"] == sorted([*required, "app_secret"])
        raw = table.get(keys.payment_account(org.id, "wechat_pay"))
        assert raw["secrets_set"] == sorted([*required, "app_secret"])
        assert "a" * 32 not in json.dumps({k: v for k, v in raw.items() if k != "sealed"}, default=str)
        assert put(direct) == sorted([*required, "app_secret"])                 # not named: kept, still listed
        assert put({**direct, "clear": ["app_secret"]}) == required
        assert listed()["secrets_set"] == required                              # no AppSecret: nothing to clear
        api.post("/organiser/payment-accounts/wechat_pay/check")                # a check's record keeps the names
        assert (listed()["state"], listed()["secrets_set"]) == ("failed", required)
        text = json.dumps(api.get("/organiser/payment-accounts").data)
        assert APIV3 not in text and "secret-body" not in text
        assert api.put("/organiser/payment-accounts/stripe", {"account": "acct_1ChamberA"}).data["secrets_set"] == []
        assert listed("stripe")["secrets_set"] == []
        # an account saved before the names were stored: unknown, not "none set"
        table.put({k: v for k, v in raw.items() if k != "secrets_set"})
        assert listed()["secrets_set"] is None
        assert bootstrap.deps().repos.payment_accounts.get(org.id, "wechat_pay").secrets["app_secret"] == "a" * 32
