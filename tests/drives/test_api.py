"""Drive folders per organisation, the drive browser API, signed links and Get URLs."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.test import APIClient

from drives.models import DriveFolder
from tests.conftest import client_for
from tests.support.factories import UserFactory

JPEG = b"\xff\xd8\xff\xe0" + b"\x00" * 64  # enough for a name and a type


@pytest.fixture(autouse=True)
def _drives_root(settings: Any, tmp_path: Any) -> None:
    settings.DRIVES_ROOT = tmp_path / "drives"


def folders(api: APIClient) -> dict[tuple[str, str, str | None], dict[str, Any]]:
    return {(f["tool"], f["role"], f["category"]): f for f in api.get("/api/drives/").json()}


def upload(api: APIClient, folder: str, name: str, data: bytes = JPEG) -> Any:
    return api.post(f"/api/drives/{folder}/files",
                    {"file": SimpleUploadedFile(name, data, content_type="image/jpeg")},
                    format="multipart")


def test_every_drive_tool_gets_local_input_and_output_folders(api: APIClient) -> None:
    found = folders(api)
    assert found[("recolor", "input", None)]["label"] == "Input Drive"
    assert found[("recolor", "output", None)]["label"] == "Output Drive"
    assert [found[("flats", "input", c)]["label"] for c in ("shoes", "bottom", "top",
                                                             "overlayer")] == [
        "SHOES", "BOTTOM", "TOP", "OVERLAYER"]
    local = found[("spinview", "input", None)]
    assert local["kind"] == "local" and local["url"] == f"/drives/{local['folder']}"
    assert len(api.get("/api/drives/").json()) == len(found)  # asking twice creates nothing
    assert DriveFolder.objects.count() == len(found)


def test_drop_list_get_urls_download_and_delete(api: APIClient) -> None:
    folder = folders(api)[("recolor", "input", None)]["folder"]
    assert upload(api, folder, "polo-beige.jpg").status_code == 201
    assert upload(api, folder, "notes.txt", b"not an image").status_code == 201
    listed = api.get(f"/api/drives/{folder}/files").json()
    assert [f["name"] for f in listed] == ["notes.txt", "polo-beige.jpg"]

    urls = api.get("/api/recoloring/urls").json()
    assert len(urls) == 1  # only images
    link = urls[0]["img_url"]
    assert link.startswith("http://testserver/api/drives/files/")
    # the signed link opens without a session (workers and the browser use it)
    anonymous = Client().get(link.replace("http://testserver", ""))
    assert anonymous.status_code == 200 and anonymous.content == JPEG
    assert anonymous["Content-Type"] == "image/jpeg"
    path = link.replace("http://testserver", "")
    token = path.split("/")[4]
    forged = token[:-2] + ("AA" if not token.endswith("AA") else "BB")
    assert Client().get(path.replace(token, forged)).status_code == 404

    file_id = next(f["id"] for f in listed if f["name"] == "polo-beige.jpg")
    assert api.delete(f"/api/drives/{folder}/files/{file_id}").status_code == 204
    assert api.get("/api/recoloring/urls").json() == []


def test_names_never_escape_the_folder(api: APIClient, settings: Any) -> None:
    folder = folders(api)[("recolor", "input", None)]["folder"]
    for name in ("../../escape.jpg", "..\\..\\escape.jpg", "a/b/c.jpg", "ＮＦＫＣ\u0301.jpg"):
        resp = upload(api, folder, name)
        assert resp.status_code in (201, 400), resp.content
    root = settings.DRIVES_ROOT
    assert not any(p.name.startswith("escape") for p in root.parent.rglob("*")
                   if root not in p.parents and p != root)


def test_earfit_get_urls_lists_at_most_20(api: APIClient) -> None:
    folder = folders(api)[("earfit", "input", None)]["folder"]
    for i in range(23):
        upload(api, folder, f"ring-{i:02}.jpg")
    assert len(api.get("/api/earring-catalog/urls").json()) == 20


def test_upload_limits_and_bad_requests(api: APIClient, settings: Any) -> None:
    folder = folders(api)[("recolor", "input", None)]["folder"]
    settings.DRIVE_UPLOAD_MAX_BYTES = 1000
    too_big = upload(api, folder, "big.jpg", JPEG * 100)
    assert too_big.status_code == 400 and "at most" in too_big.json()["message"]
    missing = api.post(f"/api/drives/{folder}/files", {}, format="multipart")
    assert missing.status_code == 400 and "file" in missing.json()["fields"]
    gone = api.delete(f"/api/drives/{folder}/files/no-such-file.jpg")
    assert gone.status_code == 404


def test_another_organisation_gets_404_for_folders_and_files(partner: Any, api: APIClient) -> None:
    folder = folders(api)[("recolor", "input", None)]["folder"]
    upload(api, folder, "mine.jpg")
    file_id = api.get(f"/api/drives/{folder}/files").json()[0]["id"]
    outsider = client_for(UserFactory())
    assert outsider.get(f"/api/drives/{folder}/files").status_code == 404
    assert upload(outsider, folder, "theirs.jpg").status_code == 404
    assert outsider.delete(f"/api/drives/{folder}/files/{file_id}").status_code == 404
    assert outsider.get("/api/recoloring/urls").json() == []  # their own, empty folder
