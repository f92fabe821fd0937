"""The card tools' and Rebody's calls: the spec's fields, enumerations, limits and messages."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from jobs.models import Job

IMG = "https://cdn.maison.test/looks/polo.jpg"


def card(**over: Any) -> dict[str, Any]:
    return {"image_url": IMG, "target_color": "#C5B299", "garment_type": "polo"} | over


def test_recolor_batch_of_the_spec_examples_is_queued(api: APIClient) -> None:
    cards = [card(target_color=c) for c in ("#C5B299", "#8E8E93", "#4A5D23")]
    resp = api.post("/api/recoloring/recolor", cards, format="json")
    assert resp.status_code == 202, resp.json()
    body = resp.json()
    assert body["count"] == 3 and len(body["jobs"]) == 3
    jobs = Job.objects.filter(batch_id=body["batch_id"])
    assert sorted(j.input["target_color"] for j in jobs) == ["#4a5d23", "#8e8e93", "#c5b299"]
    assert {j.queue for j in jobs} == {"batch"} and {j.tool for j in jobs} == {"recolor"}
    listed = api.get(resp["Location"]).json()
    assert listed["count"] == 3


def test_recolor_idempotency_key_returns_the_same_batch(api: APIClient) -> None:
    first = api.post("/api/recoloring/recolor", [card()], format="json", HTTP_IDEMPOTENCY_KEY="b1")
    again = api.post("/api/recoloring/recolor", [card()], format="json", HTTP_IDEMPOTENCY_KEY="b1")
    other = api.post("/api/recoloring/recolor", [card(garment_type="dress")], format="json",
                     HTTP_IDEMPOTENCY_KEY="b1")
    assert (first.status_code, again.status_code, other.status_code) == (202, 200, 409)
    assert first.json()["batch_id"] == again.json()["batch_id"]
    assert Job.objects.count() == 1


@pytest.mark.parametrize(("url", "body", "message"), [
    ("/api/recoloring/recolor", [],
     "Please fill in at least one complete card (URL, color, and garment type)"),
    ("/api/refabricing/refabric", [],
     "Please fill in at least one complete card (URL, fabric type, material finish, and "
     "garment type)"),
    ("/api/reshaping/reshape", [],
     "Please fill in at least one complete card (URL, garment type, and at least one change)"),
    ("/api/recoloring/recolor", [card()] * 21, "You can only have up to 20 cards"),
    ("/api/recoloring/recolor", [card(target_color="beige")],
     "Card 1, target_color: Enter a colour as #rgb or #rrggbb."),
    ("/api/recoloring/recolor", [card(), card(garment_type="cape")],
     'Card 2, garment_type: "cape" is not a valid choice.'),
    ("/api/recoloring/recolor", [card(image_url="https://cdn.maison.test/looks/page.html")],
     "Card 1, image_url: The URL must point to an image (jpg, jpeg, png, gif, bmp, webp, heic, heif, avif, tif, tiff or svg)."),
    ("/api/recoloring/recolor", [card(image_url="ftp://cdn.maison.test/a.jpg")],
     "Card 1, image_url: Enter an http or https URL."),
    ("/api/refabricing/refabric", [{"image_url": IMG, "re_fabric": "kevlar",
                                    "material_finish": "matte", "target_garment": "coat"}],
     'Card 1, re_fabric: "kevlar" is not a valid choice.'),
    ("/api/reshaping/reshape", [{"image_url": IMG, "target_garment": "dress", "changes": []}],
     "Card 1, changes: This list may not be empty."),
    ("/api/reshaping/reshape", [{"image_url": IMG, "target_garment": "dress",
                                 "changes": [{"place": "hem", "instruction": "shorter"}] * 11}],
     "Card 1, changes: You can only have up to 10 changes per card"),
    ("/api/reshaping/reshape", [{"image_url": IMG, "target_garment": "dress",
                                 "changes": [{"place": "hem", "instruction": "  "}]}],
     "Card 1, changes: This field may not be blank."),
    ("/api/rebody/process", {"image_url": "", "target_bodytype": "Curvy Fit", "specs": ""},
     "Provide both Full Body Look Image URL and Body Type."),
    ("/api/rebody/process", {"image_url": IMG, "target_bodytype": "Giant", "specs": ""},
     'target_bodytype: "Giant" is not a valid choice.'),
    ("/api/rebody/process", {"image_url": "https://cdn.maison.test/look", "specs": "",
                             "target_bodytype": "Petite"},
     "image_url: The image URL must start with http and end with an image extension."),
])
def test_bad_cards_get_the_spec_messages(api: APIClient, url: str, body: Any,
                                         message: str) -> None:
    resp = api.post(url, body, format="json")
    assert resp.status_code == 400, resp.json()
    assert resp.json()["message"] == message
    assert Job.objects.count() == 0


def test_reshape_target_garments_are_the_lower_cased_display_names(api: APIClient) -> None:
    changes = [{"place": "Length", "instruction": "shorter by 20%"}]
    for garment in ("Trousers / Pants", "t-shirt", "Full Garment"):
        resp = api.post("/api/reshaping/reshape",
                        [{"image_url": IMG, "target_garment": garment, "changes": changes}],
                        format="json")
        assert resp.status_code == 202, resp.json()
    assert sorted(j.input["target_garment"] for j in Job.objects.all()) == [
        "full garment", "t-shirt", "trousers / pants"]
    assert {j.input["changes"][0]["place"] for j in Job.objects.all()} == {"length"}
