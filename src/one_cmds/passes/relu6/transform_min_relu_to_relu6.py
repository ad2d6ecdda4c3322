"""``transform_min_relu_to_relu6`` (optimization.md §5.20): ``Relu(Minimum(x, 6))`` becomes
``Relu6(x)`` (conditions in :mod:`.clip`)."""

from __future__ import annotations

from .. import graph_pass
from ..toolkit import GraphEditor
from .clip import clipped_at_six, relu6


@graph_pass("transform_min_relu_to_relu6")
def transform_min_relu_to_relu6(g: GraphEditor) -> int:
    rewrites = 0
    for relu in g.ops("RELU"):
        found = clipped_at_six(g, relu.inputs[0]) if relu.outputs[0].dtype == "FLOAT32" else None
        if found is not None:
            relu6(g, relu, *found)
            rewrites += 1
    return rewrites
