"""Indexing operators (onnx-import.md §6.1): Concat, Split, Slice, Gather, GatherElements,
GatherND, ScatterND, Pad, TopK, ArgMax/ArgMin, NonZero (Trilu: trilu.py; SplitToSequence:
sequences.py).

Negative indices are wrapped at import when they are constants and the dim is known, else in
the graph by FLOOR_MOD. Slice bounds are clamped as ONNX clamps them (INT64 sentinels
included) where the dim is known; backwards through index 0 is STRIDED_SLICE's end mask.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ....ir import Tensor
from ..errors import Unsupported
from ..lowering import NUMPY, Lowering, converter
from ..node import Node
from .common import axis_last, options, reshape, transpose
from .shape_building import (
    INT32_TYPE,
    bind_sized,
    concat,
    dim_of,
    gather,
    int32,
    normalized_axes,
    positions,
    shape_of,
    strided_slice,
    unsqueeze,
)
from .shape_values import Dim, Entry, ranked_dims, shape_value, value_rule

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1


def _axis(node: Node, lo: Lowering, name: str, default: int = 0) -> int:
    """The ``axis`` attribute made non-negative for the rank of value ``name``."""
    return normalized_axes([int(node.attr("axis", default))], lo.rank(name))[0]


def scalar_of(lo: Lowering, value: float, dtype: str) -> Tensor:
    """A constant scalar of an IR dtype."""
    return lo.constant(np.array(value).astype(NUMPY[dtype]), lo.helper_name("scalar"), dtype)


# -- Concat, Split ------------------------------------------------------------------------------
@converter("Concat")
def concat_(node: Node, lo: Lowering) -> None:
    """Concat (4, 11: negative axis); empty constant operands are dropped."""
    names = [n for n in node.inputs if n]
    axis = _axis(node, lo, names[0])
    kept = [n for n in names if lo.const(n) is None or lo.const(n).size > 0] or names[:1]
    lo.bind(node.outputs[0], concat(lo, [lo.value(n) for n in kept], axis))


@value_rule("Concat")
def _concat_elements(lo: Lowering, node: Node) -> list[Entry] | None:
    parts = [shape_value(lo, n) for n in node.inputs if n]
    return None if any(p is None for p in parts) else [e for p in parts for e in p]  # type: ignore[union-attr]


@converter("Split")
def split(node: Node, lo: Lowering) -> None:
    """Split (11, 13: ``split`` input, 18: ``num_outputs``, the last chunk smaller): SPLIT
    for equal parts, else SPLIT_V."""
    x_name = node.input(0)
    axis = _axis(node, lo, x_name)
    n = len(node.outputs)
    dim = lo.shape(x_name)[axis]  # type: ignore[index]
    if node.since_version is not None and node.since_version >= 13:
        given = lo.require_const(node.input(1)) if node.input(1) else None
    else:
        given = node.attr("split")
    sizes = None if given is None else [int(s) for s in np.asarray(given).reshape(-1)]
    if sizes is None and node.attr("num_outputs") is not None:
        if dim is None:
            raise Unsupported(f"dimension {axis} of '{x_name}' must be known")
        chunk = -(-dim // n)
        sizes = [chunk] * (n - 1) + [dim - chunk * (n - 1)]
    parts = split_parts(lo, x_name, axis, n, sizes)
    for name, (part, dims) in zip(node.outputs, parts, strict=True):
        bind_sized(lo, name, part, dims)


def split_parts(
    lo: Lowering, x_name: str, axis: int, n: int, sizes: list[int] | None
) -> list[tuple[Tensor, list[Dim]]]:
    """The ``n`` parts of ``x_name`` along ``axis`` (``sizes`` given, or equal) with their dims:
    SPLIT for equal parts, else SPLIT_V."""
    x = lo.value(x_name)
    dims = ranked_dims(lo, x_name)
    if n == 1:
        return [(x, dims)]
    if sizes is None or len(set(sizes)) == 1:
        parts = lo.emit(
            "SPLIT", [int32(lo, axis, "axis"), x], options("SplitOptions", numSplits=n),
            dtype=x.dtype, outputs=n,
        )  # fmt: skip
    else:
        parts = lo.emit(
            "SPLIT_V", [x, int32(lo, sizes, "sizes"), int32(lo, axis, "axis")],
            options("SplitVOptions", numSplits=n), dtype=x.dtype, outputs=n,
        )  # fmt: skip
    return [
        (part, [size if a == axis else d for a, d in enumerate(dims)])
        for part, size in zip(parts, sizes or [None] * n, strict=True)
    ]


# -- Slice --------------------------------------------------------------------------------------
def _slice_inputs(node: Node, lo: Lowering) -> tuple[str | list, str | list, list[int], list[int]]:
    """(starts, ends, axes, steps): starts/ends as lists (attributes, Slice-1) or input names;
    axes and steps constant."""
    if node.since_version is not None and node.since_version < 10:
        starts, ends = list(node.attr("starts")), list(node.attr("ends"))
        axes = list(node.attr("axes", range(len(starts))))
        return starts, ends, axes, [1] * len(starts)
    count = (lo.shape(node.input(1)) or (None,))[0]
    axes_given = node.input(3) and lo.require_const(node.input(3)).reshape(-1).tolist()
    axes = axes_given or list(range(count or 0))
    steps = lo.require_const(node.input(4)).reshape(-1).tolist() if node.input(4) else None
    return node.input(1), node.input(2), axes, steps or [1] * len(axes)


def _bound(value: int, step: int, dim: int | None, end: bool) -> tuple[int, bool]:
    """One STRIDED_SLICE bound (value, masked) for an ONNX start or end: clamped as ONNX
    clamps when the dim is known; else only into INT32, after which TFLite's clamping gives
    ONNX's (the INT64 sentinels stay beyond every dim)."""
    if dim is None:
        return max(INT32_MIN, min(value, INT32_MAX)), False
    v = value + dim if value < 0 else value
    low = -1 if end and step < 0 else 0
    v = max(low, min(v, dim if step > 0 else dim - 1))
    return (0, True) if v == -1 else (v, False)  # -1: through index 0 backwards


