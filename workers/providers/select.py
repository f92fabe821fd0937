"""Which engine runs a tool: the local engine, or a provider-backed one with the same signature.

``engine_for(tool_engine_name, providers_config)`` returns a callable
``(params, progress) -> list[EngineOutput]``:

- no entry for the engine, or provider "local": the local engine from
  the `local` mapping (the worker passes tools.registry.LOCAL_ENGINES; KeyError when
  there is none);
- a provider kind (fashn or its old name tryon, fal, vertex, replicate, openai): a
  ProviderEngine calling that kind's adapter; when the entry says fallback_local, a provider
  failure (an EngineError whose code starts with "provider_") runs the local engine instead.
  Input errors, cancels and time limits are never "fallen back".

A ProviderEngine says who made a run's outputs: ``made_by`` ("fashn:tryon-v1.6",
"fal:fal-ai/leffa/virtual-tryon", "vertex:virtual-try-on-preview-08-04", "replicate:<model>",
"openai:<model>") and ``tier`` ("studio"); after a run that fell back to the local engine they
are "local" and "preview" (the worker reads them after the run; each job gets its own engine).
``usage`` holds what the provider reported the run cost: FASHN ``credits``, Replicate and fal
``seconds`` of model time, Vertex AI ``images``, OpenAI ``tokens`` (empty when it says nothing).

providers_config maps engine names to ProviderConfig objects (settings parse them once with
workers.providers.config.providers_parse) or to the raw JSON objects (parsed here).
The local lookup is injectable (``local=``) for tests and tools; it is only consulted when
the local engine is actually needed, so a provider-backed tool never imports NumPy or OpenCV.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Mapping
from typing import Any

from workers.engines.base import Engine, EngineError, EngineOutput, Progress
from workers.providers.calls import RUN_USAGE
from workers.providers.catalog import provider_supports
from workers.providers.config import ProviderConfig, provider_config

logger = logging.getLogger(__name__)

__all__ = ["ADAPTERS", "ProviderEngine", "engine_for", "provider_engine", "provider_made_by",
           "provider_supports"]

STUDIO = "studio"
PREVIEW = "preview"

# kind → (module, run function); each module also has made_by(engine, config, params).
ADAPTERS: dict[str, tuple[str, str]] = {
    "openai": ("workers.providers.openai_images", "openai_images"),
    "fashn": ("workers.providers.fashn", "fashn_run"),
    "fal": ("workers.providers.fal", "fal_run"),
    "vertex": ("workers.providers.vertex", "vertex_run"),
    "replicate": ("workers.providers.replicate_api", "replicate_run"),
}


def _adapter(config: ProviderConfig) -> Any:
    try:
        module, _ = ADAPTERS[config.kind]
    except KeyError:
        raise EngineError("provider_error", f"Unknown provider {config.provider!r}.") from None
    return importlib.import_module(module)


def provider_made_by(engine: str, config: ProviderConfig,
                     params: Mapping[str, Any] | None = None) -> str:
    """The engine label of a provider run: "<kind>:<model>"."""
    return str(_adapter(config).made_by(engine, config, params))


def provider_engine(engine: str, config: ProviderConfig) -> Engine:
    """The bare provider-backed engine (no fallback)."""

    def run(params: dict[str, Any], progress: Progress) -> list[EngineOutput]:
        module = _adapter(config)
        outputs: list[EngineOutput] = getattr(module, ADAPTERS[config.kind][1])(
            config, engine, params, progress)
        return outputs

    run.__name__ = f"{engine}_{config.kind}"
    return run


class ProviderEngine:
    """A tool's provider-backed engine, with the optional fallback to its local engine."""

    def __init__(self, engine: str, config: ProviderConfig, local: Mapping[str, Engine]) -> None:
        self.engine = engine
        self.config = config
        self.provider = config.provider
        self._local = local
        self._run = provider_engine(engine, config)
        self.made_by = provider_made_by(engine, config)
        self.tier = STUDIO
        self.usage: dict[str, float] = {}  # what the provider reported the last run cost

    def __repr__(self) -> str:
        return (f"ProviderEngine({self.engine!r}, provider={self.provider!r}, "
                f"fallback_local={self.config.fallback_local})")

    def __call__(self, params: dict[str, Any], progress: Progress) -> list[EngineOutput]:
        self.made_by = provider_made_by(self.engine, self.config, params)
        self.tier = STUDIO
        self.usage = {}
        token = RUN_USAGE.set(self.usage)
        try:
            return self._run(params, progress)
        except EngineError as exc:
            if not (self.config.fallback_local and exc.code.startswith("provider_")):
                raise
            try:
                local = self._local[self.engine]
            except KeyError:
                raise exc from None
            logger.warning("provider %s failed for %s (%s: %s); running the local engine",
                           self.provider, self.engine, exc.code, exc.message)
            progress(0, "The provider failed; running the local engine")
            self.made_by, self.tier = "local", PREVIEW
            return local(params, progress)
        finally:
            RUN_USAGE.reset(token)


def engine_for(tool_engine_name: str, providers_config: Mapping[str, Any] | None,
               *, local: Mapping[str, Engine] | None = None) -> Engine:
    """The engine that runs a tool, as configured (see the module docstring)."""
    if local is None:
        local = {}
    entry = (providers_config or {}).get(tool_engine_name)
    if entry is None:
        return local[tool_engine_name]
    config = provider_config(tool_engine_name, entry)
    if config.provider == "local":
        return local[tool_engine_name]
    return ProviderEngine(tool_engine_name, config, local)
