"""What each library model can wear, said before the run: the photo is measured once when the
model is added (or lazily for older rows), GET /api/models/ gives per tool whether its engine
can dress the model, and the batch submit and the syncs skip the models an engine would
refuse, listing them with the reason.

On the real sample portraits (half-length) and catalogue photos of the fixtures."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.core.files.base import ContentFile
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from jobs.models import Job
from tools.library import library_model_add, library_samples_add
from tools.models import LibraryModel

MODELS = Path(__file__).resolve().parents[1] / "fixtures" / "fashion" / "model"
FULL_LENGTH_WITH_EAR = "model_9.png"  # full figure, hands free, one lobe in sight
NO_EAR = "049205_0.jpg"  # full figure, hair over both ears
RING = "https://cdn.maison.test/jewels/hoop.png"
BAG = {"Bag_Url": "https://cdn.maison.test/bags/tote.jpg", "Width": 38, "Height": 30,
       "Depth": 12, "Handle": 20, "Strap": None, "Gender": "Female"}
JPEG = b"\xff\xd8\xff\xe0" + b"\x00" * 64


@pytest.fixture(autouse=True)
def _media(settings: Any, tmp_path: Any) -> None:
    settings.DRIVES_ROOT = tmp_path / "drives"
    settings.MEDIA_ROOT = tmp_path / "media"


def add(partner: Any, photo: str, name: str, gender: str = "female") -> LibraryModel:
    model, _ = library_model_add(organization=partner.organization, name=name, gender=gender,
                                 height_cm=175, photo=(MODELS / photo).read_bytes(),
                                 filename=photo)
    return model


def listed(api: APIClient) -> dict[str, dict[str, Any]]:
    return {m["id"]: m for m in api.get("/api/models/").json()}


def test_the_half_length_samples_carry_bags_on_the_shoulder(partner: Any,
                                                              api: APIClient) -> None:
    library_samples_add(organization=partner.organization)
    stored = {m.code: m.shows for m in LibraryModel.objects.all()}
    # measured when added, not on the page's first read
    assert all(s and s["measured"] and s["upper_body"] and not s["full_body"]
               for s in stored.values()), stored

    models = listed(api)
    for code in ("sample-eileen", "sample-grace"):
        shows, fits = models[code]["shows"], models[code]["fits"]
        assert shows["face"] and shows["hands"] == 0 and not shows["full_body"]
        assert fits["baghold"]["ok"] and fits["baghold"]["carry"] == "shoulder"
        assert fits["baghold"]["note"].startswith("Half-length photo: bags are carried on the "
                                                  "shoulder")
        # garments are dressed on the upper body; a look of shoes alone is not
        assert fits["flats"]["ok"] and fits["flats"]["shoes_alone"] is False
        assert fits["flats"]["note"].startswith("Half-length photo")
        assert fits["remodel"] == {"ok": True}
        assert fits["earfit"] == {"ok": True}  # both show a lobe
        assert models[code]["shows"]["ears"] >= 1


def test_a_full_length_photo_fits_every_tool_as_is(partner: Any, api: APIClient) -> None:
    add(partner, FULL_LENGTH_WITH_EAR, "Mila")
    fits = listed(api)["mila"]["fits"]
    assert fits["earfit"] == {"ok": True}
    assert fits["baghold"] == {"ok": True, "carry": "hand"}
    assert fits["flats"] == {"ok": True, "shoes_alone": True}


def test_earfit_skips_a_model_without_a_visible_lobe(partner: Any, api: APIClient) -> None:
    add(partner, FULL_LENGTH_WITH_EAR, "Mila")
    add(partner, NO_EAR, "Noa")
    fit = listed(api)["noa"]["fits"]["earfit"]
    assert fit["ok"] is False and "no earlobe is visible" in fit["reason"]

    resp = api.post("/api/earring-catalog/process",
                    [{"ring_image": RING, "ring_height_in": 1.5},
                     {"ring_image": RING, "ring_height_in": 2}], format="json")

    assert resp.status_code == 202, resp.json()
    body = resp.json()
    assert body["count"] == 2
    assert {j.input["model"] for j in Job.objects.all()} == {"mila"}
    assert body["skipped"] == [{"model": "noa", "name": "Noa", "reason": fit["reason"]}]


def test_earfit_with_no_model_it_can_use_is_refused_before_any_job(partner: Any,
                                                                    api: APIClient) -> None:
    add(partner, NO_EAR, "Noa")
    resp = api.post("/api/earring-catalog/process",
                    [{"ring_image": RING, "ring_height_in": 1.5}], format="json")
    assert resp.status_code == 400
    assert resp.json()["message"].startswith("No model of your library can be used by")
    assert "Noa: Earfit cannot use this photo: no earlobe is visible" in resp.json()["message"]
    assert Job.objects.count() == 0


def test_baghold_takes_the_first_model_of_the_gender_it_can_carry_on(partner: Any,
                                                                      api: APIClient) -> None:
    first = add(partner, FULL_LENGTH_WITH_EAR, "Ada")
    add(partner, NO_EAR, "Bea")
    # Ada's stored measure: a head-and-face crop without shoulders (as a close portrait).
    first.shows = {**first.shows, "upper_body": False, "torso": False, "full_body": False}
    first.save()
    assert listed(api)["ada"]["fits"]["baghold"] == {
        "ok": False, "reason": "Baghold cannot use this photo: both shoulders are not in frame."}

    resp = api.post("/api/bag-holder/process", [BAG], format="json")

    assert resp.status_code == 202, resp.json()
    assert Job.objects.get().input["model"] == "bea"
    assert resp.json()["skipped"] == [{"model": "ada", "name": "Ada",
                                       "reason": "Baghold cannot use this photo: both "
                                                 "shoulders are not in frame."}]
    # no female model left that a bag can be carried on: refused with the reason
    LibraryModel.objects.filter(code="bea").update(shows=first.shows)
    refused = api.post("/api/bag-holder/process", [BAG], format="json")
    assert refused.status_code == 400
    assert "both shoulders are not in frame" in refused.json()["message"]


def test_rows_added_before_the_measure_are_measured_once_on_read(partner: Any,
                                                                  api: APIClient) -> None:
    model = LibraryModel(organization=partner.organization, code="old", name="Old",
                         gender="female", height_cm=170)
    model.photo.save("old.png", ContentFile((MODELS / FULL_LENGTH_WITH_EAR).read_bytes()),
                     save=True)
    assert LibraryModel.objects.get().shows is None

    assert listed(api)["old"]["shows"]["full_body"] is True
    saved = LibraryModel.objects.get().shows
    assert saved["measured"] is True and saved["full_body"] is True
    # an unreadable photo is not guessed at: nothing is skipped for it before the run
    model.photo.save("bad.jpg", ContentFile(JPEG), save=False)
    LibraryModel.objects.filter(pk=model.pk).update(photo=model.photo.name, shows=None)
    assert listed(api)["old"]["fits"]["earfit"] == {"ok": True}
    assert LibraryModel.objects.get().shows is None  # measured again on the next read


def test_flats_skips_shoes_alone_on_a_half_length_model(partner: Any, api: APIClient) -> None:
    library_samples_add(organization=partner.organization)
    folders = api.get("/api/drives/").json()
    for category, name in (("shoes", "SNK1_FRONT.jpg"), ("shoes", "SNK1_SIDE.jpg")):
        folder = next(f for f in folders if f["tool"] == "flats" and f["role"] == "input"
                      and f["category"] == category)
        resp = api.post(f"/api/drives/{folder['folder']}/files",
                        {"file": SimpleUploadedFile(name, JPEG, "image/jpeg")},
                        format="multipart")
        assert resp.status_code == 201
    LibraryModel.objects.filter(code="sample-eileen").delete()

    body = api.post("/api/flats-catalog/sync",
                    {"action": "sync", "timestamp": "t",
                     "categories": ["shoes", "bottom", "top", "overlayer"]},
                    format="json").json()

    assert body["count"] == 0 and Job.objects.count() == 0, body
    assert sorted(s["name"] for s in body["skipped"]) == ["SNK1_FRONT.jpg", "SNK1_SIDE.jpg"]
    assert all(s["model"] == "sample-grace" and "does not show them" in s["reason"]
               for s in body["skipped"])


def test_baghold_without_a_strap_prefers_a_model_with_a_hand_in_frame(partner: Any,
                                                                       api: APIClient) -> None:
    library_samples_add(organization=partner.organization)  # half-length: shoulder carries
    add(partner, FULL_LENGTH_WITH_EAR, "Zoe")  # sorts after them, hands in frame

    no_strap = api.post("/api/bag-holder/process", [BAG], format="json")
    strap = api.post("/api/bag-holder/process", [BAG | {"Strap": 55}], format="json")

    assert (no_strap.status_code, strap.status_code) == (202, 202)
    by_strap = {j.input["strap"]: j.input["model"] for j in Job.objects.all()}
    assert by_strap == {None: "zoe", 55: "sample-eileen"}
    assert no_strap.json()["skipped"] == []


def test_the_admin_measures_the_photo_it_accepts(partner: Any) -> None:
    from tools.admin import LibraryModelForm

    photo = MODELS / FULL_LENGTH_WITH_EAR
    form = LibraryModelForm(
        data={"code": "mila", "organization": partner.organization.pk, "name": "Mila",
              "gender": "female", "height_cm": 172, "tools": ["baghold"]},
        files={"photo": SimpleUploadedFile(photo.name, photo.read_bytes(), "image/png")})
    assert form.is_valid(), form.errors
    form.save()

    shows = LibraryModel.objects.get(code="mila").shows
    assert shows["measured"] and shows["full_body"] and shows["hands"] == 2


def test_addmodel_says_what_each_tool_will_do_with_the_model(partner: Any) -> None:
    import io

    from django.core.management import call_command

    out = io.StringIO()
    call_command("addmodel", str(MODELS / NO_EAR), "--org", partner.organization.name,
                 "--name", "Noa", "--gender", "female", "--height", "174", stdout=out)

    lines = out.getvalue().splitlines()
    assert lines[0].startswith("Added Noa")
    assert "  Earfit: skipped: Earfit cannot use this photo: no earlobe is visible" in lines[1]
    assert lines[2:] == ["  Baghold: yes", "  Flats Ecommerce: yes",
                         "  Remodel and Model Swap: yes"]
