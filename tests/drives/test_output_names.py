"""Names of the files a job delivers to its output drive: they say which input they came from."""

from __future__ import annotations

import uuid

import pytest

from drives.services import output_name
from jobs.models import Job, JobOutput

SIGNED = "http://localhost/drives/s/abc123/"


@pytest.mark.parametrize("tool,given,stem", [
    ("recolor", {"image_url": SIGNED + "polo-beige.jpg"}, "polo-beige"),
    ("earfit", {"ring_image": SIGNED + "pearl-drop.png", "ring_height_in": 1.5,
                "model": "ines"}, "pearl-drop_ines"),
    ("baghold", {"Bag_Url": SIGNED + "tote-tan.jpg", "Width": 30, "model": "sample-grace"},
     "tote-tan_sample-grace"),
    ("spinview", {"code": "SKU-77", "files": ["a.jpg", "b.jpg"]}, "SKU-77"),
    ("flats", {"outfit": "LOOK-3", "files": {"TOP": "t_FRONT.jpg"}}, "LOOK-3"),
])
def test_output_is_named_after_its_input(tool: str, given: dict[str, object], stem: str) -> None:
    job = Job(pk=uuid.UUID("12345678-0000-4000-8000-000000000000"), tool=tool, input=given)
    output = JobOutput(job=job, index=1, filename="result.jpg", content_type="image/jpeg")
    assert output_name(job, output) == f"{stem}_{tool}_12345678_1.jpg"


def test_an_output_without_an_extension_takes_its_content_types() -> None:
    job = Job(pk=uuid.UUID("12345678-0000-4000-8000-000000000000"), tool="rebody", input={})
    output = JobOutput(job=job, index=0, filename="result", content_type="image/png")
    assert output_name(job, output) == "rebody_rebody_12345678_0.png"
