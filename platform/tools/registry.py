"""The tool registry: every ToolSpec the modules of ``tools.catalogue`` declare, found the way
Django finds apps (each module's ``SPECS``), in the catalogue's order. Nothing lists tools by
hand: a tool is one module there."""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
from collections.abc import Iterator, Mapping
from functools import cache
from typing import Any

from tools import catalogue
from tools.spec import Access, Shape, ToolSpec

# The names the rest of the code has always used.
Tool = ToolSpec
__all__ = ["LOCAL_ENGINES", "TOOLS", "Access", "Shape", "Tool", "ToolSpec", "engine_path",
           "local_engine", "tool_allowed", "tool_available", "tool_get"]


def _discover() -> dict[str, ToolSpec]:
    specs: list[ToolSpec] = []
    for module in pkgutil.iter_modules(catalogue.__path__):
        specs += importlib.import_module(f"{catalogue.__name__}.{module.name}").SPECS
    found: dict[str, ToolSpec] = {}
    for spec in sorted(specs, key=lambda s: (s.order, s.slug)):
        if spec.slug in found:
            raise ValueError(f"two tools are called {spec.slug}")
        found[spec.slug] = spec
    return found


TOOLS: dict[str, ToolSpec] = _discover()


def tool_get(slug: str) -> ToolSpec | None:
    return TOOLS.get(slug)


@cache
def engine_paths() -> Mapping[str, str]:
    """Engine name → "module:function", from the specs (several tools may share an engine)."""
    return {t.engine: t.engine_path for t in TOOLS.values() if t.engine and t.engine_path}


def engine_path(engine: str) -> str:
    return engine_paths()[engine]


def local_engine(engine: str) -> Any:
    """The local engine of that name, where its spec says it is (behind its input checks
    when the spec says so); KeyError when no tool declares it."""
    from workers.engines.registry import engine_at

    spec = next((t for t in TOOLS.values() if t.engine == engine), None)
    if spec is None:
        raise KeyError(engine)
    return engine_at(engine_path(engine), engine if spec.guarded else None)


class _LocalEngines(Mapping[str, Any]):
    """Engine name → local engine, resolved (and imported) only when one is looked up: a
    provider-backed run never imports its local engine unless it falls back to it."""

    def __getitem__(self, engine: str) -> Any:
        return local_engine(engine)

    def __iter__(self) -> Iterator[str]:
        return iter(engine_paths())

    def __len__(self) -> int:
        return len(engine_paths())


LOCAL_ENGINES: Mapping[str, Any] = _LocalEngines()


@cache
def tool_available(slug: str) -> bool:
    """Declared with an engine this installation has (or all its parts have)."""
    tool = TOOLS[slug]
    parts = [t for t in TOOLS.values() if t.part_of == slug]
    if parts:
        return all(tool_available(p.slug) for p in parts)
    if not tool.engine_path:
        return False
    module = tool.engine_path.partition(":")[0]
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def tool_allowed(tool: ToolSpec, *, user: Any) -> bool:
    """Open tools for every partner; locked and private ones for the organisations staff
    enabled them for; staff tools for staff. A part follows its tool."""
    if tool.part_of:
        return tool_allowed(TOOLS[tool.part_of], user=user)
    if user.is_staff:
        return True
    if tool.access == Access.OPEN:
        return True
    if tool.access == Access.STAFF:
        return False
    org = getattr(user, "organization", None)
    return bool(org and tool.slug in (org.enabled_tools or []))
