"""The fal queue adapter against a loopback server speaking fal's queue API."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.providers.conftest import GARMENT, MODEL, TRYON, Canceled, Progress, adapter_config
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


def test_validation_errors_are_shown_in_fals_words(fal_server: FakeFal,
                                                   progress: Progress) -> None:
    fal_server.faults.append(("error", 422, "human_image_url: could not load the image"))
    with pytest.raises(EngineError) as err:
        fal_run(config(fal_server), "virtual_try_on", TRYON, progress)
    assert (err.value.code, err.value.message) == (
        "provider_error", "human_image_url: could not load the image")


def test_a_failed_request_fails_with_fals_detail(fal_server: FakeFal,
                                                 progress: Progress) -> None:
    fal_server.result_error = (422, {"detail": [
        {"loc": ["body", "garment_image_url"], "msg": "No garment detected in the image",
         "type": "value_error"}]})
    with pytest.raises(EngineError) as err:
        fal_run(config(fal_server), "virtual_try_on", TRYON, progress)
    assert (err.value.code, err.value.message) == (
        "provider_error", "garment_image_url: No garment detected in the image")


def test_a_wrong_key(fal_server: FakeFal, progress: Progress) -> None:
    with pytest.raises(EngineError) as err:
        fal_run(config(fal_server, api_key="wrong:key"), "virtual_try_on", TRYON, progress)
    assert (err.value.code, err.value.message) == ("provider_error", "Invalid API key.")


def test_429_waits_retry_after(fal_server: FakeFal, progress: Progress) -> None:
    fal_server.faults.append(("429", 0.3))
    fal_server.poll_faults.append(("429", 0.1))
    started = time.monotonic()
    assert len(fal_run(config(fal_server), "virtual_try_on", TRYON, progress)) == 1
    assert time.monotonic() - started >= 0.4
    assert len([c for c in fal_server.calls if c.method == "POST"]) == 2


def test_the_deadline_is_honoured(fal_server: FakeFal, progress: Progress) -> None:
    fal_server.statuses = ["IN_PROGRESS"]
    with pytest.raises(EngineError) as err:
        fal_run(config(fal_server, deadline=0.5), "virtual_try_on", TRYON, progress)
    assert (err.value.code, err.value.message) == (
        "provider_timeout", "The fal queue did not finish within 0.5 seconds.")


def test_a_slow_submit_times_out(fal_server: FakeFal, progress: Progress) -> None:
    fal_server.faults.append("timeout")
    started = time.monotonic()
    with pytest.raises(EngineError) as err:
        fal_run(config(fal_server, timeout=0.4), "virtual_try_on", TRYON, progress)
    assert err.value.code == "provider_timeout"
    assert time.monotonic() - started < 1.5


def test_a_cancel_stops_polling(fal_server: FakeFal) -> None:
    fal_server.statuses = ["IN_PROGRESS"]
    with pytest.raises(Canceled):
        fal_run(config(fal_server), "virtual_try_on", TRYON, Progress(stop_after=6))


def test_fal_cannot_run_other_tools(fal_server: FakeFal, progress: Progress) -> None:
    with pytest.raises(EngineError):
        fal_run(config(fal_server), "recolor", {"image": GARMENT}, progress)
    assert not fal_server.calls


def test_fals_inference_time_is_the_runs_usage(fal_server: FakeFal, progress: Progress) -> None:
    engine = engine_for("virtual_try_on", {"virtual_try_on": config(fal_server)})
    engine(TRYON, progress)
    assert engine.usage == {"seconds": 1.5}  # type: ignore[attr-defined]
