"""FASHN API adapter, through FASHN's official Python library (``fashn`` on PyPI).

One prediction per output: ``POST /v1/run`` with ``{"model_name": ..., "inputs": {...}}`` and a
Bearer key, answered ``{"id", "error"}``; then ``GET /v1/status/{id}`` until its status
(starting, in_queue, processing) becomes completed (``output``: CDN URLs, or data URLs with
``return_base64``) or failed / canceled / time_out (``error: {name, message}``, shown as is).
docs/providers/fashn.md cites FASHN's documentation for every field.

Which model runs a tool (``model`` in the configuration overrides the try-on family's):

- virtual_try_on (model, garment), restyle and garment_integration (outfit, garment):
  ``tryon-v1.6`` with inputs model_image, garment_image, category (``tryon-max`` when
  configured: model_image, product_image);
- remodel: ``product-to-model`` (product_image: the catalogue photo, model_image: the library
  model) for the Remodel tool; ``model-swap`` (model_image: the photo, face_reference: the
  library model) for the Model Swap tool, whose jobs carry ``modelId``;
- flats: ``product-to-model`` once per item of the look (its front view, else another), on the
  model photo when one is given.

The library is given our httpx transport (workers.providers.transport) and max_retries=0, so
the deadline, 429 and error rules are ProviderCall's; images go as base64 data URLs, which the
API documents as accepted wherever it takes an image URL. Configured ``options`` are merged
into ``inputs`` (e.g. {"mode": "quality"}).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from workers.engines.base import EngineError, EngineOutput, Progress
from workers.providers.calls import (
    ProviderCall,
    ProviderHttpError,
    add_usage,
    data_url,
    input_bytes,
    outputs_named,
)
from workers.providers.catalog import KIND_ENGINES
from workers.providers.config import TRYON_CATEGORIES, ProviderConfig

KIND = "fashn"
LABEL = "FASHN API"
TRYON_MODEL = "tryon-v1.6"
CREDITS_HEADER = "x-fashn-credits-used"  # credits the prediction cost, on its final status
RUNNING = {"starting": "starting", "in_queue": "queued", "processing": "running"}

# engine name → (person parameter, output file stem) for the try-on family; the garment is
# always "garment".
TRYON_TOOLS: dict[str, tuple[str, str]] = {
    "virtual_try_on": ("model", "try-on"),
    "restyle": ("outfit", "restyle-1"),
    "garment_integration": ("outfit", "garment-integration"),
}
FASHN_TOOLS = {*TRYON_TOOLS, "flats", "remodel"}
assert FASHN_TOOLS == KIND_ENGINES[KIND], "catalog.KIND_ENGINES['fashn'] is out of date"

FLATS_ORDER = ("overlayer", "top", "bottom", "shoes")
FLATS_VIEWS = ("FRONT", "SIDE", "BACK")


def tryon_category(params: Mapping[str, Any], config: ProviderConfig) -> str:
    """The job's category when the protocol knows it (top/bottom/dress spellings mapped), else
    the configured default."""
    raw = str(params.get("category") or "").strip().lower().replace("_", "-").replace(" ", "-")
    aliases = {"top": "tops", "upper": "tops", "upper-body": "tops",
               "bottom": "bottoms", "lower": "bottoms", "lower-body": "bottoms",
               "one-piece": "one-pieces", "dress": "one-pieces", "dresses": "one-pieces",
               "full": "one-pieces"}
    raw = aliases.get(raw, raw)
    return raw if raw in TRYON_CATEGORIES else config.category


def tryon_images(engine: str, params: Mapping[str, Any], *, who: str) -> tuple[bytes, bytes]:
    """The person and garment images of a try-on family job, both required; ``who`` names the
    provider for a tool it cannot run."""
    if engine not in TRYON_TOOLS:
        raise EngineError("provider_error", f"{who} cannot run {engine}.")
    person = input_bytes(params, TRYON_TOOLS[engine][0])
    garment = input_bytes(params, "garment")
    if person is None or garment is None:
        raise EngineError("bad_input", "Both the person image and the garment image are needed.")
    return person, garment


def garment_description(params: Mapping[str, Any]) -> str:
    """The garment's words for a model with a required description field."""
    text = " ".join(str(params.get("description") or params.get("garment_type") or "").split())
    return text or "a garment"


@dataclass(frozen=True)
class TryonFields:
    """Where a hosted try-on model (on fal or Replicate) takes a job's inputs."""

    person: str
    garment: str
    category: str = ""  # the model's garment-type field, "" when it has none
    categories: Mapping[str, str] = field(default_factory=dict)  # ours → the model's
    category_default: str = ""  # sent for "auto" when the field is required
    description: str = ""  # a required garment-description field


def tryon_input(engine: str, config: ProviderConfig, params: Mapping[str, Any],
                fields: TryonFields, *, who: str) -> dict[str, Any]:
    """The JSON input a try-on family job sends to a hosted model with these ``fields``; the
    account's configured ``options`` are merged in."""
    person, garment = tryon_images(engine, params, who=who)
    body: dict[str, Any] = {fields.person: data_url(person), fields.garment: data_url(garment)}
    if fields.category:
        value = fields.categories.get(tryon_category(params, config)) or fields.category_default
        if value:
            body[fields.category] = value
    if fields.description:
        body[fields.description] = garment_description(params)
    body.update(dict(config.options))
    return body


