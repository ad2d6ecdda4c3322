"""Shape operators (onnx-import.md §6.1): Reshape, Flatten, Squeeze, Unsqueeze, Transpose,
Shape, Size, ConstantOfShape, Expand, Range, CumSum, Tile. What is known of the shapes comes
from :mod:`.shape_values`; the graph pieces that compute the rest from :mod:`.shape_building`.
"""

from __future__ import annotations

import numpy as np
from onnx import numpy_helper

from ....ir import Tensor
from ..errors import Unsupported
from ..lowering import NUMPY, Lowering, converter
from ..node import Node
from .common import options, reshape, transpose
from .shape_building import (
    axes_operand,
    bind_sized,
    concat,
    gather,
    int32,
    normalized_axes,
    part_sizes,
    reshape_parts,
    resolved,
    shape_of,
    squeeze,
    static_target,
    strided_slice,
    unsqueeze,
)
from .shape_values import Dim, Entry, Part, dims_of, product, ranked_dims, shape_bounds, shape_value


def _reshape_sizes(node: Node, lo: Lowering) -> tuple[list[Entry], list[int]]:
    """What is known of Reshape's output sizes (−1 where inferred at run time), and the
    positions whose ``0`` copies the input's dim."""
    x_name, t_name = node.input(0), node.input(1)
    allowzero = bool(node.attr("allowzero", 0))
    entries = shape_value(lo, t_name)
    if entries is None:
        length = (lo.shape(t_name) or (None,))[0]
        if length is None:
            raise Unsupported(f"dimension 0 of '{t_name}' must be known")
        entries = [None] * length
    if allowzero and 0 in entries:
        raise Unsupported("allowzero 1 is not supported")
    x_dims = dims_of(lo, x_name)
    copies = [i for i, e in enumerate(entries) if e == 0 and not allowzero]
    if copies and (x_dims is None or max(copies) >= len(x_dims)):
        raise Unsupported(f"rank of '{x_name}' must be known")
    out = [x_dims[i] if i in copies else e for i, e in enumerate(entries)]  # type: ignore[index]
    inferred = lo.shape(node.outputs[0])
    if inferred is not None and len(inferred) == len(out):
        out = [d if e is None and d is not None else e for e, d in zip(out, inferred, strict=True)]
    return resolved(out, None if x_dims is None else product(x_dims)), copies


@converter("Reshape")
def reshape_(node: Node, lo: Lowering) -> None:
    """Reshape (5, 14: ``allowzero``): ``0`` copies the input's dim, one −1 is inferred."""
    x_name, t_name = node.input(0), node.input(1)
    x = lo.value(x_name)
    sizes, copies = _reshape_sizes(node, lo)
    target = static_target(sizes)
    if target is not None:
        bind_sized(lo, node.outputs[0], reshape(lo, x, target), sizes)
        return
    shape = lo.value(t_name)
    if copies:  # the copied sizes from SHAPE(x): GATHER over [SHAPE(x), target]
        rank = lo.rank(x_name)
        index = [i if i in copies else rank + i for i in range(len(sizes))]
        table = concat(lo, [shape_of(lo, x), shape])
        shape = gather(lo, table, int32(lo, index, "index"))
    y = lo.emit("RESHAPE", [x, shape], dtype=x.dtype, name=lo.helper_name("reshape"))
    bind_sized(lo, node.outputs[0], y, sizes)


@converter("Flatten")
def flatten(node: Node, lo: Lowering) -> None:
    """Flatten (9, 11: negative axis): ``[d0·…·d(a−1), da·…]``."""
    x_name = node.input(0)
    rank = lo.rank(x_name)
    axis = int(node.attr("axis", 1))
    axis = axis + rank if axis < 0 else axis
    parts: list[Part] = [(x_name, tuple(range(axis))), (x_name, tuple(range(axis, rank)))]
    y = reshape_parts(lo, lo.value(x_name), parts)
    bind_sized(lo, node.outputs[0], y, part_sizes(lo, parts))


def _squeeze_operands(node: Node, lo: Lowering) -> tuple[str, list[Dim], list[int] | None]:
    """Squeeze's and Unsqueeze's input, its dims (the rank must be known) and the axes given
    (11: attribute, 13: input)."""
    x_name = node.input(0)
    return x_name, ranked_dims(lo, x_name), axes_operand(node, lo, 13)


@converter("Squeeze")
def squeeze_(node: Node, lo: Lowering) -> None:
    """Squeeze (11: negative axes, 13: axes input); no axes removes every dim of size 1."""
    x_name, dims, given = _squeeze_operands(node, lo)
    if given is None:
        unknown = [i for i, d in enumerate(dims) if not isinstance(d, int)]
        if unknown:
            raise Unsupported(f"dimension {unknown[0]} of '{x_name}' must be known")
        axes = [i for i, d in enumerate(dims) if d == 1]
    else:
        axes = normalized_axes(given, len(dims))
    out = [d for i, d in enumerate(dims) if i not in axes]
    bind_sized(lo, node.outputs[0], squeeze(lo, lo.value(x_name), axes, out), out)


@converter("Unsqueeze")
def unsqueeze_(node: Node, lo: Lowering) -> None:
    """Unsqueeze (11: negative axes, 13: axes input); axes index the output."""
    x_name, dims, given = _squeeze_operands(node, lo)
    if given is None:
        raise Unsupported("input 'axes' must be constant")
    axes = normalized_axes(given, len(dims) + len(given))
    rest = iter(dims)
    out = [1 if i in axes else next(rest) for i in range(len(dims) + len(axes))]
    bind_sized(lo, node.outputs[0], unsqueeze(lo, lo.value(x_name), axes, out), out)


