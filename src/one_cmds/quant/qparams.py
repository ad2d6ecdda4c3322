"""Scales and zero points from recorded ranges (quantization.md §5, §6).

Derivations run in float64 from the float32 min/max; the scale and the nudged range are
stored as float32.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .rounding import round_away

UINT8_MAX = 255
INT8_OFFSET = 128  # int8 integers are uint8 ones minus 128
SYMMETRIC_MAX = {"int16": 32767, "int8": 127}
SYMMETRIC_FLOOR = {"int16": 1e-8, "int8": 1e-5}
ASYMMETRIC_FLOOR = 1e-5


@dataclass(frozen=True)
class Range:
    """A quantized range: ``scale``, ``zero_point`` and the representable [nudged_min,
    nudged_max]. ``degenerate``: min == max, for which the reference warns."""

    scale: np.float32
    zero_point: int
    nudged_min: np.float32
    nudged_max: np.float32
    degenerate: bool = False


def asymmetric_uint8(minimum: float, maximum: float) -> Range:
    """The uint8 range of [minimum, maximum] (§5)."""
    lo, hi = float(np.float32(minimum)), float(np.float32(maximum))
    rmin, rmax = min(0.0, lo), max(0.0, hi)
    if lo >= 0:
        zero_point, scale = 0, hi / UINT8_MAX
    elif hi < 0:
        zero_point, scale = UINT8_MAX, -lo / UINT8_MAX
    else:  # rmin < 0 <= rmax: the scale is positive
        scale = (rmax - rmin) / UINT8_MAX
        zero_point = int(round_away(-rmin / scale))
    if scale < ASYMMETRIC_FLOOR:
        scale = ASYMMETRIC_FLOOR
        zero_point = int(round_away(-rmin / scale))
    return Range(
        np.float32(scale),
        zero_point,
        np.float32((0 - zero_point) * scale),
        np.float32((UINT8_MAX - zero_point) * scale),
        degenerate=lo == hi,
    )


def asymmetric_int8(minimum: float, maximum: float) -> Range:
    """The int8 range of [minimum, maximum] (§24.2): the uint8 one with every integer moved
    down by 128 (same scale, same nudged range)."""
    r = asymmetric_uint8(minimum, maximum)
    return Range(r.scale, r.zero_point - INT8_OFFSET, r.nudged_min, r.nudged_max, r.degenerate)


def asymmetric(minimum: float, maximum: float, dtype: str) -> Range:
    """The activation range of "uint8" or "int8"."""
    return (
        asymmetric_int8(minimum, maximum) if dtype == "int8" else asymmetric_uint8(minimum, maximum)
    )


def activation_range(minimum: float, maximum: float, dtype: str) -> Range:
    """§5, §6, §24.2: activations (and constant operands) are asymmetric in uint8 and int8,
    symmetric in int16."""
    if dtype == "int16":
        return symmetric(minimum, maximum, dtype)
    return asymmetric(minimum, maximum, dtype)


def symmetric(minimum: float, maximum: float, dtype: str = "int16") -> Range:
    """The symmetric range of [minimum, maximum] for ``dtype`` "int16" or "int8" (§6)."""
    k = SYMMETRIC_MAX[dtype]
    lo, hi = float(np.float32(minimum)), float(np.float32(maximum))
    scale = max(max(-min(0.0, lo), max(0.0, hi)) / k, SYMMETRIC_FLOOR[dtype])
    return Range(
        np.float32(scale), 0, np.float32(-k * scale), np.float32(k * scale), degenerate=lo == hi
    )
