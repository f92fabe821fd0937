"""How direct tools answer, in the spec's shapes: the pieces the tools' spec modules pick."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import Any

from django.urls import reverse
from rest_framework.request import Request

from jobs.models import Job


def _read(output: Any) -> bytes:
    with output.file.open("rb") as handle:
        return bytes(handle.read())


def image_output(job: Job, request: Request) -> dict[str, Any]:
    """{success, image_data: {data}, url, job_id} of the first output."""
    output = job.outputs.order_by("index").first()
    if output is None:
        return {"success": False, "job_id": str(job.pk)}
    data = base64.b64encode(_read(output)).decode()
    url = request.build_absolute_uri(
        reverse("job-output", kwargs={"job_id": job.pk, "index": output.index}))
    return {"success": True, "image_data": {"data": data}, "url": url, "job_id": str(job.pk)}


def url_output(job: Job, request: Request) -> dict[str, Any]:
    """{success, url, job_id}."""
    body = image_output(job, request)
    return {"success": body["success"], "url": body.get("url"), "job_id": body["job_id"]}


def plain_image_output(job: Job, request: Request) -> dict[str, Any]:
    """As image_output, with image_data a base64 string (what those pages read)."""
    body = image_output(job, request)
    if body["success"]:
        body["image_data"] = body["image_data"]["data"]
    return body


def outputs_b64(job: Job) -> list[str]:
    return [base64.b64encode(_read(output)).decode()
            for output in job.outputs.order_by("index")
            if output.content_type.startswith("image/")]


def json_output(job: Job, request: Request) -> dict[str, Any]:
    """The job's JSON output as the body."""
    output = job.outputs.filter(content_type="application/json").order_by("index").first()
    if output is None:
        return {}
    return dict(json.loads(_read(output)))


def results(count: int) -> Callable[[Job, Request], dict[str, Any]]:
    """{result1..resultN}: base64 images (the pages pad fewer by repeating the last), the job's
    JSON notes when it has some, and its id (the page labels the results by its engine)."""

    def answer(job: Job, request: Request) -> dict[str, Any]:
        images = outputs_b64(job)
        body: dict[str, Any] = {f"result{i + 1}": img for i, img in enumerate(images[:count])}
        body["job_id"] = str(job.pk)
        notes = json_output(job, request)
        if notes:
            body["notes"] = notes
        return body

    return answer
