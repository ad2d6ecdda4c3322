"""Where backend tools, command schemas and target files are found (backends-and-packaging.md
§1.4): each directory of ``ONECC_BACKEND_PATH``, then the folder of the running program (its
own files only), then ``<install>/backends`` of the install tree, then this package folder,
then ``PATH``; targets in ``ONECC_TARGET_PATH``, then ``<install>/target``, then the package's
``target/`` folder. ``<install>`` is the parent of the program's folder (the reference's
``<install>/{bin,backends,target,optimization}``) and ``sys.prefix`` (a pip install)."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

BACKEND_PATH = "ONECC_BACKEND_PATH"
TARGET_PATH = "ONECC_TARGET_PATH"
PACKAGE_BACKENDS = Path(__file__).resolve().parent
PACKAGE_TARGETS = PACKAGE_BACKENDS.parent / "target"


def _directories(variable: str) -> list[str]:
    return [entry for entry in os.environ.get(variable, "").split(os.pathsep) if entry]


def program_folder() -> str:
    """The folder of the running program (symbolic links resolved), the reference's ``bin``."""
    return os.path.dirname(os.path.realpath(sys.argv[0] or "."))


def install_folders(name: str) -> list[str]:
    """``<install>/<name>`` for each install tree that has it, nearest first."""
    trees = dict.fromkeys([os.path.dirname(program_folder()), sys.prefix])
    return [path for tree in trees if os.path.isdir(path := os.path.join(tree, name))]


def backend_roots() -> list[str]:
    """The backend roots in search order (searched recursively)."""
    return [*_directories(BACKEND_PATH), *install_folders("backends"), str(PACKAGE_BACKENDS)]


def _is_tool(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def _walk(root: str) -> Iterator[str]:
    """Every file under ``root``, sorted, depth first."""
    for folder, subfolders, files in os.walk(root):
        subfolders.sort()
        for name in sorted(files):
            yield os.path.join(folder, name)


def _tool_folders() -> list[tuple[str, bool]]:
    """(folder, whether its subfolders count) in search order: the program's own folder (not
    its subfolders) comes after the variable's roots."""
    variable = _directories(BACKEND_PATH)
    others = [root for root in backend_roots() if root not in variable]
    return [
        *((root, True) for root in variable),
        (program_folder(), False),
        *((root, True) for root in others),
    ]


def _files(folder: str, deep: bool) -> Iterator[str]:
    """``folder/*`` files (sorted), then with ``deep`` the files below (:func:`_walk` gives a
    folder's own files before its subfolders')."""
    if deep:
        yield from _walk(folder)
    elif os.path.isdir(folder):
        yield from (os.path.join(folder, name) for name in sorted(os.listdir(folder)))


def _candidates(name: str) -> Iterator[str]:
    """Paths ``name`` may have, in search order."""
    for folder, deep in _tool_folders():
        yield from (path for path in _files(folder, deep) if os.path.basename(path) == name)


def find_tool(name: str) -> str | None:
    """The first executable of :func:`_candidates`, then ``name`` on ``PATH``."""
    if os.sep in name:
        return name if _is_tool(name) else None
    return next((path for path in _candidates(name) if _is_tool(path)), shutil.which(name))


def searched() -> str:
    """Where :func:`find_tool` looks, for not-found messages."""
    return f"searched {', '.join(folder for folder, _ in _tool_folders())} and PATH"


def available(suffix: str) -> list[str]:
    """Basenames of the tools ``*-<suffix>`` of :func:`_tool_folders` (sorted, unique), but
    not this project's own programs (``one-profile`` beside the program)."""
    ending = f"-{suffix}"
    names = {
        os.path.basename(path)
        for folder, deep in _tool_folders()
        for path in _files(folder, deep)
        if path.endswith(ending) and _is_tool(path)
    }
    return sorted(name for name in names if not name.startswith("one-"))


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
    """``<target>.ini`` in ``ONECC_TARGET_PATH``, then ``<install>/target``, then the package's
    ``target/`` folder."""
    for folder in [*_directories(TARGET_PATH), *install_folders("target"), str(PACKAGE_TARGETS)]:
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
