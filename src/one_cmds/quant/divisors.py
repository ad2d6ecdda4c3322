"""Integer DIV divisors kept off their zero point (issue "the quantizer on real models").

A divisor whose recorded range lies on one side of zero (a normalization's
``sqrt(variance + eps)``) can still reach its zero point in the integer graph: the values below
the calibrated range round or clamp to it (Magika's LayerNorm after an int8 SQRT). LiteRT's
integer DIV then aborts the inference (``div.cc: data[i] != zero_point``) and the reference
kernels divide by zero. A MAXIMUM (MINIMUM for a negative range) with one quantization step
before the DIV keeps the divisor at least a step away from zero; it changes nothing on the
calibrated range and turns a division by zero into a division by the smallest step. The
graph stays integer (divisors whose range holds zero compute in float: float_islands.py).
"""

from __future__ import annotations

import numpy as np

from ..ir import Graph, Operator, QuantParam, Tensor
from .float_islands import quantized


def keep_divisors_off_zero(graph: Graph) -> None:
    """Clamp every quantized DIV's one-signed activation divisor a step away from zero."""
    for op in [op for op in graph.operators if op.opcode == "DIV"]:
        divisor = op.inputs[1] if len(op.inputs) > 1 else None
        if not quantized(op.outputs[0]) or divisor is None or divisor.is_constant:
            continue
        q = divisor.quant
        if not quantized(divisor) or q.min is None or q.max is None:  # type: ignore[union-attr]
            continue
        lo, hi = float(q.min[0]), float(q.max[0])  # type: ignore[union-attr,index]
        step = float(q.scale[0])  # type: ignore[union-attr,index]
        if lo > 0.0:
            opcode, bound = "MAXIMUM", step
        elif hi < 0.0:
            opcode, bound = "MINIMUM", -step
        else:
            continue
        clamped = Tensor(f"{divisor.name}_OffZero", divisor.dtype, divisor.shape)
        clamped.quant = QuantParam(q.scale, q.zero_point, q.min, q.max)  # type: ignore[union-attr]
        limit = Tensor.constant(f"{divisor.name}_OffZero/bound", np.array([bound], np.float32))
        clamp = Operator(opcode, [divisor, limit], [clamped], origin=op.origin)
        graph.operators.insert(graph.operators.index(op), clamp)
        op.inputs[1] = clamped
