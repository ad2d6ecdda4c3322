"""Matching helpers shared by the fusion, transform and decomposition passes of one family
(instance norm, PRelu, Gelu, Mean fusions, Relu6 transforms, Reshape forwarding): operand
orders of commutative operators, constant reduction axes, and building the small constants
and operators a decomposition needs."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from ..ir import Operator, Origin, Tensor
from .toolkit import NONE, GraphEditor, activation, const_value, new_options


def operand_orders(op: Operator) -> tuple[tuple[Tensor, Tensor], ...]:
    """Both orders of the two operands of a commutative binary operator."""
    a, b = op.inputs[0], op.inputs[1]
    return ((a, b), (b, a))  # type: ignore[return-value]


def producers(
    g: GraphEditor, op: Operator, first: str, second: str
) -> Iterator[tuple[Operator, Operator]]:
    """For a commutative binary ``op``: each (producer of one operand with opcode ``first``,
    producer of the other with opcode ``second``), both orders tried."""
    for a, b in operand_orders(op):
        pa, pb = g.producer_of(a, first), g.producer_of(b, second)
        if pa is not None and pb is not None:
            yield pa, pb


def plain(*ops: Operator | None) -> bool:
    """Whether every operator is present and has no fused activation."""
    return all(op is not None and activation(op) == NONE for op in ops)


def reduction_axes(t: Tensor | None, rank: int) -> frozenset[int] | None:
    """The axes of a constant INT32 axes operand, made non-negative for ``rank``; None when
    the operand is not such a constant or an axis is out of range."""
    value = const_value(t)
    if value is None or t is None or t.dtype != "INT32" or value.ndim > 1:
        return None
    axes = [int(a) for a in value.reshape(-1)]
    if any(not -rank <= a < rank for a in axes):
        return None
    return frozenset(a % rank for a in axes)


def keep_dims(op: Operator) -> bool:
    return bool(getattr(op.options, "keepDims", False))


def axes_const(g: GraphEditor, name: str, axes: Any) -> Tensor:
    """A new INT32 constant listing reduction axes (a list, or one axis as a rank-0 value)."""
    return g.const(name, np.asarray(axes, dtype=np.int32), "INT32")


def float_scalar(g: GraphEditor, name: str, value: float) -> Tensor:
    """A new rank-0 FLOAT32 constant."""
    return g.const(name, np.float32(value), "FLOAT32")


def binary(
    g: GraphEditor, opcode: str, a: Tensor, b: Tensor, *, origin: Origin, like: Tensor, name: str
) -> Tensor:
    """The result of a new element-wise ADD/SUB/MUL/DIV (no fused activation) of a and b."""
    options = new_options(f"{opcode.capitalize()}Options", fusedActivationFunction=NONE)
    return g.op(opcode, [a, b], options, origin=origin, like=like, name=name).outputs[0]


def decompose_each(g: GraphEditor, opcode: str, build: Callable[[Operator], Tensor]) -> int:
    """Replace the result of every ``opcode`` operator with a FLOAT32 result by the tensor
    ``build(op)`` computes with new operators; returns how many were replaced."""
    rewrites = 0
    for op in g.ops(opcode):
        if op.outputs[0].dtype == "FLOAT32":
            g.replace(op.outputs[0], build(op))
            rewrites += 1
    return rewrites
