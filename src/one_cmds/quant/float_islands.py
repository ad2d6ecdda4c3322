"""Operators that stay float in a quantized graph (quantization.md §14, issue "the quantizer
on real models"): each reads its quantized inputs through a DEQUANTIZE and writes float results
that a QUANTIZE brings to their recorded qparams.

- Custom operators: the quantizer knows no integer semantics for them. A tensor only custom
  operators read, from a custom operator, stays float with no pair at all (MediaPipe's
  MaxPoolingWithArgmax2D indices reach MaxUnpooling2D exactly).
- A DIV whose divisor's recorded range reaches zero, or whose constant divisor comes within
  two quantization steps of it: a divisor at its zero point makes LiteRT's integer DIV fail
  (``div.cc: data[i] != zero_point``) and the integer run divide by zero, so the reference's
  quantized DIV would not run on the model's own data. (A divisor whose range stays on one
  side of zero is clamped off its zero point instead: divisors.py.)
- SIN and COS (a decoder's rotary embedding): no runtime has integer kernels for them.
- A CAST from a boolean or integer tensor (Magika's one-hot ``CAST(EQUAL(...))``): LiteRT
  converts the raw values, so a quantized result would read ``q = value`` in a scale it does
  not have; the CAST writes float32 and a QUANTIZE follows (the reference retypes it), unless
  its qparams are exactly the identity (scale 1, zero point 0, the input's values fit).
"""

from __future__ import annotations

import numpy as np

from ..ir import Graph, Operator, Tensor
from ..ir.dtypes import numpy_dtype
from .activations import DTYPE_NAMES
from .qparams import activation_range

CUSTOM = "CUSTOM"
FLOAT_ONLY = frozenset({CUSTOM, "SIN", "COS"})  # no integer kernel in LiteRT or ONE
DIVISOR_MARGIN = 2  # quantization steps between a constant divisor and zero


def keep_operators_float(graph: Graph) -> list[str]:
    """Rewrite ``graph`` (activation qparams assigned) so the operators above compute in
    float; returns one line per DIV kept float."""
    divisions = [op for op in graph.operators if _divides_near_zero(op)]
    notes = [
        f"{op.kind} '{op.outputs[0].name}' computes in float: its divisor '{op.inputs[1].name}'"
        " reaches its zero point, where an integer DIV fails"
        for op in divisions
    ]
    kept = [
        op
        for op in graph.operators
        if op.opcode in FLOAT_ONLY or op in divisions or _casts_raw_integers(op)
    ]
    _keep_float(graph, kept)
    return notes


def _divides_near_zero(op: Operator) -> bool:
    """A quantized DIV whose divisor's recorded range holds zero, or whose constant divisor
    comes within :data:`DIVISOR_MARGIN` steps of zero."""
    if op.opcode != "DIV" or not quantized(op.outputs[0]) or op.inputs[1] is None:
        return False
    divisor = op.inputs[1]
    if divisor.is_constant:
        values = np.asarray(divisor.data, np.float64)
        lo, hi = float(values.min(initial=0.0)), float(values.max(initial=0.0))
        step = activation_range(lo, hi, DTYPE_NAMES[op.outputs[0].dtype]).scale
        nearest = float(np.abs(values).min(initial=np.inf))
    elif quantized(divisor) and divisor.quant.min is not None and divisor.quant.max is not None:
        return float(divisor.quant.min[0]) <= 0.0 <= float(divisor.quant.max[0])
    else:
        return False
    return nearest < DIVISOR_MARGIN * step


def _casts_raw_integers(op: Operator) -> bool:
    """A CAST of an unquantized boolean or integer tensor into a quantized one whose
    qparams are not the identity on the input's values."""
    if op.opcode != "CAST" or op.inputs[0] is None or not quantized(op.outputs[0]):
        return False
    source, result = op.inputs[0], op.outputs[0]
    if source.dtype == "FLOAT32" or quantized(source):
        return False
    q = result.quant
    if float(q.scale[0]) != 1.0 or int(q.zero_point[0]) != 0:  # type: ignore[union-attr,index]
        return True
    if source.dtype == "BOOL":
        return False
    wide, narrow = np.iinfo(numpy_dtype(source.dtype)), np.iinfo(numpy_dtype(result.dtype))
    return bool(wide.min < narrow.min or wide.max > narrow.max)


def _keep_float(graph: Graph, kept: list[Operator]) -> None:
    """Put a DEQUANTIZE before each quantized input and a QUANTIZE after each quantized
    output of the ``kept`` operators."""
    consumers = graph.consumers()
    outputs = {id(t) for t in graph.outputs}
    producers = graph.producers()
    for t in graph.referenced_tensors():
        producer = producers.get(t)
        readers = consumers.get(t, [])
        inside = producer is not None and producer.opcode == CUSTOM and readers
        if inside and id(t) not in outputs and all(r.opcode == CUSTOM for r in readers):
            t.dtype, t.quant = "FLOAT32", None
    dequantized: dict[int, Tensor] = {}
    for op in kept:
        for i, t in enumerate(op.inputs):
            if t is None or t.is_constant or not quantized(t):
                continue
            if id(t) not in dequantized:
                dequantized[id(t)] = Tensor(f"{t.name}_Dequantize", "FLOAT32", t.shape)
                dequantize = Operator("DEQUANTIZE", [t], [dequantized[id(t)]], origin=op.origin)
                graph.operators.insert(graph.operators.index(op), dequantize)
            op.inputs[i] = dequantized[id(t)]
        for k, out in enumerate(op.outputs):
            if not quantized(out):
                continue
            result = Tensor(f"{out.name}_Float", "FLOAT32", out.shape)
            op.outputs[k] = result
            quantize = Operator("QUANTIZE", [result], [out], origin=op.origin)
            graph.operators.insert(graph.operators.index(op) + 1, quantize)


def quantized(t: Tensor) -> bool:
    """An integer tensor with qparams (not float, not a raw integer)."""
    return t.dtype != "FLOAT32" and t.quant is not None and t.quant.scale is not None
