"""The three drive clients, each against a real counterpart on loopback.

- local: a LocalDrive on tmp_path;
- google: the real google-api-python-client against tests.support.fake_drive;
- s3: boto3 against moto's S3 server (ThreadedMotoServer) on 127.0.0.1, a bucket per test.

``Backend`` gives the contract tests one way to make folders, drop files in the way a user
would (not through the client under test) and count listing requests.
"""

from __future__ import annotations

import os
import struct
import uuid
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.config import Config
from google.oauth2.credentials import Credentials
from moto.server import ThreadedMotoServer

from drivesync.base import Drive
from drivesync.google import GoogleDrive, RetryPolicy
from drivesync.local import LocalDrive
from drivesync.s3 import S3Drive
from tests.support.fake_drive import FakeDrive

CHUNK = 256 * 1024
QUICK_RETRIES = RetryPolicy(max_attempts=5, base_delay=0.02, max_delay=0.2, max_elapsed=5.0)


@pytest.fixture(scope="session")
def fake_drive_server() -> Iterator[FakeDrive]:
    fake = FakeDrive()
    fake.start()
    yield fake
    fake.stop()


@pytest.fixture
def fake_drive(fake_drive_server: FakeDrive) -> FakeDrive:
    fake_drive_server.reset()
    return fake_drive_server


def google_client(fake: FakeDrive, retry: RetryPolicy = QUICK_RETRIES,
                  chunk_size: int = CHUNK) -> GoogleDrive:
    return GoogleDrive(Credentials(token="test"), base_url=fake.base_url, retry=retry,
                       chunk_size=chunk_size, timeout=10)


@pytest.fixture(scope="session")
def moto_endpoint() -> Iterator[str]:
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


@pytest.fixture
def s3_client(moto_endpoint: str) -> Any:
    return boto3.client(
        "s3", endpoint_url=moto_endpoint, region_name="us-east-1",
        aws_access_key_id="testing", aws_secret_access_key="testing",  # noqa: S106
        config=Config(retries={"mode": "standard", "max_attempts": 2}))


def png_bytes(seed: int, size: int = 0) -> bytes:
    """A valid 4x1 PNG, different per seed, padded with a random text chunk to ``size``."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return (struct.pack(">I", len(body)) + kind + body
                + struct.pack(">I", zlib.crc32(kind + body)))

    rows = b"\x00" + bytes((seed + x) % 256 for x in range(12))
    data = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 4, 1, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)))
    padding = size - len(data) - 24
    if padding > 0:
        data += chunk(b"teXt", os.urandom(padding))
    return data + chunk(b"IEND", b"")


@dataclass
class Backend:
    name: str
    drive: Drive
    folder: Callable[[str], str]
    seed: Callable[[str, str, bytes], str]  # (folder, name, data) -> file id
    overwrite: Callable[[str, str, bytes], None]  # a user replacing the content
    list_calls: Callable[[], int | None]
    extra: dict[str, Any] = field(default_factory=dict)


def _local(tmp_path: Path) -> Backend:
    root = tmp_path / "storage"
    root.mkdir()
    drive = LocalDrive(root)

    def folder(name: str) -> str:
        (root / name).mkdir(parents=True)
        return name

    def seed(folder: str, name: str, data: bytes) -> str:
        (root / folder / name).write_bytes(data)
        return name

    def overwrite(folder: str, file_id: str, data: bytes) -> None:
        (root / folder / file_id).write_bytes(data)

    return Backend("local", drive, folder, seed, overwrite, lambda: None, {"root": root})


def _google(fake: FakeDrive) -> Backend:
    drive = google_client(fake)
    parent = fake.add_folder("Atelier")

    def folder(name: str) -> str:
        return fake.add_folder(name, parent=parent)

    def seed(folder: str, name: str, data: bytes) -> str:
        return fake.add_file(folder, name, data, mime_type="image/png")

    def overwrite(folder: str, file_id: str, data: bytes) -> None:
        fake.replace_content(file_id, data)

    return Backend("google", drive, folder, seed, overwrite,
                   lambda: len(fake.calls("files.list")), {"fake": fake})


def _s3(client: Any) -> Backend:
    bucket = f"atelier-{uuid.uuid4().hex[:12]}"
    client.create_bucket(Bucket=bucket)
    drive = S3Drive(bucket, "org-1", client=client)
    calls = {"list": 0}

    def count(**_: Any) -> None:
        calls["list"] += 1

    client.meta.events.register("before-call.s3.ListObjectsV2", count)

    def seed(folder: str, name: str, data: bytes) -> str:
        client.put_object(Bucket=bucket, Key=f"org-1/{folder}/{name}", Body=data)
        return name

    return Backend("s3", drive, lambda name: name, seed, seed, lambda: calls["list"],
                   {"client": client, "bucket": bucket})


@pytest.fixture(params=["local", "google", "s3"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    if request.param == "local":
        return _local(tmp_path)
    if request.param == "google":
        return _google(request.getfixturevalue("fake_drive"))
    return _s3(request.getfixturevalue("s3_client"))
