"""Shape operators (onnx-import.md §6.1, §8.1): Reshape, Flatten, Squeeze, Unsqueeze, Transpose,
Shape, Size, ConstantOfShape, Expand, Range, CumSum, Tile.

Shape values. A small integer value computed from shapes is followed element by element
(:func:`shape_value`): an element is an ``int``, a :class:`Sym` (a product of unknown dims
times a constant; equal ``dim_param`` names are equal dims) or None (nothing known). A RESHAPE
target whose elements leave at most one size unknown becomes a constant with −1 there (the
batch of ``x.view(x.size(0), -1)`` divides out: ``[N, -1]`` of ``[N, 3, 4, 4]`` is
``[-1, 48]``); otherwise the target is computed in the graph with SHAPE arithmetic. No
constant is ever derived from an unknown dim. Each family module registers the rules of its
own operators with :func:`value_rule`.
"""

from __future__ import annotations

import itertools
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from onnx import numpy_helper

from ....ir import Tensor
from ..errors import Unsupported
from ..lowering import NUMPY, Lowering, converter
from ..node import Node
from .common import options, reshape, transpose

INT32_TYPE = 2  # TensorType.INT32, the outType of SHAPE and ARG_MAX/ARG_MIN


@dataclass(frozen=True)
class Sym:
    """An unknown size: ``coef`` times the product of the unknown dims ``names`` (sorted,
    repeated for powers)."""

    coef: int
    names: tuple[str, ...]


Dim = int | Sym
Entry = Dim | None  # None: nothing is known of the element
Part = int | tuple[str, tuple[int, ...]]  # a size, or the product of axes of an ONNX value


def _sym(d: Dim) -> Sym:
    return d if isinstance(d, Sym) else Sym(d, ())


def _dim(coef: int, names: Sequence[str]) -> Dim:
    return Sym(coef, tuple(sorted(names))) if names else coef


def mul(a: Entry, b: Entry) -> Entry:
    if a is None or b is None:
        return None
    x, y = _sym(a), _sym(b)
    return _dim(x.coef * y.coef, x.names + y.names)


