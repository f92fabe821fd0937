"""GoogleDrive under faults: the real client against the loopback Drive server, timed."""

from __future__ import annotations

import json
import os
import time

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from drivesync.errors import DriveQuotaExceeded, DriveUnavailable
from drivesync.google import GoogleDrive, RetryPolicy
from tests.drivesync.conftest import CHUNK, google_client
from tests.support.fake_drive import FakeDrive

BACKOFF = RetryPolicy(max_attempts=6, base_delay=0.08, max_delay=1.0, max_elapsed=10.0)


@pytest.fixture
def folder(fake_drive: FakeDrive) -> str:
    return fake_drive.add_folder("inputs")


def gaps(fake: FakeDrive, endpoint: str) -> list[float]:
    times = [r.at for r in fake.calls(endpoint)]
    return [b - a for a, b in zip(times, times[1:], strict=False)]


@pytest.mark.parametrize("fault", ["rate_limit", "project_rate_limit", "server_error",
                                   "unavailable"])
def test_transient_errors_back_off_exponentially_then_succeed(
        fake_drive: FakeDrive, folder: str, fault: str) -> None:
    fake_drive.add_file(folder, "a.png", b"a")
    drive = google_client(fake_drive, retry=BACKOFF)
    fake_drive.inject("files.list", fault, times=3)

    listed = list(drive.list(folder))

    assert [f.name for f in listed] == ["a.png"]
    assert [r.status for r in fake_drive.calls("files.list")][-1] == 200
    assert len(fake_drive.calls("files.list")) == 4
    # Equal jitter: the n-th wait is at least half of base * 2**(n-1).
    waits = gaps(fake_drive, "files.list")
    for n, wait in enumerate(waits, start=1):
        assert wait >= BACKOFF.base_delay * 2 ** (n - 1) / 2
    assert waits[2] > waits[0]


def test_429_waits_at_least_retry_after(fake_drive: FakeDrive, folder: str) -> None:
    data = b"x" * 10
    file_id = fake_drive.add_file(folder, "a.png", data)
    drive = google_client(fake_drive, retry=BACKOFF)
    fake_drive.inject("files.get_media", "too_many_requests", retry_after=1.2)

    started = time.monotonic()
    assert drive.read(folder, file_id) == data
    elapsed = time.monotonic() - started

    first, second = fake_drive.calls("files.get_media")
    assert (first.status, second.status) == (429, 200)
    assert second.at - first.at >= 1.2
    assert elapsed >= 1.2


def test_retry_after_beyond_the_time_budget_gives_up_at_once(
        fake_drive: FakeDrive, folder: str) -> None:
    drive = google_client(fake_drive, retry=BACKOFF)
    fake_drive.inject("files.list", "too_many_requests", retry_after=3600)

    started = time.monotonic()
    with pytest.raises(DriveUnavailable) as caught:
        list(drive.list(folder))

    assert time.monotonic() - started < 1.0
    assert caught.value.retry_after == 3600
    assert caught.value.status == 429
    assert len(fake_drive.calls("files.list")) == 1


def test_retries_are_capped(fake_drive: FakeDrive, folder: str) -> None:
    policy = RetryPolicy(max_attempts=3, base_delay=0.01, max_delay=0.05, max_elapsed=5)
    drive = google_client(fake_drive, retry=policy)
    fake_drive.inject("files.list", "server_error", times=10)

    with pytest.raises(DriveUnavailable) as caught:
        list(drive.list(folder))

    assert caught.value.attempts == 3
    assert caught.value.retryable
    assert len(fake_drive.calls("files.list")) == 3


def test_dropped_connections_are_retried(fake_drive: FakeDrive, folder: str) -> None:
    fake_drive.add_file(folder, "a.png", b"a")
    drive = google_client(fake_drive, retry=BACKOFF)
    # httplib2 silently re-sends once after a drop; three drops need one retry of ours.
    fake_drive.inject("files.list", "drop", times=3)

    listed = list(drive.list(folder))

    assert [f.name for f in listed] == ["a.png"]
    assert [r.status for r in fake_drive.calls("files.list")] == [0, 0, 0, 200]


@pytest.mark.parametrize(("endpoint", "fault", "code"), [
    ("upload.initiate", "storage_quota", "storageQuotaExceeded"),
    ("upload.chunk", "storage_quota", "storageQuotaExceeded"),
    ("upload.initiate", "daily_limit", "dailyLimitExceeded"),
])
def test_quota_errors_stop_at_once(fake_drive: FakeDrive, folder: str, endpoint: str,
                                   fault: str, code: str) -> None:
    drive = google_client(fake_drive, retry=BACKOFF)
    fake_drive.inject(endpoint, fault, times=5)

    started = time.monotonic()
    with pytest.raises(DriveQuotaExceeded) as caught:
        drive.write(folder, "out.png", b"x" * 10, "image/png")

    assert time.monotonic() - started < 0.5
    assert caught.value.code == code and not caught.value.retryable
    assert len(fake_drive.calls(endpoint)) == 1
    assert fake_drive.children(folder) == []


