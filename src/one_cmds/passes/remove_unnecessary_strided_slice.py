"""``remove_unnecessary_strided_slice`` (optimization.md §5.13): a STRIDED_SLICE that selects
every element of its fully known input is replaced by it. Exact condition, under TFLite's
semantics: constant begin/end/strides with one entry per axis, every stride 1, no ellipsis,
new-axis or shrink-axis mask, no ``offset``, and on every axis the resolved start is 0 and
the resolved stop the dimension (a begin/end mask bit, a negative index counted from the end,
an end beyond the dimension clamped to it).

Reference: "begin 0, stride 1, end -1 or the full dimension" (an end of -1 drops the last
element). **Adopted:** the exact condition above."""

from __future__ import annotations

from . import graph_pass
from .toolkit import GraphEditor
from .toolkit.layout import strided_slice_bounds


@graph_pass("remove_unnecessary_strided_slice")
def remove_unnecessary_strided_slice(g: GraphEditor) -> int:
    rewrites = 0
    for op in g.ops("STRIDED_SLICE"):
        bounds = strided_slice_bounds(op)
        if bounds is None or op.options.shrinkAxisMask:
            continue
        if all(start == 0 and stop == dim for start, stop, dim in bounds):
            g.replace(op.outputs[0], op.inputs[0])
            rewrites += 1
    return rewrites
