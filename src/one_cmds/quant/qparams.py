"""Scales and zero points from recorded ranges (quantization.md §5, §6).

Derivations run in float64 from the float32 min/max; the scale and the nudged range are
stored as float32.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import ArrayLike

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


@dataclass(frozen=True)
class Ranges:
    """The ranges of several channels, one element each: float32 ``scale``, ``nudged_min``
    and ``nudged_max``, int64 ``zero_point``, bool ``degenerate``. Indexing gives a
    :class:`Range`."""

    scale: np.ndarray
    zero_point: np.ndarray
    nudged_min: np.ndarray
    nudged_max: np.ndarray
    degenerate: np.ndarray

    def __len__(self) -> int:
        return len(self.scale)

    def __getitem__(self, k: int) -> Range:
        return Range(
            self.scale[k],
            int(self.zero_point[k]),
            self.nudged_min[k],
            self.nudged_max[k],
            bool(self.degenerate[k]),
        )

    def __iter__(self) -> Iterator[Range]:
        return (self[k] for k in range(len(self)))


def _float32_bounds(minimum: ArrayLike, maximum: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """The bounds rounded to float32, then computed with in float64 (1-D)."""
    lo = np.atleast_1d(np.asarray(minimum, np.float32)).astype(np.float64)
    hi = np.atleast_1d(np.asarray(maximum, np.float32)).astype(np.float64)
    return lo, hi


def asymmetric_uint8_ranges(minimum: ArrayLike, maximum: ArrayLike) -> Ranges:
    """The uint8 ranges of [minimum[c], maximum[c]] for every channel c (§5)."""
    lo, hi = _float32_bounds(minimum, maximum)
    rmin, rmax = np.minimum(0.0, lo), np.maximum(0.0, hi)
    positive, negative = lo >= 0, hi < 0
    with np.errstate(divide="ignore", invalid="ignore"):  # the branches np.where drops
        scale = np.where(
            positive, hi / UINT8_MAX, np.where(negative, -lo / UINT8_MAX, (rmax - rmin) / UINT8_MAX)
        )
        zero_point = np.where(
            positive, 0.0, np.where(negative, float(UINT8_MAX), round_away(-rmin / scale))
        )
        small = scale < ASYMMETRIC_FLOOR
        scale = np.where(small, ASYMMETRIC_FLOOR, scale)
        zero_point = np.where(small, round_away(-rmin / scale), zero_point)
    return Ranges(
        scale.astype(np.float32),
        zero_point.astype(np.int64),
        ((0.0 - zero_point) * scale).astype(np.float32),
        ((UINT8_MAX - zero_point) * scale).astype(np.float32),
        lo == hi,
    )


def asymmetric_uint8(minimum: float, maximum: float) -> Range:
    """The uint8 range of [minimum, maximum] (§5)."""
    return asymmetric_uint8_ranges(minimum, maximum)[0]


def asymmetric_int8(minimum: float, maximum: float) -> Range:
    """The int8 range of [minimum, maximum] (§24.2): the uint8 one with every integer moved
    down by 128 (same scale, same nudged range)."""
    return asymmetric_ranges(minimum, maximum, "int8")[0]


def asymmetric_ranges(minimum: ArrayLike, maximum: ArrayLike, dtype: str) -> Ranges:
    """The asymmetric ranges of "uint8" or "int8" (whose integers are uint8's minus 128)."""
    ranges = asymmetric_uint8_ranges(minimum, maximum)
    if dtype == "int8":
        return replace(ranges, zero_point=ranges.zero_point - INT8_OFFSET)
    return ranges


def asymmetric(minimum: float, maximum: float, dtype: str) -> Range:
    """The activation range of "uint8" or "int8"."""
    return asymmetric_ranges(minimum, maximum, dtype)[0]


def activation_ranges(minimum: ArrayLike, maximum: ArrayLike, dtype: str) -> Ranges:
    """§5, §6, §24.2: activations (and constant operands) are asymmetric in uint8 and int8,
    symmetric in int16."""
    if dtype == "int16":
        return symmetric_ranges(minimum, maximum, dtype)
    return asymmetric_ranges(minimum, maximum, dtype)


def activation_range(minimum: float, maximum: float, dtype: str) -> Range:
    """:func:`activation_ranges` of one range."""
    return activation_ranges(minimum, maximum, dtype)[0]


def symmetric_ranges(minimum: ArrayLike, maximum: ArrayLike, dtype: str = "int16") -> Ranges:
    """The symmetric ranges of [minimum[c], maximum[c]] for ``dtype`` "int16" or "int8" (§6)."""
    k = SYMMETRIC_MAX[dtype]
    lo, hi = _float32_bounds(minimum, maximum)
    bound = np.maximum(-np.minimum(0.0, lo), np.maximum(0.0, hi))
    scale = np.maximum(bound / k, SYMMETRIC_FLOOR[dtype])
    return Ranges(
        scale.astype(np.float32),
        np.zeros(len(scale), np.int64),
        (-k * scale).astype(np.float32),
        (k * scale).astype(np.float32),
        lo == hi,
    )


def symmetric(minimum: float, maximum: float, dtype: str = "int16") -> Range:
    """The symmetric range of [minimum, maximum] for ``dtype`` "int16" or "int8" (§6)."""
    return symmetric_ranges(minimum, maximum, dtype)[0]