def test_service_account_cannot_write_outside_a_shared_drive(fake_drive: FakeDrive) -> None:
    my_drive_folder = fake_drive.add_folder("outputs", shared_drive=False)
    drive = google_client(fake_drive, retry=BACKOFF)

    with pytest.raises(DriveQuotaExceeded) as caught:
        drive.write(my_drive_folder, "out.png", b"x", "image/png")

    assert caught.value.code == "storageQuotaExceeded"
    assert len(fake_drive.calls("upload.initiate")) == 1


@pytest.mark.parametrize("kept", [False, True], ids=["chunk-lost", "answer-lost"])
def test_resumable_upload_resumes_after_a_dropped_connection(
        fake_drive: FakeDrive, folder: str, kept: bool) -> None:
    data = os.urandom(5 * CHUNK + 1234)  # six chunks
    drive = google_client(fake_drive, retry=BACKOFF)
    # The third chunk's connection drops twice (httplib2's own re-send included), either
    # before the server stored it or after (only the answer lost).
    fake_drive.inject("upload.chunk", "drop", times=2, after=2, keep_effect=kept)

    written = drive.write(folder, "big.png", data, "image/png")

    assert drive.read(folder, written.id) == data
    assert [f["id"] for f in fake_drive.children(folder)] == [written.id]
    assert len(fake_drive.calls("upload.initiate")) == 1  # resumed, not restarted
    assert len(fake_drive.calls("upload.status")) == 1  # asked the session where it was
    answered = [r for r in fake_drive.calls("upload.chunk") if r.status]
    # Each of the six chunks answered once; none re-sent from the start. When the server had
    # kept the dropped chunk, the status query told the client so and it was not sent again.
    assert len(answered) == (5 if kept else 6)


def test_resumable_upload_resumes_after_a_server_error_mid_upload(
        fake_drive: FakeDrive, folder: str) -> None:
    data = os.urandom(3 * CHUNK)
    drive = google_client(fake_drive, retry=BACKOFF)
    fake_drive.inject("upload.chunk", "server_error", after=1)

    written = drive.write(folder, "mid.png", data, "image/png", app_key="job-1:0")

    assert drive.read(folder, written.id) == data
    assert len(fake_drive.children(folder)) == 1
    assert drive.find_by_key(folder, "job-1:0") == written


def test_lost_answer_to_the_last_chunk_does_not_duplicate(
        fake_drive: FakeDrive, folder: str) -> None:
    data = os.urandom(2 * CHUNK)
    drive = google_client(fake_drive, retry=BACKOFF)
    fake_drive.inject("upload.chunk", "drop", times=2, after=1, keep_effect=True)

    written = drive.write(folder, "last.png", data, "image/png")

    assert [f["id"] for f in fake_drive.children(folder)] == [written.id]
    assert drive.read(folder, written.id) == data


def test_listing_leaves_out_subfolders_and_native_documents(
        fake_drive: FakeDrive, folder: str) -> None:
    fake_drive.add_folder("nested", parent=folder)
    fake_drive.add_file(folder, "notes", b"", mime_type="application/vnd.google-apps.document")
    fake_drive.add_file(folder, "look.png", b"png")

    assert [f.name for f in google_client(fake_drive).list(folder)] == ["look.png"]


def test_service_account_key_gets_a_token_and_lists(fake_drive: FakeDrive,
                                                    folder: str) -> None:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption()).decode()
    info = {"type": "service_account", "project_id": "atelier-test",
            "private_key_id": "k1", "private_key": pem,
            "client_email": "sync@atelier-test.iam.gserviceaccount.com",
            "client_id": "1", "token_uri": fake_drive.base_url + "token"}
    fake_drive.add_file(folder, "a.png", b"a")

    drive = GoogleDrive.from_service_account_info(info, base_url=fake_drive.base_url,
                                                  retry=BACKOFF)

    assert [f.name for f in drive.list(folder)] == ["a.png"]
    (grant,) = fake_drive.token_grants
    assert grant["iss"] == info["client_email"]
    assert grant["scope"] == "https://www.googleapis.com/auth/drive"
    assert json.dumps(grant)  # claims were a JSON object


def test_chunk_size_must_suit_drive(fake_drive: FakeDrive) -> None:
    with pytest.raises(ValueError):
        google_client(fake_drive, chunk_size=100_000)
