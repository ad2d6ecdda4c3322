"""``substitute_transpose_to_reshape`` (optimization.md §5.12): a TRANSPOSE with a constant
permutation of x's rank, at most one unknown input dimension, and whose permutation keeps
the order of the axes not known to be of size 1, only moves size-1 axes: it becomes
``Reshape(x, [x.shape[perm[i]] or -1 for the unknown one])``. Origin: a copy of the
Transpose's."""

from __future__ import annotations

from . import graph_pass
from .toolkit import GraphEditor
from .toolkit.layout import const_ints, replace_with_reshape


@graph_pass("substitute_transpose_to_reshape")
def substitute_transpose_to_reshape(g: GraphEditor) -> int:
    rewrites = 0
    for op in g.ops("TRANSPOSE"):
        x, perm = op.inputs[0], const_ints(op.inputs[1])
        if perm is None or sorted(perm) != list(range(len(x.shape))):
            continue
        if sum(d is None for d in x.shape) > 1:
            continue
        moved = [p for p in perm if x.shape[p] != 1]
        if moved != sorted(moved):
            continue
        shape = [-1 if x.shape[p] is None else x.shape[p] for p in perm]
        replace_with_reshape(g, op, x, shape)
        rewrites += 1
    return rewrites
