"""The import steps: ``one-import-tflite`` and ``one-import-circle`` load a model file (the
format comes from the file identifier, so both accept either format); ``one-import-onnx``
lowers an ONNX model (onnx-import.md; :mod:`.onnx_import`); ``one-import-pytorch`` exports a
PyTorch model to ONNX in memory and lowers that (tf-and-pytorch-import.md §5). Loading stamps
origins and the source md5 (circle-format-and-metadata.md §8, §12).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ..formats.files import check_output_path, write_atomically
from ..ir import Model
from ..report.console import detail, warn
from .onnx_import import OnnxImportStage
from .options import ImportOptions, ImportPytorchOptions
from .stage import Stage

if TYPE_CHECKING:
    import onnx


class PytorchImportStage(Stage[ImportPytorchOptions]):
    """The PyTorch model file exported and imported with the step's options; torch's output
    and the ``-V`` listing go to the step log. The output path is checked before torch runs;
    ``save_intermediate`` writes the exported ONNX model as ``<output base>.onnx``."""

    def load(self, options: ImportPytorchOptions) -> Model:
        from ..frontends.pytorch import import_pytorch

        check_output_path(options.output_path)
        imported = import_pytorch(
            options.input_path,
            python_path=options.python_path,
            input_shapes=options.input_shapes or (),
            input_types=options.input_types or (),
            onnx_options=options.onnx_options(),
            warn=warn,
            note=detail,
            keep_onnx=options.save_intermediate,
        )
        if imported.onnx_model is not None:
            _save_onnx(imported.onnx_model, options.output_path)
        return imported.model


def _save_onnx(model: onnx.ModelProto, output_path: str) -> None:
    """``<output base>.onnx`` beside ``output_path``, written atomically."""
    base = os.path.splitext(output_path)[0]
    data = model.SerializeToString()
    write_atomically(f"{base}.onnx", lambda output: output.write(data))


IMPORT: Stage[ImportOptions] = Stage()
IMPORT_ONNX = OnnxImportStage()
IMPORT_PYTORCH = PytorchImportStage()
