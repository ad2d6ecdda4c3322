"""The house rules of shared/DESIGN.md "Layout" that the source itself shows: imports point down
the documented order of rooms, no module imports itself back through others, no source file
is over 500 lines and nothing prints past the console.

Every import counts: at module level, inside a function, or under ``TYPE_CHECKING``.
"""

from __future__ import annotations

import ast
import pathlib
from functools import cache

import pytest

import one_cmds

PACKAGE = pathlib.Path(one_cmds.__file__).parent
# The rooms from the top down; rooms on one line are peers and do not import each other.
ORDER = (
    ("cli", "api"),
    ("config",),
    ("pipeline",),
    ("stages",),
    ("frontends", "quant", "partition", "backends"),
    ("engines",),
    ("passes",),
    ("formats",),
    ("shape",),
    ("interp",),
    ("ir",),
)
ANYWHERE = ("report", "errors", "extras")
RANK = {room: level for level, rooms in enumerate(ORDER) for room in rooms}
MAX_LINES = 500


def _module_name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def _modules() -> dict[str, pathlib.Path]:
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _imported(module: str, path: pathlib.Path) -> set[str]:
    """The project modules ``module`` imports (``from p import m`` names the module p.m)."""
    modules = _modules()
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([node.module] if node.module else []))
            for alias in node.names:
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base)
    return {name for name in found if name in modules and name != module}


@cache
def _graph() -> dict[str, set[str]]:
    return {module: _imported(module, path) for module, path in _modules().items()}


def _room(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def test_every_room_is_in_the_documented_order() -> None:
    rooms = {_room(m) for m in _modules()} - {None}
    assert rooms <= set(RANK) | set(ANYWHERE), sorted(rooms - set(RANK) - set(ANYWHERE))


def test_imports_point_down_the_order() -> None:
    upward = []
    for module, imported in _graph().items():
        room = _room(module)
        for target in sorted(imported):
            other = _room(target)
            if other in (room, None) or other in ANYWHERE:
                continue
            if room in ANYWHERE or RANK[other] <= RANK[room]:  # type: ignore[index]
                upward.append(f"{module} -> {target}")
    assert not upward, "imports against the order cli -> ... -> ir:\n" + "\n".join(upward)


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            for target in edges:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph[target]))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
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


def test_no_import_cycle() -> None:
    cycles = _cycles(_graph())
    assert not cycles, "modules that import each other:\n" + "\n".join(map(" ".join, cycles))


def test_the_cycle_finder_finds_cycles() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert _cycles(graph) == [["a", "b", "c"]]


def test_no_source_file_over_the_limit() -> None:
    long = {
        str(path.relative_to(PACKAGE)): n
        for path in _modules().values()
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert not long, f"files over {MAX_LINES} lines: {long}"


@pytest.mark.parametrize("module", sorted(_modules()))
def test_nothing_prints_past_the_console(module: str) -> None:
    if module == "one_cmds.report.console":
        return
    tree = ast.parse(_modules()[module].read_text(encoding="utf-8"))
    calls = [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "print"
    ]
    assert not calls, f"{module} calls print() at lines {calls}: use one_cmds.report.console"
