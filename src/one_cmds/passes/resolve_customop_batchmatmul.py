"""``resolve_customop_batchmatmul`` (optimization.md §5.23): Custom(BatchMatMulV2) of two
operands becomes BATCH_MATMUL with ``adj_x`` / ``adj_y`` (absent: false) read from the
custom options' flexbuffer map, origin copied.

Reference: reads the two flags at fixed byte offsets 22 and 23 of the options, and reports a
change for every custom operator of the graph (even those it leaves alone); here the map is
read by key and only rewrites are counted.
"""

from __future__ import annotations

from . import graph_pass
from .toolkit import GraphEditor, new_options
from .toolkit.custom import custom_ops


@graph_pass("resolve_customop_batchmatmul")
def resolve_customop_batchmatmul(g: GraphEditor) -> int:
    rewrites = 0
    for op, attributes in custom_ops(g, "BatchMatMulV2", inputs=2, outputs=1):
        options = new_options(
            "BatchMatMulOptions",
            adjointLhs=bool(attributes.get("adj_x", False)),
            adjointRhs=bool(attributes.get("adj_y", False)),
        )
        g.replace_with(op, "BATCH_MATMUL", op.inputs, options, origin=op.origin)
        rewrites += 1
    return rewrites
