"""Quantized element-wise math and SUM, as LiteRT's reference kernels compute them on INT8 /
UINT8 / INT16 tensors.

MAXIMUM, MINIMUM and NEG work on the raw integers (LiteRT neither rescales nor checks the
parameters). ABS and int8 RSQRT requantize with fixed-point multipliers (RSQRT through
gemmlowp's inverse square root); SQRT goes through float32; EXP, LOG and int16 RSQRT look
their result up in LiteRT's tables (256 entries for INT8, 513 interpolated ones for INT16).
SQUARED_DIFFERENCE (INT8) brings both operands to a common scale as ADD does, DIV multiplies
by gemmlowp's fixed-point reciprocal, and SUM rescales the integer sum as MEAN does without
the ``1 / count``.

Beyond LiteRT (which has no such kernels), so that every model the quantizer writes runs:
UINT8 NEG requantizes as ABS does; UINT8 ABS, SQRT, RSQRT, EXP, LOG and SQUARED_DIFFERENCE take
the INT8 arithmetic unchanged
(RSQRT of zero gives the type's maximum); INT16 SQUARED_DIFFERENCE takes it with a left
shift of 1 and a 64-bit square.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...ir import Operator, numpy_dtype
from ..context import InterpreterError
from ..fixedpoint import (
    INT32_MAX,
    count_leading_zeros32,
    multiply_by_quantized_multiplier,
    multiply_by_quantized_multiplier_int64,
    one_over_one_plus_x,
    quantize_multiplier,
    rounding_divide_by_pot,
    saturating_rounding_doubling_high_mul,
    saturating_shift_left,
)
from ..qparams import activation_range, qparams, type_range
from ..registry import Args, quantized_kernel
from .layout import axes_of
from .lookup_tables import Transform, c_float_function, expf, lut8, lut16_table
from .quantized_operands import (
    F32,
    check_types,
    symmetric_int16,
    tensor_params,
    unary_operand,
)
from .reduce import _reduce

_ALL = (np.uint8, np.int8, np.int16)
_SIGNED = (np.int8, np.int16)
_logf = c_float_function("logf", np.log)


def _wrap32(x: np.ndarray) -> np.ndarray:
    """Wrap int64-held values to int32, as C int32 arithmetic does."""
    return np.asarray(x, np.int64).astype(np.int32).astype(np.int64)


def _wrap16(x: np.ndarray) -> np.ndarray:
    return np.asarray(x, np.int64).astype(np.int16).astype(np.int64)


def _lut16(x: np.ndarray, table: np.ndarray) -> np.ndarray:
    """LUTLookup of int16 values with LiteRT's int16 slope: the top 9 bits index, the low 7
    interpolate, and a step of more than 32767 between entries wraps around as in LiteRT
    (``lookup_tables.lut16_lookup`` keeps it exact, which differs there)."""
    x = np.asarray(x, np.int64)
    index = 256 + (x >> 7)
    base = table[index]
    slope = _wrap16(table[index + 1] - base)
    return _wrap16(base + ((slope * (x & 0x7F) + 64) >> 7)).astype(np.int16)


def _same_type_pair(op: Operator, a: np.ndarray, b: np.ndarray, allowed: tuple) -> None:
    check_types(op, a, allowed)
    if b.dtype != a.dtype:
        raise InterpreterError(f"{op.kind}: operands of types {a.dtype} and {b.dtype} differ")


def _saturate(op: Operator, x: np.ndarray) -> np.ndarray:
    info = np.iinfo(numpy_dtype(op.outputs[0].dtype))
    return np.clip(x, info.min, info.max).astype(info.dtype)


# --- raw-value operators -----------------------------------------------------------------


@quantized_kernel("MAXIMUM")
def quantized_maximum(op: Operator, args: Args, ctx: Any) -> np.ndarray:
    """``a > b ? a : b`` on the raw integers, broadcasting (no rescaling, as LiteRT)."""
    a, b = args
    _same_type_pair(op, a, b, _ALL)
    return np.where(a > b, a, b)


@quantized_kernel("MINIMUM")
def quantized_minimum(op: Operator, args: Args, ctx: Any) -> np.ndarray:
    """``a < b ? a : b`` on the raw integers, broadcasting (no rescaling, as LiteRT)."""
    a, b = args
    _same_type_pair(op, a, b, _ALL)
    return np.where(a < b, a, b)


@quantized_kernel("NEG")
def quantized_neg(op: Operator, args: Args, ctx: Any) -> np.ndarray:
    """The raw integers negated in their type (-128 stays -128), parameters ignored, as
    LiteRT's INT8 / INT16 Negate. UINT8 (beyond LiteRT): ``-(q - zp_in)`` rescaled by
    ``s_in / s_out`` as ABS does, plus ``zp_out``, saturated."""
    x = args[0]
    check_types(op, x, _ALL)
    if x.dtype != np.uint8:
        return np.negative(x)
    x, in_scale, in_zp, out_scale, out_zp = unary_operand(op, args, _ALL)
    value = multiply_by_quantized_multiplier(
        in_zp - x.astype(np.int64), *quantize_multiplier(float(in_scale / out_scale))
    )
    return _saturate(op, value + out_zp)


# --- requantizing unary operators ----------------------------------------------------------


@quantized_kernel("ABS")
def quantized_abs(op: Operator, args: Args, ctx: Any) -> np.ndarray:
    """``|q - zp_in|``, rescaled by ``s_in / s_out`` (float32) when the scales differ, plus
    ``zp_out``, saturated."""
    x, in_scale, in_zp, out_scale, out_zp = unary_operand(op, args, _ALL)
    value = np.abs(x.astype(np.int64) - in_zp)
    if in_scale != out_scale:
        value = multiply_by_quantized_multiplier(
            value, *quantize_multiplier(float(in_scale / out_scale))
        )
    return _saturate(op, value + out_zp)


@quantized_kernel("SQRT")
def quantized_sqrt(op: Operator, args: Args, ctx: Any) -> np.ndarray:
    """float32 ``sqrt(s_in * (q - zp_in)) / s_out`` truncated toward zero, plus ``zp_out``,
    saturated; a negative input is an error."""
    x, in_scale, in_zp, out_scale, out_zp = unary_operand(op, args, _ALL)
    real = in_scale * (x.astype(np.int64) - in_zp).astype(F32)
    if np.any(real < 0):
        raise InterpreterError(f"{op.kind}: Sqrt is only defined for non-negative values")
    scaled = np.sqrt(real) / out_scale
    truncated = np.trunc(np.clip(scaled.astype(np.float64), -(2.0**31), 2.0**31 - 1))
    return _saturate(op, truncated.astype(np.int64) + out_zp)


def _inv_sqrt_multiplier_exp(value: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """GetInvSqrtQuantizedMultiplierExp (reverse shift -1) of non-negative int32 values:
    gemmlowp Newton-Raphson in Q3.28; 0 and 1 give (INT32_MAX, 0)."""
    value = np.asarray(value, np.int64)
    small = value <= 1
    v = np.where(small, 2, value)
    shift = np.full(v.shape, 11, np.int64)
    big = v >= 1 << 29
    v = np.where(big, v // 4, v)
    shift += big
    pairs = (count_leading_zeros32(v) - 1) // 2 - 1
    shift -= pairs
    v = v << (2 * pairs)
    half_input = rounding_divide_by_pot(v >> 1, 1)
    srdhm = saturating_rounding_doubling_high_mul
    x = np.full(v.shape, 1 << 28, np.int64)
    half_three = (1 << 28) + (1 << 27)
    for _ in range(5):
        x3 = saturating_shift_left(srdhm(srdhm(x, x), x), 6)
        x = saturating_shift_left(_wrap32(srdhm(half_three, x) - srdhm(half_input, x3)), 3)
    x = srdhm(x, 1518500250)  # sqrt(2) / 2 in Q0.31
    negative = shift < 0
    x = np.where(negative, _wrap32(x << np.maximum(-shift, 0)), x)
    shift = np.where(negative, 0, shift)
    return np.where(small, INT32_MAX, x), np.where(small, 0, -shift)


@quantized_kernel("RSQRT")
def quantized_rsqrt(op: Operator, args: Args, ctx: Any) -> np.ndarray:
    """INT8: the fixed-point inverse square root of ``q - zp_in`` (shifted by 20) rescaled
    by ``1 / (sqrtf(s_in) * s_out)``, the type's maximum at zero; INT16: LiteRT's table of
    ``1 / sqrt``. An input below the zero point is an error."""
    x, in_scale, in_zp, out_scale, out_zp = unary_operand(op, args, _ALL)
    value = x.astype(np.int64) - in_zp
    if np.any(value < 0):
        raise InterpreterError(f"{op.kind}: Rsqrt is only defined for positive values")
    if x.dtype == np.int16:
        ceiling = F32(32767) * out_scale

        def transform(v: np.ndarray) -> np.ndarray:
            return np.where(v <= 0, ceiling, F32(1) / np.sqrt(np.maximum(v, F32(1e-30))))

        return _lut16(x, lut16_table(transform, in_scale, 0, out_scale, 0, F32))
    k_shift = 20
    inv_multiplier, inv_shift = _inv_sqrt_multiplier_exp(value)
    data = multiply_by_quantized_multiplier(1, inv_multiplier, inv_shift + k_shift)
    multiplier, shift = quantize_multiplier(1.0 / float(np.sqrt(in_scale) * out_scale))
    result = multiply_by_quantized_multiplier(data, multiplier, shift - k_shift) + out_zp
    return _saturate(op, np.where(value == 0, np.iinfo(x.dtype).max, result))


def _looked_up(op: Operator, x: np.ndarray, transform: Transform, params: list) -> np.ndarray:
    """``x`` looked up in LiteRT's table of ``transform``: 256 entries (8-bit) or 513
    interpolated ones (INT16); ``params`` are (input scale, zero point, output scale, zero
    point)."""
    if x.dtype != np.int16:
        return lut8(op, x, transform)
    return _lut16(x, lut16_table(transform, *params, F32))


@quantized_kernel("EXP")
def quantized_exp(op: Operator, args: Args, ctx: Any) -> np.ndarray:
    """LiteRT's table of ``expf``: 256 entries (INT8) or 513 interpolated ones (INT16)."""
    x, *params = unary_operand(op, args, _ALL)
    return _looked_up(op, x, expf, params)