def _bounds(lo, given, axes, steps, dims, end) -> tuple[list[int] | Tensor, int]:
    """The full-rank begin (or end) vector and its mask; unlisted axes masked."""
    rank = len(dims)
    mask = sum(1 << a for a in range(rank) if a not in axes)
    values = given if isinstance(given, list) else lo.const(given)
    if values is not None:
        out = [0] * rank
        for a, v, s in zip(axes, np.asarray(values).reshape(-1).tolist(), steps, strict=True):
            out[a], masked = _bound(int(v), int(s), dims[a], end)
            mask |= masked << a
        return out, mask
    tensor = lo.value(given)
    if list(axes) == list(range(rank)):
        return tensor, mask
    index = [axes.index(a) if a in axes else len(axes) for a in range(rank)]
    table = concat(lo, [tensor, int32(lo, [0], "filler")])
    return gather(lo, table, int32(lo, index, "index")), mask


@converter("Slice")
def slice_(node: Node, lo: Lowering) -> None:
    """Slice (1: attributes; 10: inputs, steps): STRIDED_SLICE."""
    x_name = node.input(0)
    dims = list(lo.shape(x_name) or ())
    if not dims:
        raise Unsupported(f"rank of '{x_name}' must be known")
    starts, ends, axes, steps = _slice_inputs(node, lo)
    axes = normalized_axes(axes, len(dims))
    begin, begin_mask = _bounds(lo, starts, axes, steps, dims, end=False)
    end, end_mask = _bounds(lo, ends, axes, steps, dims, end=True)
    strides = [1] * len(dims)
    for a, s in zip(axes, steps, strict=True):
        strides[a] = int(s)
    y = strided_slice(lo, lo.value(x_name), begin, end, strides, begin_mask, end_mask)
    lo.bind(node.outputs[0], y)


