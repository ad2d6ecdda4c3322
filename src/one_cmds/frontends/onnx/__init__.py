"""ONNX import (onnx-import.md): an ``.onnx`` file lowered into the project's IR.

:func:`import_onnx` loads the file (:mod:`.loader`), folds constants and shape values and
infers ONNX shapes (:mod:`.folding`), lowers every node with the converters of :mod:`.ops`
(:mod:`.lowering`; all unsupported nodes reported at once), removes the TRANSPOSEs the
layout-sensitive operators brought (:mod:`.layout`) and re-infers the circle shapes.
:class:`OnnxOptions` (:mod:`.options`) loads without the front end.
"""

from typing import Any

__all__ = ["OnnxOptions", "import_onnx"]
_HOMES = {"OnnxOptions": "options", "import_onnx": "importer"}


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f".{_HOMES[name]}", __name__), name)
