"""Operators rewritten into forms that have integer kernels, before activations are quantized
(a rewritten operator keeps its output tensor, its recorded range and its origin).

- ``SQUARE(x)`` becomes ``MUL(x, x)``: neither LiteRT (``elementwise.cc``: no integer Square)
  nor ONE's kernels square quantized tensors, while every runtime multiplies them
  (basic-pitch's spectrogram ``log(x² + eps)``).
- ``NEG(x)`` becomes ``MUL(x, -1)``: LiteRT negates int8 values raw, which is right only for
  a zero point that negates into the type (not a range starting at 0, zero point -128), has
  no uint8 Neg, and an int16 NEG is right only while its result keeps its input's qparams,
  which propagation around it may change (basic-pitch's int16 run lost 33 dB there); MUL
  rescales in every type.

An operator without a recorded range (one that stays float) is left as it is.
"""

from __future__ import annotations

import numpy as np

from ..ir import Graph, Operator, Tensor
from ..ir.schema import new_options


def rewrite_integer_forms(graph: Graph) -> None:
    """Rewrite every calibrated SQUARE and NEG of ``graph`` as a MUL."""
    for i, op in enumerate(graph.operators):
        x = op.inputs[0] if op.inputs else None
        if x is None or x.quant is None or x.quant.min is None:
            continue
        if op.opcode == "SQUARE":
            graph.operators[i] = _mul(op, [x, x])
        elif op.opcode == "NEG":
            minus_one = Tensor.constant(f"{x.name}_MinusOne", np.array([-1.0], np.float32))
            graph.operators[i] = _mul(op, [x, minus_one])


def _mul(op: Operator, inputs: list[Tensor | None]) -> Operator:
    options = new_options("MulOptions")
    return Operator("MUL", inputs, list(op.outputs), options, origin=op.origin)