@converter("Transpose")
def transpose_(node: Node, lo: Lowering) -> None:
    x_name = node.input(0)
    rank = lo.rank(x_name)
    perm = tuple(int(p) for p in node.attr("perm", list(range(rank))[::-1]))
    dims = ranked_dims(lo, x_name)
    y = transpose(lo, lo.value(x_name), perm, "transpose")
    bind_sized(lo, node.outputs[0], y, [dims[p] for p in perm])


@converter("Shape")
def shape_(node: Node, lo: Lowering) -> None:
    """Shape (15: ``start``/``end``) of a value with unknown dims: SHAPE (+STRIDED_SLICE)."""
    x_name = node.input(0)
    rank = lo.rank(x_name)
    start, end = shape_bounds(node, rank)
    y = shape_of(lo, lo.value(x_name))
    if (start, end) != (0, rank):
        y = strided_slice(lo, y, [start], [end], [1])
    lo.bind(node.outputs[0], y)


@converter("Size")
def size(node: Node, lo: Lowering) -> None:
    """Size of a value with unknown dims: SHAPE + REDUCE_PROD."""
    y = lo.emit(
        "REDUCE_PROD", [shape_of(lo, lo.value(node.input(0))), int32(lo, [0], "axes")],
        options("ReducerOptions", keepDims=False), dtype="INT32",
    )  # fmt: skip
    lo.bind(node.outputs[0], y)


@converter("ConstantOfShape")
def constant_of_shape(node: Node, lo: Lowering) -> None:
    """FILL of the ``value`` attribute's element (float 0 by default)."""
    given = node.attr("value")
    value = numpy_helper.to_array(given).reshape(-1)[0] if given is not None else np.float32(0)
    dtype = lo.dtype(node.outputs[0])
    fill_value = lo.constant(np.array(value).astype(NUMPY[dtype]), lo.helper_name("value"), dtype)
    y = lo.emit("FILL", [lo.value(node.input(0)), fill_value], "FillOptions", dtype=dtype)
    lo.bind(node.outputs[0], y)


@converter("Expand")
def expand(node: Node, lo: Lowering) -> None:
    """Expand (8, 13): BROADCAST_TO the bidirectional broadcast of the two shapes; nothing when
    the shape does not change."""
    x_name, t_name = node.input(0), node.input(1)
    x = lo.value(x_name)
    dims = dims_of(lo, x_name)
    entries = shape_value(lo, t_name)
    if dims is not None and entries is not None and len(entries) <= len(dims):
        aligned = dims[len(dims) - len(entries) :]
        if all(e == 1 or e == d for e, d in zip(entries, aligned, strict=True)):
            lo.bind(node.outputs[0], x)
            return
    out = lo.shape(node.outputs[0])
    if out is not None and None not in out:
        target = int32(lo, out, "shape")
    else:
        target = _broadcast_shape(lo, x, x_name, dims, entries, t_name)
    y = lo.emit("BROADCAST_TO", [x, target], "BroadcastToOptions", dtype=x.dtype, version=2)
    lo.bind(node.outputs[0], y)


def _broadcast_shape(lo, x, x_name, dims, entries, t_name) -> Tensor:
    """The output shape of Expand computed in the graph: the target itself when no 1 in it
    meets a dim of ``x`` that may be larger, else MAXIMUM of both shapes padded with ones."""
    target = lo.value(t_name)
    if dims is None:
        raise Unsupported(f"rank of '{x_name}' must be known")
    if entries is not None and len(entries) >= len(dims):
        aligned = entries[len(entries) - len(dims) :]
        if all((e != 1 and e is not None) or d == 1 for e, d in zip(aligned, dims, strict=True)):
            return target
    length = (lo.shape(t_name) or (None,))[0]
    if length is None:
        raise Unsupported(f"dimension 0 of '{t_name}' must be known")
    rank = max(length, len(dims))
    padded = [
        concat(lo, [int32(lo, [1] * (rank - n), "ones"), v]) if n < rank else v
        for v, n in ((shape_of(lo, x), len(dims)), (target, length))
    ]
    return lo.emit("MAXIMUM", padded, "MaximumMinimumOptions", dtype="INT32")


@converter("Range")
def range_(node: Node, lo: Lowering) -> None:
    """Range (11): RANGE of scalars."""
    operands = [lo.value(node.input(k)) for k in range(3)]
    y = lo.emit("RANGE", operands, "RangeOptions", dtype=lo.dtype(node.outputs[0]))
    lo.bind(node.outputs[0], y)


@converter("CumSum")
def cumsum(node: Node, lo: Lowering) -> None:
    """CumSum (11, 14): CUMSUM with ``exclusive``/``reverse``; the axis constant."""
    x_name = node.input(0)
    rank = lo.rank(x_name)
    axis = normalized_axes([int(lo.require_const(node.input(1)).reshape(-1)[0])], rank)[0]
    x = lo.value(x_name)
    cumsum_options = options(
        "CumsumOptions",
        exclusive=bool(node.attr("exclusive", 0)),
        reverse=bool(node.attr("reverse", 0)),
    )
    y = lo.emit("CUMSUM", [x, int32(lo, axis, "axis")], cumsum_options, dtype=x.dtype)
    lo.bind(node.outputs[0], y)


@converter("Tile")
def tile(node: Node, lo: Lowering) -> None:
    x = lo.value(node.input(0))
    y = lo.emit("TILE", [x, lo.value(node.input(1))], "TileOptions", dtype=x.dtype)
    lo.bind(node.outputs[0], y)
