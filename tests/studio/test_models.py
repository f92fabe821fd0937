"""Provider accounts at rest: the key is encrypted in the database, readable with the current
or a previous secret, and production refuses to start without a secret of its own."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.core.checks import run_checks
from django.core.exceptions import ImproperlyConfigured
from django.db import connection
from studio.crypto import KeyUnreadable, key_decrypt, key_encrypt
from studio.models import ProviderAccount
from studio.services import provider_account_create, provider_keys_reencrypt

from tests.studio.conftest import served
from tests.support.factories import OrganizationFactory

REPO = Path(__file__).resolve().parents[2]
KEY = "fa-SECRET-live-key-0123456789-WXYZ"

pytestmark = pytest.mark.django_db


def raw_key_column(account: ProviderAccount) -> str:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT api_key_encrypted FROM {ProviderAccount._meta.db_table} "
                       "WHERE id = %s", [account.pk.hex if connection.vendor == "sqlite"
                                         else account.pk])
        (value,) = cursor.fetchone()
    return str(value)


def test_key_is_encrypted_in_the_database_and_only_its_last_4_are_clear() -> None:
    account = provider_account_create(org=OrganizationFactory(), kind="fashn", api_key=KEY,
                                      tools=[served("fashn")])
    raw = raw_key_column(account)
    assert KEY not in raw and "SECRET" not in raw and raw.startswith("gAAAAA")  # a Fernet token
    assert key_decrypt(raw) == KEY
    assert account.key_last4 == "WXYZ"
    # two encryptions of one key differ (random IV): equal keys cannot be spotted in the table
    assert key_encrypt(KEY) != key_encrypt(KEY)


def test_vertex_key_shows_the_last_4_of_its_private_key_id() -> None:
    key = ('{"type": "service_account", "client_email": "a@p.iam.gserviceaccount.com", '
           '"private_key": "-----BEGIN PRIVATE KEY-----\\nMII\\n-----END PRIVATE KEY-----\\n", '
           '"private_key_id": "0123456789abcdef9f3e", "project_id": "p"}')
    account = provider_account_create(org=OrganizationFactory(), kind="vertex", api_key=key)
    assert account.key_last4 == "9f3e"
    assert "PRIVATE KEY" not in raw_key_column(account)


def test_rotation_reads_old_keys_and_reencrypts_them_with_the_new_secret(settings: Any) -> None:
    settings.PROVIDER_KEYS_SECRET = ["old secret, long enough to be random"]
    account = provider_account_create(org=OrganizationFactory(), kind="openai", api_key=KEY)
    before = raw_key_column(account)

    settings.PROVIDER_KEYS_SECRET = ["new secret, long enough to be random",
                                     "old secret, long enough to be random"]
    assert key_decrypt(before) == KEY
    assert provider_keys_reencrypt() == 1
    settings.PROVIDER_KEYS_SECRET = ["new secret, long enough to be random"]
    assert key_decrypt(raw_key_column(account)) == KEY
    with pytest.raises(KeyUnreadable):
        key_decrypt(before)


def test_a_fernet_key_is_used_as_is(settings: Any) -> None:
    from cryptography.fernet import Fernet

    fernet_key = Fernet.generate_key()
    settings.PROVIDER_KEYS_SECRET = [fernet_key.decode()]
    assert Fernet(fernet_key).decrypt(key_encrypt(KEY).encode()).decode() == KEY


def test_without_a_secret_keys_cannot_be_written_and_the_check_says_why(settings: Any) -> None:
    settings.PROVIDER_KEYS_SECRET = []
    with pytest.raises(ImproperlyConfigured, match="PROVIDER_KEYS_SECRET"):
        key_encrypt(KEY)
    errors = [m for m in run_checks() if m.id == "studio.E001"]
    assert errors and "PROVIDER_KEYS_SECRET" in errors[0].msg


def _settings_run(extra: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("PROVIDER_KEYS_SECRET", "DJANGO_DEBUG", "DJANGO_SECRET_KEY")}
    env |= {"DJANGO_SETTINGS_MODULE": "config.settings", "PYTHONPATH": f"{REPO / 'platform'}:{REPO}"}
    env |= extra
    return subprocess.run([sys.executable, *args], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=120)


def test_production_without_a_secret_stops_at_start_with_the_reason() -> None:
    prod = {"DJANGO_DEBUG": "0", "DJANGO_SECRET_KEY": "a-production-secret-" + "x" * 40}
    run = _settings_run(prod, "manage.py", "check")
    assert run.returncode != 0
    assert "studio.E001" in run.stderr and "PROVIDER_KEYS_SECRET is not set" in run.stderr

    fine = _settings_run(prod | {"PROVIDER_KEYS_SECRET": "another-long-random-secret-0123"},
                         "manage.py", "check")
    assert fine.returncode == 0, fine.stderr


def test_embedded_defaults_derive_a_secret_from_the_secret_key() -> None:
    code = "from config import settings as s; print(len(s.PROVIDER_KEYS_SECRET))"
    assert _settings_run({}, "-c", code).stdout.strip() == "1"
    prod = {"DJANGO_DEBUG": "0", "DJANGO_SECRET_KEY": "a-production-secret-" + "x" * 40}
    assert _settings_run(prod, "-c", code).stdout.strip() == "0"
