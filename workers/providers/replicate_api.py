"""Replicate predictions adapter, through Replicate's official Python library (``replicate``).

Create, then poll: ``POST /v1/models/{owner}/{name}/predictions`` with ``{"input": {...}}`` for
a model given as ``owner/name``, or ``POST /v1/predictions`` with ``{"version", "input"}`` for
``owner/name:version`` (community models need their version); Bearer token. The answer is the
prediction ``{id, status, output, error, logs, metrics, urls, ...}``; ``GET
/v1/predictions/{id}`` is polled while its status is starting or processing, until succeeded
(``output``: a URL or a list of URLs, data URLs accepted too), failed (``error``, shown as is)
or canceled. Progress while processing follows the percentage Replicate reads from the
model's logs when it prints one.

The library is given our httpx transport (workers.providers.transport): it wraps it in its own
retrying transport, which never sees a 429 or a 5xx because ours turns them into errors first
(after its own Retry-After waits within the deadline).

The input field names depend on the model (``REPLICATE_MODELS``); a model not listed gets
IDM-VTON's (human_img, garm_img, garment_des, category). Configured ``options`` are merged into
the input. docs/providers/replicate.md cites Replicate's documentation for every field.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from workers.engines.base import EngineOutput, Progress
from workers.providers.calls import ProviderCall, ProviderHttpError, add_usage, outputs_named
from workers.providers.catalog import KIND_ENGINES
from workers.providers.config import ProviderConfig
from workers.providers.fashn import TRYON_TOOLS, TryonFields, sdk_base_url, tryon_input

KIND = "replicate"
LABEL = "Replicate prediction"
DEFAULT_MODEL = "cuuupid/idm-vton"
assert set(TRYON_TOOLS) == KIND_ENGINES[KIND], "catalog.KIND_ENGINES['replicate'] is out of date"

# model (owner/name) → its input fields
REPLICATE_MODELS: dict[str, TryonFields] = {
    "cuuupid/idm-vton": TryonFields(
        person="human_img", garment="garm_img", category="category", description="garment_des",
        categories={"tops": "upper_body", "bottoms": "lower_body", "one-pieces": "dresses"}),
}


def model_ref(config: ProviderConfig) -> str:
    return config.model.strip() or DEFAULT_MODEL


def made_by(engine: str, config: ProviderConfig, params: Mapping[str, Any] | None = None) -> str:
    return f"{KIND}:{model_ref(config)}"


def replicate_input(engine: str, config: ProviderConfig,
                    params: Mapping[str, Any]) -> dict[str, Any]:
    name = model_ref(config).partition(":")[0]
    return tryon_input(engine, config, params,
                       REPLICATE_MODELS.get(name, REPLICATE_MODELS[DEFAULT_MODEL]),
                       who="Replicate")


def replicate_run(config: ProviderConfig, engine: str, params: Mapping[str, Any],
                  progress: Progress) -> list[EngineOutput]:
    """Run one try-on job as a Replicate prediction: create it, poll it, fetch its output."""
    import httpx
    import replicate

    body = replicate_input(engine, config, params)
    ref = model_ref(config)
    name, _, version = ref.partition(":")
    with ProviderCall(config, progress, label=LABEL) as call:
        client = replicate.Client(
            api_token=config.api_key or "-", base_url=sdk_base_url(config),
            timeout=httpx.Timeout(float(config.timeout), connect=10.0),
            transport=call.transport(), trust_env=False)
        call.report(5, "Sending the images to Replicate")
        if version:
            prediction = call.sdk(lambda: client.predictions.create(version=version, input=body))
        else:
            prediction = call.sdk(lambda: client.predictions.create(model=name, input=body))
        if not prediction.id:
            raise ProviderHttpError("provider_error", "Replicate did not return a prediction id.")
        if _state(prediction)[0] != "done":
            prediction_id = prediction.id
            prediction = call.poll(lambda: call.sdk(lambda: client.predictions.get(prediction_id)),
                                   _tracking(call))
        metrics = getattr(prediction, "metrics", None)
        if isinstance(metrics, dict):
            add_usage("seconds", metrics.get("predict_time"))
        urls = _output_urls(prediction.output)
        images = call.output_images(urls, "Replicate returned no images.")
    outputs = outputs_named(images, TRYON_TOOLS[engine][1], LABEL)
    progress(100)
    return outputs


def _state(prediction: Any) -> tuple[str, str | None]:
    state = str(getattr(prediction, "status", "") or "").lower()
    if state == "succeeded":
        return "done", None
    if state in ("failed", "canceled", "aborted"):
        error = getattr(prediction, "error", None)
        return "failed", (str(error) if error else
                          "The prediction was canceled." if state != "failed" else None)
    if state == "starting":
        return "starting", None
    return "running", None


def _tracking(call: ProviderCall) -> Any:
    """_state, reporting the percentage Replicate reads from the model's logs."""
    def state(prediction: Any) -> tuple[str, str | None]:
        kind, text = _state(prediction)
        if kind == "running":
            try:
                progress = prediction.progress
            except (ValueError, TypeError, AttributeError, IndexError):  # best effort
                progress = None
            if progress is not None and 0 <= float(progress.percentage) <= 1:
                call.report(30 + 55 * float(progress.percentage),
                            f"The {LABEL} is working")
        return kind, text
    return state


def _output_urls(output: Any) -> list[str]:
    items = output if isinstance(output, list) else [output]
    return [str(item) for item in items if isinstance(item, str) and item]
