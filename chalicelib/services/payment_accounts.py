"""An organiser's own merchant accounts (issue 40, api.md v1.3): what it sends is checked field by field (each
provider's own terms), stored with its secrets sealed (store/payment_accounts.py), answered without them, and
checked with the provider through the adapter (`check_account`), whose words the console shows.

Every change of an account writes it `unchecked`: a tournament offers the provider again only after a check
says ok (services/gateways.py)."""
from __future__ import annotations

import logging
import re
from dataclasses import replace
from typing import TYPE_CHECKING

from .. import errors
from ..payments.accounts import AccountAware, AccountCheck, PaymentAccount
from . import gateways

if TYPE_CHECKING:   # the type only: the composition root (bootstrap) imports the services, not the reverse
    from ..bootstrap import Deps

log = logging.getLogger("cardgames.payments")

PROVIDERS = ("wechat_pay", "alipay", "stripe")
MODES = {"wechat_pay": ("partner", "direct"), "alipay": ("app_auth", "direct"), "stripe": ("connect",)}

# (field, where it goes: id | public | secret, its pattern, the provider's own name for it)
_MCHID = re.compile(r"^\d{8,10}$")
_FIELDS: dict[tuple[str, str], tuple[tuple[str, str, re.Pattern | None, str], ...]] = {
    ("wechat_pay", "partner"): (("sub_mchid", "id", _MCHID, "子商户号（特约商户号）"),),
    ("wechat_pay", "direct"): (
        ("mchid", "id", _MCHID, "商户号"),
        ("appid", "public", re.compile(r"^wx[0-9a-zA-Z]{16}$"), "AppID"),
        ("cert_serial_no", "secret", re.compile(r"^[0-9A-Fa-f]{8,40}$"), "证书序列号"),
        ("apiv3_key", "secret", re.compile(r"^[0-9A-Za-z]{32}$"), "APIv3 密钥"),
        ("private_key", "secret", re.compile(r"-----BEGIN (RSA )?PRIVATE KEY-----"), "商户 API 私钥（apiclient_key.pem）"),
    ),
    ("alipay", "app_auth"): (
        ("auth_app_id", "id", re.compile(r"^\d{16}$"), "授权商户的 APPID"),   # optional: the check learns it
        ("app_auth_token", "secret", re.compile(r"^[0-9A-Za-z._-]{16,128}$"), "app_auth_token（应用授权令牌）"),
    ),
    ("alipay", "direct"): (
        ("appid", "id", re.compile(r"^\d{16}$"), "APPID"),
        ("app_private_key", "secret", re.compile(r"^[A-Za-z0-9+/=\s-]{100,}|-----BEGIN"), "应用私钥"),
        ("alipay_public_key", "public", re.compile(r"^[A-Za-z0-9+/=\s-]{100,}|-----BEGIN"), "支付宝公钥"),
    ),
    ("stripe", "connect"): (("account", "id", re.compile(r"^acct_[0-9A-Za-z]{6,}$"), "Stripe 账户 ID（acct_…）"),),
}
# Optional, non-secret settings answered back as they were sent
_OPTIONAL_PUBLIC = {("wechat_pay", "partner"): ("sub_appid",), ("wechat_pay", "direct"): ("public_key_id",),
                    ("alipay", "direct"): ("sandbox",), ("alipay", "app_auth"): (), ("stripe", "connect"): ()}
# app_secret: the chamber's official account's AppSecret, for JSAPI's openid at its own AppID (wechat_pay.oauth)
_OPTIONAL_SECRET = {("wechat_pay", "direct"): ("public_key", "app_secret")}
# The setting each optional secret belongs with: a change that does not name the secret keeps the stored one only
# while that setting is unchanged (an AppSecret is one official account's, a public key one key id's)
_SECRET_GOES_WITH = {"app_secret": "appid", "public_key": "public_key_id"}
# Modes whose id the provider tells the check (AccountCheck.id): the organiser may leave it out. Alipay's token query
# names the app that authorised the platform (auth_app_id), which is what every notification of the account names.
_ID_LEARNED = {("alipay", "app_auth")}


def _invalid(field: str, reason: str, zh: str, en: str) -> errors.PaymentAccountInvalid:
    return errors.PaymentAccountInvalid(f"{zh} · {en}", {"field": field, "reason": reason})


def _provider(provider: str) -> str:
    if provider not in PROVIDERS:
        raise errors.NotFound(f"没有这种收款渠道 · No payment provider {provider[:20]!r} takes an organiser's account.")
    return provider