@value_rule("Slice")
def _slice_elements(lo: Lowering, node: Node) -> list[Entry] | None:
    data = shape_value(lo, node.input(0))
    if data is None:
        return None
    starts, ends, _, steps = _slice_inputs(node, lo)
    starts, ends = (v if isinstance(v, list) else shape_value(lo, v) for v in (starts, ends))
    if not isinstance(starts, list) or not isinstance(ends, list) or len(starts) != 1:
        return None
    if not all(isinstance(v, int) for v in (*starts, *ends)):
        return None
    step, n = int(steps[0]), len(data)
    first, _ = _bound(starts[0], step, n, end=False)
    stop, to_start = _bound(ends[0], step, n, end=True)
    return data[first : None if to_start else stop : step]


# -- Gather and friends -------------------------------------------------------------------------
def wrapped_indices(lo: Lowering, idx_name: str, data_name: str, axes: Sequence[int]) -> Tensor:
    """Indices into ``axes`` of a value (one axis: each index; leading axes 0…k−1: along the
    indices' last axis) with negative ones wrapped: at import for constants over known dims,
    else FLOOR_MOD in the graph."""
    dims = lo.shape(data_name) or ()
    sizes = [dims[a] for a in axes]
    value = lo.const(idx_name)
    if value is not None and not (value < 0).any():
        return lo.value(idx_name)
    sizes_value = sizes if len(axes) > 1 else sizes[0]
    if value is not None and None not in sizes:
        wrapped = np.where(value < 0, value + np.array(sizes_value, value.dtype), value)
        return lo.constant(wrapped, lo.helper_name("indices"))
    if None not in sizes:
        modulus = int32(lo, sizes_value, "sizes")
    elif len(axes) == 1:
        modulus = dim_of(lo, data_name, axes[0])
    else:
        modulus = strided_slice(lo, shape_of(lo, lo.value(data_name)), [0], [len(axes)], [1])
    return lo.emit("FLOOR_MOD", [lo.value(idx_name), modulus], "FloorModOptions", dtype="INT32")


@converter("Gather")
def gather_(node: Node, lo: Lowering) -> None:
    data_name, idx_name = node.input(0), node.input(1)
    axis = _axis(node, lo, data_name)
    indices = wrapped_indices(lo, idx_name, data_name, [axis])
    lo.bind(node.outputs[0], gather(lo, lo.value(data_name), indices, axis))


@value_rule("Gather")
def _gather_elements(lo: Lowering, node: Node) -> list[Entry] | None:
    data, indices = shape_value(lo, node.input(0)), lo.const(node.input(1))
    if data is None or indices is None or indices.ndim > 1:
        return None
    return [data[int(i)] for i in indices.reshape(-1)]


@converter("GatherElements")
def gather_elements(node: Node, lo: Lowering) -> None:
    """GatherElements (11): GATHER_ND with the indices completed by the coordinates of each of
    their elements along the other axes (constants when their shape is known, else built in
    the graph from their SHAPE)."""
    data_name, idx_name = node.input(0), node.input(1)
    axis = _axis(node, lo, data_name)
    dims = ranked_dims(lo, idx_name)
    rank = len(dims)
    indices = unsqueeze(lo, wrapped_indices(lo, idx_name, data_name, [axis]), [rank], [*dims, 1])
    others = [a for a in range(rank) if a != axis]
    pieces = _coordinates(lo, idx_name, dims, others)
    pieces.insert(axis, indices)
    data = lo.value(data_name)
    coords = concat(lo, pieces, rank)
    y = lo.emit("GATHER_ND", [data, coords], "GatherNdOptions", dtype=data.dtype)
    lo.bind(node.outputs[0], y)


