"""The Editorial Hub and Design Lab calls: the spec's wrapper, messages and limits."""

from __future__ import annotations

import base64
import io
from typing import Any

import pytest
from PIL import Image
from rest_framework.test import APIClient

from jobs.models import Job

PHOTO = "https://cdn.maison.test/looks/look-1.jpg"


def png_b64() -> str:
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), (200, 180, 160)).save(buffer, "PNG")
    return base64.b64encode(buffer.getvalue()).decode()


def wrapper(item: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"headers": {}, "params": {}, "query": {}, "body": [item],
             "webhookUrl": "https://hooks.example/x", "executionMode": "production"}]


@pytest.mark.parametrize("path", ["/api/editorial/generate", "/webhook/Editorial"])
def test_editorial_generation_accepts_the_spec_wrapper_and_the_plain_body(
    api: APIClient, path: str
) -> None:
    item = {"outfit": PHOTO, "scene_composition": "studio seamless", "lighting": "golden hour",
            "color_style": "warm", "camera_details": "", "outfit_changes": "",
            "model_features": "", "lead": "Generate a fashion editorial photograph.",
            "original_prompt": "studio seamless\ngolden hour\nwarm"}
    for body in (wrapper(item), [item], item):
        resp = api.post(path, body, format="json", HTTP_PREFER="respond-async")
        assert resp.status_code == 202, resp.json()
    jobs = Job.objects.filter(tool="editorial.generate")
    assert jobs.count() == 3
    assert all(j.input["outfit"] == PHOTO and j.input["lighting"] == "golden hour" for j in jobs)


@pytest.mark.parametrize(("path", "body", "status", "message"), [
    ("/api/editorial/analyze", [{"image_reference": "ftp://x/y.jpg"}], 400,
     "image_reference: Invalid URL: Please enter a valid HTTP/HTTPS URL"),
    ("/webhook/analyze", [{"image_reference": "nope"}], 400,
     "image_reference: Invalid URL: Please enter a valid HTTP/HTTPS URL"),
    ("/api/editorial/generate", {"outfit": "catalog.jpg"}, 400,
     "outfit: Validation Error: Please enter a valid catalog image URL"),
    ("/api/tonelab/generate", {"outfit": ""}, 400,
     "outfit: Please enter a valid Tonelab URL"),
    ("/api/editorial/generate", {"outfit": PHOTO, "lighting": "x" * 4001}, 400,
     "lighting: A prompt may be at most 4,000 characters."),
    ("/api/open-lab/", {"prompt": "  "}, 400, "Send a prompt or at least one image."),
    ("/api/open-lab/", {"prompt": "recolour to red", "image": "not base64!"}, 400,
     "image: Not valid base64."),
    ("/api/open-lab/", {"prompt": "recolour", "image": base64.b64encode(b"hello").decode()},
     400, "image: Not an image (PNG, JPEG, WebP, GIF, BMP, TIFF, HEIC or AVIF)."),
    ("/api/tech-pack/description", {"description": "   "}, 400,
     "description: Please enter a text description before proceeding"),
    ("/api/tech-pack/process", {"tech_pack": ""}, 400,
     "tech_pack: Please complete Step 1 before processing the tech pack"),
])
def test_the_pages_messages(api: APIClient, path: str, body: Any, status: int,
                            message: str) -> None:
    resp = api.post(path, body, format="json")
    assert resp.status_code == status, resp.json()
    assert resp.json()["message"] == message
    assert Job.objects.count() == 0


def test_inline_images_are_kept_in_storage_not_in_the_job(api: APIClient) -> None:
    resp = api.post("/api/editorial-product/", {"image": png_b64(), "prompt": "studio"},
                    format="json", HTTP_PREFER="respond-async")
    assert resp.status_code == 202
    job = Job.objects.get()
    assert "image" not in job.input
    assert job.input["_sources"]["image"]["storage"].endswith(".png")


def test_an_oversized_inline_image_is_413(api: APIClient) -> None:
    huge = "A" * (28 * 1024 * 1024)  # > 20 MB once decoded
    resp = api.post("/api/open-lab/", {"prompt": "remove background", "image": huge},
                    format="json")
    assert resp.status_code == 413
    assert resp.json()["error"] == "too_large"


def test_parts_are_not_listed_but_follow_their_tool(api: APIClient) -> None:
    slugs = {t["slug"] for t in api.get("/api/tools/").json()}
    assert "editorial" in slugs and "editorial.generate" not in slugs


def test_camera_templates_and_photo_presets_are_served(api: APIClient) -> None:
    templates = api.get("/api/camera-templates/").json()
    titles = [t["title"] for t in templates]
    assert "Custom" in titles and "Night Film with Red Halos" in titles and len(titles) == 8
    assert all(t["camera_details"] for t in templates if t["title"] != "Custom")
    presets = api.get("/api/photo-presets/").json()
    assert [p["title"] for p in presets] == ["Minimalist White", "Lifestyle Editorial",
                                             "Luxury Fashion", "Studio Catalog", "Urban Street",
                                             "Vintage Editorial"]


def test_model_swap_needs_a_library_model(api: APIClient) -> None:
    resp = api.post("/api/model-swap/process", {"image_url": PHOTO, "modelId": "zoe"},
                    format="json")
    assert resp.status_code == 400
    assert resp.json()["message"] == "modelId: No model 'zoe' in your model library."


def test_a_retry_with_the_same_key_and_inline_image_is_the_same_job(api: APIClient) -> None:
    body = {"image": png_b64(), "prompt": "studio"}
    first = api.post("/api/editorial-product/", body, format="json",
                     HTTP_PREFER="respond-async", HTTP_IDEMPOTENCY_KEY="retry-1")
    again = api.post("/api/editorial-product/", body, format="json",
                     HTTP_PREFER="respond-async", HTTP_IDEMPOTENCY_KEY="retry-1")
    assert (first.status_code, again.status_code) == (202, 200)
    assert first.json()["id"] == again.json()["id"] and Job.objects.count() == 1


def test_a_tech_pack_comes_back_as_a_png_and_a_vector_pdf(transactional_db: Any, worker: Any,
                                                            api: APIClient) -> None:
    """Step 2 through the API and a real worker: the sheet as base64 PNG and as a PDF."""
    import base64

    md = api.post("/api/tech-pack/description",
                  {"description": "Relaxed crew neck t-shirt in organic cotton jersey."},
                  format="json")
    assert md.status_code == 200, md.json()
    sheet = api.post("/api/tech-pack/process", {"tech_pack": md.json()["description"]},
                     format="json")
    assert sheet.status_code == 200, sheet.json()
    assert base64.b64decode(sheet.json()["image"]).startswith(b"\x89PNG")
    assert base64.b64decode(sheet.json()["pdf"]).startswith(b"%PDF-")
