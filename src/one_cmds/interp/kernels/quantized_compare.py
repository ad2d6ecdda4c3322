"""Quantized comparisons (EQUAL, NOT_EQUAL, LESS, LESS_EQUAL, GREATER, GREATER_EQUAL) as
LiteRT's comparisons.cc computes them on UINT8 / INT8 operands: each operand, offset by its
zero point and shifted left by 8, is rescaled by its own scale (a fixed-point multiplier below
one) before the raw comparison, so operands of different qparams compare by value. INT16
operands (beyond LiteRT's scaled kernels) compare their real values ``scale * (q - zp)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...ir import Operator
from ..context import InterpreterError
from ..fixedpoint import multiply_by_quantized_multiplier, quantize_multiplier
from ..registry import Args, quantized_kernel
from .compare import COMPARISONS
from .quantized_operands import tensor_params

_LEFT_SHIFT = 8


def _scaled(op: Operator, index: int, q: np.ndarray) -> np.ndarray:
    """Operand ``index`` as the kernel compares it."""
    scale, zero_point = tensor_params(op, index)
    value = q.astype(np.int64) - zero_point
    if q.dtype == np.int16:
        return value.astype(np.float64) * float(scale)
    if not 0.0 < float(scale) < 1.0:
        raise InterpreterError(f"{op.kind}: operand {index} scale {scale} must be in (0, 1)")
    multiplier, shift = quantize_multiplier(float(scale))
    return multiply_by_quantized_multiplier(value << _LEFT_SHIFT, multiplier, shift)


@quantized_kernel(*COMPARISONS)
def quantized_comparison(op: Operator, args: Args, ctx: Any) -> np.ndarray:
    """Both operands of one quantized type, each rescaled by its own scale, then compared."""
    a, b = args
    if a.dtype != b.dtype or a.dtype not in (np.uint8, np.int8, np.int16):
        raise InterpreterError(f"{op.kind}: quantized {a.dtype} and {b.dtype} do not compare")
    return COMPARISONS[op.opcode](_scaled(op, 0, a), _scaled(op, 1, b))
