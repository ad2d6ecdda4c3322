"""``fold_dwconv`` (optimization.md §5.21): DepthwiseConv2D with constant input, filter and
bias or none, and a clamping fused activation (the reference also demands float32 and a
bias; the kernel refuses quantized operands)."""

from __future__ import annotations

from .. import graph_pass
from ..toolkit import CLAMPS, GraphEditor, activation, fold_all


@graph_pass("fold_dwconv")
def fold_dwconv(g: GraphEditor) -> int:
    return fold_all(g, "DEPTHWISE_CONV_2D", lambda op: activation(op) in CLAMPS)
