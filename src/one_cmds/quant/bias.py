"""Bias quantization (quantization.md §8): ``s_b = float32(s_in · s_w)``,
``q = round(b · float32(1 / float64(s_b)))`` (float32 product), INT32 clamped for uint8
models, INT64 unclamped for int16."""

from __future__ import annotations

import numpy as np

from .rounding import round_away

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1


def bias_scales(input_scale: float, weight_scales: np.ndarray) -> np.ndarray:
    """``float32(s_in · s_w[c])`` for every weight scale."""
    return (np.float32(input_scale) * np.asarray(weight_scales, np.float32)).astype(np.float32)


def quantize_bias(bias: np.ndarray, scales: np.ndarray, dtype: str) -> np.ndarray:
    """The integer bias for bias scales ``scales`` (one, or one per element of the last
    axis): INT32 clamped for "uint8" models, INT64 for "int16" ones; 0 where a scale is 0."""
    b = np.asarray(bias, np.float32)
    s = np.asarray(scales, np.float64)
    with np.errstate(divide="ignore"):
        inverse = np.where(s == 0, 0.0, 1.0 / np.where(s == 0, 1.0, s)).astype(np.float32)
    q = round_away((b * inverse).astype(np.float32)).astype(np.float64)
    if dtype == "int16":
        return q.astype(np.int64)
    return np.clip(q, INT32_MIN, INT32_MAX).astype(np.int32)
