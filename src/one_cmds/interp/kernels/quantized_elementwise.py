"""Quantized element-wise arithmetic (ADD, SUB, MUL) and joins that rescale (CONCATENATION),
as LiteRT's reference kernels compute them on INT8 / UINT8 / INT16 tensors.

ADD and SUB bring both operands to a common scale (offset, left shift 20 — 15 for INT16 —
and a per-input multiplier below 1), add or subtract, then rescale to the output; INT16
with power-of-two scales and ``potScaleInt16`` takes the shift-only path of LSTM cells.
MUL multiplies the offset operands and rescales by ``s1 * s2 / s_out``. Fused activations
clamp in the quantized domain (``activation_range``).
"""

from __future__ import annotations

import math

import numpy as np

from ...ir import Operator
from ..activation import NONE, activation_of
from ..fixedpoint import (
    multiply_by_quantized_multiplier,
    quantize_multiplier,
    round_half_away,
    rounding_divide_by_pot,
)
from ..qparams import activation_range, qparams
from ..registry import Args, quantized_kernel
from .layout import axis_index


def _is_power_of_two(scale: float) -> tuple[bool, int]:
    """CheckedLog2: whether ``scale`` is 2**k (within 1e-3 in the exponent), and k."""
    log2 = math.log2(scale)
    rounded = round(log2)
    return abs(log2 - rounded) < 1e-3, int(rounded)


def _pot_shifts(scales: list[float]) -> tuple[int, int] | None:
    """The right shifts of the INT16 power-of-two path (None unless every scale is 2**k)."""
    checks = [_is_power_of_two(s) for s in scales]
    if not all(ok for ok, _ in checks):
        return None
    (_, e1), (_, e2), (_, eo) = checks
    shifts = (eo - e1, eo - e2)
    if min(shifts) < 0 or 0 not in shifts:
        raise ValueError("power-of-two int16 scales need one input at the output scale")
    return shifts


def _check_symmetric_int16(op: Operator, zero_points: tuple[int, int, int]) -> None:
    """LiteRT's ADD, SUB and MUL take INT16 tensors with zero points of 0 only."""
    if op.outputs[0].dtype == "INT16" and any(zero_points):
        raise ValueError(f"int16 {op.kind} needs zero points of 0, got {list(zero_points)}")


def _add_sub(op: Operator, args: Args, sign: int) -> np.ndarray:
    """ADD (``sign`` 1) or SUB (-1) of two quantized tensors, broadcasting."""
    t1, t2, out = op.inputs[0], op.inputs[1], op.outputs[0]
    (s1, z1), (s2, z2), (so, zo) = (qparams(op, t) for t in (t1, t2, out))
    _check_symmetric_int16(op, (z1, z2, zo))
    if out.dtype == "INT16" and getattr(op.options, "potScaleInt16", False):
        shifts = _pot_shifts([s1, s2, so])
        if shifts is not None:
            a, b = (rounding_divide_by_pot(x, s) for x, s in zip(args[:2], shifts, strict=True))
            return np.clip(a + sign * b, *activation_range(op))
    left_shift = 15 if out.dtype == "INT16" else 20
    twice_max = 2.0 * max(s1, s2)
    m1, e1 = quantize_multiplier(s1 / twice_max)
    m2, e2 = quantize_multiplier(s2 / twice_max)
    mo, eo = quantize_multiplier(twice_max / ((1 << left_shift) * so))
    a = (np.asarray(args[0], np.int64) - z1) << left_shift
    b = (np.asarray(args[1], np.int64) - z2) << left_shift
    total = multiply_by_quantized_multiplier(a, m1, e1) + sign * multiply_by_quantized_multiplier(
        b, m2, e2
    )
    result = multiply_by_quantized_multiplier(total, mo, eo) + zo
    return np.clip(result, *activation_range(op))


@quantized_kernel("ADD")
def quantized_add(op: Operator, args: Args, ctx: object) -> np.ndarray:
    """LiteRT's quantized ADD (general rescaling; INT16 power-of-two path)."""
    return _add_sub(op, args, 1)


@quantized_kernel("SUB")
def quantized_sub(op: Operator, args: Args, ctx: object) -> np.ndarray:
    """LiteRT's quantized SUB (general rescaling; INT16 power-of-two path)."""
    return _add_sub(op, args, -1)


@quantized_kernel("MUL")
def quantized_mul(op: Operator, args: Args, ctx: object) -> np.ndarray:
    """``(a - za) * (b - zb)`` rescaled by ``sa * sb / s_out`` (double), plus the output
    zero point, clamped to the activation range."""
    t1, t2, out = op.inputs[0], op.inputs[1], op.outputs[0]
    (s1, z1), (s2, z2), (so, zo) = (qparams(op, t) for t in (t1, t2, out))
    _check_symmetric_int16(op, (z1, z2, zo))
    multiplier, shift = quantize_multiplier(s1 * s2 / so)
    product = (np.asarray(args[0], np.int64) - z1) * (np.asarray(args[1], np.int64) - z2)
    result = multiply_by_quantized_multiplier(product, multiplier, shift) + zo
    return np.clip(result, *activation_range(op))


@quantized_kernel("CONCATENATION")
def quantized_concatenation(op: Operator, args: Args, ctx: object) -> np.ndarray:
    """UINT8 inputs whose parameters differ from the output's are requantized in float32
    (``round(q * s + bias)`` as ConcatenationWithScaling); INT8 ones must match the output;
    symmetric INT16 ones are joined as they are, scales unchecked, as LiteRT does."""
    out = op.outputs[0]
    if activation_of(op) != NONE:
        raise ValueError("quantized CONCATENATION takes no fused activation")
    axis = axis_index(getattr(op.options, "axis", 0), np.ndim(args[0]))
    so, zo = qparams(op, out)
    parts = []
    for tensor, value in zip(op.inputs, args, strict=True):
        s, z = qparams(op, tensor)
        if out.dtype == "INT16" and (z or zo):
            raise ValueError("INT16 CONCATENATION needs zero points of 0")
        if out.dtype == "INT16" or (np.float32(s) == np.float32(so) and z == zo):
            parts.append(np.asarray(value))
            continue
        if out.dtype != "UINT8":
            raise ValueError(f"{out.dtype} CONCATENATION inputs must share the output's scale")
        scale = np.float32(s) * (np.float32(1.0) / np.float32(so))
        real = np.asarray(value).astype(np.float32) * scale + np.float32(-z) * scale
        parts.append(np.clip(round_half_away(real).astype(np.int64) + zo, 0, 255))
    return np.concatenate(parts, axis=axis)
