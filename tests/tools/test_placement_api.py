"""Earfit, Baghold, the direct tools and the drive syncs (Spinview, Flats, Remodel) at the
API: validation, library models, grouping, and a ledger that takes a file once."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.base import ContentFile
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from jobs.models import Activity, Job
from tools.models import LibraryModel

JPEG = b"\xff\xd8\xff\xe0" + b"\x00" * 64
RING = "https://cdn.maison.test/jewels/hoop.png"


@pytest.fixture(autouse=True)
def _drives_root(settings: Any, tmp_path: Any) -> None:
    settings.DRIVES_ROOT = tmp_path / "drives"
    settings.MEDIA_ROOT = tmp_path / "media"


def library(partner: Any, *people: tuple[str, str]) -> list[LibraryModel]:
    made = []
    for code, gender in people:
        model = LibraryModel(organization=partner.organization, code=code, name=code.title(),
                             gender=gender, height_cm=178)
        model.photo.save(f"{code}.jpg", ContentFile(JPEG), save=True)
        made.append(model)
    return made


def drop(api: APIClient, tool: str, *names: str, data: bytes = JPEG,
         category: str | None = None) -> None:
    folder = next(f for f in api.get("/api/drives/").json()
                  if f["tool"] == tool and f["role"] == "input" and f["category"] == category)
    for name in names:
        resp = api.post(f"/api/drives/{folder['folder']}/files",
                        {"file": SimpleUploadedFile(name, data, "image/jpeg")},
                        format="multipart")
        assert resp.status_code == 201


def test_earfit_dresses_every_library_model(partner: Any, api: APIClient) -> None:
    empty = api.post("/api/earring-catalog/process",
                     [{"ring_image": RING, "ring_height_in": 1.5}], format="json")
    assert empty.status_code == 400
    assert empty.json()["message"] == "Your model library is empty: ask Atelier to add your models."
    library(partner, ("ava", "female"), ("noor", "female"))
    resp = api.post("/api/earring-catalog/process",
                    [{"ring_image": RING, "ring_height_in": 1.5},
                     {"ring_image": RING, "ring_height_in": 3}], format="json")
    assert resp.status_code == 202 and resp.json()["count"] == 4
    inputs = [j.input for j in Job.objects.all()]
    assert sorted((i["model"], i["ring_height_in"]) for i in inputs) == [
        ("ava", 1.5), ("ava", 3.0), ("noor", 1.5), ("noor", 3.0)]
    assert all(i["_sources"]["model_image"]["storage"].startswith("library/") for i in inputs)
    models = api.get("/api/models/").json()
    assert [m["id"] for m in models] == ["ava", "noor"]
    assert api.get(models[0]["image"].replace("http://testserver", "")).status_code == 200


@pytest.mark.parametrize(("height", "message"), [
    (0.2, "Card 1, ring_height_in: Must be between 0.5 and 10 inches"),
    (11, "Card 1, ring_height_in: Must be between 0.5 and 10 inches"),
])
def test_earfit_ring_height_limits(api: APIClient, height: float, message: str) -> None:
    resp = api.post("/api/earring-catalog/process",
                    [{"ring_image": RING, "ring_height_in": height}], format="json")
    assert resp.status_code == 400 and resp.json()["message"] == message


def test_baghold_takes_a_model_of_the_bags_gender(partner: Any, api: APIClient) -> None:
    library(partner, ("ava", "female"))
    bag = {"Bag_Url": "https://cdn.maison.test/bags/tote.jpg", "Width": 38, "Height": 30,
           "Depth": 12, "Handle": 20, "Strap": None, "Gender": "Female"}
    assert api.post("/api/bag-holder/process", [bag], format="json").status_code == 202
    assert Job.objects.get().input["model"] == "ava"
    refused = api.post("/api/bag-holder/process", [bag | {"Gender": "Male"}], format="json")
    assert refused.status_code == 400
    assert refused.json()["message"] == "Your model library has no male model."


def test_baghold_takes_empty_handle_and_strap_as_absent(partner: Any, api: APIClient) -> None:
    # the spec's page sends the optional drops as strings, "" when left empty
    library(partner, ("ava", "female"))
    bag = {"Bag_Url": "https://cdn.maison.test/bags/tote.jpg", "Width": "38", "Height": "30",
           "Depth": "12", "Handle": "", "Strap": " ", "Gender": "Female"}
    assert api.post("/api/bag-holder/process", [bag], format="json").status_code == 202
    card = Job.objects.get().input
    assert card.get("Handle") is None and card.get("Strap") is None
    bad = api.post("/api/bag-holder/process", [bag | {"Handle": "long"}], format="json")
    assert bad.status_code == 400 and "Handle" in str(bad.json()["fields"])


@pytest.mark.parametrize(("url", "body", "message"), [
    ("/api/try-on", {"garmentUrl": "https://a.test/g.jpg", "modelUrl": " "},
     "Provide both Desired Garment URL and Base Image URL."),
    ("/api/catalog-asset/process", {"garment_url": "", "outfit_url": "https://a.test/m.jpg"},
     "Provide both Accessory URL and Base Model Image URL."),
    ("/api/restyle-editorial/process", {"garment_url": "https://a.test/p.jpg"},
     "Provide both Editorial Image URL and Product Image URL."),
])
def test_direct_tools_need_both_urls(api: APIClient, url: str, body: dict[str, Any],
                                     message: str) -> None:
    resp = api.post(url, body, format="json")
    assert resp.status_code == 400 and resp.json()["message"] == message


def test_direct_tools_answer_at_once_when_asked(api: APIClient) -> None:
    resp = api.post("/api/restyle/garment-restyle",
                    {"garment_url": " https://a.test/g.jpg ", "outfit_url": "https://a.test/o.jpg"},
                    format="json", HTTP_PREFER="respond-async")
    assert resp.status_code == 202 and resp["Location"].startswith("/api/jobs/")
    assert Job.objects.get().input["garment_url"] == "https://a.test/g.jpg"  # trimmed


def test_spinview_sync_groups_views_by_product_and_takes_each_file_once(
    partner: Any, api: APIClient
) -> None:
    drop(api, "spinview", "BAG01_1.jpg", "BAG01_2.jpg", "BAG01_3.jpg", "SHOE9_1.jpg",
         "SHOE9_2.jpg", "LONE_1.jpg", "notes.txt")
    first = api.post("/api/catalog-video/sync", {"action": "sync", "timestamp": "t"},
                     format="json")
    assert first.status_code == 202
    body = first.json()
    assert body["count"] == 2
    codes = sorted(Job.objects.values_list("input__code", flat=True))
    assert codes == ["BAG01", "SHOE9"]
    assert len(Job.objects.get(input__code="BAG01").input["_sources"]["views"]) == 3
    reasons = {s["name"]: s["reason"] for s in body["skipped"]}
    assert reasons["notes.txt"] == "Not an image."
    assert "two views" in reasons["LONE_1.jpg"]
    done = Activity.objects.filter(tool="spinview", action="Sync Started").get()
    assert done.status == "Success"
    assert done.details == ("Your video queue is been processed. Average completion time: "
                            "110s per video.")

    again = api.post("/api/catalog-video/sync", {"action": "sync"}, format="json").json()
    assert again["count"] == 0  # nothing new

    drop(api, "spinview", "BAG01_2.jpg", data=JPEG + b"new revision")
    third = api.post("/api/catalog-video/sync", {"action": "sync"}, format="json").json()
    assert third["count"] == 1 and Job.objects.filter(input__code="BAG01").count() == 2


def test_clean_input_removes_the_products_files(api: APIClient) -> None:
    drop(api, "spinview", "BAG01_1.jpg", "BAG01_2.jpg", "SHOE9_1.jpg")
    resp = api.delete("/api/catalog-video/inputs", {"codes": ["BAG01", "NOPE"]}, format="json")
    assert resp.json() == {"removed": ["BAG01_1.jpg", "BAG01_2.jpg"], "unknown_codes": ["NOPE"]}
    folder = next(f for f in api.get("/api/drives/").json()
                  if f["tool"] == "spinview" and f["role"] == "input")
    assert [f["name"] for f in api.get(f"/api/drives/{folder['folder']}/files").json()] == [
        "SHOE9_1.jpg"]


def test_flats_sync_groups_an_outfit_across_the_four_folders(partner: Any,
                                                             api: APIClient) -> None:
    library(partner, ("ava", "female"))
    drop(api, "flats", "LOOK1_FRONT.jpg", "LOOK1_BACK.jpg", category="top")
    drop(api, "flats", "LOOK1_FRONT.jpg", category="bottom")
    drop(api, "flats", "LOOK1_FRONT.jpg", category="shoes")
    drop(api, "flats", "stray.jpg", category="overlayer")
    body = api.post("/api/flats-catalog/sync", {"action": "sync"}, format="json").json()
    assert body["count"] == 1
    sources = Job.objects.get().input["_sources"]
    assert set(sources["top"]) == {"FRONT", "BACK"} and set(sources["bottom"]) == {"FRONT"}
    assert "storage" in sources["model"]
    assert body["skipped"] == [{"name": "stray.jpg",
                                "reason": "Flats files end in _FRONT, _BACK or _SIDE."}]


def test_remodel_needs_a_model_of_the_library(partner: Any, api: APIClient) -> None:
    drop(api, "remodel", "look-1.jpg", "look-2.jpg")
    unknown = api.post("/api/remodel/process", {"modelId": "zoe", "modelPicture": ""},
                       format="json")
    assert unknown.status_code == 400
    assert unknown.json()["message"] == "No model 'zoe' in your model library."
    library(partner, ("zoe", "female"))
    body = api.post("/api/remodel/process", {"modelId": "zoe"}, format="json").json()
    assert body["count"] == 2
    assert {j.input["model"] for j in Job.objects.all()} == {"zoe"}
