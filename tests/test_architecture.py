"""The layering rules, checked by walking the imports of every module with `ast`.

- the job core (platform/jobs) knows no tool: it never imports `tools`, not even inside a
  function;
- engines (workers/engines) are pure: no Django, no web framework, no Celery, no app of the
  platform;
- no import circle among module-level imports (imports under `if TYPE_CHECKING:` and inside
  functions do not run when the module is imported, so they are left out).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Where each tree's modules are importable from: platform/ is on the path (its apps are
# top-level packages), workers/ and drivesync/ are packages of the repository root.
TREES = {"platform": ROOT / "platform", "workers": ROOT, "drivesync": ROOT}

ENGINE_FORBIDDEN = {"django", "rest_framework", "jobs", "tools", "drives", "accounts",
                    "webhooks", "config", "drivesync", "celery", "studio"}

@dataclass(frozen=True)
class Import:
    module: str  # the imported module, absolute
    names: tuple[str, ...]  # for `from m import a, b`: a, b
    top_level: bool  # runs when the importing module is imported


@dataclass(frozen=True)
class Module:
    name: str
    path: Path
    is_package: bool


def _modules() -> dict[str, Module]:
    found: dict[str, Module] = {}
    for tree, base in TREES.items():
        for path in sorted((ROOT / tree).rglob("*.py")):
            if any(part in {"node_modules", "__pycache__", "migrations"} or part.startswith(".")
                   for part in path.relative_to(ROOT).parts):
                continue
            parts = list(path.relative_to(base).with_suffix("").parts)
            is_package = parts[-1] == "__init__"
            if is_package:
                parts = parts[:-1]
            if parts:
                found[".".join(parts)] = Module(".".join(parts), path, is_package)
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(module: Module) -> Iterator[Import]:
    tree = ast.parse(module.path.read_text(encoding="utf-8"), filename=str(module.path))
    package = module.name if module.is_package else module.name.rpartition(".")[0]

    def walk(node: ast.AST, top_level: bool) -> Iterator[Import]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import):
                for alias in child.names:
                    yield Import(alias.name, (), top_level)
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = package.split(".") if package else []
                    base = base[: len(base) - (child.level - 1)] if child.level > 1 else base
                    target = ".".join([*base, *([child.module] if child.module else [])])
                else:
                    target = child.module or ""
                yield Import(target, tuple(a.name for a in child.names), top_level)
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                yield from walk(child, False)
            elif isinstance(child, ast.If) and _is_type_checking(child.test):
                for stmt in child.body:
                    yield from walk(ast.Module(body=[stmt], type_ignores=[]), False)
                for stmt in child.orelse:
                    yield from walk(ast.Module(body=[stmt], type_ignores=[]), top_level)
            else:
                # class bodies, try/except, if/else and with blocks run at import time
                yield from walk(child, top_level)

    yield from walk(tree, True)


def _top(name: str) -> str:
    return name.split(".", 1)[0]


MODULES = _modules()
IMPORTS = {name: list(_imports(module)) for name, module in MODULES.items()}


def _targets(importer: str, imp: Import) -> set[str]:
    """The project modules an import runs: the module, its packages, and a submodule named in
    `from package import submodule`. The importer's own packages are left out where the import
    only passes through them: they are initialised before the importer in any case, and a
    package whose `__init__` gathers its submodules is no circle."""
    own = {importer.rsplit(".", i)[0] for i in range(1, importer.count(".") + 1)}
    found = set()
    parts = imp.module.split(".")
    for i in range(1, len(parts)):
        package = ".".join(parts[:i])
        if package in MODULES and package not in own:
            found.add(package)
    submodules = {name for name in imp.names if f"{imp.module}.{name}" in MODULES}
    # `from package import name` reads the package's own namespace unless name is a submodule
    if imp.module in MODULES and (imp.module not in own or set(imp.names) - submodules
                                  or not imp.names):
        found.add(imp.module)
    found |= {f"{imp.module}.{name}" for name in submodules}
    return found - {importer}


def test_the_job_core_imports_no_tool() -> None:
    """Neither the catalogue nor the apps built on it (drives, provider accounts)."""
    offending = [
        f"{name}: {imp.module}" for name, imports in IMPORTS.items()
        if _top(name) == "jobs" for imp in imports
        if _top(imp.module) in ("tools", "drives", "studio")
    ]
    assert MODULES.get("jobs.services"), "the walk found no platform/jobs modules"
    assert offending == []


def test_engines_stay_pure() -> None:
    offending = [
        f"{name}: {imp.module}" for name, imports in IMPORTS.items()
        if name.startswith("workers.engines.") or name == "workers.engines"
        for imp in imports if _top(imp.module) in ENGINE_FORBIDDEN
    ]
    assert MODULES.get("workers.engines.registry"), "the walk found no engine modules"
    assert sorted(offending) == []


def _graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {name: set() for name in MODULES}
    for name, imports in IMPORTS.items():
        for imp in imports:
            if imp.top_level:
                graph[name] |= _targets(name, imp)
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components with more than one module (iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def _cycle_in(graph: dict[str, set[str]], component: list[str]) -> list[str]:
    """One concrete circle through the component's first module, for the message."""
    members = set(component)
    start = component[0]
    paths = {start: [start]}
    queue = [start]
    while queue:
        node = queue.pop(0)
        for child in sorted(graph[node] & members):
            if child == start:
                return [*paths[node], start]
            if child not in paths:
                paths[child] = [*paths[node], child]
                queue.append(child)
    return component


def test_no_import_circles() -> None:
    graph = _graph()
    circles = [" → ".join(_cycle_in(graph, component)) for component in _circles(graph)]
    assert circles == []


def test_the_circle_finder_finds_a_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _circles(graph) == [["a", "b", "c"]]
    assert _cycle_in(graph, ["a", "b", "c"]) == ["a", "b", "c", "a"]
