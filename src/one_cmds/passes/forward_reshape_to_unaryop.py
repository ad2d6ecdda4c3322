"""``forward_reshape_to_unaryop`` (optimization.md §5.20; reference
``ForwardReshapeToUnaryOpPass.cpp``): ``U(Reshape(x, s))`` becomes ``Reshape(U(x), s)`` so the
Reshape moves towards the outputs, where other passes can remove it.

U is Abs, Neg, Logistic, Mul or Div with a one-element FLOAT32 constant as the other operand
(either order), or Mean. The Reshape's shape operand must be a constant INT32; the new Reshape
gets a copy of it. For Mean: one constant INT32 axis, keep_dims true, a Reshape that keeps the
rank and leaves dimensions 0…axis unchanged (known); the new Reshape's shape has 1 at the axis
(also in its ``newShape`` option when present). Origins: the new U copies U's, the new Reshape
copies the Reshape's.

Reference: also forwards a Reshape that other operators read, keeping it for them, so the
graph grows by one Reshape. **Adopted:** U must be the Reshape's only reader: the Reshape
moves, it is never duplicated, so O1 never grows a graph.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..ir import Operator, Tensor
from . import graph_pass
from .toolkit import GraphEditor, const_value, scalar_value, with_options
from .toolkit.match import keep_dims, operand_orders, reduction_axes

# What a match yields: the Reshape, and the axis whose target dim becomes 1 (None: none).
Found = tuple[Operator, int | None]


def _reshape_of(g: GraphEditor, t: Tensor | None) -> Operator | None:
    reshape = g.producer_of(t, "RESHAPE")
    if reshape is None or len(reshape.inputs) < 2:
        return None
    shape = reshape.inputs[1]
    return reshape if const_value(shape) is not None and shape.dtype == "INT32" else None


def _unary(g: GraphEditor, op: Operator) -> Found | None:
    reshape = _reshape_of(g, op.inputs[0])
    return None if reshape is None else (reshape, None)


def _by_scalar(g: GraphEditor, op: Operator) -> Found | None:
    for t, c in operand_orders(op):
        reshape = _reshape_of(g, t)
        if reshape is not None and c.dtype == "FLOAT32" and scalar_value(c) is not None:
            return reshape, None
    return None


def _mean(g: GraphEditor, op: Operator) -> Found | None:
    reshape = _reshape_of(g, op.inputs[0])
    if reshape is None or not keep_dims(op):
        return None
    before, after = reshape.inputs[0].shape, reshape.outputs[0].shape
    axes = reduction_axes(op.inputs[1], len(after))
    if axes is None or len(axes) != 1 or const_value(op.inputs[1]).size != 1:
        return None
    axis = next(iter(axes))
    if len(before) != len(after) or None in before[: axis + 1]:
        return None
    return (reshape, axis) if before[: axis + 1] == after[: axis + 1] else None


_MATCHERS: dict[str, Callable[[GraphEditor, Operator], Found | None]] = {
    "ABS": _unary,
    "NEG": _unary,
    "LOGISTIC": _unary,
    "MUL": _by_scalar,
    "DIV": _by_scalar,
    "MEAN": _mean,
}


def _forward(g: GraphEditor, op: Operator, reshape: Operator, axis: int | None) -> None:
    reshaped, shape_t = reshape.outputs[0], reshape.inputs[1]
    inputs = [reshape.inputs[0] if t is reshaped else t for t in op.inputs]
    moved = g.op(op.opcode, inputs, op.options, origin=op.origin, like=op.outputs[0])
    shape = np.array(const_value(shape_t), dtype=np.int32).reshape(-1)
    options = reshape.options
    if axis is not None:
        shape[axis] = 1
        if getattr(options, "newShape", None) is not None:
            new_shape = [int(d) for d in options.newShape]
            new_shape[axis] = 1
            options = with_options(options, newShape=new_shape)
    g.replace_with(
        op,
        "RESHAPE",
        [moved.outputs[0], g.const(f"{shape_t.name}_C", shape, "INT32")],
        options,
        origin=reshape.origin,
    )


@graph_pass("forward_reshape_to_unaryop")
def forward_reshape_to_unaryop(g: GraphEditor) -> int:
    rewrites = 0
    for op in g.ops(*_MATCHERS):
        found = _MATCHERS[op.opcode](g, op)
        if found is not None and g.only_use_is(found[0].outputs[0], op):
            _forward(g, op, *found)
            rewrites += 1
    return rewrites
