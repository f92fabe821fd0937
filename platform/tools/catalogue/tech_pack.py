"""Tech Pack Lab (spec part 2 §8): a garment's description, then its tech pack sheet."""

from __future__ import annotations

import base64
from typing import Any

from rest_framework import serializers
from rest_framework.request import Request

from config.serializers import StrictSerializer
from jobs.models import Job
from tools.responses import outputs_b64
from tools.serializers import MAX_PROMPT, PROMPT_MESSAGES
from tools.spec import Shape, ToolSpec


class TechPackDescriptionInput(StrictSerializer):
    description = serializers.CharField(max_length=MAX_PROMPT, error_messages={
        **PROMPT_MESSAGES, "blank": "Please enter a text description before proceeding",
        "required": "Please enter a text description before proceeding"})
    image = serializers.CharField(required=False, allow_blank=True)


class TechPackProcessInput(StrictSerializer):
    tech_pack = serializers.CharField(max_length=20000, error_messages={
        "blank": "Please complete Step 1 before processing the tech pack",
        "required": "Please complete Step 1 before processing the tech pack"})
    image = serializers.CharField(required=False, allow_blank=True)


def description(job: Job, request: Request) -> dict[str, Any]:
    """{description}: the first output's text."""
    output = job.outputs.order_by("index").first()
    if output is None:
        return {"description": ""}
    with output.file.open("rb") as handle:
        return {"description": handle.read().decode("utf-8")}


def sheet(job: Job, request: Request) -> dict[str, Any]:
    """{image, pdf}: the sheet as base64 PNG, and as a base64 vector PDF (what factories
    work from) when the engine made one."""
    images = outputs_b64(job)
    pdf = job.outputs.filter(content_type="application/pdf").order_by("index").first()
    body: dict[str, Any] = {"image": images[0] if images else None}
    if pdf is not None:
        with pdf.file.open("rb") as handle:
            body["pdf"] = base64.b64encode(handle.read()).decode()
    return body


SPECS = [
    ToolSpec("tech-pack", "Tech Pack Lab", "design", "/tech-pack", "Beta", order=200,
             eta_text="30-120 seconds per step", expected_seconds=60),
    ToolSpec("tech-pack.describe", "Tech Pack Lab: description", "design", None, "Beta",
             order=360, engine="techpack_describe",
             engine_path="workers.engines.techpack:describe_run",
             input_serializer=TechPackDescriptionInput,
             example={"description": "A relaxed linen shirt with a camp collar."},
             shape=Shape.DIRECT,
             endpoint="tech-pack/description", base64_inputs={"image": "image"},
             part_of="tech-pack", expected_seconds=20, respond=description),
    ToolSpec("tech-pack.process", "Tech Pack Lab: process", "design", None, "Beta", order=370,
             engine="techpack_process", engine_path="workers.engines.techpack.sheet:tech_pack_run",
             input_serializer=TechPackProcessInput,
             example={"tech_pack": "# Linen camp-collar shirt\n..."},
             shape=Shape.DIRECT,
             endpoint="tech-pack/process", base64_inputs={"image": "image"},
             part_of="tech-pack", expected_seconds=40, respond=sheet),
]
