"""Provider API keys at rest: Fernet (AES-128-CBC + HMAC-SHA256) with keys from settings.

PROVIDER_KEYS_SECRET is a list: the first secret encrypts, every one decrypts, so a secret is
rotated by putting the new one first, re-saving the keys (`provider_keys_reencrypt`, and the
drive folders' credentials: `drives.connectors.drive_credentials_reencrypt`), then dropping
the old one. A secret is either a Fernet key (32 url-safe base64 bytes) or any other
text, from which a key is derived with SHA-256.
"""

from __future__ import annotations

import base64
import binascii
import hashlib

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

MISSING = ("PROVIDER_KEYS_SECRET is not set: it encrypts the organisations' provider API keys. "
           "Set it in the environment (e.g. the output of "
           "`python -c 'from cryptography.fernet import Fernet; print(Fernet.generate_key()"
           ".decode())'`).")


class KeyUnreadable(Exception):
    """A stored key that none of the configured secrets can decrypt."""


def _fernet_key(secret: str) -> bytes:
    raw = secret.encode()
    try:
        if len(base64.urlsafe_b64decode(raw)) == 32 and len(raw) == 44:
            return raw
    except (binascii.Error, ValueError):
        pass
    return base64.urlsafe_b64encode(hashlib.sha256(b"atelier.provider-keys:" + raw).digest())


def _fernet() -> MultiFernet:
    secrets = [s for s in getattr(settings, "PROVIDER_KEYS_SECRET", None) or [] if s]
    if not secrets:
        raise ImproperlyConfigured(MISSING)
    return MultiFernet([Fernet(_fernet_key(s)) for s in secrets])


def key_encrypt(plain: str) -> str:
    return _fernet().encrypt(plain.encode("utf-8")).decode("ascii")


def key_decrypt(token: str) -> str:
    try:
        return _fernet().decrypt(token.encode("ascii")).decode("utf-8")
    except (InvalidToken, UnicodeError) as exc:
        raise KeyUnreadable("The stored API key cannot be decrypted with PROVIDER_KEYS_SECRET "
                            "(was the secret changed without keeping the old one?).") from exc


def key_rotate(token: str) -> str:
    """The same key, encrypted with the first (current) secret."""
    try:
        return _fernet().rotate(token.encode("ascii")).decode("ascii")
    except InvalidToken as exc:
        raise KeyUnreadable("The stored API key cannot be decrypted.") from exc
