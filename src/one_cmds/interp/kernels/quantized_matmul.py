"""Quantized matrix products: FULLY_CONNECTED and BATCH_MATMUL, as LiteRT's reference integer
kernels compute them (the exact float64 route and requantization of quantized_conv.py)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...ir import Operator
from ..registry import quantized_kernel
from . import matmul
from .quantized_conv import (
    accumulate,
    centered,
    check_types,
    conv_multiplier,
    exact_float,
    float_op,
    operands,
    requantize,
)


@quantized_kernel("FULLY_CONNECTED")
def quantized_fully_connected(op: Operator, args: list[Any], ctx: Any) -> np.ndarray:
    """Integer FULLY_CONNECTED: uint8, int8 (per-tensor or per-channel weights), 16x8.

    Unlike the convolutions, LiteRT subtracts the weights' zero point for every type, and
    its reference kernel rescales in double (``round(acc * real)``) instead of fixed point.
    """
    x, w, b = operands(args, 3)
    x_t, w_t = op.inputs[0], op.inputs[1]
    check_types(op, x_t, w_t, [x, w, b])
    xf, wf = exact_float(int(w.shape[-1]), centered(x, x_t), centered(w, w_t))
    acc = accumulate(matmul.fully_connected(float_op(op), [xf, wf, None], ctx), b)
    if x_t.dtype != "INT16" or (b is not None and b.dtype != np.int64):
        acc = acc.astype(np.int32).astype(np.int64)  # LiteRT's int32 accumulator wraps
    return requantize(op, acc, conv_multiplier(x_t, w_t, op.outputs[0]), "double")


@quantized_kernel("BATCH_MATMUL")
def quantized_batch_matmul(op: Operator, args: list[Any], ctx: Any) -> np.ndarray:
    """Integer BATCH_MATMUL of per-tensor int8 or int16 operands (int64 accumulator for
    int16), ``adjointLhs`` / ``adjointRhs`` and batch broadcasting as the float kernel."""
    x, y = operands(args, 2)
    x_t, y_t = op.inputs[0], op.inputs[1]
    wide = check_types(op, x_t, y_t, [x, y])
    xf, yf = exact_float(max(x.shape[-2:]), centered(x, x_t), centered(y, y_t))
    acc = accumulate(matmul.batch_matmul(op, [xf, yf], ctx), None)
    mode = "int64" if wide else "int32"
    return requantize(op, acc, conv_multiplier(x_t, y_t, op.outputs[0]), mode)
