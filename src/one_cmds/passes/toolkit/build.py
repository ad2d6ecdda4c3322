"""Building the small constants and operators a decomposition or fusion needs: reduction
axes, float scalars, element-wise binary operators, and replacing every operator of a kind."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ...ir import Operator, Origin, Tensor
from .editor import GraphEditor
from .values import NONE, new_options


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
