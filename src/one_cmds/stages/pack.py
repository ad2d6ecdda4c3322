"""The ``one-pack`` step: package a model and its MANIFEST into an nnpackage folder.

backends-and-packaging.md §4 (reference ``model2nnpkg``, run in process here): the package is
``<output_path>/<name>/`` holding the model under its input basename and ``metadata/MANIFEST``.
Folders are made with ``exist_ok``; the model and MANIFEST are replaced atomically and any other
file already in the package is kept.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable

from ..errors import ExportError, StageError
from ..formats.files import Output, open_model_bytes, source_of, write_atomically
from ..formats.writer import save
from ..ir import Model
from ..report.console import out
from .options import PackOptions
from .stage import PackagingStage

MANIFEST_VERSION = ("1", "2", "0")


def pack(model: Model | None, input_path: str, output_path: str, *, profile: bool) -> str:
    """Write the nnpackage of ``input_path`` into the folder ``output_path``.

    ``model`` is the previous step's in-memory model, written with origins (and the profiling
    tables when ``profile``); None copies ``input_path`` byte for byte (``profile`` then has no
    effect). Returns the line to print.
    """
    if not os.path.isfile(input_path):
        raise StageError(f"{input_path} does not exist.")
    basename = os.path.basename(input_path)
    if "." not in basename:
        raise StageError("modelfile does not have extension.")
    name, model_type = basename.rsplit(".", 1)
    package = os.path.join(output_path, name)
    metadata = os.path.join(package, "metadata")
    _make_folders(output_path, package, metadata)
    target = os.path.join(package, basename)
    if model is None:
        _copy(input_path, target)
    else:
        save(model, target, profile=profile)
    write_atomically(os.path.join(metadata, "MANIFEST"), _text(manifest(basename, model_type)))
    return f"model2nnpkg: Generating nnpkg {name} in {output_path}"


def manifest(model_file: str, model_type: str) -> str:
    """The MANIFEST text of a package holding one model and no config file."""
    major, minor, patch = MANIFEST_VERSION
    content = {
        "major-version": major,
        "minor-version": minor,
        "patch-version": patch,
        "configs": [""],
        "models": [model_file],
        "model-types": [model_type],
    }
    return json.dumps(content, indent=2) + "\n"


def _make_folders(*folders: str) -> None:
    """Create the folders (outermost first) unless present; a file in the way is an error."""
    for folder in folders:
        if os.path.exists(folder) and not os.path.isdir(folder):
            raise ExportError(f"Failed to export: {folder} (not a directory)")
    try:
        os.makedirs(folders[-1], exist_ok=True)
    except OSError as e:
        raise ExportError(f"Failed to export: {e.filename or folders[-1]} ({e.strerror})") from None


def _copy(source_path: str, target: str) -> None:
    """Copy a file atomically, keeping its permission bits and times like ``shutil.copy2``."""
    data = open_model_bytes(source_path)
    source = source_of(data)

    def write(output: Output) -> None:
        if source is not None:  # None: an empty file
            output.copy_from(source, 0, source.size)

    write_atomically(target, write)
    try:
        shutil.copystat(source_path, target)
    except OSError as e:
        raise ExportError(f"Failed to export: {target} ({e.strerror})") from None


def _text(text: str) -> Callable[[Output], None]:
    """A ``write_atomically`` callback writing ``text`` as UTF-8."""
    data = text.encode()
    return lambda output: output.write(data)


class PackStage(PackagingStage[PackOptions]):
    """``[one-pack]``: the package of the handed-on model, or of the input file's bytes."""

    def save(self, model: Model | None, options: PackOptions, profile: bool) -> int:
        out(pack(model, options.input_path, options.output_path, profile=profile))
        return 0


PACK = PackStage()
