"""Bulk upload into a drive folder: many files per request and zips, with limits and a reason
for every file that was not taken."""

from __future__ import annotations

import io
import zipfile
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

JPEG = b"\xff\xd8\xff\xe0" + b"\x00" * 64
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64


@pytest.fixture(autouse=True)
def _drives_root(settings: Any, tmp_path: Any) -> None:
    settings.DRIVES_ROOT = tmp_path / "drives"


@pytest.fixture
def folder(api: APIClient) -> str:
    rows = api.get("/api/drives/").json()
    return str(next(f["folder"] for f in rows if f["tool"] == "recolor"
                    and f["role"] == "input" and f["category"] is None))


def jpeg(name: str, data: bytes = JPEG) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data, content_type="image/jpeg")


def zipped(entries: dict[str, bytes], name: str = "looks.zip",
           compression: int = zipfile.ZIP_DEFLATED) -> SimpleUploadedFile:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression) as archive:
        for entry, data in entries.items():
            archive.writestr(entry, data)
    return SimpleUploadedFile(name, buf.getvalue(), content_type="application/zip")


def post(api: APIClient, folder: str, data: dict[str, Any]) -> Any:
    return api.post(f"/api/drives/{folder}/files", data, format="multipart")


def listed(api: APIClient, folder: str) -> list[str]:
    return [f["name"] for f in api.get(f"/api/drives/{folder}/files").json()]


def test_file_repeated_and_files_take_many_at_once(api: APIClient, folder: str) -> None:
    resp = post(api, folder, {"file": [jpeg("a.jpg"), jpeg("b.jpg")]})
    assert resp.status_code == 201, resp.content
    body = resp.json()
    assert [f["name"] for f in body["uploaded"]] == ["a.jpg", "b.jpg"]
    assert body["skipped"] == []
    assert body["uploaded"][0]["url"].startswith("http://testserver/api/drives/files/")
    resp = post(api, folder, {"files": [jpeg("c.jpg")]})
    assert resp.status_code == 201 and [f["name"] for f in resp.json()["uploaded"]] == ["c.jpg"]
    assert listed(api, folder) == ["a.jpg", "b.jpg", "c.jpg"]


def test_a_single_file_still_answers_with_the_file(api: APIClient, folder: str) -> None:
    resp = post(api, folder, {"file": jpeg("one.jpg")})
    assert resp.status_code == 201
    assert set(resp.json()) == {"id", "name", "size", "content_type", "modified_at", "url"}


def test_a_zip_becomes_its_images_flattened_and_the_rest_is_skipped(
        api: APIClient, folder: str) -> None:
    upload = zipped({"looks/summer/polo.jpg": JPEG, "looks/tee.png": PNG, "notes.txt": b"hi",
                     "__MACOSX/looks/._polo.jpg": b"meta", "looks/": b""})
    resp = post(api, folder, {"file": upload})
    assert resp.status_code == 201, resp.content
    body = resp.json()
    assert sorted(f["name"] for f in body["uploaded"]) == ["polo.jpg", "tee.png"]
    reasons = {s["name"]: s["reason"] for s in body["skipped"]}
    assert set(reasons) == {"looks.zip/notes.txt", "looks.zip/__MACOSX/looks/._polo.jpg"}
    assert "Not an image" in reasons["looks.zip/notes.txt"]
    assert listed(api, folder) == ["polo.jpg", "tee.png"]
    assert api.get("/api/recoloring/urls").json()[0]["img_url"].startswith("http://testserver")


def test_zip_paths_never_escape_the_folder(api: APIClient, folder: str, settings: Any) -> None:
    upload = zipped({"../../escape.jpg": JPEG, "/abs/escape2.jpg": JPEG,
                     "..\\..\\escape3.jpg": JPEG})
    resp = post(api, folder, {"files": [upload]})
    assert resp.status_code == 201, resp.content
    assert sorted(f["name"] for f in resp.json()["uploaded"]) == [
        "escape.jpg", "escape2.jpg", "escape3.jpg"]
    root = settings.DRIVES_ROOT
    outside = [p for p in root.parent.rglob("escape*") if root not in p.parents]
    assert outside == []


def test_zip_bombs_are_refused(api: APIClient, folder: str, settings: Any) -> None:
    settings.DRIVE_UPLOAD_MAX_BYTES = 64 * 1024 * 1024
    bomb = b"\x00" * (20 * 1024 * 1024)  # deflates about 1000:1
    resp = post(api, folder, {"file": zipped({"bomb.jpg": bomb, "ok.jpg": JPEG})})
    assert resp.status_code == 201, resp.content
    body = resp.json()
    assert [f["name"] for f in body["uploaded"]] == ["ok.jpg"]
    (skip,) = body["skipped"]
    assert skip["name"] == "looks.zip/bomb.jpg" and "zip bomb" in skip["reason"]


