"""``remove_fakequant`` (optimization.md §5.16): every FAKE_QUANT is replaced by its input.
Changes results on purpose (the quantization noise it simulated is gone)."""

from __future__ import annotations

from . import graph_pass
from .toolkit import GraphEditor


@graph_pass("remove_fakequant", changes_results=True)
def remove_fakequant(g: GraphEditor) -> int:
    rewrites = 0
    for op in g.ops("FAKE_QUANT"):
        g.replace(op.outputs[0], op.inputs[0])
        rewrites += 1
    return rewrites