def _coordinates(lo: Lowering, name: str, dims: Sequence[Dim], axes: Sequence[int]) -> list[Tensor]:
    """For each of ``axes``, the coordinate along it of every element of a value of ``dims``,
    INT32 ``[*dims, 1]``: a constant when the dims are known, else :func:`_coordinate`."""
    if all(isinstance(d, int) for d in dims):
        grid = np.indices(dims, np.int32)[..., None]
        return [int32(lo, grid[a], "grid") for a in axes]
    target = concat(lo, [shape_of(lo, lo.value(name)), int32(lo, [1], "one")])
    return [_coordinate(lo, name, a, target, len(dims) + 1) for a in axes]


def _coordinate(lo: Lowering, name: str, axis: int, target: Tensor, rank: int) -> Tensor:
    """RANGE over a dim of a value, RESHAPE onto that axis of ``rank``, BROADCAST_TO
    ``target``."""
    line = reshape(lo, positions(lo, name, axis), [-1 if i == axis else 1 for i in range(rank)])
    grid = lo.helper_name("grid")
    return lo.emit(
        "BROADCAST_TO", [line, target], "BroadcastToOptions", dtype="INT32", name=grid, version=2
    )


def _depth(lo: Lowering, idx_name: str) -> int:
    """The index depth: the last dim of the indices."""
    shape = lo.shape(idx_name)
    if not shape or shape[-1] is None:
        raise Unsupported(f"dimension -1 of '{idx_name}' must be known")
    return shape[-1]


@converter("GatherND")
def gather_nd(node: Node, lo: Lowering) -> None:
    """GatherND (11, 12: ``batch_dims`` 0 only)."""
    batch_dims = int(node.attr("batch_dims", 0))
    if batch_dims:
        raise Unsupported(f"batch_dims {batch_dims} is not supported")
    data_name, idx_name = node.input(0), node.input(1)
    indices = wrapped_indices(lo, idx_name, data_name, range(_depth(lo, idx_name)))
    data = lo.value(data_name)
    y = lo.emit("GATHER_ND", [data, indices], "GatherNdOptions", dtype=data.dtype)
    lo.bind(node.outputs[0], y)


@converter("ScatterND")
def scatter_nd(node: Node, lo: Lowering) -> None:
    """ScatterND (11, 16, 18: ``reduction`` none only): SELECT_V2 of SCATTER_ND(updates)
    where a mask SCATTER_ND of ones marks the written elements, ``data`` elsewhere."""
    reduction = node.attr("reduction", "none")
    if reduction != "none":
        raise Unsupported(f"reduction '{reduction}' is not supported")
    data_name, idx_name, upd_name = node.input(0), node.input(1), node.input(2)
    data, updates = lo.value(data_name), lo.value(upd_name)
    indices = wrapped_indices(lo, idx_name, data_name, range(_depth(lo, idx_name)))
    dims = lo.shape(data_name)
    shape = (
        int32(lo, dims, "shape") if dims is not None and None not in dims else shape_of(lo, data)
    )
    scattered = lo.emit(
        "SCATTER_ND", [indices, updates, shape], "ScatterNdOptions", dtype=updates.dtype
    )
    upd_dims = lo.shape(upd_name)
    if upd_dims is not None and None not in upd_dims:
        ones = int32(lo, np.ones(upd_dims, np.int32), "ones")
    else:
        ones = lo.emit(
            "FILL", [shape_of(lo, updates), int32(lo, 1, "one")], "FillOptions", dtype="INT32"
        )
    count = lo.emit("SCATTER_ND", [indices, ones, shape], "ScatterNdOptions", dtype="INT32")
    zero = int32(lo, 0, "zero")
    written = lo.emit("NOT_EQUAL", [count, zero], "NotEqualOptions", dtype="BOOL")
    y = lo.emit("SELECT_V2", [written, scattered, data], "SelectV2Options", dtype=data.dtype)
    lo.bind(node.outputs[0], y)


