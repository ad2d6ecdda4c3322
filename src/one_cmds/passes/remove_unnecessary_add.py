"""``remove_unnecessary_add`` (optimization.md §5.18): an fp32 ADD with activation NONE,
one constant operand c and one non-constant operand x, is replaced by x when every element of
c is zero or denormal (``|v| <= FLT_MIN``) and c does not broadcast x to a larger shape:
c has at most x's rank and each of its dimensions (aligned from the last) is 1 or equal to
x's known dimension.

Reference: a NaN element passes its ``|v| > FLT_MIN`` test; here a NaN keeps the Add."""

from __future__ import annotations

import numpy as np

from ..ir import Tensor
from . import graph_pass
from .toolkit import NONE, GraphEditor, activation, const_value, is_float32, split_const

FLT_MIN = np.finfo(np.float32).tiny


def _keeps_shape(x: Tensor, c: Tensor) -> bool:
    if len(c.shape) > len(x.shape):
        return False
    aligned = x.shape[len(x.shape) - len(c.shape) :]
    return all(d == 1 or d == x_dim for d, x_dim in zip(c.shape, aligned, strict=True))


@graph_pass("remove_unnecessary_add")
def remove_unnecessary_add(g: GraphEditor) -> int:
    rewrites = 0
    for add in g.ops("ADD"):
        operands = split_const(add)
        if operands is None or activation(add) != NONE:
            continue
        x, c = operands
        if not is_float32(x, c, add.outputs[0]) or not _keeps_shape(x, c):
            continue
        if not np.all(np.abs(const_value(c)) <= FLT_MIN):
            continue
        g.replace(add.outputs[0], x)
        rewrites += 1
    return rewrites
