"""The converters, one module per family of ONNX operators (importing registers them)."""

from . import basic, conv, elementwise  # noqa: F401