def model_for(engine: str, config: ProviderConfig, params: Mapping[str, Any] | None) -> str:
    """The FASHN model_name a tool's job runs with."""
    if engine in TRYON_TOOLS:
        return config.model or TRYON_MODEL
    if engine == "remodel" and params is not None and params.get("modelId"):
        return "model-swap"  # the Model Swap tool: same engine, the photo's person re-cast
    return "product-to-model"


def made_by(engine: str, config: ProviderConfig, params: Mapping[str, Any] | None = None) -> str:
    return f"{KIND}:{model_for(engine, config, params)}"


def _need(params: Mapping[str, Any], name: str, what: str) -> bytes:
    data = input_bytes(params, name)
    if data is None:
        raise EngineError("bad_input", f"The {what} is missing.")
    return data


def predictions(engine: str, config: ProviderConfig,
                params: Mapping[str, Any]) -> list[tuple[str, dict[str, Any], str]]:
    """The predictions a job needs: (model_name, inputs, output file stem) each."""
    model = model_for(engine, config, params)
    options = dict(config.options)
    if engine in TRYON_TOOLS:
        stem = TRYON_TOOLS[engine][1]
        wearer, garment = tryon_images(engine, params, who="FASHN")
        if model == "tryon-max":
            inputs = {"model_image": data_url(wearer), "product_image": data_url(garment)}
        else:
            inputs = {"model_image": data_url(wearer), "garment_image": data_url(garment),
                      "category": tryon_category(params, config)}
        return [(model, {**inputs, **options}, stem)]
    if engine == "remodel":
        photo = _need(params, "image", "catalogue photo")
        face = _need(params, "model_face", "library model's photo")
        if model == "model-swap":
            inputs = {"model_image": data_url(photo), "face_reference": data_url(face)}
        else:
            inputs = {"product_image": data_url(photo), "model_image": data_url(face)}
        return [(model, {**inputs, **options}, "remodel")]
    if engine == "flats":
        person = input_bytes(params, "model")
        runs = []
        for category in FLATS_ORDER:
            views = params.get(category)
            if not isinstance(views, Mapping):
                continue
            product = next((v for view in FLATS_VIEWS
                            if (v := input_bytes(views, view)) is not None), None)
            if product is None:
                continue
            inputs = {"product_image": data_url(product)}
            if person is not None:
                inputs["model_image"] = data_url(person)
            runs.append((model, {**inputs, **options}, f"flats-{category}"))
        if not runs:
            raise EngineError("no_items", "No clothing items were given: add at least one of "
                              "shoes, bottom, top or overlayer with a _FRONT image.")
        return runs
    raise EngineError("provider_error", f"FASHN cannot run {engine}.")


def sdk_base_url(config: ProviderConfig) -> str:
    """The library adds /v1 to its paths: the API root without it."""
    root = config.root
    return root[: -len("/v1")] if root.endswith("/v1") else root


def fashn_run(config: ProviderConfig, engine: str, params: Mapping[str, Any],
              progress: Progress) -> list[EngineOutput]:
    """Run one job on FASHN: submit each prediction, poll it to the end, fetch its outputs."""
    import fashn

    runs = predictions(engine, config, params)
    outputs: list[EngineOutput] = []
    with ProviderCall(config, progress, label=LABEL) as call:
        client = fashn.Fashn(api_key=config.api_key or "-", base_url=sdk_base_url(config),
                             max_retries=0, timeout=float(config.timeout),
                             http_client=call.http_client())
        try:
            for k, (model, inputs, stem) in enumerate(runs):
                call.report(5, "Sending the images to FASHN")
                urls = _predict(call, client, model, inputs)
                call.report(90 * (k + 1) / len(runs), "Downloading the result")
                outputs.extend(outputs_named([call.output_image(u) for u in urls], stem, LABEL))
        finally:
            client.close()
    progress(100)
    return outputs


def _predict(call: ProviderCall, client: Any, model: str, inputs: dict[str, Any]) -> list[str]:
    """Submit one prediction and poll it to the end; its output URLs."""

    def submit() -> Any:
        return client.predictions.run(model_name=model, inputs=inputs)

    submitted = call.sdk(submit)
    if submitted.error:
        raise ProviderHttpError("provider_error", call.scrub(_error_text(submitted.error)))
    if not submitted.id:
        raise ProviderHttpError("provider_error", "FASHN did not return an id.")
    prediction_id = str(submitted.id)

    def status() -> Any:
        raw = call.sdk(lambda: client.predictions.with_raw_response.status(prediction_id))
        answer = raw.parse()
        if str(getattr(answer, "status", "")) == "completed":
            add_usage("credits", raw.headers.get(CREDITS_HEADER))
        return answer

    final = call.poll(status, _state)
    output = final.output
    urls = [u for u in (output if isinstance(output, list) else [output])
            if isinstance(u, str) and u]
    if not urls:
        raise ProviderHttpError("provider_error", "FASHN returned no images.")
    return urls


def _state(status: Any) -> tuple[str, str | None]:
    state = str(getattr(status, "status", "") or "").lower()
    if state == "completed":
        return "done", None
    if state in ("failed", "canceled", "cancelled", "time_out"):
        return "failed", _error_text(getattr(status, "error", None)) or None
    return RUNNING.get(state, "running"), None


def _error_text(error: Any) -> str:
    if error is None:
        return ""
    if isinstance(error, Mapping):
        return str(error.get("message") or error.get("name") or "")
    if isinstance(error, str):
        return error
    return str(getattr(error, "message", None) or getattr(error, "name", None) or "")
