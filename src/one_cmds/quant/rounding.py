"""Rounding half away from zero, exactly (quantization.md §4): ``a = |x|; r = floor(a);
r += 1 if a - r >= 0.5``, which stays exact where ``floor(a + 0.5)`` does not."""

from __future__ import annotations

import numpy as np


def round_away(x: np.ndarray | float) -> np.ndarray:
    """``x`` rounded half away from zero, in ``x``'s float type."""
    x = np.asarray(x)
    a = np.abs(x)
    r = np.floor(a)
    r = np.where(a - r >= 0.5, r + 1, r)
    return np.copysign(r, x).astype(x.dtype if x.dtype.kind == "f" else np.float64)
