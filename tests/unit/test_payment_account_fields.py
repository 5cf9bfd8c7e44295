"""What an organiser sends for each provider and mode (services/payment_accounts.account_from): the account's id,
its answered settings and its write-only secrets split as the provider's own terms say, and the 400s."""
from __future__ import annotations

import pytest

from chalicelib import errors
from chalicelib.services.payment_accounts import account_from, answer

PEM = "-----BEGIN PRIVATE KEY-----\nMIIEv-secret\n-----END PRIVATE KEY-----"
B64 = "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA" * 3
PRIV = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEA" * 3


@pytest.mark.parametrize("provider, body, ident, public, secret_names", [
    ("wechat_pay", {"mode": "partner", "sub_mchid": "1900000109"}, "1900000109", {}, set()),
    ("wechat_pay", {"mode": "partner", "sub_mchid": "19000001", "sub_appid": "wx1234567890abcdef"}, "19000001",
     {"sub_appid": "wx1234567890abcdef"}, set()),
    ("wechat_pay", {"mode": "direct", "mchid": "1900000109", "appid": "wx1234567890abcdef", "cert_serial_no": "5157F09E",
                    "apiv3_key": "a" * 32, "private_key": PEM}, "1900000109", {"appid": "wx1234567890abcdef"},
     {"cert_serial_no", "apiv3_key", "private_key"}),
    ("alipay", {"mode": "app_auth", "auth_app_id": "2021000000000001", "app_auth_token": "202612BBe0f4a1b2c3d4"},
     "2021000000000001", {}, {"app_auth_token"}),
    # the token alone: the check learns the app id from the token query (AccountCheck.id)
    ("alipay", {"mode": "app_auth", "app_auth_token": "202612BBe0f4a1b2c3d4"}, "", {}, {"app_auth_token"}),
    ("alipay", {"mode": "direct", "appid": "2021000000000001", "app_private_key": PRIV, "alipay_public_key": B64,
                "sandbox": True}, "2021000000000001", {"alipay_public_key": B64, "sandbox": True}, {"app_private_key"}),
    ("stripe", {"account": "acct_1ABCdef"}, "acct_1ABCdef", {}, set()),
])
def test_each_mode_splits_id_settings_and_secrets(provider, body, ident, public, secret_names):
    acct = account_from("org1", provider, body)
    assert (acct.id, acct.public, set(acct.secrets), acct.state) == (ident, public, secret_names, "unchecked")
    shown = repr(acct) + repr(answer(acct))
    assert all(str(v) not in shown for v in acct.secrets.values())


@pytest.mark.parametrize("provider, body, field, reason", [
    ("wechat_pay", {"mode": "partner", "sub_mchid": "12345678901"}, "sub_mchid", "format"),   # 11 digits
    ("wechat_pay", {"mode": "partner", "sub_mchid": "1900a00109"}, "sub_mchid", "format"),
    ("wechat_pay", {"mode": "app_auth", "sub_mchid": "1900000109"}, "mode", "mode"),
    ("alipay", {"mode": "app_auth", "auth_app_id": "2021000000000001"}, "app_auth_token", "missing"),
    ("alipay", {"mode": "app_auth", "auth_app_id": "2088102177846875x", "app_auth_token": "202612BBe0f4a1b2c3d4"},
     "auth_app_id", "format"),
    ("alipay", {"mode": "direct", "appid": "wx1234567890abcdef", "app_private_key": B64, "alipay_public_key": B64},
     "appid", "format"),
    ("stripe", {"mode": "connect", "account": "acct_"}, "account", "format"),
    ("stripe", {"mode": "partner", "account": "acct_1ABCdef"}, "mode", "mode"),
])
def test_what_cannot_be_used_is_a_400_naming_the_field(provider, body, field, reason):
    with pytest.raises(errors.PaymentAccountInvalid) as exc:
        account_from("org1", provider, body)
    assert exc.value.details == {"field": field, "reason": reason} and exc.value.status == 400
