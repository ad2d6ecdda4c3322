"""``transform_min_max_to_relu6`` (optimization.md §5.20): ``Maximum(Minimum(x, 6), 0)``
becomes ``Relu6(x)`` (conditions in :mod:`.clip`)."""

from __future__ import annotations

from .. import graph_pass
from ..toolkit import GraphEditor
from ..toolkit.match import operand_orders
from .clip import clipped_at_six, rank0, relu6


@graph_pass("transform_min_max_to_relu6")
def transform_min_max_to_relu6(g: GraphEditor) -> int:
    rewrites = 0
    for maximum in g.ops("MAXIMUM"):
        for clipped, zero in operand_orders(maximum):
            found = clipped_at_six(g, clipped) if rank0(zero, 0.0) else None
            if found is not None:
                relu6(g, maximum, *found)
                rewrites += 1
                break
    return rewrites
