"""Partner-managed drive connectors: an organisation's admins point one of its drive folders at
their own S3 bucket (any S3-compatible store) or Google Drive folder, with their own
credentials. The credentials are encrypted at rest with the provider keys' secret
(studio.crypto), never returned (answers show them masked), and tried before they are kept:
a connector is saved only once a folder listing, a probe write and its removal went through.

Endpoints and a service account's token URI are checked as webhook destinations are (no
loopback, private or link-local address unless OUTBOUND_ALLOW exempts it), when saved and
again each time a client is built.
"""

from __future__ import annotations

import functools
import json
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from studio.crypto import KeyUnreadable, key_decrypt, key_encrypt, key_rotate
from webhooks.sending import DestinationRefused, destination_check

from drives.models import DriveFolder, DriveKind
from drivesync.errors import DriveError, DriveRefused

MAX_SERVICE_ACCOUNT_CHARS = 20_000  # a service account's JSON key is a few kB
PROBE_PREFIX = "atelier-connection-test-"
# A connection test must answer while the admin waits: few retries, short timeouts.
TEST_TIMEOUT_SECONDS = 10.0
GOOGLE_TOKEN_URI = "https://oauth2.googleapis.com/token"  # noqa: S105 - a URL, not a secret


class ConnectorInvalid(ValueError):
    """What an admin sent cannot make a connector: {field: [messages]}."""

    def __init__(self, fields: dict[str, list[str]]) -> None:
        super().__init__(next(iter(fields.values()))[0])
        self.fields = fields


class ConnectorRefused(Exception):
    """The drive refused the connector (credentials, bucket, folder, permissions): the
    provider's reason, for the admin."""


def _invalid(field: str, message: str) -> ConnectorInvalid:
    return ConnectorInvalid({field: [message]})


def folder_locator(folder: DriveFolder) -> str:
    """The folder argument the client expects (S3 clients hold bucket and prefix)."""
    return "" if folder.kind == DriveKind.S3 else folder.locator


def local_locator(folder: DriveFolder) -> str:
    """Where a folder lives when it is local (the embedded default)."""
    parts = [str(folder.organization_id), folder.tool, folder.role,
             *([folder.category] if folder.category else [])]
    return "/".join(parts)


# --- Checks -------------------------------------------------------------------------------


def public_url_check(field: str, url: str, *, what: str) -> str:
    url = url.strip().rstrip("/")
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises on a bad port
    except ValueError as exc:
        raise _invalid(field, f"The {what} is not a valid URL.") from exc
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise _invalid(field, f"The {what} must be an http or https URL with a host.")
    if parts.username or parts.password or parts.query or parts.fragment:
        raise _invalid(field, f"The {what} must not hold credentials, a query or a fragment.")
    try:
        destination_check(url)
    except DestinationRefused as exc:
        raise _invalid(field, str(exc)) from exc
    return url


def _text(field: str, value: Any, *, limit: int, label: str, required: bool = True) -> str:
    text = value.strip() if isinstance(value, str) else ""
    if required and not text:
        raise _invalid(field, f"Enter the {label}.")
    if len(text) > limit or not text.isprintable():
        raise _invalid(field, f"The {label} must be at most {limit} printable characters.")
    return text


def s3_fields_check(*, endpoint_url: str, region: str, bucket: str, prefix: str,
                    access_key_id: str, secret_access_key: str) -> dict[str, str]:
    bucket = _text("bucket", bucket, limit=63, label="bucket name")
    if "/" in bucket or any(c.isspace() for c in bucket):
        raise _invalid("bucket", "A bucket name holds no slash or space: put folders in the "
                                 "prefix.")
    prefix = _text("prefix", prefix, limit=400, label="prefix", required=False).strip("/")
    if any(p in ("..", ".") for p in prefix.split("/")) or "//" in prefix:
        raise _invalid("prefix", "The prefix must be a path of folder names (no '.', '..' or "
                                 "empty parts).")
    return {
        "endpoint_url": (public_url_check("endpoint_url", endpoint_url, what="endpoint")
                         if endpoint_url.strip() else ""),
        "region": _text("region", region, limit=64, label="region", required=False),
        "bucket": bucket, "prefix": prefix,
        "access_key_id": _text("access_key_id", access_key_id, limit=128,
                               label="access key id"),
        "secret_access_key": _text("secret_access_key", secret_access_key, limit=256,
                                   label="secret access key"),
    }