# -- Pad ----------------------------------------------------------------------------------------
def _pad_operands(node: Node, lo: Lowering, rank: int) -> tuple[list[int], list[int], str | float]:
    """(begins, ends) per dim and the constant value (an input name or a number)."""
    if node.since_version is not None and node.since_version < 11:
        pads, axes, value = list(node.attr("pads")), list(range(rank)), node.attr("value", 0.0)
    else:
        pads = lo.require_const(node.input(1)).reshape(-1).tolist()
        given = node.input(3) and lo.require_const(node.input(3)).reshape(-1).tolist()
        axes = normalized_axes(given, rank) if given else list(range(rank))
        value = node.input(2) or 0.0
    begins, ends = [0] * rank, [0] * rank
    for j, a in enumerate(axes):
        begins[a], ends[a] = int(pads[j]), int(pads[j + len(axes)])
    return begins, ends, value


def _crop(lo: Lowering, x: Tensor, begins: list[int], ends: list[int]) -> Tensor:
    """STRIDED_SLICE removing the negative pads."""
    end_mask = sum(1 << a for a, e in enumerate(ends) if e >= 0)
    return strided_slice(
        lo, x, [max(0, -b) for b in begins], [min(0, e) for e in ends], [1] * len(ends), 0, end_mask
    )


def _gather_pad(lo: Lowering, x: Tensor, dims, begins, ends, x_name: str, wrap: bool) -> Tensor:
    """Edge or wrap padding: GATHER along each padded axis with constant indices."""
    for a, (b, e) in enumerate(zip(begins, ends, strict=True)):
        if not b and not e:
            continue
        if dims[a] is None:
            raise Unsupported(f"dimension {a} of '{x_name}' must be known")
        positions = np.arange(-b, dims[a] + e)
        index = positions % dims[a] if wrap else np.clip(positions, 0, dims[a] - 1)
        x = gather(lo, x, int32(lo, index, "index"), a)
    return x


@converter("Pad")
def pad(node: Node, lo: Lowering) -> None:
    """Pad (2: attributes; 11: inputs; 18: ``axes``; 19: ``wrap``): PAD, PADV2, MIRROR_PAD,
    GATHER; negative pads crop."""
    x_name = node.input(0)
    rank = lo.rank(x_name)
    begins, ends, value = _pad_operands(node, lo, rank)
    mode = node.attr("mode", "constant")
    if mode not in ("constant", "reflect", "edge", "wrap"):
        raise Unsupported(f"mode '{mode}' is not supported")
    x = lo.value(x_name)
    dims = list(lo.shape(x_name))  # type: ignore[arg-type]
    if min(begins + ends) < 0:
        x = _crop(lo, x, begins, ends)
        dims = [
            None if d is None else d + min(0, b) + min(0, e)
            for d, b, e in zip(dims, begins, ends, strict=True)
        ]
        begins, ends = [max(0, b) for b in begins], [max(0, e) for e in ends]
    if not any(begins + ends):
        lo.bind(node.outputs[0], x)
        return
    if mode in ("edge", "wrap"):
        lo.bind(node.outputs[0], _gather_pad(lo, x, dims, begins, ends, x_name, mode == "wrap"))
        return
    paddings = int32(lo, list(zip(begins, ends, strict=True)), "paddings")
    if mode == "reflect":
        y = lo.emit("MIRROR_PAD", [x, paddings], options("MirrorPadOptions", mode=0), dtype=x.dtype)
    elif isinstance(value, str) and (lo.const(value) is None or lo.const(value).any()):
        fill = lo.value(value)
        if lo.shape(value) not in ((), None):
            fill = reshape(lo, fill, [], "value")
        y = lo.emit("PADV2", [x, paddings, fill], "PadV2Options", dtype=x.dtype)
    elif isinstance(value, float) and value != 0:
        y = lo.emit(
            "PADV2", [x, paddings, scalar_of(lo, value, x.dtype)], "PadV2Options", dtype=x.dtype
        )
    else:
        y = lo.emit("PAD", [x, paddings], "PadOptions", dtype=x.dtype)
    lo.bind(node.outputs[0], y)


