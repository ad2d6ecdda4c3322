"""``remove_unnecessary_reshape`` (optimization.md §5.11): a RESHAPE whose target (the
constant ``shape`` operand, or the ``new_shape`` option when the operand is absent) has the
input's rank, at most one -1, and every other entry equal to the known input dimension, is
replaced by its input."""

from __future__ import annotations

from ..ir import Operator
from . import graph_pass
from .toolkit import GraphEditor
from .toolkit.layout import const_ints


def _target(op: Operator) -> list[int] | None:
    if len(op.inputs) > 1 and op.inputs[1] is not None:
        return const_ints(op.inputs[1])
    new_shape = getattr(op.options, "newShape", None)
    return None if new_shape is None else [int(d) for d in new_shape]


@graph_pass("remove_unnecessary_reshape")
def remove_unnecessary_reshape(g: GraphEditor) -> int:
    rewrites = 0
    for op in g.ops("RESHAPE"):
        x, target = op.inputs[0], _target(op)
        if target is None or len(target) != len(x.shape) or target.count(-1) > 1:
            continue
        if all(t == -1 or t == d for t, d in zip(target, x.shape, strict=True)):
            g.replace(op.outputs[0], x)
            rewrites += 1
    return rewrites
