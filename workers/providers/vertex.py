"""Vertex AI virtual try-on adapter: the model's ``:predict`` REST call with a service account.

Authentication goes through google-auth (Google's official library): the service account's JSON
key (the account's api_key, or service_account) signs a JWT that is exchanged for an access
token at the key's ``token_uri``; the token is sent as ``Authorization: Bearer``. The call
itself is ``POST {base_url}/projects/{project}/locations/{location}/publishers/google/models/
{model}:predict`` with::

    {"instances": [{"personImage": {"image": {"bytesBase64Encoded": ...}},
                    "productImages": [{"image": {"bytesBase64Encoded": ...}}]}],
     "parameters": {"sampleCount": 1, ...options}}

answered ``{"predictions": [{"mimeType", "bytesBase64Encoded"} | {"raiFilteredReason"}]}``;
errors are Google's ``{"error": {"code", "message", "status"}}`` and shown as Google words
them. The REST call is spoken with ProviderCall rather than through ``google-genai``: it is one
synchronous request, and this way its deadline, 429 retries and error reading are the other
adapters'. Vertex has no queue to report, so progress moves at the token, the request and the
answer. docs/providers/vertex.md cites Google's documentation for every field.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote, urlsplit

from workers.engines.base import EngineError, EngineOutput, Progress
from workers.providers.calls import (
    ProviderCall,
    ProviderHttpError,
    add_usage,
    outputs_named,
)
from workers.providers.catalog import KIND_ENGINES
from workers.providers.config import ProviderConfig
from workers.providers.fashn import TRYON_TOOLS, tryon_images

KIND = "vertex"
LABEL = "Vertex AI"
DEFAULT_MODEL = "virtual-try-on-preview-08-04"
SCOPE = "https://www.googleapis.com/auth/cloud-platform"
assert set(TRYON_TOOLS) == KIND_ENGINES[KIND], "catalog.KIND_ENGINES['vertex'] is out of date"


def model_id(config: ProviderConfig) -> str:
    return config.model.strip() or DEFAULT_MODEL


def made_by(engine: str, config: ProviderConfig, params: Mapping[str, Any] | None = None) -> str:
    return f"{KIND}:{model_id(config)}"


def service_account_info(config: ProviderConfig) -> dict[str, Any]:
    try:
        info = json.loads(config.service_account or config.api_key or "null")
    except ValueError:
        info = None
    if not isinstance(info, dict) or not info.get("client_email") or not info.get("private_key"):
        raise EngineError("provider_error",
                          "The Vertex AI key is not a service account's JSON key.")
    return info


def location_of(config: ProviderConfig) -> str:
    if config.location:
        return config.location
    host = urlsplit(config.base_url).hostname or ""
    found = re.match(r"^([a-z0-9-]+)-aiplatform\.googleapis\.com$", host)
    return found.group(1) if found else "us-central1"


def predict_body(engine: str, config: ProviderConfig, params: Mapping[str, Any]) -> dict[str, Any]:
    import base64

    person, garment = tryon_images(engine, params, who="Vertex AI")

    def image(data: bytes) -> dict[str, Any]:
        return {"image": {"bytesBase64Encoded": base64.b64encode(data).decode("ascii")}}

    parameters: dict[str, Any] = {"sampleCount": int(config.n or 1)}
    parameters.update(dict(config.options))
    return {"instances": [{"personImage": image(person), "productImages": [image(garment)]}],
            "parameters": parameters}


def access_token(config: ProviderConfig, call: ProviderCall) -> str:
    """A token for the service account, from its token_uri (google-auth's JWT grant)."""
    import google.auth.exceptions
    import requests
    from google.auth.transport.requests import Request
    from google.oauth2 import service_account

    info = service_account_info(config)
    try:
        credentials = service_account.Credentials.from_service_account_info(
            info, scopes=[SCOPE])
    except (ValueError, KeyError) as exc:
        raise EngineError("provider_error",
                          f"The Vertex AI service account key cannot be used: {exc}") from exc
    session = requests.Session()
    session.trust_env = False
    if config.proxy:
        session.proxies = {"http": config.proxy, "https": config.proxy}

    class Bounded(Request):  # the token request within the job's deadline
        def __call__(self, *args: Any, **kwargs: Any) -> Any:
            kwargs["timeout"] = call.request_timeout()
            return super().__call__(*args, **kwargs)

    try:
        credentials.refresh(Bounded(session))
    except google.auth.exceptions.RefreshError as exc:
        raise ProviderHttpError("provider_error", call.scrub(_refresh_text(exc))) from exc
    except google.auth.exceptions.TransportError as exc:
        timed_out = "timed out" in str(exc).lower() or "timeout" in str(exc).lower()
        raise ProviderHttpError(
            "provider_timeout" if timed_out else "provider_error",
            f"Google's token endpoint could not be reached ({type(exc).__name__}).") from exc
    finally:
        session.close()
    token = str(credentials.token or "")
    if not token:
        raise ProviderHttpError("provider_error", "Google's token endpoint gave no token.")
    return token


def _refresh_text(exc: Exception) -> str:
    # RefreshError(message, response_body): the body's error_description is Google's words.
    for arg in exc.args[1:]:
        try:
            data = json.loads(arg) if isinstance(arg, str | bytes) else arg
        except ValueError:
            continue
        if isinstance(data, Mapping):
            text = data.get("error_description") or data.get("error")
            if text:
                return str(text)
    return str(exc.args[0]) if exc.args else "Google refused the service account."


def vertex_run(config: ProviderConfig, engine: str, params: Mapping[str, Any],
               progress: Progress) -> list[EngineOutput]:
    """Run one try-on job on Vertex AI: a token, then one :predict call."""
    body = predict_body(engine, config, params)
    info = service_account_info(config)
    project = config.project or str(info.get("project_id") or "")
    if not project:
        raise EngineError("provider_error", "The Vertex AI account names no project.")
    path = (f"/projects/{quote(project, safe='')}/locations/{quote(location_of(config), safe='')}"
            f"/publishers/google/models/{quote(model_id(config), safe='')}:predict")
    with ProviderCall(config, progress, label=LABEL, authorization="") as call:
        call.report(5, "Signing in to Google Cloud")
        token = access_token(config, call)
        call.add_secret(token)
        call.session.headers["Authorization"] = f"Bearer {token}"
        call.report(10, "Sending the images to Vertex AI")
        answer = call.request("POST", path, json=body)
        call.report(85, "Reading the result")
        predictions = answer.get("predictions") if isinstance(answer, dict) else None
        if not isinstance(predictions, list) or not predictions:
            raise ProviderHttpError("provider_error", "Vertex AI returned no images.")
        images: list[bytes] = []
        filtered: list[str] = []
        for item in predictions:
            if not isinstance(item, dict):
                continue
            if isinstance(item.get("bytesBase64Encoded"), str):
                images.append(call.decode_b64(item["bytesBase64Encoded"]))
            elif item.get("raiFilteredReason"):
                filtered.append(str(item["raiFilteredReason"]))
        if not images:
            raise ProviderHttpError("provider_error", call.scrub(
                "; ".join(filtered) or "Vertex AI returned no images."))
    add_usage("images", len(images))
    outputs = outputs_named(images, TRYON_TOOLS[engine][1], LABEL)
    progress(100)
    return outputs
