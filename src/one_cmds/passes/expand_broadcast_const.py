"""``expand_broadcast_const`` (reference ExpandBroadcastConstPass): a float32 constant operand
of ADD, MUL or DIV that broadcasts along the last axis only (same rank as the other operand,
every other dimension equal, its last dimension 1 where the other's is D != 1) is
materialized at the other operand's full shape. The operator is rebuilt with the expanded
constant (origin: a copy of its own).

Reference bugs not reproduced: its ``switch`` falls through from ADD into the MUL and DIV
cases (a failed ADD expansion then casts the Add to Mul and aborts); it fills the new
constant by tiling the whole old constant D times, which puts the values in the wrong places
(``[H, W, 1] -> [H, W, D]`` must repeat each element D times); and it does not check the
other dimensions, so a constant that broadcasts elsewhere as well overflows its buffer.
Here: numpy broadcasting to the other operand's shape, under the conditions above."""

from __future__ import annotations

import numpy as np

from ..ir import Tensor
from . import graph_pass
from .toolkit import GraphEditor, const_value


def _expandable(c: Tensor, other: Tensor) -> bool:
    if c.dtype != "FLOAT32" or const_value(c) is None or not other.is_static:
        return False
    if len(c.shape) != len(other.shape) or not c.shape:
        return False
    return c.shape[:-1] == other.shape[:-1] and c.shape[-1] == 1 and other.shape[-1] != 1


@graph_pass("expand_broadcast_const")
def expand_broadcast_const(g: GraphEditor) -> int:
    rewrites = 0
    for op in g.ops("ADD", "MUL", "DIV"):
        inputs = list(op.inputs)
        for position in (0, 1):
            c, other = inputs[position], inputs[1 - position]
            if _expandable(c, other):
                full = np.broadcast_to(const_value(c), other.shape)
                inputs[position] = g.const(f"{c.name}/expanded", full, c.dtype)
        if inputs == op.inputs:
            continue
        g.replace_with(op, op.opcode, inputs, op.options, origin=op.origin)
        rewrites += 1
    return rewrites
