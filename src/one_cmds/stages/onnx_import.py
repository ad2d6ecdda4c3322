"""The ``one-import-onnx`` step (onnx-import.md §2, §4): the built-in importer, or the
``one-import-onnx-ext`` extension installed beside the program.

The extension runs instead of the built-in importer with ``force_ext`` or with options only it
knows (``extension_args``), and after the built-in importer when that cannot lower the model
(not with ``disable_ext``). It writes into a temporary file beside the output; its model is
read from there and the step writes the output as every step does, so a failure leaves no
output. ``save_intermediate`` writes the built-in import as ``<output base>.tflite`` (TFL3)
beside the output (cli-and-config.md §16); the extension receives the flag instead.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from ..backends.onnx_ext import PASSED_FLAGS, find_extension, forced, installed_path
from ..backends.onnx_ext import run_extension as start_extension
from ..errors import StageError
from ..formats.files import check_output_path
from ..formats.reader import load_bytes
from ..formats.writer import circle_only_feature, save
from ..ir import Model
from ..report.console import detail, warn
from .options import ImportOnnxOptions
from .stage import Stage


class OnnxImportStage(Stage[ImportOnnxOptions]):
    """The ``.onnx`` file imported with the step's options; the ``-V`` listing goes to the
    step log (and stdout with ``-V``)."""

    def load(self, options: ImportOnnxOptions) -> Model:
        from ..frontends.onnx import import_onnx
        from ..frontends.onnx.errors import OnnxImportError

        extension = find_extension(options.disable_ext)
        if extension is not None and (forced(options.force_ext) or options.extension_args):
            return _run_extension(extension, options)
        if forced(options.force_ext):
            warn(
                f"'force_ext' is set but one-import-onnx-ext is not installed "
                f"({installed_path()}); the built-in importer is used"
            )
        try:
            model = import_onnx(options.input_path, options, warn=warn, note=detail)
        except OnnxImportError as error:
            if extension is None:
                raise
            warn(f"{error}; falling back to one-import-onnx-ext")
            return _run_extension(extension, options)
        if options.save_intermediate:
            _save_intermediate(model, options.output_path)
        return model


def _run_extension(extension: str, options: ImportOnnxOptions) -> Model:
    """The extension's model, read from the temporary file it wrote."""
    folder = check_output_path(options.output_path)
    suffix = os.path.splitext(options.output_path)[1]
    fd, scratch = tempfile.mkstemp(prefix=".one-import-onnx-ext.", suffix=suffix, dir=folder)
    os.close(fd)
    flags = [name for name in PASSED_FLAGS if getattr(options, name)]
    try:
        start_extension(extension, flags, options.extension_args, options.input_path, scratch)
        data = Path(scratch).read_bytes()
    finally:
        os.unlink(scratch)
    if not data:
        raise StageError(f"one-import-onnx-ext wrote no model for {options.input_path}")
    return load_bytes(data, options.output_path, warn)


def _save_intermediate(model: Model, output_path: str) -> None:
    """``<output base>.tflite``: the import as TFLite, unless it holds a circle-only feature
    (then a warning names it and nothing is written)."""
    path = f"{os.path.splitext(output_path)[0]}.tflite"
    if os.path.abspath(path) == os.path.abspath(output_path):
        return  # the output itself is that file
    feature = circle_only_feature(model)
    if feature is not None:
        warn(f"'save_intermediate': {path} is not written ({feature})")
        return
    save(model, path)
