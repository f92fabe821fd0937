"""OpenAI-compatible image API adapter (OpenAI itself, gateways, self-hosted servers).

Spoken through OpenAI's official library (``openai``: ``OpenAI(base_url=...)`` and its
``post``, on ProviderCall's httpx transport, so the deadline, 429 and error rules are the other
adapters'); the request bodies are ours, because OpenAI-compatible servers differ in the
multipart name of the input images (``image_field``) and in taking ``response_format``.

Text-only calls go to ``POST {base_url}/images/generations`` (JSON: model, prompt, n, size,
response_format); calls with input images go to ``POST {base_url}/images/edits`` (multipart:
one ``image[]`` part per input image, prompt, model, n, size, optionally mask). Results are read
from ``data[].b64_json`` or fetched from ``data[].url`` (data URLs decoded; http(s) URLs fetched
with workers.fetch's address checks and the configured allow list, never with our API key).

Errors: HTTP 4xx/5xx with ``{"error": {"message": ...}}`` fail with the provider's message
(code provider_error; the API key scrubbed, capped at 500 characters); timeouts fail with
provider_timeout; HTTP 429 is retried after Retry-After or an exponential backoff, a bounded
number of times within the call's deadline, then fails with the provider's message.

The prompt is built from the tool's parameters (``openai_prompt``); per engine name:

- editorial_generate: the lead (or the original prompt), then the scene, pose, lighting,
  colour, camera, outfit-change and model texts as labelled sentences, on the outfit photo;
  three images. tonelab_generate: lighting, colour and camera texts applied to the outfit photo,
  matching the reference when one is given (as a second image); three images.
- open_lab: the partner's prompt, on image and image_2 when sent (generations when neither
  is); two images. editorial_product: the prompt and preset on the canvas; two images.
- recolor: "Recolour the {garment_type} to {target_color}, keep everything else: ...".
- refabric: "Change the fabric of the {target_garment} to {material_finish} {re_fabric}, ...".
- reshape: "Reshape the {target_garment}: {place}: {instruction}; ..., keep everything else".
- rebody: "Change the person's body type to {target_bodytype} ({specs}), keep ...".
- virtual_try_on (model, garment), restyle and garment_integration (outfit, garment),
  ecommerce_asset (outfit, accessory): the person first, the product second.

The HTTP plumbing every adapter shares (``ProviderCall``...) lives in workers.providers.calls;
its names stay importable from here.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from workers.engines.base import EngineError, EngineOutput, Progress
from workers.providers.calls import (  # noqa: F401 - re-exported: their old import path
    MAX_MESSAGE,
    USER_AGENT,
    ProviderCall,
    ProviderHttpError,
    add_usage,
    checked_image,
    data_url,
    image_type,
    input_bytes,
)
from workers.providers.catalog import OPENAI_ENGINES
from workers.providers.config import ProviderConfig

KIND = "openai"


# --- prompts per tool ----------------------------------------------------------------------

KEEP = ("keep everything else: the garment's shading, folds and texture, its prints, logos and "
        "trims, the person, the pose, the background and the framing stay as they are.")


def _t(params: Mapping[str, Any], key: str) -> str:
    value = params.get(key)
    return " ".join(str(value).split()) if value is not None else ""


def _sentence(label: str, text: str) -> str:
    text = text.strip().rstrip(".")
    return f"{label}: {text}." if text else ""


def _join(*parts: str) -> str:
    return " ".join(p for p in parts if p)


def _editorial(params: Mapping[str, Any]) -> str:
    lead = _t(params, "lead") or _t(params, "original_prompt")
    return _join(
        lead.rstrip(".") + "." if lead else
        "An editorial fashion photograph of the model wearing the outfit in the input image.",
        _sentence("Scene", _t(params, "scene_composition")),
        _sentence("Pose", _t(params, "pose_action")),
        _sentence("Lighting", _t(params, "lighting")),
        _sentence("Colour", _t(params, "color_style")),
        _sentence("Camera", _t(params, "camera_details")),
        _sentence("Outfit changes", _t(params, "outfit_changes")),
        _sentence("Model", _t(params, "model_features")),
        "Keep the garments' design, colours and details exactly as in the input image.",
    )


def _tonelab(params: Mapping[str, Any]) -> str:
    lead = _t(params, "lead") or _t(params, "original_prompt")
    reference = input_bytes(params, "reference") is not None
    return _join(
        "Regrade the photograph in the first image: keep the person, the outfit, the pose and "
        "the framing, and change only its light, colour and film look.",
        "Match the tone, palette and light of the second image." if reference else "",
        lead.rstrip(".") + "." if lead else "",
        _sentence("Lighting", _t(params, "lighting")),
        _sentence("Colour", _t(params, "color_style")),
        _sentence("Camera", _t(params, "camera_details")),
    )


def _open_lab(params: Mapping[str, Any]) -> str:
    prompt = _t(params, "prompt")
    if prompt:
        return prompt
    return "Render the input image as a clean, professional fashion photograph."


def _product(params: Mapping[str, Any]) -> str:
    preset = _t(params, "preset")
    return _join(
        "Stage the product in this canvas as a professional editorial product photograph"
        + (f" in the '{preset}' style." if preset else "."),
        _t(params, "prompt"),
        "Keep the product itself exactly as it is: shape, colours, materials, logos.",
    )


def _recolor(params: Mapping[str, Any]) -> str:
    return (f"Recolour the {_t(params, 'garment_type') or 'garment'} to "
            f"{_t(params, 'target_color')}, {KEEP}")


def _refabric(params: Mapping[str, Any]) -> str:
    fabric = _join(_t(params, "material_finish"), _t(params, "re_fabric"))
    return (f"Change the fabric of the {_t(params, 'target_garment') or 'garment'} to {fabric}, "
            "keep everything else: the garment's cut, fit, colour, seams and trims, the person, "
            "the pose, the background and the framing stay as they are.")


def _reshape(params: Mapping[str, Any]) -> str:
    changes = params.get("changes") or []
    items = []
    for change in changes if isinstance(changes, list) else []:
        if isinstance(change, Mapping):
            place, instruction = _t(change, "place"), _t(change, "instruction")
            items.append(f"{place}: {instruction}" if place else instruction)
    return (f"Reshape the {_t(params, 'target_garment') or 'garment'}: "
            f"{'; '.join(i for i in items if i) or 'as described'}. Keep everything else: the "
            "garment's colour, fabric and details, the person, the pose, the background and the "
            "framing stay as they are.")


def _rebody(params: Mapping[str, Any]) -> str:
    specs = _t(params, "specs")
    return (f"Change the person's body type to {_t(params, 'target_bodytype') or 'standard fit'}"
            f"{f' ({specs})' if specs else ''}, keep everything else: the face, the outfit "
            "and how it drapes, the pose, the background and the framing stay as they are.")


def _dress(what: str) -> Callable[[Mapping[str, Any]], str]:
    def prompt(params: Mapping[str, Any]) -> str:
        return (f"Dress the person in the first image in the {what} shown in the second image, "
                "true to its shape, colour, fabric and details, keep everything else: the "
                "person's face, body and pose, the rest of the outfit, the background and the "
                "framing stay as they are.")
    return prompt


def _accessory(params: Mapping[str, Any]) -> str:
    kind = _t(params, "kind") or "accessory"
    return (f"Place the {kind} shown in the second image on the model in the first image, worn "
            "naturally at its real size, keep everything else as it is.")


@dataclass(frozen=True)
class ToolSpec:
    prompt: Callable[[Mapping[str, Any]], str]
    images: tuple[str, ...]  # engine parameters holding input images, in the order sent
    required: tuple[str, ...]  # of those, the ones the tool cannot run without
    n: int
    filename: str  # with {i} for several outputs
    notes: bool = False  # write notes.json like the local engine does


OPENAI_TOOLS: dict[str, ToolSpec] = {
    "editorial_generate": ToolSpec(_editorial, ("image",), ("image",), 3, "editorial_{i}",
                                   notes=True),
    "tonelab_generate": ToolSpec(_tonelab, ("image", "reference"), ("image",), 3, "tonelab_{i}",
                                 notes=True),
    "open_lab": ToolSpec(_open_lab, ("image", "image_2"), (), 2, "result-{i}"),
    "editorial_product": ToolSpec(_product, ("image",), ("image",), 2, "editorial-product-{i}"),
    "recolor": ToolSpec(_recolor, ("image",), ("image",), 1, "recolor"),
    "refabric": ToolSpec(_refabric, ("image",), ("image",), 1, "refabric"),
    "reshape": ToolSpec(_reshape, ("image",), ("image",), 1, "reshape"),
    "rebody": ToolSpec(_rebody, ("image",), ("image",), 1, "rebody"),
    "virtual_try_on": ToolSpec(_dress("garment"), ("model", "garment"), ("model", "garment"), 1,
                               "try-on"),
    "restyle": ToolSpec(_dress("garment"), ("outfit", "garment"), ("outfit", "garment"), 1,
                        "restyle-{i}"),
    "garment_integration": ToolSpec(_dress("garment"), ("outfit", "garment"),
                                    ("outfit", "garment"), 1, "garment-integration"),
    "ecommerce_asset": ToolSpec(_accessory, ("outfit", "garment"), ("outfit", "garment"), 1,
                                "ecommerce-asset"),
}


assert set(OPENAI_TOOLS) == OPENAI_ENGINES, "catalog.OPENAI_ENGINES is out of date"


def made_by(engine: str, config: ProviderConfig, params: Mapping[str, Any] | None = None) -> str:
    """The engine label of a job run here: "openai:<model>" ("openai:default" without one)."""
    return f"{KIND}:{config.model or 'default'}"


def openai_prompt(engine: str, params: Mapping[str, Any]) -> str:
    """The prompt sent for a tool's parameters (see the module docstring)."""
    return OPENAI_TOOLS[engine].prompt(params)


