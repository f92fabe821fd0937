"""Fashion try-on API adapter: the submit-and-poll protocol of FASHN-style services.

``POST {base_url}/run`` with ``Authorization: Bearer <key>`` and JSON
``{model_image, garment_image, category}`` (images as base64 data URLs, plus ``model_name``
when configured and the configured ``options``) answers ``{id, error}``; then
``GET {base_url}/status/{id}`` answers ``{id, status, output, error}`` with status one of
starting, in_queue, processing, completed, failed (canceled is read as failed). Output entries
are URLs (fetched with workers.fetch's address checks and the configured allow list, without
our key) or data URLs.

Progress goes 5 (submitting), 10 (starting), 20 (in queue), 30→85 while processing, 90
(downloading), 100. The whole call honours the configured deadline (provider_timeout); a
failed job fails with the provider's error message (provider_error). A transient poll failure
(HTTP 5xx, network error, timeout) is tolerated max_retries times in a row: the job is already
paid for and running. The remote job is not canceled when ours is (the protocol has no cancel).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from workers.engines.base import EngineError, EngineOutput, Progress
from workers.providers.config import TRYON_CATEGORIES, ProviderConfig
from workers.providers.openai_images import (
    ProviderCall,
    ProviderHttpError,
    checked_image,
    data_url,
    input_bytes,
)

# engine name → (person parameter, output file stem); the garment is always "garment".
TRYON_TOOLS: dict[str, tuple[str, str]] = {
    "virtual_try_on": ("model", "try-on"),
    "restyle": ("outfit", "restyle-1"),
    "garment_integration": ("outfit", "garment-integration"),
}

STATUS_PROGRESS = {"starting": 10.0, "in_queue": 20.0}
LABEL = "try-on provider"


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


def tryon_run(config: ProviderConfig, engine: str, params: Mapping[str, Any],
              progress: Progress) -> list[EngineOutput]:
    """Run one try-on job on the provider: submit, poll until done, fetch the outputs."""
    if engine not in TRYON_TOOLS:
        raise EngineError("provider_error", f"The try-on provider cannot run {engine}.")
    person_key, stem = TRYON_TOOLS[engine]
    person = input_bytes(params, person_key)
    garment = input_bytes(params, "garment")
    if person is None or garment is None:
        raise EngineError("bad_input", "Both the person image and the garment image are needed.")
    body: dict[str, Any] = {
        "model_image": data_url(person),
        "garment_image": data_url(garment),
        "category": tryon_category(params, config),
    }
    if config.model:
        body["model_name"] = config.model
    body.update(dict(config.options))

    with ProviderCall(config, progress, label=LABEL) as call:
        call.report(5, "Sending the images to the try-on provider")
        submitted = call.request("POST", "/run", json=body)
        if not isinstance(submitted, dict):
            raise EngineError("provider_error", "The try-on provider's answer is not an object.")
        if submitted.get("error"):
            raise EngineError("provider_error", call.scrub(_error_text(submitted["error"])))
        job_id = submitted.get("id")
        if not isinstance(job_id, str | int) or str(job_id) == "":
            raise EngineError("provider_error", "The try-on provider did not return a job id.")
        status = _poll(call, str(job_id))
        outputs_raw = status.get("output")
        if isinstance(outputs_raw, str):
            outputs_raw = [outputs_raw]
        if not isinstance(outputs_raw, list) or not outputs_raw:
            raise EngineError("provider_error", "The try-on provider returned no images.")
        call.report(90, "Downloading the result")
        results = []
        for value in outputs_raw:
            if not isinstance(value, str) or not value:
                raise EngineError("provider_error",
                                  "The try-on provider returned an output that is not a URL.")
            results.append(checked_image(call.output_image(value), LABEL))
    outputs = []
    for i, (data, content_type, ext) in enumerate(results, start=1):
        name = stem if len(results) == 1 else f"{stem}-{i}"
        outputs.append(EngineOutput(data, content_type, f"{name}.{ext}"))
    progress(100)
    return outputs


def _poll(call: ProviderCall, job_id: str) -> dict[str, Any]:
    """Poll the job until it completes; its last status answer."""
    config = call.config
    processing_polls = 0
    failures = 0
    path = f"/status/{quote(job_id, safe='')}"
    while True:
        if call.remaining() <= 0:
            raise EngineError(
                "provider_timeout",
                f"The try-on provider did not finish within {float(config.deadline):g} seconds.")
        call.sleep(float(config.poll_interval), "Waiting for the try-on provider")
        if call.remaining() <= 0:
            continue  # reported above as a timeout
        try:
            status = call.request("GET", path)
        except ProviderHttpError as exc:
            if exc.transient and failures < int(config.max_retries):
                failures += 1
                continue
            raise
        failures = 0
        if not isinstance(status, dict):
            raise EngineError("provider_error", "The try-on provider's status is not an object.")
        state = str(status.get("status") or "").lower()
        if state == "completed":
            return status
        if state in ("failed", "canceled", "cancelled"):
            raise EngineError("provider_error",
                              call.scrub(_error_text(status.get("error"))
                                         or "The try-on provider could not process the images."))
        if state in STATUS_PROGRESS:
            call.report(STATUS_PROGRESS[state], "Queued at the try-on provider")
        else:  # processing, or a state this adapter does not know: still running
            processing_polls += 1
            call.report(30.0 + 55.0 * (1.0 - 0.85 ** processing_polls),
                        "The try-on provider is working")


def _error_text(error: Any) -> str:
    if isinstance(error, Mapping):
        return str(error.get("message") or error.get("name") or "")
    return str(error) if error else ""
