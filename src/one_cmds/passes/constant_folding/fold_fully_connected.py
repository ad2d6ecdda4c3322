"""``fold_fully_connected`` (optimization.md §5.21): FullyConnected with float32 constant input
and weights, a float32 constant bias or none, default weights format and a clamping fused
activation."""

from __future__ import annotations

from ...ir import Operator
from .. import graph_pass
from ..toolkit import CLAMPS, GraphEditor, activation, fold_all, is_float32


def _fully_connected(op: Operator) -> bool:
    x, w, b = [*op.inputs, None][:3]
    weights_format = getattr(op.options, "weightsFormat", 0)
    plain_bias = b is None or is_float32(b)
    return is_float32(x, w) and plain_bias and weights_format == 0 and activation(op) in CLAMPS


@graph_pass("fold_fully_connected")
def fold_fully_connected(g: GraphEditor) -> int:
    return fold_all(g, "FULLY_CONNECTED", _fully_connected)
