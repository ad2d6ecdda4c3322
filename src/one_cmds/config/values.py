"""Value kinds of options and the conversion of raw values (cli-and-config.md §14.1, §7.2).

Raw values are INI strings, TOML/JSON values or argparse results. An empty string means
"not set" (``None``).
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from typing import NamedTuple

from one_cmds.config.shapes import ShapeStringError, parse_named_shapes, parse_shapes
from one_cmds.config.source import Source
from one_cmds.config.torch_inputs import parse_torch_shapes, parse_torch_types
from one_cmds.ir.shape_list import NamedShapeList, ShapeList, TorchShapeList, TorchTypeList

# configparser.getboolean's accepted strings.
BOOLEAN_STRINGS = {
    "1": True,
    "yes": True,
    "true": True,
    "on": True,
    "0": False,
    "no": False,
    "false": False,
    "off": False,
}


class Kind(Enum):
    """How a raw value is converted."""

    BOOL = "boolean"
    STR = "string"
    INT = "int"
    FLOAT = "float"
    CSV = "comma-separated list"
    STR_LIST = "list of strings"
    INT_LIST = "list of ints"
    FLOAT_LIST = "list of floats"
    CHOICE = "choice"
    # Kept as given (string or number) and checked by the driver's verification, whose
    # order and messages the spec fixes (one-quantize, §17.4).
    RAW = "string or number"
    # A one-resize shape string (resize.md §2): its shapes, remembering the string.
    SHAPES = "shape string"
    # A one-import-onnx shape string, also with tensor names (onnx-import.md §8.2).
    IO_SHAPES = "named shape string"
    # The one-import-pytorch shapes and types (tf-and-pytorch-import.md §5.3).
    TORCH_SHAPES = "PyTorch shape string"
    TORCH_TYPES = "PyTorch type list"


_SHAPE_PARSERS = {
    Kind.SHAPES: (parse_shapes, ShapeList),
    Kind.IO_SHAPES: (parse_named_shapes, NamedShapeList),
    Kind.TORCH_SHAPES: (parse_torch_shapes, TorchShapeList),
    Kind.TORCH_TYPES: (parse_torch_types, TorchTypeList),
}
_ITEM_KIND = {Kind.STR_LIST: Kind.STR, Kind.INT_LIST: Kind.INT, Kind.FLOAT_LIST: Kind.FLOAT}


def type_name(value: object) -> str:
    """The TOML/JSON name of a value's type, for messages."""
    names = {bool: "boolean", int: "integer", float: "float", str: "string", list: "array"}
    return names.get(type(value), "table" if isinstance(value, dict) else type(value).__name__)


def to_bool(value: object, source: Source, key: str) -> bool:
    """A boolean by the ``getboolean`` rule; native booleans pass."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in BOOLEAN_STRINGS:
        return BOOLEAN_STRINGS[value.strip().lower()]
    raise source.error(f"Not a boolean: {value}", key=key)


def _wrong_type(kind: Kind, value: object, source: Source, key: str) -> Exception:
    return source.error(f"expected a {kind.value}, got {type_name(value)}: {value!r}", key=key)


def _number(kind: Kind, value: object, source: Source, key: str) -> int | float:
    convert = int if kind is Kind.INT else float
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise _wrong_type(kind, value, source, key)
    if isinstance(value, float) and kind is Kind.INT:
        raise source.error(f"invalid int value: '{value}'", key=key)
    try:
        return convert(value.strip() if isinstance(value, str) else value)
    except ValueError:
        raise source.error(f"invalid {kind.value} value: '{value}'", key=key) from None


def _string(value: object, source: Source, key: str) -> str:
    if not isinstance(value, str):
        raise _wrong_type(Kind.STR, value, source, key)
    return value


def _shapes(
    text: str, source: Source, key: str, parse: Callable[[str], list], typed: type
) -> object:
    """The parsed shapes (remembering ``text``): a bad string stops the build before any
    step runs."""
    try:
        return typed(parse(text), text)
    except ShapeStringError as e:
        if source.usage:
            raise  # the driver's own message, exit 255 (resize.md §7)
        raise source.error(e.message, key=key) from None


def convert(
    kind: Kind,
    value: object,
    source: Source,
    key: str,
    choices: tuple[str, ...] = (),
) -> object:
    """The typed value of ``value`` for an option of ``kind``; None when not set."""
    if isinstance(value, str) and value.strip() == "" and kind is not Kind.BOOL:
        return None
    if kind is Kind.BOOL:
        return None if value == "" else to_bool(value, source, key)
    if kind in (Kind.INT, Kind.FLOAT):
        return _number(kind, value, source, key)
    if kind is Kind.STR:
        return _string(value, source, key)
    if kind in _SHAPE_PARSERS:
        return _shapes(_string(value, source, key), source, key, *_SHAPE_PARSERS[kind])
    if kind is Kind.CHOICE:
        text = _string(value, source, key)
        if text not in choices:
            listed = ", ".join(f"'{c}'" for c in choices)
            raise source.error(f"invalid choice: '{text}' (choose from {listed})", key=key)
        return text
    if kind is Kind.CSV:
        items = value.split(",") if isinstance(value, str) else value
        if not isinstance(items, list):
            raise _wrong_type(kind, value, source, key)
        return [_string(item, source, key).strip() for item in items]
    if kind in _ITEM_KIND:
        items = value if isinstance(value, list) else [value]
        converted = [convert(_ITEM_KIND[kind], item, source, key) for item in items]
        if None in converted:
            raise source.error("empty item in a list", key=key)
        return converted
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise _wrong_type(kind, value, source, key)
    return value


class Setting(NamedTuple):
    """A converted option value and where it was given."""

    value: object
    source: Source


Settings = dict[str, Setting]
