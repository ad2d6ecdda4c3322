"""``forward_transpose_op`` (reference ForwardTransposeOpPass): a Transpose moves below the
element-wise operator that reads it, towards the outputs, where later passes can cancel or
fuse it. ``op(Transpose(x, p), ...)`` becomes ``Transpose(op(x, ...), p)`` when:

* ABS, LOGISTIC, RELU6: the input is a Transpose;
* ADD, MUL (either operand order) with one constant operand c and the other a Transpose:
  c is a FLOAT32 one-element constant of rank <= the Transpose's (kept as is), or a FLOAT32
  rank-4 constant with a rank-4 Transpose (replaced by c permuted by the inverse of p);
* ADD, MUL with both operands Transposes by the same permutation.

Every Transpose matched has a constant INT32 permutation and the operator as its only reader
(**adopted**: the reference also moves a Transpose other operators read, keeping it for them,
which grows the graph; here a Transpose moves, it is never duplicated). The new operator copies
the origin of the one it replaces; the new Transpose copies the origin of the matched Transpose
(the union of both when two are merged).

Reference: the rank-4 constant is read as float32 whatever its dtype, and a one-element constant
of a higher rank than the Transpose (which makes the operator's result rank grow) is accepted;
here both must be FLOAT32 and the one-element constant must not raise the rank. Two Transposes
merged into one: the reference copies the first one's origin; here the union (a fusion, §9).
"""

from __future__ import annotations

import numpy as np

from ..ir import Operator, Tensor
from . import graph_pass
from .toolkit import GraphEditor, const_value, origin_of, split_const
from .toolkit.transpose import add_transpose, transpose_perm

UNARY = ("ABS", "LOGISTIC", "RELU6")
BINARY = ("ADD", "MUL")


@graph_pass("forward_transpose_op")
def forward_transpose_op(g: GraphEditor) -> int:
    rewrites = 0
    for op in g.ops(*UNARY, *BINARY):
        found = _unary(g, op) if op.opcode in UNARY else _with_const(g, op) or _two(g, op)
        if found is None or not all(g.only_use_is(t.outputs[0], op) for t in found[2]):
            continue
        inputs, perm, transposes = found
        new = g.op(
            op.opcode,
            inputs,
            op.options,
            origin=op.origin,
            like=op.outputs[0],
            name=f"{op.outputs[0].name}/forwarded",
        )
        origin = origin_of(*transposes)
        out = op.outputs[0]
        g.replace(
            out, add_transpose(g, new.outputs[0], perm, origin=origin, like=out, name=out.name)
        )
        rewrites += 1
    return rewrites


Match = tuple[list[Tensor | None], tuple[int, ...], list[Operator]]


def _transposed(g: GraphEditor, t: Tensor | None) -> tuple[Operator, tuple[int, ...]] | None:
    """The Transpose producing ``t`` and its permutation."""
    op = g.producer_of(t, "TRANSPOSE")
    perm = transpose_perm(op)
    return None if op is None or perm is None else (op, perm)


def _unary(g: GraphEditor, op: Operator) -> Match | None:
    found = _transposed(g, op.inputs[0])
    if found is None:
        return None
    transpose, perm = found
    return [transpose.inputs[0], *op.inputs[1:]], perm, [transpose]


def _with_const(g: GraphEditor, op: Operator) -> Match | None:
    sides = split_const(op)
    found = _transposed(g, sides[0]) if sides is not None else None
    if found is None or sides[1].dtype != "FLOAT32":
        return None
    transpose, perm = found
    c = sides[1]
    value = const_value(c)
    if value.size == 1 and value.ndim <= len(perm):
        new_c = c
    elif value.ndim == len(perm) == 4:
        new_c = g.const(f"{c.name}_r_transposed", np.transpose(value, np.argsort(perm)), c.dtype)
    else:
        return None
    inputs = [new_c if t is c else transpose.inputs[0] for t in op.inputs[:2]]
    return [*inputs, *op.inputs[2:]], perm, [transpose]


def _two(g: GraphEditor, op: Operator) -> Match | None:
    left, right = (_transposed(g, t) for t in op.inputs[:2])
    if left is None or right is None or left[1] != right[1]:
        return None
    return [left[0].inputs[0], right[0].inputs[0], *op.inputs[2:]], left[1], [left[0], right[0]]
