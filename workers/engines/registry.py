"""Engine names (as the tool registry declares them) to engine functions.

Entries are import paths, resolved when a job first needs them: the web process lists tools
without importing NumPy, OpenCV and mediapipe.

The batch engines a catalogue team queues whole folders through are loaded behind their input
checks (``workers.engines.imaging.inputs``): a product shot holding a person, a thumbnail, a
library photo with two people or without the hand or feet the tool dresses is refused with a
clear reason before the engine runs, instead of coming back as a poor image with a success."""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any, cast

from workers.engines.base import Engine, EngineOutput, Progress

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
    "editorial_analyze": "workers.engines.editorial.analyze:editorial_run",
    "tonelab_analyze": "workers.engines.editorial.analyze:tonelab_run",
    "editorial_generate": "workers.engines.editorial.generate:run",
    "tonelab_generate": "workers.engines.editorial.tonelab:run",
    "editorial_product": "workers.engines.product:run",
    "open_lab": "workers.engines.openlab:run",
    "techpack_describe": "workers.engines.techpack:describe_run",
    "techpack_process": "workers.engines.techpack.sheet:tech_pack_run",
}


# Engines whose inputs go through workers.engines.imaging.inputs.guard_engine_inputs first.
GUARDED_ENGINES = frozenset(
    {"recolor", "refabric", "reshape", "rebody", "earfit", "baghold", "flats"})


@cache
def engine_load(name: str) -> Engine:
    if name in GUARDED_ENGINES:
        return guarded(name, functools.partial(_import, name))
    return _import(name)


def _import(name: str) -> Engine:
    module, _, function = ENGINE_PATHS[name].partition(":")
    return cast(Engine, getattr(importlib.import_module(module), function))


def guarded(name: str, load: Callable[[], Engine]) -> Engine:
    """The engine ``load()`` gives, behind the input checks of its name (run first, so a
    refused input costs no engine import)."""

    def run(params: dict[str, Any], progress: Progress) -> list[EngineOutput]:
        from workers.engines.imaging.inputs import guard_engine_inputs

        guard_engine_inputs(name, params)
        return load()(params, progress)

    run.__name__ = run.__qualname__ = f"{name}_guarded"
    return cast(Engine, run)


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
