"""Engine names (as the tool registry declares them) to engine functions.

Entries are import paths, resolved when a job first needs them: the web process lists tools
without importing NumPy, OpenCV and mediapipe."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from functools import cache
from typing import Any, cast

from workers.engines.base import Engine

ENGINE_PATHS: dict[str, str] = {
    "diagnostics.sleep": "workers.engines.diagnostics:sleep",
    "spinview": "workers.engines.spinview:run",
    "earfit": "workers.engines.earfit:run",
    "baghold": "workers.engines.baghold:run",
    "remodel": "workers.engines.remodel:run",
    "virtual_try_on": "workers.engines.tryon:virtual_try_on",
    "restyle": "workers.engines.tryon:restyle",
    "garment_integration": "workers.engines.tryon:garment_integration",
    "ecommerce_asset": "workers.engines.tryon:ecommerce_asset",
    "flats": "workers.engines.flats:run",
    "recolor": "workers.engines.recolor:run",
    "refabric": "workers.engines.refabric:run",
    "reshape": "workers.engines.reshape:run",
    "rebody": "workers.engines.rebody:run",
    "editorial_analyze": "workers.engines.adapters:editorial_analyze",
    "tonelab_analyze": "workers.engines.adapters:tonelab_analyze",
    "editorial_generate": "workers.engines.editorial.generate:run",
    "tonelab_generate": "workers.engines.editorial.tonelab:run",
    "editorial_product": "workers.engines.product:run",
    "open_lab": "workers.engines.openlab:run",
    "techpack_describe": "workers.engines.techpack:describe_run",
    "techpack_process": "workers.engines.adapters:techpack_process",
}


@cache
def engine_load(name: str) -> Engine:
    module, _, function = ENGINE_PATHS[name].partition(":")
    return cast(Engine, getattr(importlib.import_module(module), function))


class _Engines(Mapping[str, Engine]):
    def __getitem__(self, name: str) -> Engine:
        return engine_load(name)

    def __iter__(self) -> Any:
        return iter(ENGINE_PATHS)

    def __len__(self) -> int:
        return len(ENGINE_PATHS)

    def __contains__(self, name: object) -> bool:
        return name in ENGINE_PATHS


ENGINES: Mapping[str, Engine] = _Engines()