# --- the adapter ---------------------------------------------------------------------------


def _response_format(config: ProviderConfig) -> str | None:
    if config.response_format == "auto":
        return None if config.model.lower().startswith("gpt-image") else "b64_json"
    return config.response_format or None


def openai_client(config: ProviderConfig, call: ProviderCall) -> Any:
    """OpenAI's library on this call's transport (its own retries off: ProviderCall's rules)."""
    import openai

    return openai.OpenAI(api_key=config.api_key or "-", base_url=config.root, max_retries=0,
                         timeout=float(config.timeout), http_client=call.http_client())


def _post(call: ProviderCall, client: Any, path: str, **kwargs: Any) -> Any:
    """POST through the library; the decoded JSON answer."""
    import httpx

    response = call.sdk(lambda: client.post(path, cast_to=httpx.Response, **kwargs))
    try:
        return json.loads(response.content)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ProviderHttpError("provider_error", "The image provider answered with something "
                                "other than JSON.", response.status_code) from exc


def openai_images(config: ProviderConfig, engine: str, params: Mapping[str, Any],
                  progress: Progress) -> list[EngineOutput]:
    """Run one tool's job on an OpenAI-compatible image API."""
    spec = OPENAI_TOOLS.get(engine)
    if spec is None:
        raise EngineError("provider_error", f"The image provider cannot run {engine}.")
    for name in spec.required:
        if input_bytes(params, name) is None:
            raise EngineError("bad_input", f"The {name.replace('_', ' ')} image is missing.")
    images = [(name, data) for name in spec.images
              if (data := input_bytes(params, name)) is not None]
    prompt = spec.prompt(params)
    n = int(config.n or spec.n)
    fields: dict[str, Any] = {"prompt": prompt, "n": n}
    if config.model:
        fields["model"] = config.model
    if config.size:
        fields["size"] = config.size
    if config.quality:
        fields["quality"] = config.quality
    if (fmt := _response_format(config)) is not None:
        fields["response_format"] = fmt
    fields.update(dict(config.options))

    with ProviderCall(config, progress, label="image provider") as call:
        call.report(5, "Sending the request to the image provider")
        client = openai_client(config, call)
        try:
            if images:
                files = []
                for k, (_name, data) in enumerate(images):
                    kind = image_type(data) or ("application/octet-stream", "png")
                    files.append((config.image_field,
                                  (f"image-{k + 1}.{kind[1]}", data, kind[0])))
                mask = input_bytes(params, "mask")
                if mask is not None:
                    files.append(("mask", ("mask.png", mask, "image/png")))
                form = {k: v if isinstance(v, str) else json.dumps(v) for k, v in fields.items()}
                answer = _post(call, client, "/images/edits", body=form, files=files,
                               options={"headers": {"Content-Type": "multipart/form-data"}})
            else:
                answer = _post(call, client, "/images/generations", body=fields)
        finally:
            client.close()
        call.report(80, "Reading the results")
        usage = answer.get("usage") if isinstance(answer, dict) else None
        if isinstance(usage, dict):
            add_usage("tokens", usage.get("total_tokens"))
        items = answer.get("data") if isinstance(answer, dict) else None
        if not isinstance(items, list) or not items:
            raise EngineError("provider_error", "The image provider returned no images.")
        results: list[bytes] = []
        revised: list[str] = []
        for item in items[:n]:
            if not isinstance(item, dict):
                continue
            if isinstance(item.get("b64_json"), str) and item["b64_json"]:
                results.append(call.decode_b64(item["b64_json"]))
            elif isinstance(item.get("url"), str) and item["url"]:
                results.append(call.output_image(item["url"]))
            else:
                raise EngineError("provider_error",
                                  "The image provider returned an item without an image.")
            if isinstance(item.get("revised_prompt"), str):
                revised.append(item["revised_prompt"])
            call.report(80 + 15 * len(results) / n)
    outputs = []
    for i, data in enumerate(results, start=1):
        data, content_type, ext = checked_image(data, "image provider")
        stem = spec.filename.format(i=i) if "{i}" in spec.filename or len(results) == 1 \
            else f"{spec.filename}-{i}"
        outputs.append(EngineOutput(data, content_type, f"{stem}.{ext}"))
    if spec.notes:
        notes: dict[str, Any] = {"engine": f"{engine}.provider", "provider": "openai",
                                 "model": config.model or None, "prompt": prompt}
        if revised:
            notes["revised_prompts"] = revised
        outputs.append(EngineOutput(json.dumps(notes, ensure_ascii=False, indent=2).encode(),
                                    "application/json", "notes.json"))
    progress(100)
    return outputs
