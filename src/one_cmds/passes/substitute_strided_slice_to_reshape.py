"""``substitute_strided_slice_to_reshape`` (reference SubstituteStridedSliceToReshapePass): a
STRIDED_SLICE with a shrink-axis mask that only drops axes of size 1 and otherwise selects
everything becomes ``Reshape(x, x's shape without the shrunk axes)``. Conditions (bounds as
TFLite resolves them, see :func:`strided_slice_bounds`): fully known input, constant
begin/end/strides, every stride 1, no ellipsis/new-axis mask, no ``offset``; each shrunk axis
has size 1 and starts at 0; every other axis is selected whole. Origin: a copy of the
StridedSlice's.

Reference: also requires ``end >= 1`` (or the end mask) on a shrunk axis, although TFLite
ignores the end of a shrunk axis; here it is not required."""

from __future__ import annotations

from . import graph_pass
from .toolkit import GraphEditor
from .toolkit.layout import replace_with_reshape, strided_slice_bounds


@graph_pass("substitute_strided_slice_to_reshape")
def substitute_strided_slice_to_reshape(g: GraphEditor) -> int:
    rewrites = 0
    for op in g.ops("STRIDED_SLICE"):
        shrink = op.options.shrinkAxisMask if op.options is not None else 0
        bounds = strided_slice_bounds(op) if shrink else None
        if bounds is None:
            continue
        shrunk = [bool(shrink >> i & 1) for i in range(len(bounds))]
        if not any(shrunk) or any(
            start != 0 or stop != dim or (dim != 1 and s)
            for (start, stop, dim), s in zip(bounds, shrunk, strict=True)
        ):
            continue
        shape = [dim for (_, _, dim), s in zip(bounds, shrunk, strict=True) if not s]
        replace_with_reshape(g, op, op.inputs[0], shape)
        rewrites += 1
    return rewrites
