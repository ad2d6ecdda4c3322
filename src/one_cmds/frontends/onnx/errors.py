"""Errors of the ONNX import (messages of onnx-import.md §3)."""

from __future__ import annotations

from ...errors import ModelFileError, StageError


class OnnxFileError(ModelFileError):
    """The file is missing, not an ONNX model, malformed, or its external data is wrong."""


class OnnxImportError(StageError):
    """A valid model this importer cannot lower (opset, operators, data types)."""


class Unsupported(Exception):
    """Raised by a converter: the node cannot be lowered; ``reason`` is the §3 entry suffix
    (empty when the operator type itself is unsupported)."""

    def __init__(self, reason: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
