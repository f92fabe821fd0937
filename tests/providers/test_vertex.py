"""The Vertex AI try-on adapter against a loopback server speaking Google's OAuth token
endpoint (the service account's JWT grant, its signature checked) and the :predict call."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from tests.providers.conftest import GARMENT, MODEL, TRYON, Progress, vertex_config
from tests.providers.servers import FakeVertex
from workers.engines.base import EngineError
from workers.providers.config import ProviderConfig, providers_parse
from workers.providers.select import engine_for
from workers.providers.vertex import vertex_run


def config(server: FakeVertex, **kwargs: Any) -> ProviderConfig:
    return vertex_config(server, **kwargs)


def test_token_then_predict(vertex_server: FakeVertex, progress: Progress) -> None:
    outputs = vertex_run(config(vertex_server), "virtual_try_on", TRYON, progress)

    assert [(o.filename, o.content_type) for o in outputs] == [("try-on.png", "image/png")]
    token, predict = vertex_server.calls
    assert token.path == "/token"
    assert token.form["grant_type"] == ["urn:ietf:params:oauth:grant-type:jwt-bearer"]
    claims = token.json["claims"]
    assert claims["iss"] == vertex_server.client_email
    assert claims["scope"] == "https://www.googleapis.com/auth/cloud-platform"
    assert predict.path == vertex_server.predict_path()
    assert predict.headers["Authorization"] == f"Bearer {vertex_server.token}"
    assert predict.json == {
        "instances": [{
            "personImage": {"image": {"bytesBase64Encoded": base64.b64encode(MODEL).decode()}},
            "productImages": [
                {"image": {"bytesBase64Encoded": base64.b64encode(GARMENT).decode()}}],
        }],
        "parameters": {"sampleCount": 1},
    }
    assert progress.values == sorted(progress.values) and progress.values[-1] == 100


def test_location_from_the_base_url_and_options(vertex_server: FakeVertex,
                                                progress: Progress) -> None:
    engine = engine_for("garment_integration", {"garment_integration": config(
        vertex_server, location="", n=2, model="virtual-try-on-exp-05-31",
        options={"personGeneration": "allow_adult", "addWatermark": False})})
    with pytest.raises(EngineError):  # the loopback host names no region: us-central1
        engine({"outfit": MODEL, "garment": GARMENT}, progress)
    assert vertex_server.calls[-1].path.startswith(
        f"/v1/projects/{vertex_server.project}/locations/us-central1/")
    vertex_server.location = "us-central1"
    outputs = engine({"outfit": MODEL, "garment": GARMENT}, progress)
    assert [o.filename for o in outputs] == ["garment-integration-1.png",
                                             "garment-integration-2.png"]
    assert vertex_server.calls[-1].json["parameters"] == {
        "sampleCount": 2, "personGeneration": "allow_adult", "addWatermark": False}
    assert engine.made_by == "vertex:virtual-try-on-exp-05-31"  # type: ignore[attr-defined]


def test_a_refused_service_account_in_googles_words(vertex_server: FakeVertex,
                                                    progress: Progress) -> None:
    vertex_server.token_error = (400, {"error": "invalid_grant",
                                       "error_description": "Invalid JWT Signature."})
    with pytest.raises(EngineError) as err:
        vertex_run(config(vertex_server), "virtual_try_on", TRYON, progress)
    assert (err.value.code, err.value.message) == ("provider_error", "Invalid JWT Signature.")
    assert len(vertex_server.calls) == 1  # no predict without a token


def test_filtered_outputs_say_why(vertex_server: FakeVertex, progress: Progress) -> None:
    vertex_server.filtered = "The image was filtered by Responsible AI checks (58061214)."
    with pytest.raises(EngineError) as err:
        vertex_run(config(vertex_server), "virtual_try_on", TRYON, progress)
    assert err.value.message == vertex_server.filtered


def test_429_past_the_retries_in_googles_words(vertex_server: FakeVertex,
                                               progress: Progress) -> None:
    vertex_server.faults.extend(["429"] * 3)
    with pytest.raises(EngineError) as err:
        vertex_run(config(vertex_server, max_retries=1), "virtual_try_on", TRYON, progress)
    assert err.value.message.startswith("Quota exceeded")


def test_the_token_never_shows_in_messages(vertex_server: FakeVertex,
                                           progress: Progress) -> None:
    vertex_server.faults.append(("error", 400, f"bad token {vertex_server.token}"))
    with pytest.raises(EngineError) as err:
        vertex_run(config(vertex_server), "virtual_try_on", TRYON, progress)
    assert vertex_server.token not in err.value.message


def test_the_service_account_can_come_as_an_object(vertex_server: FakeVertex) -> None:
    parsed = providers_parse({"virtual_try_on": {
        "provider": "vertex", "service_account": vertex_server.service_account()}})
    assert parsed["virtual_try_on"].base_url == \
        "https://us-central1-aiplatform.googleapis.com/v1"
    assert vertex_server.private_key not in repr(parsed)


def test_the_images_made_are_the_runs_usage(vertex_server: FakeVertex,
                                            progress: Progress) -> None:
    engine = engine_for("virtual_try_on", {"virtual_try_on": config(vertex_server, n=2)})
    engine(TRYON, progress)
    assert engine.usage == {"images": 2.0}  # type: ignore[attr-defined]
