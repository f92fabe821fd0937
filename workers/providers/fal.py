"""fal queue API adapter: try-on models hosted on fal (Leffa, IDM-VTON, CatVTON, ...).

Spoken over HTTP with ProviderCall, not through ``fal-client``: that library reads its queue
host from the FAL_QUEUE_RUN_HOST environment variable once, at import, and always calls it over
https, so it cannot be pointed at a given base URL per account (nor at a loopback test server).

- submit: ``POST {base_url}/{model_id}`` with the model's input JSON and
  ``Authorization: Key <key>``; answers ``{"request_id", "status_url", "response_url", ...}``;
- status: ``GET {base_url}/{owner}/{alias}/requests/{request_id}/status`` (fal addresses a
  request by the first two segments of the model id) answers ``{"status": "IN_QUEUE",
  "queue_position": n}``, ``IN_PROGRESS`` or ``COMPLETED`` (with ``error`` when it failed);
- result: ``GET {base_url}/{owner}/{alias}/requests/{request_id}`` answers the model's output,
  ``{"image": {"url", ...}}`` or ``{"images": [...]}``; a failed request answers an HTTP error
  with ``{"detail": "..."}`` or a validation list ``{"detail": [{"loc", "msg"}]}``, shown as
  fal words it.

Images go as base64 data URIs (fal documents URLs as what every model takes and data URIs as
accepted by some; see docs/providers/fal.md). The input field names depend on the model
(``FAL_MODELS``); a model not listed gets Leffa's (human_image_url, garment_image_url).
Configured ``options`` are merged into the input.
docs/providers/fal.md cites fal's documentation for every field.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from workers.engines.base import EngineOutput, Progress
from workers.providers.calls import ProviderCall, ProviderHttpError, add_usage, outputs_named
from workers.providers.catalog import KIND_ENGINES
from workers.providers.config import ProviderConfig
from workers.providers.fashn import TRYON_TOOLS, TryonFields, tryon_input

KIND = "fal"
LABEL = "fal queue"
DEFAULT_MODEL = "fal-ai/leffa/virtual-tryon"
assert set(TRYON_TOOLS) == KIND_ENGINES[KIND], "catalog.KIND_ENGINES['fal'] is out of date"


@dataclass(frozen=True)
class FalModel(TryonFields):
    """A fal model's input fields; a model not listed gets Leffa's two image fields."""

    person: str = "human_image_url"
    garment: str = "garment_image_url"


FAL_MODELS: dict[str, FalModel] = {
    "fal-ai/leffa/virtual-tryon": FalModel(
        category="garment_type", categories={"tops": "upper_body", "bottoms": "lower_body",
                                             "one-pieces": "dresses"},
        category_default="upper_body"),
    "fal-ai/idm-vton": FalModel(description="description"),
    "fal-ai/cat-vton": FalModel(
        category="cloth_type", categories={"tops": "upper", "bottoms": "lower",
                                           "one-pieces": "overall"},
        category_default="upper"),
    "fal-ai/fashn/tryon/v1.6": FalModel(
        person="model_image", garment="garment_image", category="category",
        categories={"tops": "tops", "bottoms": "bottoms", "one-pieces": "one-pieces",
                    "auto": "auto"}),
}


def model_id(config: ProviderConfig) -> str:
    return config.model.strip("/") or DEFAULT_MODEL


def made_by(engine: str, config: ProviderConfig, params: Mapping[str, Any] | None = None) -> str:
    return f"{KIND}:{model_id(config)}"


def fal_input(engine: str, config: ProviderConfig, params: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON input a try-on job sends to its fal model."""
    return tryon_input(engine, config, params, FAL_MODELS.get(model_id(config), FalModel()),
                       who="fal")


def request_root(model: str) -> str:
    """Where fal keeps a model's requests: the first two segments of its id."""
    parts = [p for p in model.split("/") if p]
    return "/".join(quote(p, safe="") for p in parts[:2])


def fal_run(config: ProviderConfig, engine: str, params: Mapping[str, Any],
            progress: Progress) -> list[EngineOutput]:
    """Run one try-on job on fal's queue: submit, poll the status, read the result."""
    body = fal_input(engine, config, params)
    model = model_id(config)
    auth = f"Key {config.api_key}" if config.api_key else None
    with ProviderCall(config, progress, label=LABEL, authorization=auth) as call:
        call.report(5, "Sending the images to fal")
        path = "/" + "/".join(quote(p, safe="") for p in model.split("/") if p)
        submitted = call.request("POST", path, json=body)
        request_id = submitted.get("request_id") if isinstance(submitted, dict) else None
        if not isinstance(request_id, str) or not request_id:
            raise ProviderHttpError("provider_error", "fal did not return a request id.")
        base = f"/{request_root(model)}/requests/{quote(request_id, safe='')}"
        final = call.poll(lambda: call.request("GET", base + "/status"), _state)
        metrics = final.get("metrics") if isinstance(final, dict) else None
        if isinstance(metrics, dict):
            add_usage("seconds", metrics.get("inference_time"))
        call.report(88, "Reading the result")
        result = call.request("GET", base)
        urls = _image_urls(result)
        images = call.output_images(urls, "fal returned no images.")
    outputs = outputs_named(images, TRYON_TOOLS[engine][1], LABEL)
    progress(100)
    return outputs


def _state(status: Any) -> tuple[str, str | None]:
    if not isinstance(status, dict):
        raise ProviderHttpError("provider_error", "fal's status is not an object.")
    state = str(status.get("status") or "").upper()
    error = status.get("error")
    if state in ("FAILED", "CANCELED", "CANCELLED") or (state == "COMPLETED" and error):
        return "failed", str(error or "") or None
    if state == "COMPLETED":
        return "done", None
    if state == "IN_QUEUE":
        position = status.get("queue_position")
        return "queued", (f"position {int(position) + 1}"
                          if isinstance(position, int) and position >= 0 else None)
    return "running", None


def _image_urls(result: Any) -> list[str]:
    if not isinstance(result, dict):
        return []
    items: list[Any] = []
    if isinstance(result.get("images"), list):
        items = result["images"]
    elif result.get("image") is not None:
        items = [result["image"]]
    urls = []
    for item in items:
        url = item.get("url") if isinstance(item, dict) else item
        if isinstance(url, str) and url:
            urls.append(url)
    return urls
