"""Organisers' merchant accounts (issue 40, api.md v1.3): one item per organiser and provider, its secrets sealed
(store/sealed.py: the table holds neither a key nor a secret in clear). Every change of the account writes it
`unchecked` with a new version; a check's outcome is recorded only on the version it checked, so a check that
raced with a change never marks the new account ok.

An account replaced by another (a different account id) or deleted is not forgotten: the orders opened on it are
still refunded, queried and notified through it (issue 40 follow-up), so its item is copied, sealed as it was, to
a `retired` item under its account id in the same transaction. Nothing in the API answers a retired account but
their count; a new order never goes through one."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from .. import errors
from ..payments.accounts import AccountCheck, PaymentAccount
from . import keys
from .dynamo import Op, Table
from .sealed import Sealer

PREFIX = "PAYACCT#"
RETIRED_PREFIX = "PAYRETIRED#"


class PaymentAccountRepo:
    def __init__(self, table: Table, sealer: Sealer | None = None):
        self.t = table
        self.sealer = sealer or Sealer()

    def put(self, account: PaymentAccount, now_iso: str,
            carried: Callable[[PaymentAccount], dict[str, str]] | None = None) -> PaymentAccount:
        """The organiser's account at this provider, replacing any earlier one: state unchecked. `carried` names
        the secrets of the account it replaces (opened) that the new one keeps — read from the very item the
        write's version condition holds to, so a change meanwhile cannot lend its secrets."""
        old = self.t.get(keys.payment_account(account.organiser_id, account.provider))
        if old and carried is not None and old.get("sealed"):
            kept_secrets = carried(self._account(account.organiser_id, old, with_secrets=True))
            if kept_secrets:
                account = replace(account, secrets={**kept_secrets, **account.secrets})
        version = int(old["version"]) + 1 if old else 1
        item = {**keys.payment_account(account.organiser_id, account.provider), "kind": "payment_account",
                "provider": account.provider, "mode": account.mode, "account_id": account.id,
                "public": dict(account.public), "state": "unchecked", "version": version, "updated_at": now_iso}
        if account.secrets:
            item["sealed"] = self.sealer.seal(account.organiser_id, account.provider, dict(account.secrets))
        # which secrets are set, names only, beside the sealed values: the listing answers them without opening
        item["secrets_set"] = sorted(account.secrets)
        if old:
            put = Op.put(item, condition="version = :v", values={":v": int(old["version"])},
                         on_fail=lambda: errors.VersionConflict("收款账户刚被修改，请重试 · The account changed meanwhile: try again."))
            kept = [] if old.get("account_id") == account.id else self._retire_ops(account.organiser_id, old, now_iso)
        else:
            put = Op.put(item, condition="attribute_not_exists(PK)",
                         on_fail=lambda: errors.VersionConflict("收款账户刚被修改，请重试 · The account changed meanwhile: try again."))
            kept = []
        # an account taken back is the account now: its retired copy (older keys) goes
        back = [Op.delete(keys.retired_payment_account(account.organiser_id, account.provider, account.id))] \
            if account.id else []
        claims = self._claim_ops(account.organiser_id, account.provider, account.id, old.get("account_id") if old else None)
        self.t.transact([put, *kept, *back, *claims])
        return self._account(account.organiser_id, item, with_secrets=False)

    def get(self, oid: str, provider: str, *, with_secrets: bool = True) -> PaymentAccount | None:
        item = self.t.get(keys.payment_account(oid, provider))
        return self._account(oid, item, with_secrets=with_secrets) if item else None

    def version(self, oid: str, provider: str) -> int | None:
        item = self.t.get(keys.payment_account(oid, provider))
        return int(item["version"]) if item else None

    def list(self, oid: str) -> list[PaymentAccount]:
        """Every account of the organiser, secrets left sealed (a listing never opens them)."""
        return [self._account(oid, item, with_secrets=False)
                for item in self.t.query(keys.organiser_partition(oid), PREFIX)]

    def record_check(self, oid: str, provider: str, version: int, check: AccountCheck, now_iso: str,
                     learned_id: str | None = None) -> bool:
        """The check's outcome on the account it checked (with the account id the provider named, when the
        organiser left it to the check); False (nothing written) when the account changed or went meanwhile."""
        code = {":c": check.code} if check.code else {}
        ident = {":id": learned_id} if learned_id else {}
        update = Op.update(keys.payment_account(oid, provider),
                           "SET #s = :s, checked_at = :at" + (", code = :c" if code else "")
                           + (", account_id = :id" if ident else "") + ("" if code else " REMOVE code"),
                           names={"#s": "state"},
                           values={":s": check.state, ":at": now_iso, ":v": version, **code, **ident},
                           condition="version = :v", on_fail=errors.VersionConflict)
        claims = []
        if learned_id:   # the id the provider named (Alipay's app id) is claimed as a typed one is
            old = self.t.get(keys.payment_account(oid, provider))
            claims = self._claim_ops(oid, provider, learned_id, old.get("account_id") if old else None)
        try:
            self.t.transact([update, *claims])
        except errors.VersionConflict:
            return False
        return True

    def delete(self, oid: str, provider: str, now_iso: str | None = None) -> bool:
        old = self.t.get(keys.payment_account(oid, provider))
        if old is None:
            return False
        try:
            self.t.transact([Op.delete(keys.payment_account(oid, provider), condition="version = :v",
                                       values={":v": int(old["version"])}, on_fail=errors.NotFound),
                             *self._retire_ops(oid, old, now_iso or str(old.get("updated_at", ""))),
                             *self._claim_ops(oid, provider, None, old.get("account_id"))])
        except errors.NotFound:
            return False   # changed or deleted meanwhile: the organiser looks again
        return True

    def _claim_ops(self, oid: str, provider: str, new_id: str | None, old_id: str | None) -> list[Op]:
        """The merchant id claimed for this organiser (refused when another holds it), the one it leaves released."""
        ops = []
        if new_id and new_id != old_id:
            ops.append(Op.put({**keys.payment_account_claim(provider, new_id), "kind": "payment_account_claim",
                               "organiser_id": oid},
                              condition="attribute_not_exists(PK) OR organiser_id = :o", values={":o": oid},
                              on_fail=errors.PaymentAccountTaken))
        if old_id and old_id != new_id:
            ops.append(Op.delete(keys.payment_account_claim(provider, old_id)))
        return ops

    def _retire_ops(self, oid: str, old: dict, now_iso: str) -> list[Op]:
        """The account leaving, kept under its id (an account never given an id opened no order: nothing kept)."""
        if not old.get("account_id"):
            return []
        kept = {k: v for k, v in old.items() if k not in ("PK", "SK")}
        return [Op.put({**keys.retired_payment_account(oid, old["provider"], old["account_id"]), **kept,
                        "kind": "payment_account_retired", "retired_at": now_iso})]

    def retired(self, oid: str, provider: str, account_id: str) -> PaymentAccount | None:
        """The replaced or deleted account with this id, secrets opened (in memory only), or None."""
        item = self.t.get(keys.retired_payment_account(oid, provider, account_id))
        return self._account(oid, item, with_secrets=True) if item else None

    def retired_all(self, oid: str, provider: str) -> list[PaymentAccount]:
        """Every kept account of the organiser at `provider`, secrets opened, the last retired first."""
        items = self.t.query(keys.organiser_partition(oid), f"{RETIRED_PREFIX}{provider}#")
        return [self._account(oid, i, with_secrets=True)
                for i in sorted(items, key=lambda i: str(i.get("retired_at", "")), reverse=True)]

    def retired_count(self, oid: str) -> int:
        """How many replaced or deleted accounts are kept (all the API says of them)."""
        return len(self.t.query(keys.organiser_partition(oid), RETIRED_PREFIX, projection="PK, SK"))

    def _account(self, oid: str, item: dict, *, with_secrets: bool) -> PaymentAccount:
        secrets = self.sealer.open(oid, item["provider"], item["sealed"]) if with_secrets and item.get("sealed") else {}
        return PaymentAccount(organiser_id=oid, provider=item["provider"], mode=item["mode"], id=item["account_id"],
                              public=dict(item.get("public") or {}), secrets=secrets, state=item.get("state", "unchecked"),
                              checked_at=item.get("checked_at"), code=item.get("code"),
                              secrets_set=tuple(item["secrets_set"]) if "secrets_set" in item else None)
