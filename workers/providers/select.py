"""Which engine runs a tool: the local engine, or a provider-backed one with the same signature.

``engine_for(tool_engine_name, providers_config)`` returns a callable
``(params, progress) -> list[EngineOutput]``:

- no entry for the engine, or provider "local": the local engine from
  workers.engines.registry.ENGINES (KeyError when there is none);
- provider "openai" or "tryon": a ProviderEngine calling that adapter; when the entry says
  fallback_local, a provider failure (an EngineError whose code starts with "provider_") runs
  the local engine instead. Input errors, cancels and time limits are never "fallen back".

providers_config maps engine names to ProviderConfig objects (settings parse them once with
workers.providers.config.providers_parse) or to the raw JSON objects (parsed here).
The local lookup is injectable (``local=``) for tests and tools; it is only consulted when
the local engine is actually needed, so a provider-backed tool never imports NumPy or OpenCV.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from workers.engines.base import Engine, EngineError, EngineOutput, Progress
from workers.providers.config import ProviderConfig, provider_config

logger = logging.getLogger(__name__)


def provider_supports(provider: str, engine: str) -> bool:
    """Whether a provider can run the tool with that engine name."""
    if provider == "local":
        return True
    if provider == "openai":
        from workers.providers.openai_images import OPENAI_TOOLS

        return engine in OPENAI_TOOLS
    if provider == "tryon":
        from workers.providers.tryon_api import TRYON_TOOLS

        return engine in TRYON_TOOLS
    return False


def provider_engine(engine: str, config: ProviderConfig) -> Engine:
    """The bare provider-backed engine (no fallback)."""

    def run(params: dict[str, Any], progress: Progress) -> list[EngineOutput]:
        if config.provider == "openai":
            from workers.providers.openai_images import openai_images

            return openai_images(config, engine, params, progress)
        if config.provider == "tryon":
            from workers.providers.tryon_api import tryon_run

            return tryon_run(config, engine, params, progress)
        raise EngineError("provider_error", f"Unknown provider {config.provider!r}.")

    run.__name__ = f"{engine}_{config.provider}"
    return run


class ProviderEngine:
    """A tool's provider-backed engine, with the optional fallback to its local engine."""

    def __init__(self, engine: str, config: ProviderConfig, local: Mapping[str, Engine]) -> None:
        self.engine = engine
        self.config = config
        self.provider = config.provider
        self._local = local
        self._run = provider_engine(engine, config)

    def __repr__(self) -> str:
        return (f"ProviderEngine({self.engine!r}, provider={self.provider!r}, "
                f"fallback_local={self.config.fallback_local})")

    def __call__(self, params: dict[str, Any], progress: Progress) -> list[EngineOutput]:
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
            return local(params, progress)


def engine_for(tool_engine_name: str, providers_config: Mapping[str, Any] | None,
               *, local: Mapping[str, Engine] | None = None) -> Engine:
    """The engine that runs a tool, as configured (see the module docstring)."""
    if local is None:
        from workers.engines.registry import ENGINES

        local = ENGINES
    entry = (providers_config or {}).get(tool_engine_name)
    if entry is None:
        return local[tool_engine_name]
    config = provider_config(tool_engine_name, entry)
    if config.provider == "local":
        return local[tool_engine_name]
    return ProviderEngine(tool_engine_name, config, local)
