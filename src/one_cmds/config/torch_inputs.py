"""The ``input_shapes`` and ``input_types`` of ``one-import-pytorch``
(tf-and-pytorch-import.md §5.3): ``batch,3,224,224:batch,10`` and ``float32,int64``.

Groups are split by ``:``, dimensions by ``,``; an empty group is a scalar. A dimension is an
integer >= 0, ``-1`` (dynamic) or a name (dynamic; equal names are one dimension). Types are
split by ``,`` or ``:``.
"""

from __future__ import annotations

import re

from one_cmds.config.shapes import ShapeStringError

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SIZE = re.compile(r"-1|[0-9]+")
TORCH_TYPES = (
    "bool",
    "uint8",
    "int8",
    "int16",
    "int32",
    "int64",
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
)


def _dimension(token: str, k: int, text: str) -> int | str | None:
    """An integer size, a dimension name, or None (``-1``, an unnamed dynamic dimension)."""
    if _SIZE.fullmatch(token):
        return None if token == "-1" else int(token)
    if _NAME.fullmatch(token):
        return token
    raise ShapeStringError(
        f"Invalid input_shapes: '{text}' (dimension '{token}' of input {k} is not an integer "
        ">= 0, -1 or a name)"
    )


def parse_torch_shapes(text: str) -> list[tuple[int | str | None, ...]]:
    """One shape per input: ints, names and None (``-1``)."""
    shapes = []
    for k, group in enumerate(text.split(":")):
        tokens = [t.strip() for t in group.split(",")] if group.strip() else []
        shapes.append(tuple(_dimension(t, k, text) for t in tokens))
    return shapes


def parse_torch_types(text: str) -> list[str]:
    """One dtype name per input."""
    types = [t.strip() for t in re.split(r"[,:]", text)]
    for t in types:
        if t not in TORCH_TYPES:
            raise ShapeStringError(f"Unsupported input type: {t}")
    return types