@quantized_kernel("LOG")
def quantized_log(op: Operator, args: Args, ctx: Any) -> np.ndarray:
    """LiteRT's table of ``logf``, a non-positive input giving the output type's lowest
    value: 256 entries (INT8) or 513 interpolated ones (INT16)."""
    x, *params = unary_operand(op, args, _ALL)
    _, _, out_scale, out_zp = params
    output_min = F32(np.iinfo(x.dtype).min - out_zp) * out_scale

    def transform(v: np.ndarray) -> np.ndarray:
        return np.where(v <= 0, output_min, _logf(np.maximum(v, F32(1e-30))))

    return _looked_up(op, x, transform, params)


# --- binary arithmetic ---------------------------------------------------------------------


@quantized_kernel("SQUARED_DIFFERENCE")
def quantized_squared_difference(op: Operator, args: Args, ctx: Any) -> np.ndarray:
    """INT8 / UINT8: both operands shifted left by 7 and brought to half the larger scale,
    their difference squared and rescaled by ``(2 max s)^2 / (2^14 s_out)``, saturated.
    INT16: the same with a shift of 1, the square in 64 bits and any output multiplier."""
    a, b = args
    _same_type_pair(op, a, b, _ALL)
    (s1, z1), (s2, z2), (so, zo) = (qparams(op, t) for t in (*op.inputs, op.outputs[0]))
    wide = a.dtype == np.int16
    if wide:
        symmetric_int16(op, (z1, z2, zo))
    left_shift = 1 if wide else 7
    twice_max = 2.0 * max(s1, s2)
    m1, e1 = quantize_multiplier(s1 / twice_max)
    m2, e2 = quantize_multiplier(s2 / twice_max)
    mo, eo = quantize_multiplier(twice_max * twice_max / ((1 << (2 * left_shift)) * so))
    if max(e1, e2) > 0 or (eo > 0 and not wide):
        raise InterpreterError(f"{op.kind}: the output multiplier must be below 1 (LiteRT)")
    x1 = multiply_by_quantized_multiplier((a.astype(np.int64) - z1) << left_shift, m1, e1)
    x2 = multiply_by_quantized_multiplier((b.astype(np.int64) - z2) << left_shift, m2, e2)
    diff = x1 - x2
    if wide:
        result = multiply_by_quantized_multiplier_int64(diff * diff, mo, eo) + zo
    else:
        result = multiply_by_quantized_multiplier(_wrap32(diff * diff), mo, eo) + zo
    return _saturate(op, result)


