"""``remove_quantdequant`` (optimization.md §5.16): ``Dequantize(Quantize(x))`` is replaced
by x. Changes results on purpose (the rounding to the quantized grid is gone).

Reference: unconditional. Here: x must have the Dequantize's dtype (a Quantize that
requantizes an integer x would otherwise hand an integer tensor to float consumers)."""

from __future__ import annotations

from . import graph_pass
from .toolkit import GraphEditor


@graph_pass("remove_quantdequant", changes_results=True)
def remove_quantdequant(g: GraphEditor) -> int:
    rewrites = 0
    for dequantize in g.ops("DEQUANTIZE"):
        quantize = g.producer_of(dequantize.inputs[0], "QUANTIZE")
        if quantize is None or quantize.inputs[0].dtype != dequantize.outputs[0].dtype:
            continue
        g.replace(dequantize.outputs[0], quantize.inputs[0])
        rewrites += 1
    return rewrites
