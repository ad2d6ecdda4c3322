"""Per-operator rewrites of ``convert_nchw_to_nhwc`` (reference ConvertNCHWToNHWCPass).

A rule replaces an operator computing on NCHW tensors by the same operator computing on NHWC
tensors between Transposes, ``op(x)`` -> ``Transpose(op'(Transpose(x, [0,2,3,1])), [0,3,1,2])``,
so that the Transposes of neighbouring converted operators cancel
(``remove_redundant_transpose``). Layout-carrying constants (per-channel operands, axes,
paddings) are rewritten for NHWC; a constant operand is permuted directly instead of being
transposed at run time. Every new operator copies the origin of the converted one.

Rules (the operator's output rank 4 unless said otherwise; the caller checks static shapes):
* ELU, GELU, LEAKY_RELU, LOGISTIC, NEG, RELU, RELU6, RSQRT: rank-4 input.
* ADD, SUB, MUL, DIV: one operand a FLOAT32 constant of rank <= 4 that broadcasts to the output
  (expanded to rank 4, then permuted), the other rank 4; or two rank-4 non-constant operands.
* MAXIMUM, MINIMUM: one operand a scalar constant (shape [] or [1], kept as is); MAXIMUM also
  with two rank-4 non-constant operands. SQUARED_DIFFERENCE: two rank-4 non-constant operands.
* CONCATENATION: the axis is mapped to NHWC.
* MEAN, REDUCE_MAX, REDUCE_MIN (any output rank): rank-4 input, constant INT32 axes in [-4, 4)
  (mapped). With keep_dims false the result is permuted back only when the kept dimensions come
  out of the NHWC reduction in another order than NCHW.
* PAD, PADV2, MIRROR_PAD: constant INT32/INT64 paddings [4, 2] whose N and C rows are zero.
* SPLIT_V: rank-4 input, a one-element constant INT32 split axis (mapped); each output is
  permuted back.

Reference: a Maximum of two non-constant operands is converted without checking their ranks;
here both must be rank 4 (a lower-rank operand cannot be transposed by a rank-4 perm).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ...ir import Operator, Tensor
from ..toolkit import GraphEditor, const_value, split_const, with_options
from ..toolkit.transpose import NCHW_TO_NHWC, NHWC_TO_NCHW, add_transpose

Rule = Callable[[GraphEditor, Operator], bool]
RULES: dict[str, Rule] = {}


def _rule(*opcodes: str) -> Callable[[Rule], Rule]:
    def add(fn: Rule) -> Rule:
        RULES.update(dict.fromkeys(opcodes, fn))
        return fn

    return add


def _rank4(*tensors: Tensor | None) -> bool:
    return all(t is not None and len(t.shape) == 4 for t in tensors)


def _nonconst_rank4(a: Tensor, b: Tensor) -> bool:
    return const_value(a) is None and const_value(b) is None and _rank4(a, b)


def _nhwc_axis(axis: int) -> int | None:
    """Where NCHW axis ``axis`` (negative counts from the end) sits in NHWC."""
    return NCHW_TO_NHWC.index(axis % 4) if -4 <= axis < 4 else None


def _to_nhwc(g: GraphEditor, t: Tensor, op: Operator) -> Tensor:
    """Rank-4 operand ``t`` of ``op`` in NHWC: a permuted copy of a plain constant, else the
    output of a new Transpose."""
    value = const_value(t)
    if value is not None and t.quant is None:
        return g.const(f"{t.name}_NHWC", np.transpose(value, NCHW_TO_NHWC), t.dtype)
    return add_transpose(g, t, NCHW_TO_NHWC, origin=op.origin, like=t, name=op.outputs[0].name)


def _replace(
    g: GraphEditor,
    op: Operator,
    inputs: Sequence[Tensor | None],
    options: object,
    back: Sequence[tuple[int, ...] | None],
) -> bool:
    """Replace ``op`` by the same operator on ``inputs``; output k is permuted by ``back[k]``
    (None: taken as it is)."""
    new = g.op(
        op.opcode,
        inputs,
        options,
        origin=op.origin,
        like=op.outputs,
        name=f"{op.outputs[0].name}_NHWC",
    )
    for old, result, perm in zip(op.outputs, new.outputs, back, strict=True):
        if perm is not None:
            result = add_transpose(g, result, perm, origin=op.origin, like=old, name=old.name)
        g.replace(old, result)
    return True


def _elementwise(g: GraphEditor, op: Operator, inputs: Sequence[Tensor]) -> bool:
    return _replace(g, op, inputs, op.options, [NHWC_TO_NCHW])


@_rule("ELU", "GELU", "LEAKY_RELU", "LOGISTIC", "NEG", "RELU", "RELU6", "RSQRT")
def _unary(g: GraphEditor, op: Operator) -> bool:
    x = op.inputs[0]
    return _rank4(x, op.outputs[0]) and _elementwise(g, op, [_to_nhwc(g, x, op)])


def _broadcastable(shape: Sequence[int | None], to: Sequence[int | None]) -> bool:
    return len(shape) <= len(to) and all(
        d in (1, t) for d, t in zip(reversed(shape), reversed(to), strict=False)
    )


@_rule("ADD", "SUB", "MUL", "DIV")
def _arithmetic(g: GraphEditor, op: Operator) -> bool:
    a, b = op.inputs[:2]
    out = op.outputs[0]
    if not _rank4(out):
        return False
    if _nonconst_rank4(a, b):
        return _elementwise(g, op, [_to_nhwc(g, a, op), _to_nhwc(g, b, op)])
    sides = split_const(op)
    if sides is None or not _rank4(sides[0]):
        return False
    x, c = sides
    if c.dtype != "FLOAT32" or not _broadcastable(c.shape, out.shape):
        return False
    value = const_value(c)
    expanded = value.reshape((1,) * (4 - value.ndim) + value.shape)
    nhwc = g.const(f"{c.name}_NHWC", np.transpose(expanded, NCHW_TO_NHWC), c.dtype)
    return _elementwise(g, op, [nhwc if t is c else _to_nhwc(g, x, op) for t in (a, b)])


@_rule("MAXIMUM", "MINIMUM")
def _min_max(g: GraphEditor, op: Operator) -> bool:
    a, b = op.inputs[:2]
    if not _rank4(op.outputs[0]):
        return False
    if op.opcode == "MAXIMUM" and _nonconst_rank4(a, b):
        return _elementwise(g, op, [_to_nhwc(g, a, op), _to_nhwc(g, b, op)])
    sides = split_const(op)
    if sides is None or not _rank4(sides[0]) or sides[1].shape not in ((), (1,)):
        return False
    x, c = sides
    return _elementwise(g, op, [c if t is c else _to_nhwc(g, x, op) for t in (a, b)])


@_rule("SQUARED_DIFFERENCE")
def _squared_difference(g: GraphEditor, op: Operator) -> bool:
    a, b = op.inputs[:2]
    if not (_rank4(op.outputs[0]) and _nonconst_rank4(a, b)):
        return False
    return _elementwise(g, op, [_to_nhwc(g, a, op), _to_nhwc(g, b, op)])


@_rule("CONCATENATION")
def _concatenation(g: GraphEditor, op: Operator) -> bool:
    axis = _nhwc_axis(int(op.options.axis))
    if axis is None or not _rank4(op.outputs[0], *op.inputs):
        return False
    inputs = [_to_nhwc(g, t, op) for t in op.inputs]
    return _replace(g, op, inputs, with_options(op.options, axis=axis), [NHWC_TO_NCHW])


def _kept_order(reduced: set[int]) -> tuple[int, ...] | None:
    """The permutation putting the dimensions an NHWC reduction without keep_dims keeps back in
    NCHW order; None when they already are."""
    kept = [a for a in NCHW_TO_NHWC if a not in reduced]
    perm = tuple(kept.index(a) for a in sorted(kept))
    return None if perm == tuple(range(len(perm))) else perm


@_rule("MEAN", "REDUCE_MAX", "REDUCE_MIN")
def _reduction(g: GraphEditor, op: Operator) -> bool:
    x, axes_tensor = op.inputs[:2]
    axes = const_value(axes_tensor)
    if not _rank4(x) or axes is None or axes_tensor.dtype != "INT32":
        return False
    mapped = [_nhwc_axis(int(a)) for a in axes.reshape(-1)]
    if None in mapped:
        return False
    new_axes = g.const(f"{axes_tensor.name}_NHWC", np.asarray(mapped, np.int32).reshape(axes.shape))
    keep_dims = bool(getattr(op.options, "keepDims", False))
    back = NHWC_TO_NCHW if keep_dims else _kept_order({int(a) % 4 for a in axes.reshape(-1)})
    return _replace(g, op, [_to_nhwc(g, x, op), new_axes], op.options, [back])


@_rule("PAD", "PADV2", "MIRROR_PAD")
def _pad(g: GraphEditor, op: Operator) -> bool:
    x, paddings = op.inputs[:2]
    value = const_value(paddings)
    if not _rank4(x, op.outputs[0]) or value is None or paddings.dtype not in ("INT32", "INT64"):
        return False
    if value.shape != (4, 2) or value[:2].any():
        return False
    nhwc = g.const(f"{paddings.name}_NHWC", value[list(NCHW_TO_NHWC)], paddings.dtype)
    return _elementwise(g, op, [_to_nhwc(g, x, op), nhwc, *op.inputs[2:]])


@_rule("SPLIT_V")
def _split_v(g: GraphEditor, op: Operator) -> bool:
    x, sizes, dim = op.inputs[:3]
    value = const_value(dim)
    if not _rank4(x) or value is None or dim.dtype != "INT32" or value.size != 1:
        return False
    axis = _nhwc_axis(int(value.reshape(-1)[0]))
    if axis is None:
        return False
    new_dim = g.const(f"{dim.name}_NHWC", np.full(value.shape, axis, np.int32))
    inputs = [_to_nhwc(g, x, op), sizes, new_dim]
    return _replace(g, op, inputs, op.options, [NHWC_TO_NCHW] * len(op.outputs))
