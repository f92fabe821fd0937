"""Engines by where they are: each tool's spec names its engine's import path
("module:function"); it is imported when a job first runs it, so the web process lists tools
without importing NumPy, OpenCV and mediapipe.

The batch engines a catalogue team queues whole folders through are loaded behind their input
checks (``workers.engines.imaging.inputs``): a product shot holding a person, a thumbnail, a
library photo with two people or without the hand or feet the tool dresses is refused with a
clear reason before the engine runs, instead of coming back as a poor image with a success."""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from functools import cache
from typing import Any, cast

from workers.engines.base import Engine, EngineOutput, Progress


@cache
def engine_at(path: str, guard: str | None = None) -> Engine:
    """The engine at ``path`` ("module:function"); with ``guard``, behind the input checks of
    that engine name (imported on its first run, after them)."""
    if guard:
        return guarded(guard, functools.partial(_import, path))
    return _import(path)


@cache
def _import(path: str) -> Engine:
    module, _, function = path.partition(":")
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
