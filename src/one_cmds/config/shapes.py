"""The ``input_shapes`` grammar of ``one-resize`` (resize.md §2): ``[1,3,224,224],[10]``.

Strict grammar (the reference's lenient quirks are rejected, resize.md §2.5). ``-1`` marks an
unknown dimension, ``[]`` a scalar.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..errors import OneCmdsError
from ..ir.shape_list import ShapeList

if TYPE_CHECKING:  # the IR loads numpy: not needed to parse a shape string
    from ..ir import Shape

_BLANK = " \t"
_DIM = re.compile(r"[+-]?[0-9]+")
_SEPARATOR = re.compile(r"[ \t]*,[ \t]*")
# One ``name[d,...]`` entry of an import shape string and what separates it from the next.
_NAMED = re.compile(r"[ \t]*([^\[\],]*?)[ \t]*(\[[^\[\]]*\])[ \t]*(?:,(?=.)|$)")
INT32_MAX = 2**31 - 1


class ShapeStringError(OneCmdsError):
    """The shape string does not follow the grammar."""


def parse_shapes(text: str) -> list[Shape]:
    """Parse the shape string into one shape per input (None for an unknown dimension)."""
    rest = text
    if "[" not in rest or "]" not in rest:
        raise ShapeStringError(f"No shapes found in the input string: {text}")
    shapes: list[Shape] = []
    while "[" in rest and "]" in rest:
        begin, end = rest.index("["), rest.index("]")
        if begin > end or not _separator_ok(rest[:begin], first=not shapes):
            raise ShapeStringError(f"Invalid shape format: {text}")
        shapes.append(_parse_shape(rest[begin + 1 : end]))
        rest = rest[end + 1 :]
    if rest.strip(_BLANK):
        raise ShapeStringError(f"The part of input shapes: {rest} cannot be processed")
    return shapes


def parse_named_shapes(text: str) -> list[tuple[str | None, Shape]]:
    """The ``--input_shapes``/``--output_shapes`` of ``one-import-onnx`` (onnx-import.md §8.2):
    ``[d,...],...`` for the tensors in order (names None), or ``name[d,...],...``."""
    if "[" not in text or text.strip(_BLANK).startswith("["):
        return [(None, shape) for shape in parse_shapes(text)]
    entries: list[tuple[str | None, Shape]] = []
    position = 0
    while position < len(text):
        entry = _NAMED.match(text, position)
        if entry is None or not entry.group(1) or entry.end() == position:
            raise ShapeStringError(f"Invalid shape format: {text}")
        entries.append((entry.group(1), parse_shapes(entry.group(2))[0]))
        position = entry.end()
    return entries


def _separator_ok(prefix: str, *, first: bool) -> bool:
    if first:
        return not prefix.strip(_BLANK)
    return _SEPARATOR.fullmatch(prefix) is not None


def _parse_shape(token: str) -> Shape:
    if not token.strip(_BLANK):
        return ()
    dims: list[int | None] = []
    for piece in token.split(","):
        piece = piece.strip(_BLANK)
        value = int(piece) if _DIM.fullmatch(piece) else None
        if value is None or not -1 <= value <= INT32_MAX:
            raise ShapeStringError(f"Error during shape processing: {token}")
        dims.append(None if value == -1 else value)
    return tuple(dims)


def shapes_of(value: str | Sequence[Sequence[int | None]]) -> ShapeList:
    """Shapes given to the Python API (``one_cmds.resize``): the string form, or one sequence
    of ints per input where ``-1`` or None marks an unknown dimension and ``()`` a scalar."""
    if isinstance(value, str):
        return ShapeList(parse_shapes(value), value)
    result: list[Shape] = []
    for i, shape in enumerate(value):
        dims: list[int | None] = []
        for d in shape:
            if d is not None and not (isinstance(d, int) and -1 <= d <= INT32_MAX):
                raise ShapeStringError(
                    f"Error during shape processing: shape {i} has dimension {d!r} "
                    "(expected a size >= 0, or -1/None for an unknown dimension)"
                )
            dims.append(None if d in (None, -1) else d)
        result.append(tuple(dims))
    return ShapeList(result, str(result))