def _count_leading_sign_bits32(x: np.ndarray) -> np.ndarray:
    """CountLeadingSignBits of int32 values (31 for 0 and -1)."""
    x = np.asarray(x, np.int64)
    return count_leading_zeros32(np.where(x < 0, -x - 1, x)) - 1


def _rounding_divide_by_pot_x86(x: np.ndarray, exponent: np.ndarray) -> np.ndarray:
    """RoundingDivideByPOT as LiteRT's x86 build computes it for any exponent: the int64 mask
    shift counts modulo 64 and the int32 right shift modulo 32 (DIV of a small dividend by
    a large divisor asks for shifts past 31)."""
    x = np.asarray(x, np.int64)
    count = np.asarray(exponent, np.int64) & 63
    mask = np.where(count >= 32, -1, (np.int64(1) << np.minimum(count, 31)) - 1)
    threshold = (mask >> 1) + (x < 0)
    return (x >> (count & 31)) + ((x & mask) > threshold)


@quantized_kernel("DIV")
def quantized_div(op: Operator, args: Args, ctx: Any) -> np.ndarray:
    """DivElementwise: ``(a - za)`` times gemmlowp's reciprocal of ``(b - zb)`` (signs moved
    to the dividend), rescaled by ``sa / (sb * s_out)`` (float32), plus ``z_out``, clamped to
    the activation range. A divisor at its zero point is an error (as LiteRT's ``data[i] !=
    zero_point``; a raw 0 of another zero point is a real value like any other)."""
    a, b = args
    _same_type_pair(op, a, b, _ALL)
    s1, z1 = tensor_params(op, 0)
    s2, z2 = tensor_params(op, 1)
    so, zo = tensor_params(op, 0, output=True)
    if np.any(b == z2):
        raise InterpreterError(f"{op.kind}: division by zero")
    multiplier, shift = quantize_multiplier(float(s1 / (s2 * so)))
    dividend, divisor = np.broadcast_arrays(a.astype(np.int64) - z1, b.astype(np.int64) - z2)
    dividend = np.where(divisor < 0, -dividend, dividend)
    divisor = np.abs(divisor)
    leading = count_leading_zeros32(divisor)
    recip_shift = 31 - leading
    reciprocal = one_over_one_plus_x(((divisor << leading) & 0xFFFFFFFF) - (1 << 31))
    headroom = _count_leading_sign_bits32(dividend)
    quotient = saturating_rounding_doubling_high_mul(dividend << headroom, reciprocal)
    total_shift = shift - recip_shift - headroom
    scaled = saturating_rounding_doubling_high_mul(quotient, multiplier)
    result = _rounding_divide_by_pot_x86(scaled, -total_shift) + zo
    return np.clip(result, *activation_range(op)).astype(a.dtype)


# --- reductions ----------------------------------------------------------------------------


@quantized_kernel("SUM")
def quantized_sum(op: Operator, args: Args, ctx: Any) -> np.ndarray:
    """QuantizedMeanOrSum with ``compute_sum``: ``(sum - zp_in * n)`` (int32) times the
    multiplier of ``s_in / s_out``, plus ``zp_out``, saturated. An empty input gives
    zeros."""
    x = np.asarray(args[0])
    check_types(op, x, _ALL)
    (s_in, z_in), (s_out, z_out) = qparams(op, op.inputs[0]), qparams(op, op.outputs[0])
    if x.dtype == np.int16:
        symmetric_int16(op, (z_in, z_out))
    total = _reduce(op, [x.astype(np.int64), args[1]], np.sum)
    count = int(np.prod([x.shape[a] for a in axes_of(args[1], x.ndim)], dtype=np.int64))
    if x.size == 0:
        return np.zeros(total.shape, x.dtype)
    shifted = _wrap32(total - z_in * count)
    result = multiply_by_quantized_multiplier(shifted, *quantize_multiplier(s_in / s_out))
    return np.clip(result + z_out, *type_range(op.outputs[0])).astype(x.dtype)
