"""manage.py addmodel: people in an organisation's model library, from a photo or the two
public-domain sample portraits, then listed by GET /api/models/ for that organisation only."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from PIL import Image
from rest_framework.test import APIClient

from tests.conftest import client_for
from tests.support.factories import UserFactory

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "fashion"


def add(*args: str) -> str:
    out = io.StringIO()
    call_command("addmodel", *args, stdout=out)
    return out.getvalue()


def test_samples_fill_the_library_once(partner: Any, api: APIClient) -> None:
    org = partner.organization.name
    said = add("--org", org, "--samples")
    assert said.count("Added") == 2
    assert "Replaced" in add("--org", org, "--samples")  # again: replaced, not doubled

    models = api.get("/api/models/").json()
    assert sorted(m["id"] for m in models) == ["sample-eileen", "sample-grace"]
    for m in models:
        photo = api.get(m["image"])
        assert photo.status_code == 200
        image = Image.open(io.BytesIO(b"".join(photo.streaming_content)
                                      if hasattr(photo, "streaming_content") else photo.content))
        assert image.format == "JPEG" and min(image.size) >= 256
    # another organisation's library stays empty
    assert client_for(UserFactory()).get("/api/models/").json() == []


def test_a_model_from_a_photo(partner: Any, api: APIClient) -> None:
    photo = FIXTURES / "model" / "02849_00.jpg"
    said = add(str(photo), "--org", partner.organization.name, "--name", "Ines",
               "--gender", "female", "--height", "176")
    assert said.startswith("Added Ines (ines, female, 176 cm)")
    (model,) = api.get("/api/models/").json()
    assert (model["id"], model["name"], model["gender"], model["height_cm"]) == (
        "ines", "Ines", "female", 176)


@pytest.mark.parametrize("args,message", [
    (["--org", "Nobody"], "No organisation named 'Nobody'"),
    (["--name", "Ines", "--gender", "female", "--height", "176"], "No file at"),
    (["--name", "Ines"], "missing: --gender, --height"),
    (["--name", "Ines", "--gender", "female", "--height", "40", "PHOTO"], "Height must be between"),
    (["--name", "Ines", "--gender", "female", "--height", "176", "NOTICE"], "is not an image"),
    (["--samples", "PHOTO"], "not both"),
])
def test_what_is_wrong_is_said(partner: Any, args: list[str], message: str) -> None:
    real = {"PHOTO": str(FIXTURES / "model" / "02849_00.jpg"), "NOTICE": str(FIXTURES / "NOTICE.md")}
    args = [real.get(a, a) for a in args]
    if "--org" not in args:
        args += ["--org", partner.organization.name]
    if "No file at" in message:
        args.append("/nonexistent/photo.jpg")
    with pytest.raises(CommandError, match=message):
        add(*args)


def _side_by_side(tmp_path: Path, a: str, b: str) -> Path:
    """Two fixture photos next to each other: a model photo with two people."""
    left = Image.open(FIXTURES / "model" / a).convert("RGB")
    right = Image.open(FIXTURES / "model" / b).convert("RGB").resize(left.size)
    pair = Image.new("RGB", (2 * left.width, left.height))
    pair.paste(left, (0, 0))
    pair.paste(right, (left.width, 0))
    path = tmp_path / "pair.jpg"
    pair.save(path, "JPEG", quality=92)
    return path


def test_a_photo_of_two_people_is_refused(partner: Any, api: APIClient, tmp_path: Path) -> None:
    pair = _side_by_side(tmp_path, "model_8.png", "049205_0.jpg")
    with pytest.raises(CommandError, match="The photo of Duo shows 2 people; a model photo must "
                                           "show one person only"):
        add(str(pair), "--org", partner.organization.name, "--name", "Duo", "--gender", "female",
            "--height", "170")
    assert api.get("/api/models/").json() == []


def test_a_photo_without_what_its_tools_need_is_refused(partner: Any, api: APIClient) -> None:
    # A catalogue crop from the chin down: a body for Baghold and Flats, no face for Earfit.
    headless = str(FIXTURES / "model" / "052964_0.jpg")
    org = partner.organization.name
    with pytest.raises(CommandError, match="does not show a face, which Earfit needs"):
        add(headless, "--org", org, "--name", "Lou", "--gender", "female", "--height", "170",
            "--for", "earfit,baghold")
    assert api.get("/api/models/").json() == []
    said = add(headless, "--org", org, "--name", "Lou", "--gender", "female", "--height", "170",
               "--for", "baghold,flats")
    assert said.startswith("Added Lou")
    with pytest.raises(CommandError, match="unknown tool 'rebody'"):
        add(headless, "--org", org, "--name", "Lou", "--gender", "female", "--height", "170",
            "--for", "rebody")


def test_the_admin_refuses_a_photo_of_two_people(partner: Any, tmp_path: Path) -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile

    from tools.admin import LibraryModelForm

    def form(path: Path, tools: list[str]) -> LibraryModelForm:
        return LibraryModelForm(
            data={"code": "duo", "organization": partner.organization.pk, "name": "Duo",
                  "gender": "female", "height_cm": 170, "tools": tools},
            files={"photo": SimpleUploadedFile(path.name, path.read_bytes(), "image/jpeg")})

    refused = form(_side_by_side(tmp_path, "model_1.png", "model_3.png"), [])
    assert not refused.is_valid()
    assert "shows 2 people" in refused.errors["photo"][0]
    half_length = form(FIXTURES / "model" / "model_3.png", ["earfit", "baghold", "flats"])
    assert half_length.is_valid(), half_length.errors


def test_a_job_on_a_library_photo_of_two_people_fails_with_the_reason(partner: Any,
                                                                       tmp_path: Path) -> None:
    # A model added before photos were checked: the job refuses it and says why.
    from django.core.files.base import ContentFile
    from django.core.files.storage import default_storage

    from jobs.models import JobStatus
    from jobs.services import job_submit
    from tests.engines.synthetic_products import bag_shot
    from tools.models import LibraryModel
    from tools.registry import TOOLS
    from workers.runner import job_run

    pair = _side_by_side(tmp_path, "model_8.png", "049205_0.jpg")
    model = LibraryModel(organization=partner.organization, code="duo", name="Duo",
                         gender="female", height_cm=170)
    model.photo.save(pair.name, ContentFile(pair.read_bytes()), save=True)
    bag = io.BytesIO()
    Image.fromarray(bag_shot()[0]).save(bag, "PNG")
    bag_name = default_storage.save("inputs/tote.png", ContentFile(bag.getvalue()))
    job = job_submit(org=partner.organization, user=partner, tool=TOOLS["baghold"], payload={
        "width": 30, "height": 25, "depth": 12, "model": "duo", "model_name": "Duo",
        "_sources": {"model_image": {"storage": model.photo.name},
                     "bag_image": {"storage": bag_name}}}).job

    assert job_run(job_id=str(job.pk)) == "failed"
    job.refresh_from_db()
    assert job.status == JobStatus.FAILED and job.error_code == "several_people"
    assert job.error_message == ("The photo of Duo shows 2 people; a model photo must show one "
                                 "person only.")
