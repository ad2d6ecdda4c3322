"""``resolve_customop_add`` (optimization.md §5.23): Custom(AddV2) of two operands of type
UINT4, UINT8, INT4, INT8, INT16, INT32 or FLOAT32 becomes ADD (activation NONE), origin
copied. When exactly one operand comes from a BroadcastTo (builtin or Custom(BroadcastTo)),
the ADD reads the BroadcastTo's input instead and absorbs it (origin addv2 ∪ broadcast_to),
since ADD broadcasts by itself.

Reference: absorbs the BroadcastTo unconditionally, which changes the result's shape when
the other operand does not already have the broadcast shape; here the BroadcastTo is absorbed
only when ADD's own broadcasting gives the same (known) shape, else it stays.
"""

from __future__ import annotations

from ..ir import Operator, Shape, Tensor
from ..shape import ShapeError
from ..shape.common import broadcast
from . import graph_pass
from .toolkit import NONE, GraphEditor, new_options, origin_of
from .toolkit.custom import custom_ops

_TYPES = frozenset({"UINT4", "UINT8", "INT4", "INT8", "INT16", "INT32", "FLOAT32"})


def _broadcast(shapes: list[Shape]) -> Shape | None:
    """The broadcast of fully known shapes (None when a dimension is unknown or they clash)."""
    if any(d is None for s in shapes for d in s):
        return None
    try:
        return broadcast(*shapes)
    except ShapeError:
        return None


def _absorbable(g: GraphEditor, inputs: list[Tensor]) -> tuple[int, Operator] | None:
    """(position, BroadcastTo) when exactly one operand is broadcast and ADD broadcasting its
    source gives the same shape."""
    found = [
        (i, bc)
        for i, t in enumerate(inputs)
        if (bc := g.producer_of(t, "BROADCAST_TO", "CUSTOM(BroadcastTo)")) is not None
    ]
    if len(found) != 1:
        return None
    i, bc = found[0]
    source = bc.inputs[0]
    if source is None:
        return None
    shapes = [t.shape for t in inputs]
    expected = _broadcast(shapes)
    shapes[i] = source.shape
    return (i, bc) if expected is not None and _broadcast(shapes) == expected else None


@graph_pass("resolve_customop_add")
def resolve_customop_add(g: GraphEditor) -> int:
    rewrites = 0
    for op, _ in custom_ops(g, "AddV2", inputs=2, outputs=1):
        inputs: list[Tensor] = list(op.inputs)
        if any(t.dtype not in _TYPES for t in inputs):
            continue
        absorbed = _absorbable(g, inputs)
        origin = op.origin
        if absorbed is not None:
            i, bc = absorbed
            inputs[i] = bc.inputs[0]
            origin = origin_of(op, bc)
        options = new_options("AddOptions", fusedActivationFunction=NONE)
        g.replace_with(op, "ADD", inputs, options, origin=origin)
        rewrites += 1
    return rewrites
