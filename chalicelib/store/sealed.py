"""Envelope encryption of an organiser's payment-account secrets (issue 40): the table never holds a key.

Each sealed value has its own 256-bit data key, used once with AES-GCM (`cryptography`); the organiser and the
provider are its associated data, so a sealed value copied under another organiser's or provider's item does not
open. Where the data key comes from:

- AWS (`PAYMENT_ACCOUNTS_KEY_ID` set): KMS GenerateDataKey under that key, with the organiser as encryption
  context; the item keeps only the KMS-wrapped data key, and opening it is a KMS Decrypt the function's role is
  granted (infra/stack.py). Opened data keys are kept in memory per process (a payment call is not a KMS call).
- Locally (the venue laptop, tests): derived per organiser by HKDF from the installation's secret
  (installation.table_secret, under its own label): what `.data/secrets.json` holds, never the table.
"""
from __future__ import annotations

import base64
import json
import os
from functools import lru_cache

from .. import errors

LOCAL = "local-v1"          # the data key is HKDF(installation secret, organiser): nothing wrapped to keep
KMS = "kms:"                # followed by the KMS-wrapped data key, base64


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _aad(organiser_id: str, provider: str) -> bytes:
    return f"payment-account|{organiser_id}|{provider}".encode()


class LocalKeys:
    """Data keys derived from the installation's secret, one per organiser."""

    def new_key(self, organiser_id: str) -> tuple[bytes, str]:
        return self.open_key(organiser_id, LOCAL), LOCAL

    def open_key(self, organiser_id: str, wrapped: str) -> bytes:
        if wrapped != LOCAL:
            raise errors.Misconfigured("This account's secrets were sealed by KMS: this installation has no KMS key.")
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.kdf.hkdf import HKDF
        from ..installation import table_secret
        return HKDF(algorithm=hashes.SHA256(), length=32, salt=b"cardgames payment accounts v1",
                    info=organiser_id.encode()).derive(table_secret())


class KmsKeys:
    """Data keys from KMS under `key_id`; the organiser is the encryption context (a wrapped key of one organiser
    does not open as another's). The client is made on first use."""

    def __init__(self, key_id: str, client=None):
        self.key_id = key_id
        self._client = client

    def client(self):
        if self._client is None:
            import boto3
            self._client = boto3.client("kms")
        return self._client

    def new_key(self, organiser_id: str) -> tuple[bytes, str]:
        out = self.client().generate_data_key(KeyId=self.key_id, KeySpec="AES_256",
                                              EncryptionContext={"organiser": organiser_id})
        wrapped = KMS + _b64(out["CiphertextBlob"])
        return out["Plaintext"], wrapped

    def open_key(self, organiser_id: str, wrapped: str) -> bytes:
        if not wrapped.startswith(KMS):
            raise errors.Misconfigured("This account's secrets were sealed locally, not by KMS.")
        try:
            return _opened(self, organiser_id, wrapped)
        except self.client().exceptions.InvalidCiphertextException:   # another organiser's, or another key's
            raise errors.Misconfigured("A payment account's data key does not open for this organiser.") from None


@lru_cache(maxsize=512)
def _opened(keys: KmsKeys, organiser_id: str, wrapped: str) -> bytes:
    blob = base64.b64decode(wrapped[len(KMS):])
    return keys.client().decrypt(CiphertextBlob=blob, EncryptionContext={"organiser": organiser_id},
                                 KeyId=keys.key_id)["Plaintext"]


def keys_from_settings():
    from ..config import get_settings
    key_id = get_settings().payment_accounts_key_id
    return KmsKeys(key_id) if key_id else LocalKeys()


class Sealer:
    def __init__(self, keys=None):
        self._keys = keys

    @property
    def keys(self):
        if self._keys is None:
            self._keys = keys_from_settings()
        return self._keys

    def seal(self, organiser_id: str, provider: str, secrets: dict) -> dict:
        """{"key": wrapped data key | local-v1, "nonce", "box"}: what the item keeps (no key in clear)."""
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM
        data_key, wrapped = self.keys.new_key(organiser_id)
        nonce = os.urandom(12)
        box = AESGCM(data_key).encrypt(nonce, json.dumps(secrets, sort_keys=True).encode(),
                                       _aad(organiser_id, provider))
        return {"key": wrapped, "nonce": _b64(nonce), "box": _b64(box)}

    def open(self, organiser_id: str, provider: str, sealed: dict) -> dict:
        from cryptography.exceptions import InvalidTag
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM
        data_key = self.keys.open_key(organiser_id, sealed["key"])
        try:
            plain = AESGCM(data_key).decrypt(base64.b64decode(sealed["nonce"]), base64.b64decode(sealed["box"]),
                                             _aad(organiser_id, provider))
        except InvalidTag:
            # Not this organiser's or provider's, or sealed under another installation secret: never opened
            raise errors.Misconfigured("A payment account's secrets do not open with this installation's key.") from None
        return json.loads(plain)
