"""Building shapes in the graph (onnx-import.md §8.1): a RESHAPE target whose elements leave
at most one size unknown becomes a constant with −1 there (the batch of
``x.view(x.size(0), -1)`` divides out: ``[N, -1]`` of ``[N, 3, 4, 4]`` is ``[-1, 48]``);
otherwise the target is computed with SHAPE arithmetic. The INT32 constants, SHAPE, GATHER,
CONCATENATION, STRIDED_SLICE, RESHAPE / SQUEEZE / EXPAND_DIMS helpers the converters share,
and their axes operands.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from ....ir import Tensor
from ..errors import Unsupported
from ..lowering import Lowering
from ..node import Node
from .common import options, reshape
from .shape_values import Entry, Part, Sym, dims_of, div, product

INT32_TYPE = 2  # TensorType.INT32, the outType of SHAPE and ARG_MAX/ARG_MIN


def resolved(out: Sequence[Entry], total: Entry) -> list[Entry]:
    """Output sizes with a −1 replaced by its size when ``total`` (the element count) and the
    other sizes determine it."""
    out = list(out)
    if out.count(-1) == 1:
        size = div(total, product([e for e in out if e != -1]))
        if size is not None:
            out[out.index(-1)] = size
    return out


def static_target(out: Sequence[Entry]) -> list[int] | None:
    """A constant RESHAPE target for output sizes ``out`` (−1 for a size to compute), or
    None when more than one size is unknown."""
    unknown = [i for i, e in enumerate(out) if not isinstance(e, int) or e == -1]
    if len(unknown) > 1:
        return None
    return [e if isinstance(e, int) else -1 for e in out]


def bind_sized(lo: Lowering, name: str, tensor: Tensor, sizes: Sequence[Entry]) -> None:
    """Bind an ONNX value, recording its dims when ONNX shape inference left them unknown
    (it gives up on some computed Reshape targets) for the converters that read it later."""
    lo.bind(name, tensor)
    if lo.shape(name) is not None:
        return
    lo.facts.shapes[name] = tuple(e if isinstance(e, int) and e >= 0 else None for e in sizes)
    lo.facts.params[name] = tuple(
        e.names[0] if isinstance(e, Sym) and e.coef == 1 and len(e.names) == 1 else None
        for e in sizes
    )


def int32(lo: Lowering, values, purpose: str) -> Tensor:
    """A constant INT32 tensor."""
    return lo.constant(np.asarray(values, np.int32), lo.helper_name(purpose))


def shape_of(lo: Lowering, x: Tensor) -> Tensor:
    """``SHAPE(x)`` as INT32."""
    return lo.emit(
        "SHAPE", [x], options("ShapeOptions", outType=INT32_TYPE), dtype="INT32",
        name=lo.helper_name("shape"),
    )  # fmt: skip


def gather(lo: Lowering, x: Tensor, indices: Tensor, axis: int = 0) -> Tensor:
    return lo.emit(
        "GATHER", [x, indices], options("GatherOptions", axis=axis), dtype=x.dtype,
        name=lo.helper_name("gather"),
    )  # fmt: skip


def concat(lo: Lowering, parts: Sequence[Tensor], axis: int = 0) -> Tensor:
    """CONCATENATION of ``parts`` (the part itself when there is one)."""
    if len(parts) == 1:
        return parts[0]
    return lo.emit(
        "CONCATENATION", list(parts), options("ConcatenationOptions", axis=axis),
        dtype=parts[0].dtype, name=lo.helper_name("concat"),
    )  # fmt: skip


def dim_of(lo: Lowering, name: str, axis: int) -> Tensor:
    """A dim of an ONNX value as an INT32 scalar: a constant when known, else from SHAPE."""
    shape = lo.shape(name)
    if shape is not None and shape[axis] is not None:
        return int32(lo, shape[axis], "dim")
    return gather(lo, shape_of(lo, lo.value(name)), int32(lo, axis, "axis"))


def _segment(lo: Lowering, part: Part) -> tuple[str, str | None, object]:
    """A part as ("const", None, size), ("dim", value, axis) for one unknown dim, or
    ("product", value, (unknown axes, known factor))."""
    if isinstance(part, int):
        return "const", None, part
    name, axes = part
    dims = lo.shape(name) or ()
    known = int(np.prod([dims[a] for a in axes if dims[a] is not None], dtype=np.int64))
    unknown = [a for a in axes if dims[a] is None]
    if not unknown:
        return "const", None, known
    if len(unknown) == 1 and known == 1:
        return "dim", name, unknown[0]
    return "product", name, (unknown, known)


def _product(lo: Lowering, shape: Tensor, unknown: list[int], known: int) -> Tensor:
    """``known`` times the product of the ``unknown`` axes of a SHAPE, as a 1-vector."""
    piece = gather(lo, shape, int32(lo, unknown, "axes"))
    if len(unknown) > 1:
        piece = lo.emit(
            "REDUCE_PROD", [piece, int32(lo, [0], "axes")],
            options("ReducerOptions", keepDims=True), dtype="INT32",
        )  # fmt: skip
    if known == 1:
        return piece
    factor = int32(lo, [known], "factor")
    return lo.emit("MUL", [piece, factor], "MulOptions", dtype="INT32")


def dims_tensor(lo: Lowering, parts: Sequence[Part]) -> Tensor:
    """An INT32 vector computed in the graph: each part a size, or the product of some axes
    of an ONNX value (SHAPE → GATHER → REDUCE_PROD where unknown); runs of sizes and of
    single dims of one value become one constant, one GATHER."""
    pieces: list[Tensor] = []
    shapes: dict[str, Tensor] = {}

    def shape(name: str) -> Tensor:
        if name not in shapes:
            shapes[name] = shape_of(lo, lo.value(name))
        return shapes[name]

    segments = [_segment(lo, p) for p in parts]
    for (kind, name), run in itertools.groupby(segments, key=lambda s: s[:2]):
        items = [item for _, _, item in run]
        if kind == "const":
            pieces.append(int32(lo, items, "dims"))
        elif kind == "dim":
            pieces.append(gather(lo, shape(name), int32(lo, items, "axes")))  # type: ignore[arg-type]
        else:
            pieces.extend(_product(lo, shape(name), *item) for item in items)  # type: ignore[arg-type, misc]
    return concat(lo, pieces)


def part_sizes(lo: Lowering, parts: Sequence[Part]) -> list[Entry]:
    """What is known of the sizes that parts describe."""
    out: list[Entry] = []
    for part in parts:
        if isinstance(part, int):
            out.append(part)
            continue
        name, axes = part
        dims = dims_of(lo, name)
        out.append(None if dims is None else product([dims[a] for a in axes]))
    return out


def positions(lo: Lowering, name: str, axis: int) -> Tensor:
    """``RANGE(0, dim, 1)`` over a dim of an ONNX value (INT32)."""
    start, delta = int32(lo, 0, "start"), int32(lo, 1, "delta")
    return lo.emit(
        "RANGE", [start, dim_of(lo, name, axis), delta], "RangeOptions", dtype="INT32",
        name=lo.helper_name("range"),
    )  # fmt: skip


def reshape_parts(lo: Lowering, x: Tensor, parts: Sequence[Part]) -> Tensor:
    """RESHAPE of ``x`` into sizes given as parts: a constant target when at most one size is
    unknown, else one computed in the graph."""
    target = static_target(part_sizes(lo, parts))
    if target is not None:
        return reshape(lo, x, target)
    return lo.emit(
        "RESHAPE", [x, dims_tensor(lo, parts)], dtype=x.dtype, name=lo.helper_name("reshape")
    )


def squeeze(lo: Lowering, x: Tensor, axes: Sequence[int], out: Sequence[Entry]) -> Tensor:
    """Remove the unit ``axes`` (non-negative) of ``x``: RESHAPE, or SQUEEZE when several
    output sizes are unknown."""
    target = static_target(out)
    if target is not None:
        return reshape(lo, x, target, "squeeze")
    return lo.emit(
        "SQUEEZE", [x], options("SqueezeOptions", squeezeDims=np.array(sorted(axes), np.int32)),
        dtype=x.dtype, name=lo.helper_name("squeeze"),
    )  # fmt: skip


def unsqueeze(lo: Lowering, x: Tensor, axes: Sequence[int], out: Sequence[Entry]) -> Tensor:
    """Insert unit dims at the output positions ``axes`` (non-negative): RESHAPE, or
    EXPAND_DIMS per axis when several output sizes are unknown."""
    target = static_target(out)
    if target is not None:
        return reshape(lo, x, target, "unsqueeze")
    for axis in sorted(axes):
        x = lo.emit(
            "EXPAND_DIMS", [x, int32(lo, axis, "axis")], "ExpandDimsOptions", dtype=x.dtype,
            name=lo.helper_name("expand_dims"),
        )  # fmt: skip
    return x


def normalized_axes(values: Sequence[int], rank: int) -> list[int]:
    """Axes made non-negative (an out-of-range axis is the file's error)."""
    axes = [int(a) + rank if int(a) < 0 else int(a) for a in values]
    if any(not 0 <= a < rank for a in axes):
        raise Unsupported(f"axes {list(values)} are out of range for rank {rank}")
    return axes


def axes_operand(node: Node, lo: Lowering, since: int, k: int = 1) -> list[int] | None:
    """The axes of a node: the attribute before ``since``, input ``k`` (constant) from it;
    None when not given."""
    if node.since_version is not None and node.since_version < since:
        axes = node.attr("axes")
        return None if axes is None else [int(a) for a in axes]
    name = node.input(k)
    return None if not name else [int(a) for a in lo.require_const(name).reshape(-1)]


def strided_slice(
    lo: Lowering, x: Tensor, begin, end, strides, begin_mask: int = 0, end_mask: int = 0
) -> Tensor:
    """STRIDED_SLICE with constant (lists) or computed (tensors) bounds."""
    operands = [
        v if isinstance(v, Tensor) else int32(lo, v, "bounds") for v in (begin, end, strides)
    ]
    return lo.emit(
        "STRIDED_SLICE", [x, *operands],
        options("StridedSliceOptions", beginMask=begin_mask, endMask=end_mask), dtype=x.dtype,
        name=lo.helper_name("strided_slice"),
    )  # fmt: skip