def account_from(organiser_id: str, provider: str, body: dict) -> PaymentAccount:
    """The account the organiser sent, checked: a wrong mode, a missing field or one not in the provider's own
    format is a 400 payment_account_invalid naming the field (never echoing a secret)."""
    _provider(provider)
    mode = body.get("mode") or ("connect" if provider == "stripe" else None)
    if mode is None:
        raise _invalid("mode", "missing", f"请选择接入方式（{' / '.join(MODES[provider])}）",
                       f"mode is required: one of {', '.join(MODES[provider])}")
    if mode not in MODES[provider]:
        raise _invalid("mode", "mode", f"{provider} 没有 {mode[:20]} 这种接入方式（可选 {' / '.join(MODES[provider])}）",
                       f"{provider} takes mode {' or '.join(MODES[provider])}")
    spec = _FIELDS[(provider, mode)]
    allowed = {"mode"} | {f for f, *_ in spec} | set(_OPTIONAL_PUBLIC.get((provider, mode), ())) \
        | set(_OPTIONAL_SECRET.get((provider, mode), ()))
    extra = sorted(k for k, v in body.items() if v not in (None, "") and k not in allowed | {"clear"})
    if extra:
        raise _invalid(extra[0], "not_in_mode", f"{mode} 方式不需要填写 {extra[0]}", f"{extra[0]} is not part of mode {mode}")
    _check_clear(body, provider, mode, allowed)
    ident, public, secrets = "", {}, {}
    for name, where, pattern, words in spec:
        value = body.get(name)
        if where == "id" and (provider, mode) in _ID_LEARNED and value in (None, ""):
            continue   # learned by the check, stored then
        if not isinstance(value, str) or not value.strip():
            raise _invalid(name, "missing", f"请填写{words}", f"{name} is required in mode {mode}")
        value = value.strip()
        if pattern is not None and not pattern.search(value):
            raise _invalid(name, "format", f"{words}格式不对", f"{name} is not in the provider's format")
        if where == "id":
            ident = value
        elif where == "public":
            public[name] = value
        else:
            secrets[name] = value
    for name in _OPTIONAL_PUBLIC.get((provider, mode), ()):
        if body.get(name) not in (None, ""):
            public[name] = body[name]
    for name in _OPTIONAL_SECRET.get((provider, mode), ()):
        if body.get(name) not in (None, ""):
            secrets[name] = body[name]
    return PaymentAccount(organiser_id=organiser_id, provider=provider, mode=mode, id=ident, public=public,
                          secrets=secrets)


def _check_clear(body: dict, provider: str, mode: str, fields: set[str]) -> None:
    """`clear`: the optional secrets the change erases (the console never shows a secret, so an empty field means
    "keep" and cannot say "erase"). Only an optional secret can be cleared: a required one is sent with every change,
    and a setting that is answered back is cleared by leaving it out. Naming one and sending a value for it is
    refused rather than guessed."""
    for name in body.get("clear") or ():
        if name not in fields:
            raise _invalid(name, "not_in_mode", f"{mode} 方式没有 {name[:40]}", f"{name[:40]} is not part of mode {mode}")
        words = next((w for f, _, _, w in _FIELDS[(provider, mode)] if f == name), name)
        if name not in _OPTIONAL_SECRET.get((provider, mode), ()):
            raise _invalid(name, "cannot_clear", f"{words}是必填项或会回显的设置，不能清除",
                           f"{name} is required or answered back: it cannot be cleared")
        if body.get(name) not in (None, ""):
            raise _invalid(name, "cleared_and_sent", f"{words}不能同时填写又清除", f"{name} is both sent and cleared")


def _kept_secrets(account: PaymentAccount, body: dict):
    """The optional secrets a change keeps from the stored account (the store calls this on the account it
    replaces, under the same version check): those the body does not name at all — the console never shows a secret
    back, so an edit of something else would erase them — on the same account (mode and id) with the setting each
    goes with unchanged. Named in `clear`, or sent as "": cleared (null is "not given", api.md v1.1, so kept).
    Required secrets are always sent."""
    cleared = set(body.get("clear") or ())
    unnamed = [n for n in _OPTIONAL_SECRET.get((account.provider, account.mode), ()) if n not in body and n not in cleared]
    if not unnamed:
        return None

    def carried(old: PaymentAccount) -> dict[str, str]:
        if (old.mode, old.id) != (account.mode, account.id):
            return {}
        return {n: old.secrets[n] for n in unnamed if n in old.secrets
                and old.public.get(_SECRET_GOES_WITH[n]) == account.public.get(_SECRET_GOES_WITH[n])}
    return carried


