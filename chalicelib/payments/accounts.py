"""A chamber's own merchant account at a provider (issue 40, api.md v1.3): the seam between the accounts' records
(store, secrets, console, which adapter a tournament's payment goes through) and the adapters that speak to the
provider on that account's behalf (partner mode, app authorisation, Connect).

The platform's installation keys are the service provider's (服务商 / the Alipay third-party app / the Stripe
platform). An organiser's account says where its money settles:

| provider     | mode        | id                         | secrets (write-only, decrypted only in memory)       |
|--------------|-------------|----------------------------|------------------------------------------------------|
| `wechat_pay` | `partner`   | the 特约商户's `sub_mchid`   | none (the platform's keys sign; the money is the sub-merchant's) |
| `wechat_pay` | `direct`    | the chamber's `mchid`      | `private_key`, `cert_serial_no`, `apiv3_key` (+ `appid` in `public`) |
| `alipay`     | `app_auth`  | the chamber's app id / pid | `app_auth_token`                                     |
| `alipay`     | `direct`    | the chamber's `appid`      | `app_private_key`, `alipay_public_key`               |
| `stripe`     | `connect`   | `acct_…`                   | none (the platform's key with the Stripe-Account header) |
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable

from .port import Notification, Provider

AccountState = Literal["unchecked", "ok", "failed"]


@dataclass(frozen=True)
class PaymentAccount:
    organiser_id: str
    provider: str                                     # wechat_pay | alipay | stripe
    mode: str                                         # partner | direct | app_auth | connect
    id: str                                           # sub_mchid | mchid | app id | acct_… (shown in full)
    public: dict = field(default_factory=dict)        # non-secret settings (appid, sandbox …), answered back
    secrets: dict = field(default_factory=dict, repr=False)   # never answered, never logged, encrypted at rest
    state: AccountState = "unchecked"
    checked_at: str | None = None
    code: str | None = None                           # why the last check failed (a stable code)
    # the names of the secrets stored (never their values), so a listing can say which are set without opening
    # them; None for an account saved before the names were stored
    secrets_set: tuple[str, ...] | None = None


@dataclass(frozen=True)
class AccountCheck:
    state: AccountState                               # ok | failed
    code: str | None = None                           # e.g. wrong_key, sub_merchant_not_bound, product_not_enabled,
                                                      # provider_unreachable, account_not_found, app_auth_invalid,
                                                      # account_mismatch, invalid_account, provider_refused
    message: str = ""                                 # in words, zh-CN first (the provider's own terms)
    id: str | None = None                             # the account id the provider named, when the account did not
                                                      # say it (Alipay: an app_auth token's auth_app_id): store it
                                                      # as the account's id — notifications name it


@runtime_checkable
class AccountAware(Protocol):
    """What an online adapter adds for per-organiser accounts. The registry (`Deps.providers`) holds the platform's
    adapter; the services ask it for one bound to the paying tournament's organiser's account."""

    def for_account(self, account: PaymentAccount) -> Provider:
        """The same port, speaking for that account: WeChat's partner endpoints with `sub_mchid` (or the
        chamber's own keys in direct mode), Alipay with `app_auth_token`, Stripe with `stripe_account`."""

    def check_account(self, account: PaymentAccount) -> AccountCheck:
        """Asks the provider whether the account can take money (bounded: ≤ 10 s), in words when not."""

    def account_of(self, notification: Notification) -> str | None:
        """The account id a verified notification names (sub_mchid, auth_app_id, Stripe's `account`), so a
        notification for one organiser's account never changes another organiser's entry."""
