"""The import steps: ``one-import-tflite`` and ``one-import-circle`` load a model file (the
format comes from the file identifier, so both accept either format); ``one-import-onnx``
lowers an ONNX model (onnx-import.md). Loading stamps origins and the source md5
(circle-format-and-metadata.md §8, §12).
"""

from __future__ import annotations

from ..ir import Model
from ..report.console import detail, warn
from .options import ImportOnnxOptions, ImportOptions
from .stage import Stage


class OnnxImportStage(Stage[ImportOnnxOptions]):
    """The ``.onnx`` file imported with the step's options; the ``-V`` listing goes to the
    step log (and stdout with ``-V``)."""

    def load(self, options: ImportOnnxOptions) -> Model:
        from ..frontends.onnx import import_onnx

        return import_onnx(options.input_path, options, warn=warn, note=detail)


IMPORT: Stage[ImportOptions] = Stage()
IMPORT_ONNX = OnnxImportStage()
