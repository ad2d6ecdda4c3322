"""``remove_unnecessary_split`` (optimization.md §5.13): a SPLIT with ``num_splits == 1``
(one output) is replaced by its input (operand 1; operand 0 is the axis)."""

from __future__ import annotations

from . import graph_pass
from .toolkit import GraphEditor


@graph_pass("remove_unnecessary_split")
def remove_unnecessary_split(g: GraphEditor) -> int:
    rewrites = 0
    for op in g.ops("SPLIT"):
        if op.options is None or op.options.numSplits != 1 or len(op.outputs) != 1:
            continue
        g.replace(op.outputs[0], op.inputs[1])
        rewrites += 1
    return rewrites
