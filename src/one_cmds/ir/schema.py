"""Name tables derived from the circle schema bindings (operator codes, tensor types, options)."""

from __future__ import annotations

import importlib
from functools import cache
from typing import Any

from circle_schema import circle as cs
from circle_schema.v0_10.circle.BuiltinOperator import BuiltinOperator
from circle_schema.v0_10.circle.BuiltinOptions import BuiltinOptions
from circle_schema.v0_10.circle.BuiltinOptions2 import BuiltinOptions2
from circle_schema.v0_10.circle.TensorType import TensorType


def _enum(cls: type) -> dict[str, int]:
    return {k: v for k, v in vars(cls).items() if not k.startswith("_") and isinstance(v, int)}


OPCODE_BY_NAME: dict[str, int] = _enum(BuiltinOperator)
OPCODE_NAME: dict[int, str] = {v: k for k, v in OPCODE_BY_NAME.items()}
TYPE_BY_NAME: dict[str, int] = _enum(TensorType)
TYPE_NAME: dict[int, str] = {v: k for k, v in TYPE_BY_NAME.items()}

# TFLite tensor types 19-22 that circle does not know (circle's UINT4 is -1).
TFLITE_ONLY_TYPES = {19: "INT2", 20: "UINT4", 21: "FLOAT8_E4M3FN", 22: "FLOAT8_E5M2"}

# Builtin-code placeholder of the deprecated int8 field for codes >= 127.
PLACEHOLDER_FOR_GREATER_OP_CODES = 127

_OPTIONS_BY_NAME = _enum(BuiltinOptions)
_OPTIONS2_BY_NAME = _enum(BuiltinOptions2)
CIRCLE_ONLY_OPTIONS = frozenset(v for v in _OPTIONS_BY_NAME.values() if v >= 247)


def options_type(options: Any) -> int:
    """The ``BuiltinOptions`` union value of an options object (``Conv2DOptionsT`` -> 1)."""
    return 0 if options is None else _OPTIONS_BY_NAME[type(options).__name__[:-1]]


def options2_type(options: Any) -> int:
    """The ``BuiltinOptions2`` union value of an options object."""
    return 0 if options is None else _OPTIONS2_BY_NAME[type(options).__name__[:-1]]


@cache
def options_name(union_value: int) -> str | None:
    for name, value in _OPTIONS_BY_NAME.items():
        if value == union_value and name != "NONE":
            return name
    return None


def options_class(name: str) -> type:
    """The object-API class of an options table by its schema name (``"Conv2DOptions"``)."""
    module = importlib.import_module(f"{cs.__name__}.{name}")
    return getattr(module, f"{name}T")


def new_options(name: str, **fields: Any) -> Any:
    """A new options object, e.g. ``new_options("AddOptions", fusedActivationFunction=1)``."""
    obj = options_class(name)()
    for key, value in fields.items():
        if not hasattr(obj, key):
            raise AttributeError(f"{name} has no field {key!r}")
        setattr(obj, key, value)
    return obj
