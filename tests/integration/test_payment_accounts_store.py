"""Organisers' merchant accounts in the store (issue 40): secrets sealed per organiser with a key the table never
holds, a change resets the state, a check is recorded only on the version it checked. On every store backend."""
from __future__ import annotations

import json
from dataclasses import replace

import pytest

from chalicelib import errors
from chalicelib.payments.accounts import AccountCheck, PaymentAccount
from chalicelib.store import keys
from chalicelib.store.sealed import KmsKeys, Sealer

SECRET = "-----BEGIN PRIVATE KEY-----very-secret-body"
APIV3 = "0123456789abcdef0123456789abcdef"


def _direct(oid: str = "org1") -> PaymentAccount:
    return PaymentAccount(organiser_id=oid, provider="wechat_pay", mode="direct", id="1900000109",
                          public={"appid": "wx8888888888888888"},
                          secrets={"private_key": SECRET, "cert_serial_no": "5157F09EFDC096DE15EBE81A47057A72",
                                   "apiv3_key": APIV3})


def test_secrets_are_sealed_and_open_only_for_their_organiser(any_repos):
    repo = any_repos.payment_accounts
    saved = repo.put(_direct(), "2026-12-01T02:00:00Z")
    assert saved.state == "unchecked" and saved.secrets == {}
    raw = any_repos.table.get(keys.payment_account("org1", "wechat_pay"))
    text = json.dumps(raw)
    assert SECRET not in text and APIV3 not in text and "5157F09E" not in text
    assert raw["sealed"]["key"] == "local-v1"          # nothing wrapped: the key is the installation's, not here
    got = repo.get("org1", "wechat_pay")
    assert got.secrets["private_key"] == SECRET and got.public == {"appid": "wx8888888888888888"}
    assert SECRET not in repr(got) and APIV3 not in repr(got)
    assert all(a.secrets == {} for a in repo.list("org1"))
    # The same sealed value copied under another organiser's item does not open there
    any_repos.table.put({**raw, **keys.payment_account("org2", "wechat_pay")})
    with pytest.raises(errors.Misconfigured):
        repo.get("org2", "wechat_pay")


def test_a_change_resets_the_state_and_a_stale_check_is_not_recorded(any_repos):
    repo = any_repos.payment_accounts
    repo.put(PaymentAccount("org1", "stripe", "connect", "acct_1AAA"), "t1")
    v1 = repo.version("org1", "stripe")
    assert repo.record_check("org1", "stripe", v1, AccountCheck("ok"), "t2")
    assert repo.get("org1", "stripe").state == "ok"
    repo.put(PaymentAccount("org1", "stripe", "connect", "acct_2BBB"), "t3")
    again = repo.get("org1", "stripe")
    assert (again.state, again.id) == ("unchecked", "acct_2BBB")
    # The check that read version 1 ends after the change: it does not mark the new account ok
    assert not repo.record_check("org1", "stripe", v1, AccountCheck("ok"), "t4")
    assert repo.get("org1", "stripe").state == "unchecked"
    failed = AccountCheck("failed", "account_not_found", "没有这个 Stripe 账户")
    assert repo.record_check("org1", "stripe", repo.version("org1", "stripe"), failed, "t5")
    got = repo.get("org1", "stripe")
    assert (got.state, got.code, got.checked_at) == ("failed", "account_not_found", "t5")
    assert [a.provider for a in repo.list("org1")] == ["stripe"] and repo.list("org2") == []
    assert repo.delete("org1", "stripe") and not repo.delete("org1", "stripe")
    assert repo.get("org1", "stripe") is None and repo.list("org1") == []


def test_a_check_stores_the_id_the_provider_named_only_on_the_version_it_checked(any_repos):
    """Alipay app_auth: the organiser sends only the token; the check's token query names the app (auth_app_id),
    stored as the account's id — the id every notification of the account names."""
    repo = any_repos.payment_accounts
    repo.put(PaymentAccount("org1", "alipay", "app_auth", "", secrets={"app_auth_token": "202612BBtoken0001"}), "t1")
    v1 = repo.version("org1", "alipay")
    named = AccountCheck("ok", None, "支付宝授权有效。", id="2021000000000101")
    assert repo.record_check("org1", "alipay", v1, named, "t2", learned_id=named.id)
    got = repo.get("org1", "alipay")
    assert (got.id, got.state, got.code, got.secrets) == ("2021000000000101", "ok", None,
                                                          {"app_auth_token": "202612BBtoken0001"})
    repo.put(PaymentAccount("org1", "alipay", "app_auth", "", secrets={"app_auth_token": "202612BBtoken0002"}), "t3")
    assert not repo.record_check("org1", "alipay", v1, named, "t4", learned_id="2021000000000999")
    assert (repo.get("org1", "alipay").id, repo.get("org1", "alipay").state) == ("", "unchecked")


def test_kms_wraps_each_data_key_and_binds_it_to_the_organiser(moto_repos):
    import boto3
    kms = boto3.client("kms", region_name="ap-east-1")
    key_id = kms.create_key()["KeyMetadata"]["KeyId"]
    sealer = Sealer(KmsKeys(key_id, client=kms))
    sealed = sealer.seal("org1", "alipay", {"app_auth_token": "202612BBsecrettoken"})
    assert sealed["key"].startswith("kms:") and "202612BB" not in json.dumps(sealed)
    assert Sealer(KmsKeys(key_id, client=kms)).open("org1", "alipay", sealed) == {"app_auth_token": "202612BBsecrettoken"}
    with pytest.raises(errors.Misconfigured):   # KMS refuses the wrapped key under another organiser's context
        Sealer(KmsKeys(key_id, client=kms)).open("org2", "alipay", sealed)


