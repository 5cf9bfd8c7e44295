"""Organisers' merchant accounts (issue 40, api.md v1.3): one item per organiser and provider, its secrets sealed
(store/sealed.py: the table holds neither a key nor a secret in clear). Every change of the account writes it
`unchecked` with a new version; a check's outcome is recorded only on the version it checked, so a check that
raced with a change never marks the new account ok."""
from __future__ import annotations

from .. import errors
from ..payments.accounts import AccountCheck, PaymentAccount
from . import keys
from .dynamo import Table
from .sealed import Sealer

PREFIX = "PAYACCT#"


class PaymentAccountRepo:
    def __init__(self, table: Table, sealer: Sealer | None = None):
        self.t = table
        self.sealer = sealer or Sealer()

    def put(self, account: PaymentAccount, now_iso: str) -> PaymentAccount:
        """The organiser's account at this provider, replacing any earlier one: state unchecked."""
        old = self.t.get(keys.payment_account(account.organiser_id, account.provider))
        version = int(old["version"]) + 1 if old else 1
        item = {**keys.payment_account(account.organiser_id, account.provider), "kind": "payment_account",
                "provider": account.provider, "mode": account.mode, "account_id": account.id,
                "public": dict(account.public), "state": "unchecked", "version": version, "updated_at": now_iso}
        if account.secrets:
            item["sealed"] = self.sealer.seal(account.organiser_id, account.provider, dict(account.secrets))
        if old:
            self.t.put(item, condition="version = :v", values={":v": int(old["version"])},
                       on_fail=lambda: errors.VersionConflict("收款账户刚被修改，请重试 · The account changed meanwhile: try again."))
        else:
            self.t.put(item, condition="attribute_not_exists(PK)",
                       on_fail=lambda: errors.VersionConflict("收款账户刚被修改，请重试 · The account changed meanwhile: try again."))
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
        try:
            code = {":c": check.code} if check.code else {}
            ident = {":id": learned_id} if learned_id else {}
            self.t.update(keys.payment_account(oid, provider),
                          "SET #s = :s, checked_at = :at" + (", code = :c" if code else "")
                          + (", account_id = :id" if ident else "") + ("" if code else " REMOVE code"),
                          names={"#s": "state"},
                          values={":s": check.state, ":at": now_iso, ":v": version, **code, **ident},
                          condition="version = :v", on_fail=errors.VersionConflict)
        except errors.VersionConflict:
            return False
        return True

    def delete(self, oid: str, provider: str) -> bool:
        try:
            self.t.delete(keys.payment_account(oid, provider), condition="attribute_exists(PK)",
                          on_fail=errors.NotFound)
        except errors.NotFound:
            return False
        return True

    def _account(self, oid: str, item: dict, *, with_secrets: bool) -> PaymentAccount:
        secrets = self.sealer.open(oid, item["provider"], item["sealed"]) if with_secrets and item.get("sealed") else {}
        return PaymentAccount(organiser_id=oid, provider=item["provider"], mode=item["mode"], id=item["account_id"],
                              public=dict(item.get("public") or {}), secrets=secrets, state=item.get("state", "unchecked"),
                              checked_at=item.get("checked_at"), code=item.get("code"))
