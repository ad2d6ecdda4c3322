"""Where backend tools, command schemas and target files are found (backends-and-packaging.md
§1.4): each directory of ``ONECC_BACKEND_PATH``, then this package folder, then ``PATH``;
targets in ``ONECC_TARGET_PATH``, then the package's ``target/`` folder."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

BACKEND_PATH = "ONECC_BACKEND_PATH"
TARGET_PATH = "ONECC_TARGET_PATH"
PACKAGE_BACKENDS = Path(__file__).resolve().parent
PACKAGE_TARGETS = PACKAGE_BACKENDS.parent / "target"


def _directories(variable: str) -> list[str]:
    return [entry for entry in os.environ.get(variable, "").split(os.pathsep) if entry]


def backend_roots() -> list[str]:
    """The backend roots in search order."""
    return [*_directories(BACKEND_PATH), str(PACKAGE_BACKENDS)]


def _is_tool(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def _walk(root: str) -> Iterator[str]:
    """Every file under ``root``, sorted, depth first."""
    for folder, subfolders, files in os.walk(root):
        subfolders.sort()
        for name in sorted(files):
            yield os.path.join(folder, name)


def find_tool(name: str) -> str | None:
    """The executable ``name``: ``R/name``, then ``R/**/name`` per root, then ``PATH``."""
    if os.sep in name:
        return name if _is_tool(name) else None
    for root in backend_roots():
        direct = os.path.join(root, name)
        if _is_tool(direct):
            return direct
        for path in _walk(root):
            if os.path.basename(path) == name and _is_tool(path):
                return path
    return shutil.which(name)


def searched() -> str:
    """Where :func:`find_tool` looks, for not-found messages."""
    return f"searched {', '.join(backend_roots())} and PATH"


def available(suffix: str) -> list[str]:
    """Basenames of the tools ``*-<suffix>`` in the backend roots (sorted, unique)."""
    ending = f"-{suffix}"
    return sorted(
        {
            os.path.basename(path)
            for root in backend_roots()
            for path in _walk(root)
            if path.endswith(ending) and _is_tool(path)
        }
    )


def backend_help(suffix: str) -> str:
    """The ``-b`` help of one-codegen (``compile``) and one-profile (``profile``)."""
    names = available(suffix)
    if not names:
        return "backend name to use (There is no available backend drivers)"
    return f"backend name to use (available backend drivers: {', '.join(names)})"


def find_schema(backend: str, kind: str) -> str | None:
    """``R/command/<backend>/<kind>.py`` in the first root that has it."""
    for root in backend_roots():
        path = os.path.join(root, "command", backend, f"{kind}.py")
        if os.path.isfile(path):
            return path
    return None


def find_target(target: str) -> str | None:
    """``<target>.ini`` in ``ONECC_TARGET_PATH``, then the package's ``target/`` folder."""
    for folder in [*_directories(TARGET_PATH), str(PACKAGE_TARGETS)]:
        path = os.path.join(folder, f"{target}.ini")
        if os.path.isfile(path):
            return path
    return None


def backend_listing() -> str:
    """The backend drivers found (``onecc --help`` and ``-v``)."""
    names = available("compile") + available("profile")
    if not names:
        return "There is no available backend drivers"
    return f"available backend drivers: {', '.join(names)}"