def answer(account: PaymentAccount, message: str | None = None) -> dict:
    """What the organiser sees of an account: never a secret (only which ones are set)."""
    out = {"provider": account.provider, "mode": account.mode, "id": account.id, "public": dict(account.public),
           "state": account.state, "checked_at": account.checked_at}
    if account.code:
        out["code"] = account.code
    if account.secrets_set is not None:   # unknown for an account saved before the names were stored: left out
        out["secrets_set"] = list(account.secrets_set)
    if message:
        out["message"] = message
    return out


def list_accounts(deps: Deps, organiser_id: str) -> dict:
    """The accounts, and what a tournament of this organiser may offer now (the console's choice of providers)."""
    return {"accounts": [answer(a) for a in deps.repos.payment_accounts.list(organiser_id)],
            "offerable": gateways.offerable(deps, organiser_id),
            # replaced or deleted accounts kept sealed for their orders' refunds: only how many
            "retired": deps.repos.payment_accounts.retired_count(organiser_id)}


def put_account(deps: Deps, organiser_id: str, provider: str, body: dict) -> dict:
    account = account_from(organiser_id, provider, body)
    if not account.id and (provider, account.mode) in _ID_LEARNED:
        old = deps.repos.payment_accounts.get(organiser_id, provider)
        if old is not None and old.mode == account.mode and old.id and old.secrets == account.secrets:
            # the same token sent again names the same app: keep the id its open orders were opened on
            account = replace(account, id=old.id)
    saved = deps.repos.payment_accounts.put(account, deps.clock().isoformat(), carried=_kept_secrets(account, body))
    log.info("payment account %s of organiser %s set (%s): unchecked", provider, organiser_id, saved.mode)
    return answer(saved)


def delete_account(deps: Deps, organiser_id: str, provider: str) -> None:
    if not deps.repos.payment_accounts.delete(organiser_id, _provider(provider), deps.clock().isoformat()):
        raise errors.NotFound("还没有接入这个渠道 · No account of this provider.")
    log.info("payment account %s of organiser %s deleted", provider, organiser_id)


def check_account(deps: Deps, organiser_id: str, provider: str) -> dict:
    """Asks the provider (through the platform's adapter) whether the account can take money, and records the
    outcome on the account as it was read (a change meanwhile keeps it unchecked)."""
    repo = deps.repos.payment_accounts
    version = repo.version(organiser_id, _provider(provider))
    account = repo.get(organiser_id, provider) if version is not None else None
    if account is None:
        raise errors.NotFound("还没有接入这个渠道 · No account of this provider.")
    gw = (deps.providers or {}).get(provider)
    if not isinstance(gw, AccountAware):
        check = AccountCheck("failed", "provider_not_configured",
                             "本平台尚未开通这个渠道的服务商接入，请联系平台 · The platform has no service-provider keys "
                             "for this provider yet.")
    else:
        try:
            check = gw.check_account(account)
        except errors.PaymentError:
            check = AccountCheck("failed", "provider_unreachable", "暂时连不上支付渠道，请稍后再检查 · The provider "
                                 "cannot be reached now: check again later.")
    check = _same_account(account, check)
    # the id the provider named, stored when the organiser left it to the check (Alipay app_auth: auth_app_id)
    learned = check.id if check.id and not account.id else None
    now = deps.clock().isoformat()
    recorded = repo.record_check(organiser_id, provider, version, check, now, learned_id=learned)
    log.info("payment account %s of organiser %s checked: %s %s", provider, organiser_id, check.state, check.code or "")
    out = {"state": check.state if recorded else "unchecked", "checked_at": now, "message": check.message}
    if check.code:
        out["code"] = check.code
    if recorded and (learned or account.id):
        out["id"] = learned or account.id
    if not recorded:   # changed while it was checked: that change is what stands, unchecked
        out["code"], out["message"] = "changed", "检查期间账户被修改，请重新检查 · The account changed meanwhile: check again."
    return out


def _same_account(account: PaymentAccount, check: AccountCheck) -> AccountCheck:
    """An account whose id the provider names otherwise than the organiser typed is not usable: notifications name
    the provider's id (`account_of`), so a payment opened on it would never match its own notifications."""
    if not check.id or not account.id or check.id == account.id:
        return check
    return AccountCheck("failed", "account_mismatch",
                        f"支付渠道说这个账户是 {check.id}，与填写的 {account.id} 不一致：请核对，或留空由检查自动获取 · "
                        f"The provider names this account {check.id}, not {account.id}: correct it, or leave it empty "
                        "for the check to fill in.", id=check.id)