def service_account_check(value: Any) -> dict[str, Any]:
    """A service account's JSON key, as text or as an object."""
    text = value if isinstance(value, str) else json.dumps(value)
    if len(text) > MAX_SERVICE_ACCOUNT_CHARS:
        raise _invalid("service_account", "The service account key is longer than "
                                          f"{MAX_SERVICE_ACCOUNT_CHARS} characters.")
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            value = None
    if not (isinstance(value, dict) and value.get("type") == "service_account"
            and isinstance(value.get("client_email"), str)
            and isinstance(value.get("private_key"), str)):
        raise _invalid("service_account", "Paste the service account's JSON key (type "
                                          "service_account, with client_email and "
                                          "private_key).")
    token_uri = value.get("token_uri") or GOOGLE_TOKEN_URI
    if not isinstance(token_uri, str):
        raise _invalid("service_account", "The key's token_uri must be a URL.")
    token_uri_check(token_uri)
    return value


def token_uri_check(token_uri: str) -> None:
    """google-auth posts a signed assertion to the key's token_uri: Google's is taken as it is,
    any other is checked as an endpoint is."""
    if token_uri.rstrip("/") != GOOGLE_TOKEN_URI:
        public_url_check("service_account", token_uri, what="key's token_uri")


def folder_id_check(value: Any) -> str:
    folder_id = _text("folder_id", value, limit=200, label="Drive folder id")
    if not all(c.isalnum() or c in "-_" for c in folder_id):
        raise _invalid("folder_id", "A Drive folder id holds letters, digits, '-' and '_' only "
                                    "(the last part of the folder's address).")
    return folder_id


# --- Credentials at rest ------------------------------------------------------------------


def credentials_of(folder: DriveFolder) -> dict[str, Any]:
    """The folder's own credentials, decrypted ({} when it uses the deployment's)."""
    if not folder.credentials_encrypted:
        return {}
    try:
        data = json.loads(key_decrypt(folder.credentials_encrypted))
    except KeyUnreadable as exc:
        raise DriveRefused("The stored credentials cannot be read; an admin must enter them "
                           "again.", code="credentials_unreadable") from exc
    return data if isinstance(data, dict) else {}


def _mask(text: str) -> str:
    return f"{text[:4]}••••{text[-4:]}" if len(text) > 12 else "••••" + text[-2:]


def _s3_hint(access_key_id: str) -> str:
    return f"access key {_mask(access_key_id)}"


def _google_hint(info: dict[str, Any]) -> str:
    key_id = str(info.get("private_key_id") or "")
    suffix = f" (key ••••{key_id[-4:]})" if key_id else ""
    return f"{info['client_email']}{suffix}"


# --- Clients ------------------------------------------------------------------------------


def connector_client(folder: DriveFolder, *, quick: bool = False) -> Any:
    """The client of a folder that holds its own credentials. ``quick``: few retries and
    short timeouts (a connection test, answered while the admin waits). What makes no client
    (unreadable credentials, an endpoint now private) is a DriveRefused, as a drive's own
    refusal is, so every caller already answers it."""
    try:
        return _connector_client(folder, quick=quick)
    except ConnectorInvalid as exc:
        raise DriveRefused(str(exc), code="bad_connector") from exc
    except (ValueError, KeyError) as exc:  # a key google-auth cannot sign with
        raise DriveRefused(f"The credentials cannot be used ({exc}).",
                           code="bad_connector") from exc


