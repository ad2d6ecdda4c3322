"""``remove_unnecessary_slice`` (optimization.md §5.13): a SLICE with constant ``begin`` all
0 and ``size`` entries each -1 or the known input dimension is replaced by its input."""

from __future__ import annotations

from . import graph_pass
from .toolkit import GraphEditor
from .toolkit.layout import const_ints


@graph_pass("remove_unnecessary_slice")
def remove_unnecessary_slice(g: GraphEditor) -> int:
    rewrites = 0
    for op in g.ops("SLICE"):
        x, begin, size = op.inputs[0], const_ints(op.inputs[1]), const_ints(op.inputs[2])
        if begin is None or size is None or not len(begin) == len(size) == len(x.shape):
            continue
        if any(begin) or any(s not in (-1, d) for s, d in zip(size, x.shape, strict=True)):
            continue
        g.replace(op.outputs[0], x)
        rewrites += 1
    return rewrites