# -- TopK, ArgMax/ArgMin ------------------------------------------------------------------------
def _neg(lo: Lowering, x: Tensor) -> Tensor:
    return lo.emit("NEG", [x], "NegOptions", dtype=x.dtype)


@converter("TopK")
def topk(node: Node, lo: Lowering) -> None:
    """TopK (1: ``k`` attribute; 10: ``k`` input; 11: ``largest``, ``sorted``): TOPK_V2 over
    the last axis (else between TRANSPOSEs), the smallest via NEG."""
    x_name = node.input(0)
    if node.since_version is not None and node.since_version < 10:
        k = int(node.attr("k"))
    else:
        k = int(lo.require_const(node.input(1)).reshape(-1)[0])
    rank = lo.rank(x_name)
    axis = _axis(node, lo, x_name, -1)
    largest = bool(node.attr("largest", 1))
    to_last, back = axis_last(rank, axis)
    x = lo.value(x_name)
    if axis != rank - 1:
        x = transpose(lo, x, to_last, "to_last")
    if not largest:
        x = _neg(lo, x)
    values, indices = lo.emit(
        "TOPK_V2", [x, int32(lo, k, "k")], "TopKV2Options", dtype=[x.dtype, "INT32"], outputs=2
    )
    if not largest:
        values = _neg(lo, values)
    for name, y in zip(node.outputs, (values, indices), strict=True):
        lo.bind(name, transpose(lo, y, back, "from_last") if axis != rank - 1 else y)


@converter("ArgMax", "ArgMin")
def arg_reduce(node: Node, lo: Lowering) -> None:
    """ArgMax/ArgMin (11, 12: ``select_last_index`` via REVERSE_V2 and ``(n−1)−i``;
    ``keepdims``)."""
    x_name = node.input(0)
    axis = _axis(node, lo, x_name)
    x = lo.value(x_name)
    last = bool(node.attr("select_last_index", 0))
    if last:
        x = lo.emit("REVERSE_V2", [x, int32(lo, [axis], "axis")], "ReverseV2Options", dtype=x.dtype)
    opcode, table = (
        ("ARG_MAX", "ArgMaxOptions") if node.op_type == "ArgMax" else ("ARG_MIN", "ArgMinOptions")
    )
    y = lo.emit(
        opcode, [x, int32(lo, [axis], "axis")], options(table, outputType=INT32_TYPE), dtype="INT32"
    )
    if last:
        y = lo.emit("SUB", [_last_index(lo, x_name, axis), y], "SubOptions", dtype="INT32")
    if node.attr("keepdims", 1):
        out = [1 if i == axis else d for i, d in enumerate(ranked_dims(lo, x_name))]
        y = unsqueeze(lo, y, [axis], out)
    lo.bind(node.outputs[0], y)


def _last_index(lo: Lowering, name: str, axis: int) -> Tensor:
    """``n − 1`` for the dim ``n`` of a value along ``axis`` (an INT32 scalar)."""
    n = ranked_dims(lo, name)[axis]
    if isinstance(n, int):
        return int32(lo, n - 1, "last")
    return lo.emit(
        "SUB", [dim_of(lo, name, axis), int32(lo, 1, "one")], "SubOptions", dtype="INT32"
    )


# -- NonZero -----------------------------------------------------------------------------
@converter("NonZero")
def nonzero(node: Node, lo: Lowering) -> None:
    """NonZero (9, 13): WHERE (INT64 coordinates, one row per element) → CAST → TRANSPOSE."""
    x = lo.value(node.input(0))
    if x.dtype != "BOOL":
        x = lo.emit("NOT_EQUAL", [x, scalar_of(lo, 0, x.dtype)], "NotEqualOptions", dtype="BOOL")
    coords = lo.emit("WHERE", [x], "WhereOptions", dtype="INT64")
    coords = lo.emit("CAST", [coords], dtype="INT32")
    lo.bind(node.outputs[0], transpose(lo, coords, (1, 0), "transpose"))