def test_a_replaced_or_deleted_account_is_kept_sealed_under_its_id(any_repos):
    """Issue 40 follow-up: the account a payment's order was opened on outlives its replacement and deletion,
    sealed as it was; a put of the same account id keeps nothing (it is the account now)."""
    repo = any_repos.payment_accounts
    repo.put(_direct(), "t1")
    repo.put(_direct(), "t2")                                   # the same merchant again: nothing retired
    assert repo.retired_count("org1") == 0
    repo.put(PaymentAccount("org1", "wechat_pay", "direct", "1900000999", public={"appid": "wx9999999999999999"},
                            secrets={"private_key": "other", "cert_serial_no": "AA", "apiv3_key": APIV3}), "t3")
    kept = repo.retired("org1", "wechat_pay", "1900000109")
    assert kept.secrets["private_key"] == SECRET and kept.public == {"appid": "wx8888888888888888"}
    raw = any_repos.table.get(keys.retired_payment_account("org1", "wechat_pay", "1900000109"))
    assert SECRET not in json.dumps(raw) and APIV3 not in json.dumps(raw)   # still sealed
    assert [a.id for a in repo.list("org1")] == ["1900000999"]             # never listed
    assert repo.delete("org1", "wechat_pay", "t4") and not repo.delete("org1", "wechat_pay", "t5")
    assert repo.get("org1", "wechat_pay") is None and repo.list("org1") == []
    assert [a.id for a in repo.retired_all("org1", "wechat_pay")] == ["1900000999", "1900000109"]   # last first
    assert repo.retired_count("org1") == 2 and repo.retired_count("org2") == 0
    assert repo.retired("org1", "wechat_pay", "nope") is None and repo.retired_all("org1", "alipay") == []
    repo.put(_direct(), "t6")                                   # taken back: it is the account now, not retired
    assert [a.id for a in repo.retired_all("org1", "wechat_pay")] == ["1900000999"]
    assert repo.get("org1", "wechat_pay").secrets["private_key"] == SECRET


def test_one_merchant_id_belongs_to_one_organiser_at_a_time(any_repos):
    """A sub_mchid, app id or acct_ connected by one organiser cannot be connected by another (its tournaments'
    orders and refunds would go through the first chamber's merchant) until the first lets it go."""
    repo = any_repos.payment_accounts
    partner = PaymentAccount(organiser_id="org1", provider="wechat_pay", mode="partner", id="1900000111")
    repo.put(partner, "2026-12-01T02:00:00Z")
    repo.put(partner, "2026-12-01T02:01:00Z")                         # the same organiser again: its own
    taken = PaymentAccount(organiser_id="org2", provider="wechat_pay", mode="partner", id="1900000111")
    with pytest.raises(errors.PaymentAccountTaken):
        repo.put(taken, "2026-12-01T02:02:00Z")
    assert repo.get("org2", "wechat_pay") is None                        # nothing half-written
    repo.put(PaymentAccount(organiser_id="org1", provider="wechat_pay", mode="partner", id="1900000222"),
             "2026-12-01T02:03:00Z")                                     # org1 moves to another sub-merchant
    assert repo.put(taken, "2026-12-01T02:04:00Z").id == "1900000111"   # the old one is free
    with pytest.raises(errors.PaymentAccountTaken):
        repo.put(PaymentAccount(organiser_id="org3", provider="wechat_pay", mode="partner", id="1900000222"),
                 "2026-12-01T02:05:00Z")
    assert repo.delete("org1", "wechat_pay", "2026-12-01T02:06:00Z")
    repo.put(PaymentAccount(organiser_id="org3", provider="wechat_pay", mode="partner", id="1900000222"),
             "2026-12-01T02:07:00Z")                                     # deleted: free for another


def test_a_change_keeps_the_secrets_carried_from_the_account_it_replaces(any_repos):
    """`put(…, carried=)` opens the secrets of the very item it replaces (the one its version condition holds to)
    and keeps what `carried` picks, under the change's own secrets; with nothing stored, nothing is carried."""
    repo = any_repos.payment_accounts
    seen = []
    first = _direct()
    repo.put(first, "t1", carried=lambda old: seen.append(old) or {})
    assert seen == []                                              # no account before: nothing to carry from
    repo.put(replace(first, secrets={**first.secrets, "app_secret": "s" * 32}), "t2")
    changed = replace(first, secrets={**first.secrets, "apiv3_key": "Zz" * 16})
    repo.put(changed, "t3", carried=lambda old: seen.append(old.secrets) or {k: old.secrets[k] for k in ("app_secret", "apiv3_key")})
    assert seen[0]["app_secret"] == "s" * 32 and seen[0]["apiv3_key"] == APIV3
    got = repo.get("org1", "wechat_pay").secrets
    assert (got["app_secret"], got["apiv3_key"]) == ("s" * 32, "Zz" * 16)   # the change's own secret wins
    assert repo.version("org1", "wechat_pay") == 3
