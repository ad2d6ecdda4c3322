"""Helpers of the passes that remove or substitute layout operators (Reshape, Slice,
StridedSlice, Split, Transpose, Squeeze, Pack): integer operands, TFLite's strided-slice
bounds and a new Reshape replacing an operator. Registers no pass."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...ir import Operator, Tensor
from .editor import GraphEditor
from .values import const_value, new_options


def const_ints(t: Tensor | None) -> list[int] | None:
    """The values of a constant INT32/INT64 vector (None for anything else)."""
    value = const_value(t)
    if t is None or value is None or t.dtype not in ("INT32", "INT64") or value.ndim != 1:
        return None
    return [int(v) for v in value]


def strided_slice_bounds(op: Operator) -> list[tuple[int, int, int]] | None:
    """``(start, stop, dim)`` per input axis of a STRIDED_SLICE whose begin, end and strides
    are constant with one entry per axis of a fully known input, every stride 1, no
    ellipsis or new-axis mask and no ``offset``; None otherwise.

    The bounds are resolved as TFLite does for a stride of 1: a negative index counts from
    the end, both are clamped to [0, dim], a begin (end) mask bit gives 0 (dim), and a
    shrunk axis stops at start + 1 whatever its end.
    """
    options, x = op.options, op.inputs[0]
    if options is None:
        return None
    begin, end, strides = (const_ints(t) for t in op.inputs[1:4])
    if begin is None or end is None or strides is None or x is None or not x.is_static:
        return None
    rank = len(x.shape)
    if not len(begin) == len(end) == len(strides) == rank or any(s != 1 for s in strides):
        return None
    if options.ellipsisMask or options.newAxisMask or options.offset:
        return None
    bounds = []
    for i, dim in enumerate(x.shape):
        start = 0 if options.beginMask >> i & 1 else _resolve(begin[i], dim)
        if options.shrinkAxisMask >> i & 1:
            stop = start + 1
        else:
            stop = dim if options.endMask >> i & 1 else _resolve(end[i], dim)
        bounds.append((start, stop, dim))
    return bounds


def _resolve(index: int, dim: int) -> int:
    return min(max(index + dim if index < 0 else index, 0), dim)


def replace_with_reshape(g: GraphEditor, op: Operator, x: Tensor, shape: Sequence[int]) -> None:
    """Replace the single result of ``op`` by ``Reshape(x, shape)`` (a new INT32 shape
    constant; origin: a copy of ``op``'s, circle-format-and-metadata.md §9)."""
    out = op.outputs[0]
    target = g.const(f"{out.name}/shape", np.array(list(shape), np.int32).reshape(-1))
    options = new_options("ReshapeOptions", newShape=[int(d) for d in shape])
    g.replace_with(op, "RESHAPE", [x, target], options, origin=op.origin)
