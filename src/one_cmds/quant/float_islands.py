"""Custom operators stay float (quantization.md §14, issue "the quantizer on real models"):
the quantizer knows no integer semantics for them, so each reads its quantized inputs through
a DEQUANTIZE and writes float results that a QUANTIZE brings to their recorded qparams. A
tensor only custom operators read, from a custom operator, stays float with no pair at all
(MediaPipe's MaxPoolingWithArgmax2D indices reach MaxUnpooling2D exactly)."""

from __future__ import annotations

from ..ir import Graph, Operator, Tensor

CUSTOM = "CUSTOM"


def keep_custom_operators_float(graph: Graph) -> int:
    """Rewrite ``graph`` (activation qparams assigned) so custom operators compute in float;
    returns how many QUANTIZE/DEQUANTIZE operators were inserted."""
    consumers = graph.consumers()
    outputs = {id(t) for t in graph.outputs}
    producers = graph.producers()
    for t in graph.referenced_tensors():
        producer = producers.get(t)
        readers = consumers.get(t, [])
        inside = producer is not None and producer.opcode == CUSTOM and readers
        if inside and id(t) not in outputs and all(r.opcode == CUSTOM for r in readers):
            t.dtype, t.quant = "FLOAT32", None
    inserted = 0
    dequantized: dict[int, Tensor] = {}
    for op in [op for op in graph.operators if op.opcode == CUSTOM]:
        for i, t in enumerate(op.inputs):
            if t is None or t.is_constant or not _quantized(t):
                continue
            if id(t) not in dequantized:
                dequantized[id(t)] = Tensor(f"{t.name}_Dequantize", "FLOAT32", t.shape)
                dequantize = Operator("DEQUANTIZE", [t], [dequantized[id(t)]], origin=op.origin)
                graph.operators.insert(graph.operators.index(op), dequantize)
                inserted += 1
            op.inputs[i] = dequantized[id(t)]
        for k, out in enumerate(op.outputs):
            if not _quantized(out):
                continue
            result = Tensor(f"{out.name}_Float", "FLOAT32", out.shape)
            op.outputs[k] = result
            quantize = Operator("QUANTIZE", [result], [out], origin=op.origin)
            graph.operators.insert(graph.operators.index(op) + 1, quantize)
            inserted += 1
    return inserted


def _quantized(t: Tensor) -> bool:
    return t.dtype != "FLOAT32" and t.quant is not None and t.quant.scale is not None