def _connector_client(folder: DriveFolder, *, quick: bool) -> Any:
    credentials = credentials_of(folder)
    if folder.kind == DriveKind.S3:
        import boto3
        from botocore.config import Config

        from drivesync.s3 import S3Drive

        if folder.endpoint_url:
            public_url_check("endpoint_url", folder.endpoint_url, what="endpoint")
        bucket, _, prefix = folder.locator.partition("/")
        timeout = TEST_TIMEOUT_SECONDS if quick else 60.0
        client = boto3.client(
            "s3", endpoint_url=folder.endpoint_url or None,
            region_name=folder.region or None,
            aws_access_key_id=credentials.get("access_key_id"),
            aws_secret_access_key=credentials.get("secret_access_key"),
            config=Config(connect_timeout=timeout, read_timeout=timeout,
                          retries={"mode": "standard", "max_attempts": 2 if quick else 5}))
        return S3Drive(bucket, prefix, client=client)
    from drivesync.google import GoogleDrive, RetryPolicy

    info = credentials.get("service_account") or {}
    token_uri_check(str(info.get("token_uri") or GOOGLE_TOKEN_URI))
    kwargs: dict[str, Any] = {"base_url": settings.GOOGLE_DRIVE_API_URL or None}
    if quick:
        kwargs |= {"timeout": TEST_TIMEOUT_SECONDS,
                   "retry": RetryPolicy(max_attempts=2, base_delay=0.5, max_delay=2.0,
                                        max_elapsed=TEST_TIMEOUT_SECONDS)}
        # A test asks the token endpoint itself: a revoked key must show, not a cached token.
        return GoogleDrive.from_service_account_info(info, **kwargs)
    return GoogleDrive(_google_credentials(folder.credentials_encrypted), **kwargs)


@functools.lru_cache(maxsize=128)
def _google_credentials(encrypted: str) -> Any:
    """A folder's service-account credentials, kept per process and per stored key (a new key
    is a new encrypted text): google-auth renews the token when it expires, so the folder's
    clients share one token instead of asking the token endpoint for every file read."""
    from google.oauth2 import service_account

    from drivesync.google import SCOPE

    info = json.loads(key_decrypt(encrypted))["service_account"]
    return service_account.Credentials.from_service_account_info(info, scopes=[SCOPE])


@dataclass(frozen=True)
class ConnectionResult:
    ok: bool
    message: str
    files: int = 0


def connection_probe(folder: DriveFolder,
                     client_of: Callable[[DriveFolder], Any] | None = None) -> ConnectionResult:
    """List the folder, write a probe file and remove it, through ``client_of(folder)`` (else
    the folder's own credentials); the drive's refusal is raised as ConnectorRefused with its
    reason."""
    where = describe(folder)
    try:
        client = (client_of or (lambda f: connector_client(f, quick=True)))(folder)
        locator = folder_locator(folder)
        files = sum(1 for _ in client.list(locator))
        probe = client.write(locator, f"{PROBE_PREFIX}{secrets.token_hex(4)}.txt",
                             b"Atelier checks that it may write here; this file is removed at "
                             b"once.\n", "text/plain")
        client.delete(locator, probe.id)
    except DriveError as exc:
        raise ConnectorRefused(f"{where}: {exc.message}") from exc
    return ConnectionResult(True, f"Connected to {where}: {files} file(s) listed, a probe file "
                                  "written and removed.", files)


def describe(folder: DriveFolder) -> str:
    if folder.kind == DriveKind.S3:
        bucket, _, prefix = folder.locator.partition("/")
        host = urlsplit(folder.endpoint_url).hostname if folder.endpoint_url else "AWS"
        return f"s3://{bucket}/{prefix + '/' if prefix else ''} at {host}"
    if folder.kind == DriveKind.GOOGLE:
        return f"Google Drive folder {folder.locator}"
    return "the local folder"


# --- Writes -------------------------------------------------------------------------------


