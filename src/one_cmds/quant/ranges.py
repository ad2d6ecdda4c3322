"""From per-record minima and maxima to one range (quantization.md §3.2): numpy's linear
percentile, or the moving average of chunk extremes."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .errors import QuantizeError
from .options import CalibrationMode, CalibrationOptions


def percentile(values: ArrayLike, p: float) -> np.ndarray | float:
    """numpy's linear-interpolation percentile of ``values`` in float64: of a sequence, or of
    each row of a 2-D array."""
    if not 0 <= p <= 100:
        raise QuantizeError("Percentile must be ranged from 0 to 100")
    v = np.asarray(values, np.float64)
    if v.size == 0:
        raise QuantizeError("no calibration records to take a percentile of")
    found = np.percentile(v, p, axis=-1, method="linear")
    return found if v.ndim > 1 else float(found)


def moving_average(values: ArrayLike, batch: int, const: float, extreme) -> np.ndarray | float:
    """``avg = extreme(v[0:B])``, then ``avg = avg·(1 − const) + extreme(chunk)·const`` over the
    following chunks of ``batch`` records (the last one may be shorter); of a sequence, or of
    each row of a 2-D array."""
    if batch < 1:
        raise QuantizeError("moving_avg_batch must be a positive integer")
    if not 0 <= const <= 1:
        raise QuantizeError("moving_avg_const must be in [0, 1]")
    v = np.asarray(values, np.float64)
    if v.size == 0:
        raise QuantizeError("no calibration records to average")
    alpha = 1.0 - const
    average = extreme(v[..., :batch], axis=-1)
    for start in range(batch, v.shape[-1], batch):
        average = average * alpha + extreme(v[..., start : start + batch], axis=-1) * (1 - alpha)
    return average if v.ndim > 1 else float(average)


def final_ranges(
    mins: np.ndarray, maxs: np.ndarray, options: CalibrationOptions
) -> tuple[np.ndarray, np.ndarray]:
    """The (min, max) of each tensor, a row of per-record ``mins`` and ``maxs`` each, under the
    step's ``mode`` and its parameters, as float32 (``mse``: the extremes, which the clip
    search then narrows). Infinite records (an attention mask of
    -inf) count as float32's lowest or largest value, so that the range stays finite for the
    mask's own handling (``softmax_inputs``)."""
    mins, maxs = _finite(mins), _finite(maxs)
    if options.mode == CalibrationMode.percentile:
        lo = percentile(mins, options.min_percentile)
        hi = percentile(maxs, options.max_percentile)
    elif options.mode == CalibrationMode.mse:
        lo, hi = np.min(mins, axis=-1), np.max(maxs, axis=-1)
    else:
        lo = moving_average(mins, options.moving_avg_batch, options.moving_avg_const, np.min)
        hi = moving_average(maxs, options.moving_avg_batch, options.moving_avg_const, np.max)
    return np.asarray(lo, np.float32), np.asarray(hi, np.float32)


def _finite(values: ArrayLike) -> np.ndarray:
    """``values`` in float64 with ±inf clipped to float32's finite range."""
    limit = float(np.finfo(np.float32).max)
    return np.clip(np.asarray(values, np.float64), -limit, limit)
