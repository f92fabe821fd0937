"""The fal queue adapter against a loopback server speaking fal's queue API."""

from __future__ import annotations

from typing import Any

import pytest

from tests.providers.conftest import GARMENT, MODEL, TRYON, Progress, adapter_config
from tests.providers.servers import FakeFal, data_url_bytes
from workers.engines.base import EngineError
from workers.providers.config import ProviderConfig
from workers.providers.fal import fal_run
from workers.providers.select import engine_for


def config(server: FakeFal, **kwargs: Any) -> ProviderConfig:
    return adapter_config("fal", server, **{"model": "fal-ai/leffa/virtual-tryon", **kwargs})


def test_submit_status_result_for_leffa(fal_server: FakeFal, progress: Progress) -> None:
    outputs = fal_run(config(fal_server), "virtual_try_on", {**TRYON, "category": "top"},
                      progress)

    assert [(o.filename, o.content_type) for o in outputs] == [("try-on.png", "image/png")]
    submit = [c for c in fal_server.calls if c.method == "POST"]
    assert len(submit) == 1
    assert submit[0].path == "/fal-ai/leffa/virtual-tryon"
    assert submit[0].headers["Authorization"] == f"Key {fal_server.api_key}"
    body = submit[0].json
    assert set(body) == {"human_image_url", "garment_image_url", "garment_type"}
    assert data_url_bytes(body["human_image_url"]) == MODEL
    assert body["human_image_url"].startswith("data:image/jpeg;base64,")
    assert data_url_bytes(body["garment_image_url"]) == GARMENT
    assert body["garment_type"] == "upper_body"
    status = fal_server.polls("/status")
    # requests live under the model id's first two segments
    (job,) = fal_server.jobs
    assert {c.path for c in status} == {f"/fal-ai/leffa/requests/{job}/status"}
    assert len(status) == 4  # IN_QUEUE x2, IN_PROGRESS, COMPLETED
    result = [c for c in fal_server.calls
              if c.method == "GET" and "/requests/" in c.path and not c.path.endswith("/status")]
    assert len(result) == 1 and result[0].headers["Authorization"] == f"Key {fal_server.api_key}"
    fetched = [c for c in fal_server.calls if c.path.startswith("/files/")]
    assert len(fetched) == 1 and "Authorization" not in fetched[0].headers


def test_progress_follows_the_queue(fal_server: FakeFal, progress: Progress) -> None:
    fal_run(config(fal_server), "virtual_try_on", TRYON, progress)
    assert progress.values == sorted(progress.values)
    assert {5, 20, 88, 90, 100} <= set(progress.values)
    assert any(m.startswith("Queued at the fal queue (position") for m in progress.messages)
    assert "The fal queue is working" in progress.messages


@pytest.mark.parametrize(("model", "expected"), [
    ("fal-ai/cat-vton", {"human_image_url", "garment_image_url", "cloth_type"}),
    ("fal-ai/idm-vton", {"human_image_url", "garment_image_url", "description"}),
    ("someone/custom-vton", {"human_image_url", "garment_image_url"}),
])
def test_other_models_get_their_fields(fal_server: FakeFal, progress: Progress, model: str,
                                       expected: set[str]) -> None:
    engine = engine_for("restyle", {"restyle": config(fal_server, model=model)})
    engine({"outfit": MODEL, "garment": GARMENT}, progress)
    submit = [c for c in fal_server.calls if c.method == "POST"][0]
    assert submit.path == "/" + model
    assert set(submit.json) == expected
    assert engine.made_by == f"fal:{model}"  # type: ignore[attr-defined]
    if "cloth_type" in expected:
        assert submit.json["cloth_type"] == "upper"


def test_a_failed_request_fails_with_fals_detail(fal_server: FakeFal,
                                                 progress: Progress) -> None:
    fal_server.result_error = (422, {"detail": [
        {"loc": ["body", "garment_image_url"], "msg": "No garment detected in the image",
         "type": "value_error"}]})
    with pytest.raises(EngineError) as err:
        fal_run(config(fal_server), "virtual_try_on", TRYON, progress)
    assert (err.value.code, err.value.message) == (
        "provider_error", "garment_image_url: No garment detected in the image")


def test_fal_cannot_run_other_tools(fal_server: FakeFal, progress: Progress) -> None:
    with pytest.raises(EngineError):
        fal_run(config(fal_server), "recolor", {"image": GARMENT}, progress)
    assert not fal_server.calls


def test_fals_inference_time_is_the_runs_usage(fal_server: FakeFal, progress: Progress) -> None:
    engine = engine_for("virtual_try_on", {"virtual_try_on": config(fal_server)})
    engine(TRYON, progress)
    assert engine.usage == {"seconds": 1.5}  # type: ignore[attr-defined]
