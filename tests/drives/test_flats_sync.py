"""Flats syncs make one outfit per look: the products of one sync are worn together.

Through the real sync service (the page's POST, the drive folders, the ledger); the combined
look is then resolved from the drive as the worker does and dressed by the real engine."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.base import ContentFile
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from drives.looks import FlatFile, group_looks
from jobs.models import Job
from tests.fidelity import fid_flats
from tests.fidelity.common import FIXTURES
from tools.models import LibraryModel
from workers.engines import flats
from workers.inputs import inputs_resolve

JPEG = b"\xff\xd8\xff\xe0" + b"\x00" * 64


@pytest.fixture(autouse=True)
def _drives_root(settings: Any, tmp_path: Any) -> None:
    settings.DRIVES_ROOT = tmp_path / "drives"
    settings.MEDIA_ROOT = tmp_path / "media"


def drop(api: APIClient, category: str, *names: str, data: bytes = JPEG) -> None:
    folder = next(f for f in api.get("/api/drives/").json()
                  if f["tool"] == "flats" and f["role"] == "input" and f["category"] == category)
    for name in names:
        resp = api.post(f"/api/drives/{folder['folder']}/files",
                        {"file": SimpleUploadedFile(name, data, "image/jpeg")},
                        format="multipart")
        assert resp.status_code == 201, resp.content


def sync(api: APIClient) -> dict[str, Any]:
    resp = api.post("/api/flats-catalog/sync", {"action": "sync", "timestamp": "t",
                                                "categories": list(flats.CATEGORIES)},
                    format="json")
    assert resp.status_code == 202, resp.content
    return dict(resp.json())


def add_model(partner: Any, photo: str) -> LibraryModel:
    model = LibraryModel(organization=partner.organization, code="ines", name="Ines",
                         gender="female", height_cm=176)
    model.photo.save("ines.jpg", ContentFile((FIXTURES / photo).read_bytes()), save=True)
    return model


def looks_of(api: APIClient) -> dict[str, set[str]]:
    return {j.input["outfit"]: set(j.input["_sources"]) - {"model"} for j in Job.objects.all()}


def test_a_top_and_shoes_of_one_sync_are_one_look_worn_together(partner: Any,
                                                                 api: APIClient) -> None:
    """The tester's case: products named by their own SKU, no look code."""
    case = fid_flats.FULL_LENGTH[0]
    add_model(partner, case.model)
    top, shoes = (FIXTURES / fid_flats.TOP).read_bytes(), (FIXTURES / case.shoes).read_bytes()
    drop(api, "top", "TEE-4471_FRONT.jpg", "TEE-4471_BACK.jpg", data=top)
    drop(api, "shoes", "SNK_0093_FRONT.jpg", "SNK_0093_BACK.jpg", "SNK_0093_SIDE.jpg",
         data=shoes)
    body = sync(api)
    assert body["count"] == 1, body
    job = Job.objects.get()
    assert job.input["outfit"] == "SNK_0093+TEE-4471" and job.input["model"] == "ines"
    sources = job.input["_sources"]
    assert set(sources["top"]) == {"FRONT", "BACK"}
    assert set(sources["shoes"]) == {"FRONT", "BACK", "SIDE"}
    assert body["skipped"] == []

    # Dressed as the worker would: one front image wearing both, shoes at the feet.
    params = inputs_resolve(job.input, url_inputs={})
    outputs = flats.run(params, lambda *_: None)
    front = fid_flats.decode(outputs[0].data)
    figures = fid_flats.on_model_figures(front, case)
    assert figures["top_share"] >= fid_flats.MIN_TOP_SHARE, figures
    assert figures["shoe_offset"] <= fid_flats.MAX_SHOE_OFFSET, figures
    assert all(fid_flats.is_visible(fid_flats.decode(o.data)) for o in outputs)

    # Taken once: nothing new, nothing queued.
    assert sync(api)["count"] == 0


def test_several_products_of_a_category_make_one_look_each(partner: Any,
                                                           api: APIClient) -> None:
    add_model(partner, "model/049205_0.jpg")
    drop(api, "top", "TEE1_FRONT.jpg", "TEE2_FRONT.jpg", "TEE2_BACK.jpg")
    drop(api, "shoes", "SNK9_FRONT.jpg", "SNK9_SIDE.jpg")
    drop(api, "bottom", "JEAN5_FRONT.jpg")
    body = sync(api)
    assert body["count"] == 2
    assert looks_of(api) == {"SNK9+JEAN5+TEE1": {"shoes", "bottom", "top"},
                             "SNK9+JEAN5+TEE2": {"shoes", "bottom", "top"}}
    # The shoes and jeans are worn in both looks but taken into the ledger once.
    assert sync(api)["count"] == 0
    # A new top of a later sync is a look of its own: the old shoes are not re-worn.
    drop(api, "top", "TEE3_FRONT.jpg")
    assert sync(api)["count"] == 1
    assert looks_of(api)["TEE3"] == {"top"}


def test_look_codes_keep_their_products_together(partner: Any, api: APIClient) -> None:
    drop(api, "top", "LOOK7__TEE1_FRONT.jpg", "LOOK8__TEE2_FRONT.jpg", "LOOK01_FRONT.jpg")
    drop(api, "bottom", "LOOK7__JEAN5_FRONT.jpg", "LOOK01_FRONT.jpg", "LOOK01_BACK.jpg")
    drop(api, "shoes", "LOOK8__SNK9_FRONT.jpg", "LOOK01_SIDE.jpg", "notes.jpg")
    body = sync(api)
    assert body["count"] == 3
    assert looks_of(api) == {"LOOK7": {"bottom", "top"}, "LOOK8": {"shoes", "top"},
                             "LOOK01": {"shoes", "bottom", "top"}}
    assert body["skipped"] == [{"name": "notes.jpg",
                                "reason": "Flats files end in _FRONT, _BACK or _SIDE."}]
    # A replaced view makes its look again, with every file of the look.
    drop(api, "bottom", "LOOK01_BACK.jpg", data=JPEG + b"retouched")
    assert sync(api)["count"] == 1
    assert Job.objects.filter(input__outfit="LOOK01").count() == 2


def test_too_many_combinations_are_refused_with_the_naming_rule() -> None:
    files = [FlatFile(cat, f"{cat.upper()}{i}_FRONT", True, (cat, i))
             for cat in ("top", "bottom", "shoes") for i in range(3)]
    looks, skipped = group_looks(files)
    assert looks == [] and len(skipped) == 9
    assert "<LOOK>__<SKU>_<VIEW>" in skipped[0][1]
