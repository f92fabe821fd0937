"""The Replicate adapter, through the replicate library, against a loopback server speaking
Replicate's predictions API."""

from __future__ import annotations

from typing import Any

import pytest

from tests.providers.conftest import GARMENT, MODEL, TRYON, Progress, adapter_config
from tests.providers.servers import FakeReplicate, data_url_bytes
from workers.engines.base import EngineError
from workers.providers.config import ProviderConfig
from workers.providers.replicate_api import replicate_run


def config(server: FakeReplicate, **kwargs: Any) -> ProviderConfig:
    return adapter_config("replicate", server, **kwargs)


def test_create_with_a_version_then_poll(replicate_server: FakeReplicate,
                                         progress: Progress) -> None:
    outputs = replicate_run(config(replicate_server, model="cuuupid/idm-vton:c871bb9b"),
                            "virtual_try_on", {**TRYON, "category": "dress"}, progress)

    assert [(o.filename, o.content_type) for o in outputs] == [("try-on.png", "image/png")]
    create = [c for c in replicate_server.calls if c.method == "POST"]
    assert len(create) == 1 and create[0].path == "/v1/predictions"
    assert create[0].headers["Authorization"] == f"Bearer {replicate_server.api_key}"
    body = create[0].json
    assert set(body) == {"version", "input"}
    assert body["version"] == "c871bb9b"
    assert set(body["input"]) == {"human_img", "garm_img", "category", "garment_des"}
    assert data_url_bytes(body["input"]["human_img"]) == MODEL
    assert data_url_bytes(body["input"]["garm_img"]) == GARMENT
    assert body["input"]["category"] == "dresses"
    polls = replicate_server.polls("/v1/predictions/")
    assert len(polls) == 4  # starting, processing x2, succeeded
    assert all(c.headers["Authorization"] == f"Bearer {replicate_server.api_key}"
               for c in polls)


def test_create_with_a_model_name(replicate_server: FakeReplicate, progress: Progress) -> None:
    replicate_run(config(replicate_server, model="cuuupid/idm-vton",
                         options={"steps": 30}), "restyle",
                  {"outfit": MODEL, "garment": GARMENT}, progress)
    create = [c for c in replicate_server.calls if c.method == "POST"][0]
    assert create.path == "/v1/models/cuuupid/idm-vton/predictions"
    assert set(create.json) == {"input"}
    assert create.json["input"]["steps"] == 30


def test_progress_follows_the_models_logs(replicate_server: FakeReplicate,
                                          progress: Progress) -> None:
    replicate_server.statuses = ["processing", "processing", "succeeded"]
    replicate_server.logs = [" 20%|██        | 6/30 [00:01<00:04]",
                             " 80%|████████  | 24/30 [00:04<00:01]"]
    replicate_run(config(replicate_server), "virtual_try_on", TRYON, progress)
    assert progress.values == sorted(progress.values)
    assert 30 + 55 * 0.8 in progress.values


def test_a_failed_prediction_fails_in_replicates_words(replicate_server: FakeReplicate,
                                                       progress: Progress) -> None:
    replicate_server.statuses = ["processing", "failed"]
    replicate_server.error_message = "CUDA out of memory."
    with pytest.raises(EngineError) as err:
        replicate_run(config(replicate_server), "virtual_try_on", TRYON, progress)
    assert (err.value.code, err.value.message) == ("provider_error", "CUDA out of memory.")


def test_several_outputs_and_data_urls(progress: Progress) -> None:
    from tests.providers.servers import fake_replicate

    with fake_replicate(outputs=2, output="data_url", statuses=["succeeded"]) as server:
        outputs = replicate_run(config(server), "virtual_try_on", TRYON, progress)
    assert [o.filename for o in outputs] == ["try-on-1.png", "try-on-2.png"]


def test_replicates_predict_time_is_the_runs_usage(replicate_server: FakeReplicate,
                                                   progress: Progress) -> None:
    from workers.providers.select import engine_for

    engine = engine_for("virtual_try_on", {"virtual_try_on": config(replicate_server)})
    engine(TRYON, progress)
    assert engine.usage == {"seconds": 4.2}  # type: ignore[attr-defined]
