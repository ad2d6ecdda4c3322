"""Weight quantization (quantization.md §7, §24.2): uint8 asymmetric per layer or per channel,
int16 and int8 symmetric; constant operands (§11.3) in the activations' scheme; element
arithmetic in float32, multiplying by float32(1/s)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .qparams import (
    INT8_OFFSET,
    SYMMETRIC_MAX,
    UINT8_MAX,
    Ranges,
    activation_ranges,
    asymmetric_uint8_ranges,
    symmetric_ranges,
)
from .rounding import round_away

# Weight operand index and channel axis of the operators whose weights are quantized.
WEIGHT_CHANNEL_AXIS = {
    "CONV_2D": (1, 0),
    "TRANSPOSE_CONV": (1, 0),
    "DEPTHWISE_CONV_2D": (1, 3),
    "FULLY_CONNECTED": (1, 0),
}


@dataclass(frozen=True)
class QuantizedWeights:
    """Integer values and, per channel (or one for the layer), the ranges used."""

    values: np.ndarray
    ranges: Ranges
    axis: int | None


def _channel_bounds(w: np.ndarray, axis: int | None) -> tuple[np.ndarray, np.ndarray]:
    """The minimum and maximum of ``w`` (one pair) or of each slice along ``axis``."""
    rows = w.reshape(1, -1) if axis is None else np.moveaxis(w, axis, 0).reshape(w.shape[axis], -1)
    return rows.min(axis=1), rows.max(axis=1)


def _broadcast(values: np.ndarray, axis: int | None, rank: int) -> np.ndarray:
    arr = np.asarray(values, np.float32)
    if axis is None:
        return arr.reshape(())
    shape = [1] * rank
    shape[axis] = -1
    return arr.reshape(shape)


def quantize_weights(w: np.ndarray, dtype: str, axis: int | None) -> QuantizedWeights:
    """Quantize float32 weights ``w`` ("uint8" asymmetric; "int16" and "int8" symmetric) over
    the whole tensor (``axis`` None) or per slice along ``axis``."""
    w = np.asarray(w, np.float32)
    lo, hi = _channel_bounds(w, axis)
    ranges = (
        asymmetric_uint8_ranges(lo, hi) if dtype == "uint8" else symmetric_ranges(lo, hi, dtype)
    )
    values = requantize(w, ranges, axis, dtype, asymmetric=dtype == "uint8")
    return QuantizedWeights(values, ranges, axis)


def quantize_constant(c: np.ndarray, dtype: str) -> QuantizedWeights:
    """A float32 constant operand (§11.3) with its own range, as activations of ``dtype`` are
    (int8 asymmetric here, unlike int8 weights)."""
    c = np.asarray(c, np.float32)
    ranges = activation_ranges(*_channel_bounds(c, None), dtype)
    values = requantize(c, ranges, None, dtype, asymmetric=dtype != "int16")
    return QuantizedWeights(values, ranges, None)


def requantize(
    w: np.ndarray, ranges: Ranges, axis: int | None, dtype: str, *, asymmetric: bool
) -> np.ndarray:
    """The integers of float32 ``w`` (clipped to the nudged ranges) under given ranges."""
    w = np.asarray(w, np.float32)
    nudged_min = _broadcast(ranges.nudged_min, axis, w.ndim)
    nudged_max = _broadcast(ranges.nudged_max, axis, w.ndim)
    inverse = _broadcast(np.float32(1.0) / ranges.scale, axis, w.ndim)
    x = np.clip(w, nudged_min, nudged_max, out=np.empty_like(w))  # worked on in place below
    if asymmetric:
        x -= nudged_min
        x *= inverse
        q = np.clip(round_away(x), 0, UINT8_MAX, out=x)
        if dtype == "int8":
            q -= INT8_OFFSET
            return q.astype(np.int8)
        return q.astype(np.uint8)
    k = SYMMETRIC_MAX[dtype]
    x *= inverse
    q = np.clip(round_away(x), -k, k, out=x)
    return q.astype(np.int16 if dtype == "int16" else np.int8)


def fake_quantized(w: np.ndarray, dtype: str, axis: int | None) -> tuple[np.ndarray, Ranges]:
    """Stage 1: the weights quantized then dequantized back to float32, with the ranges."""
    quantized = quantize_weights(w, dtype, axis)
    scale = _broadcast(quantized.ranges.scale, axis, np.ndim(w))
    q = quantized.values.astype(np.float32)
    q *= scale
    if dtype == "uint8":
        q += _broadcast(quantized.ranges.nudged_min, axis, np.ndim(w))
    return q, quantized.ranges
