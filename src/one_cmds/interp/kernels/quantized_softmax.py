"""Quantized SOFTMAX: gemmlowp's fixed-point exp and reciprocal for 8-bit inputs
(reference_ops::Softmax), LiteRT's int16 lookup tables for int16 ones (SoftmaxInt16)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ...ir import Operator
from ..context import InterpreterError
from ..fixedpoint import (
    count_leading_zeros32,
    exp_on_negative_values,
    multiply_by_quantized_multiplier,
    one_over_one_plus_x,
    quantize_multiplier,
    rounding_divide_by_pot,
)
from ..fixedpoint import saturating_rounding_doubling_high_mul as srdhm
from ..registry import Args, quantized_kernel
from .lookup_tables import lut16_lookup, lut16_table
from .quantized_operands import F32, out_dtype, symmetric_int16, tensor_params


def _softmax_8bit(op: Operator, x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """reference_ops::Softmax on 8-bit input: gemmlowp fixed point over the last axis."""
    in_scale, _ = tensor_params(op, 0)
    beta = float(F32(getattr(op.options, "beta", 1.0)))
    real = min(beta * float(in_scale) * (1 << (31 - 5)), (1 << 31) - 1.0)
    multiplier, left_shift = quantize_multiplier(real)
    radius = math.floor(31.0 * (1 << 26) / (1 << left_shift))
    diff = x.astype(np.int64) - x.max(axis=-1, keepdims=True)
    valid = diff >= -radius
    scaled = srdhm(np.where(valid, diff, 0) << left_shift, multiplier)
    exps = exp_on_negative_values(scaled)
    sum_of_exps = np.where(valid, rounding_divide_by_pot(exps, 12), 0).sum(axis=-1, keepdims=True)
    headroom_plus_one = count_leading_zeros32(sum_of_exps)
    bits_over_unit = 12 - headroom_plus_one
    shifted_minus_one = ((sum_of_exps << headroom_plus_one) & 0xFFFFFFFF) - (1 << 31)
    shifted_scale = one_over_one_plus_x(shifted_minus_one)
    exponent = bits_over_unit + 31 - 8 * dtype.itemsize
    info = np.iinfo(dtype)
    result = rounding_divide_by_pot(srdhm(shifted_scale, exps), exponent) + info.min
    result = np.where(valid, result, info.min)
    return np.clip(result, info.min, info.max).astype(dtype)


def _softmax_int16(op: Operator, x: np.ndarray) -> np.ndarray:
    """reference_ops::SoftmaxInt16: exp and 1/(1+x) from LiteRT's interpolated int16 LUTs."""
    in_scale, in_zp = tensor_params(op, 0)
    _, out_zp = tensor_params(op, 0, output=True)
    symmetric_int16(op, (in_zp, out_zp))
    span = 65535
    exp_lut = lut16_table(np.exp, 10.0 / span, 32767, 2.0 / span, 0, np.float64)
    recip_lut = lut16_table(
        lambda v: 1.0 / (1.0 + v), 1.0 / span, -32768, 2.0 / span, 0, np.float64
    )
    beta = F32(getattr(op.options, "beta", 1.0))
    real = float(in_scale * beta) / (10.0 / 65535.0)
    diff = x.astype(np.int64) - x.max(axis=-1, keepdims=True)
    scaled = multiply_by_quantized_multiplier(diff, *quantize_multiplier(real))
    exps = lut16_lookup(np.clip(scaled + 32767, -32768, 32767), exp_lut).astype(np.int64)
    total = exps.sum(axis=-1, keepdims=True)
    headroom_plus_one = count_leading_zeros32(total)
    shifted = ((total << (headroom_plus_one - 1)) + (1 << 13)) >> 14
    symmetric = np.clip(shifted - (1 << 15) - (1 << 16), -32768, 32767)
    reciprocal = lut16_lookup(symmetric, recip_lut).astype(np.int64)
    right_shift = 31 - headroom_plus_one
    result = (exps * reciprocal + (np.int64(1) << (right_shift - 1))) >> right_shift
    return np.clip(result, 0, 32767).astype(np.int16)


@quantized_kernel("SOFTMAX")
def softmax(op: Operator, args: Args, ctx: Any) -> np.ndarray:
    """uint8/int8 input (output of the same type or int16): gemmlowp's fixed-point softmax;
    int16: LiteRT's LUT-based SoftmaxInt16."""
    x = args[0]
    dtype = out_dtype(op)
    if x.dtype in (np.uint8, np.int8) and dtype in (x.dtype, np.int16):
        return _softmax_8bit(op, x, dtype)
    if x.dtype == np.int16 and dtype == np.int16:
        return _softmax_int16(op, x)
    raise InterpreterError(f"{op.kind}: quantized {x.dtype} -> {dtype} is not supported")