def test_a_zip_entry_lying_about_its_size_is_refused(api: APIClient, folder: str,
                                                      settings: Any) -> None:
    settings.DRIVE_UPLOAD_MAX_BYTES = 1000
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("big.jpg", JPEG * 40)
    raw = bytearray(buf.getvalue())
    # understate the uncompressed size in the central directory and the local header
    true_size = (len(JPEG) * 40).to_bytes(4, "little")
    for at in [i for i in range(len(raw) - 4) if raw[i:i + 4] == true_size]:
        raw[at:at + 4] = (100).to_bytes(4, "little")
    upload = SimpleUploadedFile("lies.zip", bytes(raw), content_type="application/zip")
    resp = post(api, folder, {"file": upload})
    assert resp.status_code == 400, resp.content
    assert resp.json()["skipped"][0]["name"] == "big.jpg"
    assert listed(api, folder) == []


def test_limits_on_count_size_and_total(api: APIClient, folder: str, settings: Any) -> None:
    settings.DRIVE_UPLOAD_MAX_FILES = 2
    resp = post(api, folder, {"file": [jpeg("1.jpg"), jpeg("2.jpg"), jpeg("3.jpg")]})
    assert resp.status_code == 201
    assert [f["name"] for f in resp.json()["uploaded"]] == ["1.jpg", "2.jpg"]
    assert resp.json()["skipped"] == [
        {"name": "3.jpg", "reason": "Over the limit of 2 files per request."}]

    settings.DRIVE_UPLOAD_MAX_FILES = 200
    settings.DRIVE_UPLOAD_MAX_BYTES = 1000
    settings.DRIVE_UPLOAD_MAX_TOTAL_BYTES = 2 * len(JPEG) + 10
    resp = post(api, folder, {"files": [jpeg("big.jpg", JPEG * 100), jpeg("4.jpg"),
                                        jpeg("5.jpg"), jpeg("6.jpg")]})
    assert resp.status_code == 201
    body = resp.json()
    assert [f["name"] for f in body["uploaded"]] == ["4.jpg", "5.jpg"]
    assert body["skipped"][0] == {"name": "big.jpg", "reason": "A file may be at most 1000 bytes."}
    assert body["skipped"][1]["name"] == "6.jpg" and "per request" in body["skipped"][1]["reason"]


def test_nothing_taken_is_a_400_in_the_house_envelope(api: APIClient, folder: str) -> None:
    resp = post(api, folder, {"file": zipped({"notes.txt": b"hi", "readme.md": b"x"})})
    assert resp.status_code == 400
    body = resp.json()
    assert body["error"] == "invalid" and body["message"].startswith("Nothing was uploaded.")
    assert len(body["fields"]["files"]) == 2 and body["uploaded"] == []
    assert {s["name"] for s in body["skipped"]} == {"looks.zip/notes.txt", "looks.zip/readme.md"}

    broken = SimpleUploadedFile("broken.zip", b"PK\x03\x04 not really", "application/zip")
    resp = post(api, folder, {"files": [broken]})
    assert resp.status_code == 400
    assert resp.json()["skipped"] == [{"name": "broken.zip",
                                       "reason": "This is not a readable zip file."}]


def test_duplicate_names_in_one_request_keep_the_first(api: APIClient, folder: str) -> None:
    resp = post(api, folder, {"files": [jpeg("same.jpg"), zipped({"a/same.jpg": PNG})]})
    assert resp.status_code == 201
    assert [f["name"] for f in resp.json()["uploaded"]] == ["same.jpg"]
    assert resp.json()["skipped"][0]["name"] == "same.jpg"


def test_too_many_parts_answer_400(api: APIClient, folder: str, settings: Any) -> None:
    settings.DATA_UPLOAD_MAX_NUMBER_FILES = 3
    resp = post(api, folder, {"files": [jpeg(f"{i}.jpg") for i in range(5)]})
    assert resp.status_code == 400
    assert "zip" in resp.json()["message"]


def test_another_organisation_cannot_bulk_upload(api: APIClient, folder: str) -> None:
    from tests.conftest import client_for
    from tests.support.factories import UserFactory

    outsider = client_for(UserFactory())
    assert post(outsider, folder, {"files": [jpeg("x.jpg"), jpeg("y.jpg")]}).status_code == 404
