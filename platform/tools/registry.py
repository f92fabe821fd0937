"""The tool registry: every ToolSpec the modules of ``tools.catalogue`` declare, found the way
Django finds apps (each module's ``SPECS``), in the catalogue's order. Nothing lists tools by
hand: a tool is one module there."""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
from collections.abc import Mapping
from functools import cache
from typing import Any

from tools import catalogue
from tools.spec import Access, Shape, ToolSpec

# The names the rest of the code has always used.
Tool = ToolSpec
__all__ = ["TOOLS", "Access", "Shape", "Tool", "ToolSpec", "engine_path", "tool_allowed",
           "tool_available", "tool_get"]


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
