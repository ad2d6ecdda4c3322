"""Quantized HARD_SWISH: LiteRT's int16 fixed-point recipe (reference_ops::HardSwish) for
8-bit tensors, the float function on the dequantized values for int16 ones."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...ir import Operator
from ..context import InterpreterError
from ..fixedpoint import INT32_MAX, quantize_multiplier, rounding_divide_by_pot
from ..registry import Args, quantized_kernel
from .lookup_tables import float_unary
from .quantized_operands import F32, check_types, tensor_params


def _int16_multiplier(real: float) -> tuple[int, int]:
    """QuantizeMultiplier then DownScaleInt32ToInt16Multiplier: (Q15 multiplier, exponent)."""
    multiplier, exponent = quantize_multiplier(real)
    if multiplier >= INT32_MAX - (1 << 15):
        return 32767, exponent
    return (multiplier + (1 << 15)) >> 16, exponent


def _srdhm16(a: np.ndarray, b: np.ndarray | int) -> np.ndarray:
    """gemmlowp's int16 SaturatingRoundingDoublingHighMul."""
    product = a * b
    nudged = product + np.where(product >= 0, 1 << 14, 1 - (1 << 14))
    high = np.where(nudged >= 0, nudged >> 15, -(-nudged >> 15))
    return np.where((a == -32768) & (b == -32768), 32767, high)


def _saturating_left_shift16(x: np.ndarray, amount: int) -> np.ndarray:
    return np.clip(x << amount, -32768, 32767)


def _hard_swish(v: np.ndarray) -> np.ndarray:
    return v * np.clip(v + F32(3), F32(0), F32(6)) / F32(6)


@quantized_kernel("HARD_SWISH")
def hard_swish(op: Operator, args: Args, ctx: Any) -> np.ndarray:
    """reference_ops::HardSwish: the input on a 2**7-finer scale, a "reluish" factor in
    [0, 1) from relu6(x + 3) / 6 in Q15, their product rescaled to the output, in int16.
    INT16 (beyond LiteRT): ``x * relu6(x + 3) / 6`` in float32 (:func:`float_unary`)."""
    x = args[0]
    check_types(op, x, (np.uint8, np.int8, np.int16))
    if x.dtype == np.int16:
        return float_unary(op, x, _hard_swish)
    in_scale, in_zp = tensor_params(op, 0)
    out_scale, out_zp = tensor_params(op, 0, output=True)
    hires_scale = F32(1 / 128) * in_scale
    out_multiplier, out_exponent = _int16_multiplier(float(hires_scale / out_scale))
    if out_exponent > 0:
        raise InterpreterError(f"{op.kind}: the output scale is too small (as in LiteRT)")
    relu_multiplier, relu_exponent = _int16_multiplier(float(hires_scale / F32(3 / 32768)))
    hires = (x.astype(np.int64) - in_zp) * (1 << 7)
    preshift = _srdhm16(hires, out_multiplier)
    reluish = hires
    if relu_exponent > 0:
        reluish = _saturating_left_shift16(reluish, relu_exponent - 1)
    reluish = _srdhm16(reluish, relu_multiplier)
    if relu_exponent > 0:
        reluish = _saturating_left_shift16(reluish, 1)
    if relu_exponent < 0:
        reluish = rounding_divide_by_pot(reluish, -relu_exponent)
    reluish = (reluish + (1 << 15)) >> 1
    product = reluish * preshift  # SaturatingDoublingHighMul: truncating, never saturates here
    product = np.where(product >= 0, product >> 15, -(-product >> 15))
    y = rounding_divide_by_pot(product, -out_exponent) + out_zp
    info = np.iinfo(x.dtype)
    return np.clip(y, info.min, info.max).astype(x.dtype)
