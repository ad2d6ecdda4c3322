"""``remove_redundant_transpose`` (optimization.md §5.9): ``Transpose(Transpose(x, p_in),
p_out)`` becomes ``Transpose(x, c)`` with ``c[i] = p_in[p_out[i]]``, or x itself when c is the
identity. **Adopted:** the correct composition (the reference composes ``p_out[p_in[i]]``)."""

from __future__ import annotations

import numpy as np

from . import graph_pass
from .toolkit import GraphEditor, const_value, origin_of


def _perm(t) -> np.ndarray | None:
    value = const_value(t)
    return value.reshape(-1) if value is not None and t.dtype == "INT32" else None


@graph_pass("remove_redundant_transpose")
def remove_redundant_transpose(g: GraphEditor) -> int:
    rewrites = 0
    for outer in g.ops("TRANSPOSE"):
        inner = g.producer_of(outer.inputs[0], "TRANSPOSE")
        p_out = _perm(outer.inputs[1])
        p_in = _perm(inner.inputs[1]) if inner is not None else None
        if p_in is None or p_out is None or len(p_in) != len(p_out):
            continue
        composed = p_in[p_out]
        x = inner.inputs[0]
        if np.array_equal(composed, np.arange(len(composed))):
            g.replace(outer.outputs[0], x)
        else:
            perm = g.const(f"{outer.inputs[1].name}/merged", composed.astype(np.int32))
            g.replace_with(
                outer, "TRANSPOSE", [x, perm], outer.options, origin=origin_of(inner, outer)
            )
        rewrites += 1
    return rewrites
