"""Rounding half away from zero, exactly (quantization.md §4): ``a = |x|; r = floor(a);
r += 1 if a - r >= 0.5``, which stays exact where ``floor(a + 0.5)`` does not."""

from __future__ import annotations

import numpy as np


def round_away(x: np.ndarray | float) -> np.ndarray:
    """``x`` rounded half away from zero, in ``x``'s float type (float64 for integers). Computed
    in place on two arrays: it runs over every weight of a model twice per quantization."""
    x = np.asarray(x)
    if x.dtype.kind != "f":
        x = x.astype(np.float64)
    a = np.abs(x, out=np.empty_like(x))
    r = np.floor(a, out=np.empty_like(x))
    a -= r  # the fraction
    r += a >= 0.5
    return np.copysign(r, x, out=r)
