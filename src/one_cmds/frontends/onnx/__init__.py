"""ONNX import (onnx-import.md): an ``.onnx`` file lowered into the project's IR.

:func:`import_onnx` loads the file (:mod:`.loader`), folds constants and shape values and
infers ONNX shapes (:mod:`.folding`), lowers every node with the converters of :mod:`.ops`
(:mod:`.lowering`; all unsupported nodes reported at once), removes the TRANSPOSEs the
layout-sensitive operators brought (:mod:`.layout`) and re-infers the circle shapes.
"""

from .importer import OnnxOptions, import_onnx

__all__ = ["OnnxOptions", "import_onnx"]