def div(a: Entry, b: Entry) -> Entry:
    """``a / b`` when it divides exactly, else None."""
    if a is None or b is None:
        return None
    x, y = _sym(a), _sym(b)
    rest = list(x.names)
    for name in y.names:
        if name not in rest:
            return None
        rest.remove(name)
    if y.coef == 0 or x.coef % y.coef:
        return None
    return _dim(x.coef // y.coef, rest)


def product(entries: Sequence[Entry]) -> Entry:
    out: Entry = 1
    for e in entries:
        out = mul(out, e)
    return out


def dims_of(lo: Lowering, name: str) -> list[Dim] | None:
    """The dims of a value: known sizes, and a :class:`Sym` per unknown one (named by its
    ``dim_param``, else by the value and axis)."""
    shape = lo.shape(name)
    if shape is None:
        return None
    params = lo.facts.params.get(name, ())
    return [
        d
        if d is not None
        else Sym(1, ((params[i] if i < len(params) else None) or f"{name}\0{i}",))
        for i, d in enumerate(shape)
    ]


def ranked_dims(lo: Lowering, name: str) -> list[Dim]:
    """:func:`dims_of` a value whose rank must be known."""
    dims = dims_of(lo, name)
    if dims is None:
        raise Unsupported(f"rank of '{name}' must be known")
    return dims


# -- shape values -------------------------------------------------------------------------------
ValueRule = Callable[[Lowering, Node], "list[Entry] | None"]
VALUE_RULES: dict[str, ValueRule] = {}
_CACHE: weakref.WeakKeyDictionary[Lowering, dict] = weakref.WeakKeyDictionary()


def value_rule(*op_types: str) -> Callable[[ValueRule], ValueRule]:
    """Register how an operator's result elements follow from its operands' elements."""

    def add(fn: ValueRule) -> ValueRule:
        for op_type in op_types:
            VALUE_RULES[op_type] = fn
        return fn

    return add


def _state(lo: Lowering) -> dict:
    state = _CACHE.get(lo)
    if state is None:
        producers = {name: n for n in lo.nodes for name in n.outputs if name}
        state = _CACHE[lo] = {"producers": producers, "values": {}}
    return state


def shape_value(lo: Lowering, name: str) -> list[Entry] | None:
    """The elements of a small integer scalar or vector (§8.1), None when not followed."""
    if not name:
        return None
    value = lo.const(name)
    if value is not None:
        small = value.dtype.kind in "iu" and value.ndim <= 1 and value.size <= 64
        return [int(v) for v in value.reshape(-1)] if small else None
    state = _state(lo)
    values = state["values"]
    if name not in values:
        values[name] = None  # a cycle guard; the graph is acyclic
        node = state["producers"].get(name)
        rule = VALUE_RULES.get(node.op_type) if node is not None else None
        try:
            values[name] = rule(lo, node) if rule is not None else None
        except Unsupported:  # an operand the rule needs is not constant
            values[name] = None
    return values[name]


@value_rule("Cast", "Identity", "Squeeze", "Unsqueeze")
def _passed(lo: Lowering, node: Node) -> list[Entry] | None:
    return shape_value(lo, node.input(0))


@value_rule("Shape")
def _shape_elements(lo: Lowering, node: Node) -> list[Entry] | None:
    dims = dims_of(lo, node.input(0))
    if dims is None:
        return None
    start, end = shape_bounds(node, len(dims))
    return list(dims[start:end])


@value_rule("Size")
def _size_elements(lo: Lowering, node: Node) -> list[Entry] | None:
    dims = dims_of(lo, node.input(0))
    return None if dims is None else [product(dims)]


def _int_div(a: Entry, b: Entry) -> Entry:
    """ONNX integer Div (truncating) of known sizes; exact division of unknown ones."""
    if isinstance(a, int) and isinstance(b, int):
        if b == 0:
            return None
        quotient = abs(a) // abs(b)
        return quotient if (a >= 0) == (b > 0) else -quotient
    return div(a, b)


def _known_only(op: Callable[[int, int], int]) -> Callable[[Entry, Entry], Entry]:
    def apply(a: Entry, b: Entry) -> Entry:
        return op(a, b) if isinstance(a, int) and isinstance(b, int) else None

    return apply


ARITHMETIC = {
    "Mul": mul,
    "Div": _int_div,
    "Add": _known_only(lambda a, b: a + b),
    "Sub": _known_only(lambda a, b: a - b),
}


@value_rule(*ARITHMETIC)
def _arithmetic(lo: Lowering, node: Node) -> list[Entry] | None:
    a, b = shape_value(lo, node.input(0)), shape_value(lo, node.input(1))
    if a is None or b is None or (len(a) != len(b) and 1 not in (len(a), len(b))):
        return None
    n = max(len(a), len(b))
    a, b = (v * n if len(v) == 1 else v for v in (a, b))
    return [ARITHMETIC[node.op_type](x, y) for x, y in zip(a, b, strict=True)]


def shape_bounds(node: Node, rank: int) -> tuple[int, int]:
    """Shape's ``start`` and ``end`` (15) made non-negative and clamped."""
    start, end = node.attr("start", 0), node.attr("end", rank)
    return tuple(max(0, min(rank, v + rank if v < 0 else v)) for v in (start, end))  # type: ignore[return-value]


# -- building shapes ----------------------------------------------------------------------------
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


# -- converters ---------------------------------------------------------------------------------
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


@converter("Squeeze")
def squeeze_(node: Node, lo: Lowering) -> None:
    """Squeeze (11: negative axes, 13: axes input); no axes removes every dim of size 1."""
    x_name = node.input(0)
    dims = ranked_dims(lo, x_name)
    given = axes_operand(node, lo, 13)
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
    x_name = node.input(0)
    dims = ranked_dims(lo, x_name)
    given = axes_operand(node, lo, 13)
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