def connector_set(*, folder: DriveFolder, kind: str, fields: dict[str, Any]) -> DriveFolder:
    """Point the folder at an S3 bucket or a Google Drive folder, once a probe went through.
    Credentials left out are kept when the folder already holds some of that kind."""
    kept: dict[str, Any] = {}
    if folder.kind == kind:
        try:
            kept = credentials_of(folder)
        except DriveRefused:
            pass  # unreadable (the secret changed): the admin enters them again
    candidate = DriveFolder(pk=folder.pk, organization_id=folder.organization_id,
                            tool=folder.tool, role=folder.role, category=folder.category,
                            watch=folder.watch, kind=kind)
    if kind == DriveKind.S3:
        if "secret_access_key" not in fields and "access_key_id" not in fields and kept:
            fields = {**fields, **{k: kept[k] for k in ("access_key_id", "secret_access_key")}}
        checked = s3_fields_check(**{k: str(fields.get(k) or "") for k in (
            "endpoint_url", "region", "bucket", "prefix", "access_key_id",
            "secret_access_key")})
        secret = {"access_key_id": checked["access_key_id"],
                  "secret_access_key": checked["secret_access_key"]}
        candidate.locator = "/".join(p for p in (checked["bucket"], checked["prefix"]) if p)
        candidate.endpoint_url = checked["endpoint_url"]
        candidate.region = checked["region"]
        candidate.credentials_hint = _s3_hint(checked["access_key_id"])
        candidate.web_url = ""
    elif kind == DriveKind.GOOGLE:
        if fields.get("service_account") in (None, "") and kept:
            info = kept["service_account"]
        else:
            info = service_account_check(fields.get("service_account"))
        secret = {"service_account": info}
        candidate.locator = folder_id_check(fields.get("folder_id"))
        candidate.endpoint_url = candidate.region = ""
        candidate.credentials_hint = _google_hint(info)
        candidate.web_url = ""  # the pages link to our drive page, which lists it
    else:
        raise _invalid("kind", "Connect an S3 bucket (s3) or a Google Drive folder (google).")
    candidate.credentials_encrypted = key_encrypt(json.dumps(secret))
    connection_probe(candidate)  # raises ConnectorRefused with the drive's reason
    DriveFolder.objects.filter(pk=folder.pk).update(
        kind=candidate.kind, locator=candidate.locator, web_url=candidate.web_url,
        endpoint_url=candidate.endpoint_url, region=candidate.region,
        credentials_encrypted=candidate.credentials_encrypted,
        credentials_hint=candidate.credentials_hint)
    folder.refresh_from_db()
    return folder


def connector_clear(*, folder: DriveFolder) -> DriveFolder:
    """Back to the local folder; the stored credentials are dropped."""
    locator = local_locator(folder)
    (Path(settings.DRIVES_ROOT) / locator).mkdir(parents=True, exist_ok=True)
    DriveFolder.objects.filter(pk=folder.pk).update(
        kind=DriveKind.LOCAL, locator=locator, web_url="", endpoint_url="", region="",
        credentials_encrypted="", credentials_hint="")
    folder.refresh_from_db()
    return folder


def connector_test(*, folder: DriveFolder,
                   client_of: Callable[[DriveFolder], Any]) -> ConnectionResult:
    """Test connection on a saved folder, through the client its jobs use."""
    return connection_probe(folder, client_of)


def drive_credentials_reencrypt() -> int:
    """Encrypt every folder's credentials with the current (first) PROVIDER_KEYS_SECRET, after
    a rotation (with studio's provider_keys_reencrypt, before the old secret is dropped)."""
    done = 0
    for folder in DriveFolder.objects.exclude(credentials_encrypted="").only(
            "pk", "credentials_encrypted").iterator():
        DriveFolder.objects.filter(pk=folder.pk).update(
            credentials_encrypted=key_rotate(folder.credentials_encrypted))
        done += 1
    return done
