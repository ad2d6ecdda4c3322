"""``resolve_customop_matmul`` (optimization.md §5.23, reference
``ResolveCustomOpMatMulPass``): Custom(MatMul)(a, b) becomes ``FULLY_CONNECTED(a', b', no
bias)`` (activation NONE, keep_num_dims false), whose weights are ``[N, K]``:

* ``a' = Transpose(a)`` over its last two axes when ``transpose_a`` (a of known rank ≥ 2),
  else a;
* ``b' = Transpose(b, [1, 0])`` unless ``transpose_b``, else b.

Conditions: a is UINT8, INT16 or FLOAT32; b has a fully known rank-2 shape. Every new
operator copies the custom operator's origin. (The reference throws on other types of a;
here the operator is left alone.)
"""

from __future__ import annotations

import numpy as np

from ..ir import Operator, Tensor
from . import graph_pass
from .toolkit import NONE, GraphEditor, new_options
from .toolkit.custom import custom_ops

_TYPES = frozenset({"UINT8", "INT16", "FLOAT32"})


def _transposed(g: GraphEditor, t: Tensor, op: Operator, side: str) -> Tensor:
    """``t`` with its last two axes swapped, by a new TRANSPOSE with the origin of ``op``."""
    perm = np.arange(len(t.shape), dtype=np.int32)
    perm[-2:] = perm[-2:][::-1]
    base = f"{op.outputs[0].name}/{side}/Transpose"
    new = g.op(
        "TRANSPOSE",
        [t, g.const(f"{base}/perm", perm)],
        new_options("TransposeOptions"),
        origin=op.origin,
        name=base,
    )
    return new.outputs[0]


@graph_pass("resolve_customop_matmul")
def resolve_customop_matmul(g: GraphEditor) -> int:
    rewrites = 0
    for op, attributes in custom_ops(g, "MatMul", inputs=2, outputs=1):
        a, b = op.inputs
        transpose_a = bool(attributes.get("transpose_a", False))
        if a.dtype not in _TYPES or (transpose_a and len(a.shape) < 2):
            continue
        if len(b.shape) != 2 or None in b.shape:
            continue
        lhs = _transposed(g, a, op, "lhs") if transpose_a else a
        rhs = b if attributes.get("transpose_b", False) else _transposed(g, b, op, "rhs")
        options = new_options("FullyConnectedOptions", fusedActivationFunction=NONE)
        fc = g.op(
            "FULLY_CONNECTED", [lhs, rhs, None], options, origin=op.origin, like=op.outputs[0]
        )
        g.replace(op.outputs[0], fc.outputs[0])
        rewrites += 1
    return rewrites
